import assert from 'node:assert/strict'
import { test } from 'node:test'

import { linkableFromWorkspace, workspaceMatch } from '../src/workspace-match.js'

const PROJECTS = [
  { name: 'lib', version: '1.2.0', dir: '/w/lib' },
  { name: 'lib', version: '2.0.0-rc.1', dir: '/w/lib-next' },
  { name: 'tool', version: '3.0.0', dir: '/w/tool' },
  { name: undefined, version: undefined, dir: '/w/nameless' },
]

test('workspaceMatch: the highest project version a range takes; `*`, `^`, `~` and tags any, prereleases too', () => {
  assert.equal(workspaceMatch({ type: 'range', name: 'lib', range: '^1.0.0' }, PROJECTS)?.dir, '/w/lib')
  assert.equal(workspaceMatch({ type: 'range', name: 'lib', range: '*' }, PROJECTS)?.dir, '/w/lib-next')
  assert.equal(workspaceMatch({ type: 'tag', name: 'lib', tag: 'latest' }, PROJECTS)?.dir, '/w/lib-next')
  assert.equal(workspaceMatch({ type: 'version', name: 'tool', version: '3.0.0' }, PROJECTS)?.dir, '/w/tool')
  assert.equal(workspaceMatch({ type: 'version', name: 'tool', version: '1.0.0' }, PROJECTS), undefined)
  assert.equal(workspaceMatch({ type: 'range', name: 'other', range: '*' }, PROJECTS), undefined)
})

test('linkableFromWorkspace: locked at the very version a project has, which the spec (or its npm: alias) takes; not a tag, a path, a link', () => {
  assert.equal(linkableFromWorkspace('lib', '^1.0.0', '1.2.0', PROJECTS), true)
  assert.equal(linkableFromWorkspace('lib', '^1.0.0', '1.2.0(react@18.0.0)', PROJECTS), true)
  assert.equal(linkableFromWorkspace('alias', 'npm:tool@3.0.0', 'tool@3.0.0', PROJECTS), true)
  // A newer registry version locked: pnpm keeps it (preferWorkspacePackages aside).
  assert.equal(linkableFromWorkspace('lib', '^1.0.0', '1.5.0', PROJECTS), false)
  assert.equal(linkableFromWorkspace('tool', '2.0.0', '2.0.0', PROJECTS), false)
  assert.equal(linkableFromWorkspace('tool', 'latest', '3.0.0', PROJECTS), false)
  assert.equal(linkableFromWorkspace('tool', 'workspace:*', 'link:../tool', PROJECTS), false)
  assert.equal(linkableFromWorkspace('tool', '^3.0.0', 'link:../tool', PROJECTS), false)
  assert.equal(linkableFromWorkspace('tool', 'not a spec\u0000', '3.0.0', PROJECTS), false)
})
