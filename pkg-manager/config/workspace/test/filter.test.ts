import assert from 'node:assert/strict'
import path from 'node:path'
import { test } from 'node:test'

import { cpuMillis } from '@lode/__utils__.test-fixtures'
import { filterProjects, parseProjectSelector, projectChunks, sortProjects, type WorkspaceProject } from '@lode/pkg-manager.config.workspace'

// A workspace graph: app → ui → utils, app → @acme/api (by path), cli → utils (dev), docs alone.
const root = path.resolve('/ws')
function project (id: string, manifest: Record<string, unknown>): WorkspaceProject {
  return { id, dir: id === '.' ? root : path.join(root, id), manifest: { version: '1.0.0', ...manifest } }
}
const projects = [
  project('.', { name: 'root' }),
  project('apps/app', { name: 'app', dependencies: { ui: 'workspace:^', api: 'workspace:../../packages/api' } }),
  project('apps/cli', { name: 'cli', devDependencies: { utils: 'workspace:*' } }),
  project('apps/docs', { name: 'docs', dependencies: { lodash: '^4.0.0' } }),
  project('packages/api', { name: '@acme/api' }),
  project('packages/ui', { name: '@acme/ui', peerDependencies: { react: '*' }, dependencies: { '@acme/utils': 'link:../utils' } }),
  project('packages/utils', { name: '@acme/utils' }),
]
// app's `ui` is an alias for @acme/ui through workspace:@acme/ui@^
projects[1]!.manifest['dependencies'] = { ui: 'workspace:@acme/ui@^', api: 'workspace:../../packages/api' }
projects[2]!.manifest['devDependencies'] = { '@acme/utils': 'workspace:*' }

function ids (selectors: string[], cwd = root): string[] {
  return filterProjects(projects, selectors, cwd).selected.map((p) => p.id)
}

test('a name selects that project', () => {
  assert.deepEqual(ids(['app']), ['apps/app'])
})

test('a glob in the name selects every match', () => {
  assert.deepEqual(ids(['@acme/*']), ['packages/api', 'packages/ui', 'packages/utils'])
})

test('an unscoped name that matches nothing is tried under any scope', () => {
  assert.deepEqual(ids(['utils']), ['packages/utils'])
})

test('name... adds every project it depends on, through aliases, paths and link:', () => {
  assert.deepEqual(ids(['app...']), ['apps/app', 'packages/api', 'packages/ui', 'packages/utils'])
})

test('name^... takes the dependencies only', () => {
  assert.deepEqual(ids(['app^...']), ['packages/api', 'packages/ui', 'packages/utils'])
})

test('...name adds every project that depends on it, devDependencies included', () => {
  assert.deepEqual(ids(['...@acme/utils']), ['apps/app', 'apps/cli', 'packages/ui', 'packages/utils'])
})

test('...^name takes the dependents only', () => {
  assert.deepEqual(ids(['...^@acme/ui']), ['apps/app'])
})

test('{dir} selects the projects under a directory, globs allowed', () => {
  assert.deepEqual(ids(['{apps}']), ['apps/app', 'apps/cli', 'apps/docs'])
  assert.deepEqual(ids(['{packages/u*}']), ['packages/ui', 'packages/utils'])
})

test('./dir is taken relative to the current directory', () => {
  assert.deepEqual(ids(['./ui'], path.join(root, 'packages')), ['packages/ui'])
  assert.deepEqual(ids(['.'], path.join(root, 'apps', 'cli')), ['apps/cli'])
})

test('name{dir} needs both to match', () => {
  assert.deepEqual(ids(['@acme/*{packages/api}']), ['packages/api'])
})

test('! removes matches; only exclusions start from every project but the root', () => {
  assert.deepEqual(ids(['@acme/*', '!@acme/ui']), ['packages/api', 'packages/utils'])
  assert.deepEqual(ids(['!{apps}']), ['packages/api', 'packages/ui', 'packages/utils'])
})

test('selectors that match nothing are reported', () => {
  const result = filterProjects(projects, ['nope', 'app'], root)
  assert.deepEqual(result.unmatched, ['nope'])
  assert.deepEqual(result.selected.map((p) => p.id), ['apps/app'])
})

test('a selector without name or directory, and a git revision, are clear errors', () => {
  assert.throws(() => parseProjectSelector('...', root), { code: 'ERR_LODE_INVALID_FILTER' })
  assert.throws(() => parseProjectSelector('[origin/main]', root), { code: 'ERR_LODE_UNSUPPORTED_FILTER' })
})

test('projects sort after the projects they depend on', () => {
  assert.deepEqual(sortProjects(projects).map((p) => p.id), ['.', 'packages/utils', 'packages/ui', 'packages/api', 'apps/app', 'apps/cli', 'apps/docs'])
})

test('projectChunks groups the projects as pnpm\'s graph sequencer does: each chunk after its dependencies, in the order given; when a cycle leaves none ready, its first project goes alone', () => {
  const fan = [
    { dir: '/w/app', id: 'app', manifest: { name: 'app', dependencies: { lib: 'workspace:^' } } },
    { dir: '/w/lib', id: 'lib', manifest: { name: 'lib' } },
    { dir: '/w/other', id: 'other', manifest: { name: 'other' } },
  ]
  assert.deepEqual(projectChunks(fan).map((chunk) => chunk.map((p) => p.id)), [['lib', 'other'], ['app']])
  const cycle = [
    { dir: '/w/a', id: 'a', manifest: { name: 'a', dependencies: { b: 'workspace:*' } } },
    { dir: '/w/b', id: 'b', manifest: { name: 'b', dependencies: { a: 'workspace:*' } } },
    { dir: '/w/c', id: 'c', manifest: { name: 'c' } },
    { dir: '/w/d', id: 'd', manifest: { name: 'd', dependencies: { c: 'workspace:*' } } },
  ]
  assert.deepEqual(projectChunks(cycle).map((chunk) => chunk.map((p) => p.id)), [['c'], ['d'], ['a'], ['b']])
})

test('found reading the code: a chain of 20,000 projects sorts without overflowing the stack (sortProjects recursed)', () => {
  const projects = Array.from({ length: 20_000 }, (_, i) => ({ dir: `/w/p${i}`, id: `p${i}`, manifest: { name: `p${i}`, dependencies: i === 0 ? {} : { [`p${i - 1}`]: 'workspace:*' } } }))
  const sorted = sortProjects([...projects].reverse())
  assert.equal(sorted[0]!.id, 'p0')
  assert.equal(sorted.at(-1)!.id, 'p19999')
})

test('fuzz finding: a directory selector of many * matches in linear time (its regular expression backtracked for seconds)', async () => {
  const projects: WorkspaceProject[] = [
    { dir: `/w/${'a'.repeat(60)}/x`, id: 'long', manifest: { name: 'long' } },
    { dir: '/w/packages/a', id: 'packages/a', manifest: { name: 'a' } },
    { dir: '/w/packages/b/c', id: 'packages/b/c', manifest: { name: 'c' } },
  ]
  const ms = await cpuMillis(() => { assert.deepEqual(filterProjects(projects, ['{*a*a*a*a*a*a*a*a*b}'], '/w').selected, []) })
  assert.ok(ms < 500, `${ms} ms of CPU`)
  // `*` stays inside a directory, `**` crosses them.
  assert.deepEqual(filterProjects(projects, ['{packages/*}'], '/w').selected.map((p) => p.id), ['packages/a'])
  assert.deepEqual(filterProjects(projects, ['{packages/**}'], '/w').selected.map((p) => p.id), ['packages/a', 'packages/b/c'])
  assert.deepEqual(filterProjects(projects, ['{**/c}'], '/w').selected.map((p) => p.id), ['packages/b/c'])
  assert.deepEqual(filterProjects(projects, ['{*/x}'], '/w').selected.map((p) => p.id), ['long'])
})
