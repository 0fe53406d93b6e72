import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'
import { after, before, test } from 'node:test'

import { TestRegistry } from '@lode/__utils__.test-fixtures'

import { cloneProject, lode, makeProject, pnpm, readLockfileText } from './helpers.js'
import type { Project } from './helpers.js'

let registry: TestRegistry
before(async () => {
  registry = await TestRegistry.start([
    { name: 'dep', version: '1.0.0' },
    { name: 'dep', version: '1.1.0' },
    { name: 'dep', version: '2.0.0' },
    { name: 'dep', version: '2.1.0-beta.1' },
    { name: 'other', version: '3.0.0', dependencies: { dep: '^1.0.0' } },
    { name: '@scope/thing', version: '0.4.0' },
    { name: 'tool', version: '5.0.0' },
    { name: 'opt', version: '1.0.0' },
    // Published before npm forbade capitals.
    { name: 'JSONStream', version: '1.3.5' },
    { name: '@Legacy/Thing_1', version: '2.0.0' },
  ])
  registry.setDistTag('dep', 'next', '2.1.0-beta.1')
})
after(async () => { await registry.close() })

const manifestText = (project: Project): string => fs.readFileSync(path.join(project.dir, 'package.json'), 'utf8')
const installedLockfileText = (project: Project): string | null => {
  const file = path.join(project.dir, 'node_modules', '.pnpm', 'lock.yaml')
  return fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : null
}

// Each step runs with both tools on their own copy; package.json and the lockfile must match after each.
async function sameAsPnpm (initial: string, steps: string[][], files: Record<string, string> = {}): Promise<Project> {
  const project = makeProject(registry, {}, files)
  fs.writeFileSync(path.join(project.dir, 'package.json'), initial)
  const lodeProject = cloneProject(project)
  for (const args of steps) {
    await pnpm(project, args)
    const result = await lode(lodeProject, args)
    assert.equal(result.code, 0, `lode ${args.join(' ')}:\n${result.stdout}\n${result.stderr}`)
    assert.equal(manifestText(lodeProject), manifestText(project), `package.json after ${args.join(' ')}`)
    assert.equal(readLockfileText(lodeProject), readLockfileText(project), `pnpm-lock.yaml after ${args.join(' ')}`)
    // node_modules' copy is serialized with pnpm-lock.yaml (once): pnpm's says the same.
    // (pnpm removes it once no dependency is left; lode still writes an empty one, a known difference.)
    const pnpmInstalled = installedLockfileText(project)
    if (pnpmInstalled !== null) assert.equal(installedLockfileText(lodeProject), pnpmInstalled, `node_modules/.pnpm/lock.yaml after ${args.join(' ')}`)
  }
  return lodeProject
}

test('lode add saves what pnpm add saves: a tag or nothing as ^version, ranges and versions as written, aliases, groups', async () => {
  const initial = '{\n    "name": "proj",\n    "version": "1.0.0",\n    "dependencies": {\n        "tool": "5.0.0"\n    }\n}\n'
  const project = await sameAsPnpm(initial, [
    ['add', 'dep'],
    ['add', 'dep@next', '@scope/thing@~0.4.0'],
    ['add', '-D', 'other@3.0.0'],
    ['add', '-E', 'dep@1'],
    ['add', 'my-dep@npm:dep', '-O', 'opt'],
    ['add', '--save-dev', 'tool'],
  ])
  // Node sees what was added.
  assert.equal((JSON.parse(fs.readFileSync(path.join(project.dir, 'node_modules', 'my-dep', 'package.json'), 'utf8')) as { version: string }).version, '2.0.0')
})

test('add saves the picked version in the style of the range given, else of the spec package.json had, as pnpm 11 (1.x, =1.0.0, x, *, >=1, a range of two, -E)', async () => {
  const ranges = ['1.x', '1', '~1', '1.0', '1.1.x', 'x', '*', '>=1.0.0', '=1.0.0', '1.0.0 - 1.1.0', '^1', 'v1.0.0', '=1', 'latest']
  await Promise.all([[], ['-E']].map(async (flags) => {
    for (const range of ranges) await sameAsPnpm('{"name":"p","version":"1.0.0"}', [['add', ...flags, `dep@${range}`]])
  }))
  // Over a spec package.json has: a tag stays; a prerelease takes the old style; a spec given wins over it.
  for (const [previous, step] of [['latest', ['add', 'dep']], ['^1.0.0', ['add', 'dep@next']], ['^1.0.0', ['add', '-E', 'dep@1']], ['>=1', ['add', 'dep@1.x']], ['~1.0.0', ['add', '-E', 'dep']], ['~1.0.0', ['add', 'dep@1']]] as const) {
    await sameAsPnpm(`{"name":"p","version":"1.0.0","dependencies":{"dep":"${previous}"}}`, [[...step]])
  }
})

test('-E and savePrefix from pnpm-workspace.yaml', async () => {
  await sameAsPnpm('{"name":"p","version":"1.0.0"}', [['add', '-E', 'dep'], ['add', 'opt']], { 'pnpm-workspace.yaml': 'savePrefix: "~"\n' })
})

test('add of published names with capitals (JSONStream), alone, with a range and scoped, as pnpm 11 adds them', async () => {
  const project = await sameAsPnpm('{"name":"p","version":"1.0.0"}', [['add', 'JSONStream'], ['add', '@Legacy/Thing_1@^2.0.0'], ['remove', 'JSONStream']])
  assert.equal(fs.existsSync(path.join(project.dir, 'node_modules', '@Legacy', 'Thing_1', 'package.json')), true)
})

test('lode add without a name, with a bad name, and at a workspace root without -w fails clearly and writes nothing', async () => {
  const project = makeProject(registry, { name: 'root', version: '1.0.0' }, { 'pnpm-workspace.yaml': 'packages:\n  - packages/*\n', 'packages/a/package.json': '{"name":"a","version":"1.0.0"}' })
  const before = manifestText(project)
  const none = await lode(project, ['add'])
  assert.equal(none.code, 1)
  assert.match(none.stderr, /ERR_LODE_MISSING_PACKAGE_NAME/)
  const bad = await lode(project, ['add', '-w', 'Not A Name'])
  assert.equal(bad.code, 1)
  assert.match(bad.stderr, /ERR_LODE_INVALID_SPEC/)
  const root = await lode(project, ['add', 'dep'])
  assert.equal(root.code, 1)
  assert.match(root.stderr, /ERR_LODE_ADDING_TO_ROOT/)
  const missing = await lode(project, ['add', '-w', 'dep@9'])
  assert.equal(missing.code, 1)
  assert.equal(manifestText(project), before)
  assert.equal(fs.existsSync(path.join(project.dir, 'pnpm-lock.yaml')), false)
  const added = await lode(project, ['add', '-w', 'dep@1.0.0'])
  assert.equal(added.code, 0, added.stderr)
  assert.equal((JSON.parse(manifestText(project)) as { dependencies: Record<string, string> }).dependencies['dep'], '1.0.0')
  // A workspace whose only project is the root takes it without -w, as pnpm 11 does.
  const rootOnly = makeProject(registry, { name: 'root', version: '1.0.0' }, { 'pnpm-workspace.yaml': 'packages:\n  - .\n' })
  const plain = await lode(rootOnly, ['add', 'dep@1.0.0'])
  assert.equal(plain.code, 0, plain.stderr)
  assert.equal((JSON.parse(manifestText(rootOnly)) as { dependencies: Record<string, string> }).dependencies['dep'], '1.0.0')
})

test('lode remove takes a dependency out of every group, as pnpm remove does; a missing one is a clear error', async () => {
  const initial = '{\n  "name": "proj",\n  "version": "1.0.0",\n  "dependencies": {\n    "other": "3.0.0",\n    "dep": "^1.0.0"\n  },\n  "devDependencies": {\n    "tool": "5.0.0"\n  }\n}\n'
  const project = await sameAsPnpm(initial, [['install'], ['remove', 'dep'], ['rm', 'tool', 'other']])
  assert.equal(fs.existsSync(path.join(project.dir, 'node_modules', 'tool')), false)
  const missing = await lode(project, ['remove', 'nope'])
  assert.equal(missing.code, 1)
  assert.match(missing.stderr, /^\[ERR_LODE_CANNOT_REMOVE_MISSING_DEPS\] Cannot remove 'nope': no such dependency found/)
})

test('lode add inside a workspace project adds to that project, and -w to the root, as pnpm does', async () => {
  const files = { 'pnpm-workspace.yaml': 'packages:\n  - packages/*\n', 'packages/a/package.json': '{\n  "name": "a",\n  "version": "1.0.0"\n}\n' }
  const project = makeProject(registry, { name: 'root', version: '1.0.0' }, files)
  const lodeProject = cloneProject(project)
  const inA = (p: Project): Project => ({ dir: path.join(p.dir, 'packages', 'a'), home: p.home })
  for (const args of [['add', 'dep@^1.0.0'], ['add', '-w', 'opt']]) {
    await pnpm(inA(project), args)
    const result = await lode(inA(lodeProject), args)
    assert.equal(result.code, 0, result.stderr)
    assert.equal(manifestText(inA(lodeProject)), manifestText(inA(project)))
    assert.equal(manifestText(lodeProject), manifestText(project))
    assert.equal(readLockfileText(lodeProject), readLockfileText(project))
  }
  assert.ok(fs.existsSync(path.join(lodeProject.dir, 'packages', 'a', 'node_modules', 'dep', 'package.json')))
  // A directory of the workspace that is no project of it.
  const lockfile = readLockfileText(lodeProject)
  const outside = await lode({ dir: path.join(lodeProject.dir, 'packages'), home: lodeProject.home }, ['add', 'tool'])
  assert.equal(outside.code, 1)
  assert.match(outside.stderr, /^\[ERR_LODE_PROJECT_NOT_FOUND\] There is no project "packages" in the workspace/)
  assert.equal(readLockfileText(lodeProject), lockfile)
})

test('lode update resolves named dependencies again within their ranges and writes what pnpm update writes', async () => {
  const project = makeProject(registry, {}, {})
  fs.writeFileSync(path.join(project.dir, 'package.json'), '{\n  "name": "proj",\n  "version": "1.0.0",\n  "dependencies": {\n    "dep": "1.0.0",\n    "other": "^3.0.0"\n  }\n}\n')
  const lodeProject = cloneProject(project)
  for (const [p, run] of [[project, pnpm], [lodeProject, lode]] as const) {
    assert.equal((await run(p, ['install'])).code, 0)
    fs.writeFileSync(path.join(p.dir, 'package.json'), manifestText(p).replace('"dep": "1.0.0"', '"dep": "^1.0.0"'))
    assert.equal((await run(p, ['install'])).code, 0)
  }
  assert.equal(readLockfileText(lodeProject), readLockfileText(project))
  assert.match(readLockfileText(lodeProject), /dep@1\.0\.0:/)
  await pnpm(project, ['update', 'dep'])
  const result = await lode(lodeProject, ['update', 'dep'])
  assert.equal(result.code, 0, result.stderr)
  assert.equal(manifestText(lodeProject), manifestText(project))
  assert.equal(readLockfileText(lodeProject), readLockfileText(project))
  assert.match(readLockfileText(lodeProject), /dep@1\.1\.0:/)
})

test('the summary names a newer latest beside a direct dependency added below it, as pnpm 11 does: "(2.0.0 is available)"', async () => {
  const project = makeProject(registry, { name: 'p', version: '1.0.0' })
  const lodeProject = cloneProject(project)
  const summary = (stdout: string): string[] => stdout.split('\n').filter((line) => /^[+-] /.test(line))
  for (const args of [['add', 'dep@1.0.0', 'tool'], ['add', '-D', 'other@3.0.0'], ['add', 'dep@next']]) {
    const expected = summary((await pnpm(project, args)).stdout)
    const actual = await lode(lodeProject, args)
    assert.equal(actual.code, 0, actual.stderr)
    assert.deepEqual(summary(actual.stdout), expected, args.join(' '))
  }
  assert.deepEqual(summary((await lode(cloneProject(project), ['add', 'dep@1.1.0'])).stdout), ['- dep 2.1.0-beta.1', '+ dep 1.1.0 (2.0.0 is available)'])
  // Installed from the lockfile, nothing is asked of the registry: no hint, as with pnpm.
  const fresh = cloneProject(lodeProject)
  fs.rmSync(path.join(fresh.dir, 'node_modules'), { recursive: true })
  assert.doesNotMatch((await lode(fresh, ['install', '--frozen-lockfile'])).stdout, /is available/)
})
