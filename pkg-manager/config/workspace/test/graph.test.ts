import assert from 'node:assert/strict'
import { test } from 'node:test'

import { sortProjects, workspaceDependencies, workspaceGraphOptions } from '@lode/pkg-manager.config.workspace'
import type { WorkspaceProject } from '@lode/pkg-manager.config.workspace'

const project = (id: string, manifest: Record<string, unknown>): WorkspaceProject => ({ id, dir: `/w/${id}`, manifest })

test('workspaceDependencies: with linkWorkspacePackages a version or range a project satisfies is an edge (an npm: alias\'s, a catalog entry\'s); never the project itself', () => {
  const projects = [
    project('a', { name: 'a', version: '1.0.0', dependencies: { a: '1.0.0', b: '^2.0.0', c: 'catalog:', alias: 'npm:d@1' } }),
    project('b', { name: 'b', version: '2.1.0' }),
    project('c', { name: 'c', version: '1.0.0' }),
    project('d', { name: 'd', version: '1.5.0', devDependencies: { b: '^3.0.0', c: 'latest' } }),
  ]
  const catalogs = { default: { c: '^1.0.0' } }
  assert.deepEqual(workspaceDependencies(projects, { linkWorkspacePackages: true, catalogs }).get('a'), ['b', 'c', 'd'])
  // A range none satisfies, and a tag, are no edges.
  assert.deepEqual(workspaceDependencies(projects, { linkWorkspacePackages: true, catalogs }).get('d'), [])
  // Without the setting, only workspace:, link: and file: are.
  assert.deepEqual(workspaceDependencies(projects, { catalogs }).get('a'), [])
  assert.deepEqual(sortProjects(projects, workspaceDependencies(projects, { linkWorkspacePackages: 'deep', catalogs })).map((p) => p.id), ['b', 'c', 'd', 'a'])
})

test('workspaceGraphOptions: linkWorkspacePackages and the catalogs of a pnpm-workspace.yaml as read', () => {
  assert.deepEqual(workspaceGraphOptions({ linkWorkspacePackages: true, catalog: { a: '1.0.0', bad: 1 }, catalogs: { tools: { t: '^2' } } }), {
    linkWorkspacePackages: true, catalogs: { tools: { t: '^2' }, default: { a: '1.0.0' } },
  })
  assert.deepEqual(workspaceGraphOptions({ linkWorkspacePackages: 'yes' }), { linkWorkspacePackages: false, catalogs: { default: {} } })
})
