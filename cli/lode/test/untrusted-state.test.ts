import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import fs from 'node:fs'
import { createRequire } from 'node:module'
import path from 'node:path'
import { after, before, test } from 'node:test'

import { TestRegistry } from '@lode/__utils__.test-fixtures'

import { changesOutside, defaultStoreDir, isolatedEnv, lode, lodeBin, makeProject, snapshot } from './helpers.js'
import type { Project, RunResult } from './helpers.js'

/*
 * The files lode reads back as its own writing, as a repository (or another user of a shared store)
 * can carry them: lode's state file, pnpm's workspace state, the replay record of the quick path,
 * the install lock, the store's project registry and its global virtual store, the lockfile a
 * deploy cuts down. Each probe runs in a sandbox with a directory `outside` beside the project,
 * snapshotted byte for byte before and after: nothing outside the project may change, and the
 * command either refuses with a coded error or does what it would do without the forged file.
 */

let registry: TestRegistry
before(async () => {
  registry = await TestRegistry.start([
    { name: 'good', version: '1.0.0', manifest: { main: 'index.js' }, files: { 'index.js': 'module.exports = "good"' } },
    { name: 'other', version: '1.0.0', manifest: { main: 'index.js' }, files: { 'index.js': 'module.exports = "other"' } },
  ])
})
after(async () => { await registry.close() })

const MANIFEST = { name: 'p', version: '1.0.0', dependencies: { good: '1.0.0', other: '1.0.0' } }
const WORKSPACE_YAML = 'minimumReleaseAge: 0\n'
const GVS_YAML = 'minimumReleaseAge: 0\nenableGlobalVirtualStore: true\n'
// What an install may write outside the project: the cache, the store and lode's state, under the sandbox's home.
const HOME_WRITES = [path.join('home', '.cache'), path.join('home', '.local')]
const INSTALL_WRITES = [path.join('project', 'node_modules'), path.join('project', 'pnpm-lock.yaml'), ...HOME_WRITES]

const modules = (project: Project, ...rest: string[]): string => path.join(project.dir, 'node_modules', ...rest)

/** A project installed once, with `outside/` beside it: a directory the attack would fill or empty, a secret, a file to chmod. */
async function installedSandbox (workspaceYaml = WORKSPACE_YAML): Promise<{ project: Project, root: string, outside: string }> {
  const project = makeProject(registry, MANIFEST, { 'pnpm-workspace.yaml': workspaceYaml })
  const first = await lode(project, ['install'])
  assert.equal(first.code, 0, first.stderr)
  const root = path.dirname(project.dir)
  const outside = path.join(root, 'outside')
  // Four levels, as the global virtual store's slots (`<scope>/<name>/<version>/<hash>`).
  fs.mkdirSync(path.join(outside, 'x', 'a', 'b', 'c', 'd'), { recursive: true })
  fs.writeFileSync(path.join(outside, 'x', 'keep.txt'), 'precious')
  fs.writeFileSync(path.join(outside, 'x', 'a', 'b', 'c', 'd', 'keep.txt'), 'precious')
  fs.writeFileSync(path.join(outside, 'secret.txt'), 'secret', { mode: 0o600 })
  fs.writeFileSync(path.join(outside, 'pid'), '1')
  return { project, root, outside }
}

/** lode, stopped after `ms` (a forged lock made today's lode wait forever): `code` is -1 then. */
async function lodeWithin (project: Project, args: string[], ms = 20_000): Promise<RunResult> {
  return await new Promise((resolve) => {
    execFile(process.execPath, [lodeBin, ...args, '--reporter=append-only'], { cwd: project.dir, env: isolatedEnv(project.home), timeout: ms }, (err, stdout, stderr) => {
      const code = err === null ? 0 : (err as { killed?: boolean }).killed === true ? -1 : (err as { code: number }).code
      resolve({ code, stdout, stderr })
    })
  })
}

/** The project's dependencies require as they should: the install was a correct one. */
function assertInstalled (project: Project): void {
  const projectRequire = createRequire(path.join(project.dir, 'index.js'))
  assert.equal(projectRequire('good'), 'good')
  assert.equal(projectRequire('other'), 'other')
}

/** Runs `args`; nothing outside what it may write changed, and it either refused with a coded error or installed correctly. */
async function expectSafe (project: Project, root: string, args: string[] = ['install'], mayWrite = INSTALL_WRITES): Promise<RunResult> {
  const before = snapshot(root)
  const result = await lodeWithin(project, args)
  assert.notEqual(result.code, -1, `lode ${args.join(' ')} did not finish:\n${result.stdout}`)
  assert.deepEqual(changesOutside(before, snapshot(root), mayWrite), [], 'nothing outside the project changed')
  assert.equal(fs.readFileSync(path.join(root, 'outside', 'x', 'keep.txt'), 'utf8'), 'precious')
  assert.equal(fs.statSync(path.join(root, 'outside', 'secret.txt')).mode & 0o777, 0o600)
  if (result.code === 0) {
    if (args[0] === 'install' || args[0] === 'prune') assertInstalled(project)
  } else {
    assert.match(result.stderr, /^\[ERR_LODE_[A-Z_]+\] /, `a coded error, not a crash:\n${result.stderr}`)
  }
  return result
}

function readJson (file: string): Record<string, unknown> {
  return JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, unknown>
}

test('lode\'s state file naming paths outside the project, or of the wrong types, is not acted on: the install runs in full', async () => {
  const { project, root } = await installedSandbox()
  const state = readJson(modules(project, '.lode-state.json'))
  const quick = state['quick'] as Record<string, unknown>
  const outsideFile = path.join(root, 'outside', 'secret.txt')
  const stat = fs.statSync(outsideFile)
  const forgeries: Array<Record<string, unknown>> = [
    // Files outside the project, with their true stamps: the record vouches for them alone.
    { ...state, quick: { ...quick, files: ['../outside/secret.txt'], stamps: [[stat.ino, stat.size, stat.mtimeMs, stat.ctimeMs]], dirs: [] } },
    { ...state, quick: { ...quick, files: [outsideFile], stamps: [[stat.ino, stat.size, stat.mtimeMs, stat.ctimeMs]], dirs: [] } },
    { ...state, quick: { ...quick, dirs: [['../outside', fs.statSync(path.join(root, 'outside')).mtimeMs]] } },
    // Wrong types where the quick check iterates.
    { ...state, quick: { ...quick, dirs: 5 } },
    { ...state, quick: { ...quick, files: 'package.json' } },
    { ...state, quick: { ...quick, stamps: [[1, 2]], files: [1] } },
    { ...state, quick: null },
  ]
  for (const forged of forgeries) {
    fs.rmSync(modules(project, 'good'), { recursive: true })
    fs.writeFileSync(modules(project, '.lode-state.json'), JSON.stringify(forged))
    const result = await expectSafe(project, root)
    assert.equal(result.code, 0, `installed in full with ${JSON.stringify(forged.quick)}:\n${result.stderr}`)
  }
  for (const forged of ['null', '[]', '{"__proto__": {"packages": 3}}', '{"packages": "3", "inputs": 5}']) {
    fs.rmSync(modules(project, 'good'), { recursive: true })
    fs.writeFileSync(modules(project, '.lode-state.json'), forged)
    const result = await expectSafe(project, root)
    assert.equal(result.code, 0, result.stderr)
  }
})

test('pnpm\'s workspace state and .modules.yaml of the wrong types are not vouched for: the install runs in full', async () => {
  const { project, root } = await installedSandbox()
  const stateFile = modules(project, '.pnpm-workspace-state-v1.json')
  const modulesYaml = modules(project, '.modules.yaml')
  const pnpmState = readJson(stateFile)
  const yaml = readJson(modulesYaml)
  // Without lode's record, pnpm's is asked: it vouches for the tree lode left.
  fs.rmSync(modules(project, '.lode-state.json'))
  assert.match((await lode(project, ['install'])).stdout, /Already up to date/)
  const forgeries: Array<[state: unknown, modules: unknown]> = [
    [null, yaml],
    [pnpmState, null],
    [{ ...pnpmState, projects: 'abc', validation: { ...pnpmState['validation'] as object, manifests: ['x'] } }, yaml],
    [{ ...pnpmState, settings: [] }, yaml],
    [pnpmState, { ...yaml, virtualStoreDir: 5 }],
    [pnpmState, { ...yaml, storeDir: ['x'] }],
    [pnpmState, { ...yaml, virtualStoreDir: '../../outside/x' }],
  ]
  for (const [state, manifest] of forgeries) {
    fs.rmSync(modules(project, '.lode-state.json'), { force: true })
    fs.rmSync(modules(project, 'good'), { recursive: true, force: true })
    fs.writeFileSync(stateFile, JSON.stringify(state))
    fs.writeFileSync(modulesYaml, JSON.stringify(manifest))
    const result = await expectSafe(project, root)
    // A .modules.yaml the linker refuses is its own coded error; pnpm's record alone never stops an install.
    if (result.code !== 0) assert.match(result.stderr, /\.modules\.yaml|node_modules/)
  }
})

test('a replay record that writes outside node_modules, or through a link it makes, is not written back: the full path installs', async () => {
  const { project, root } = await installedSandbox(GVS_YAML)
  // A record is kept by an install that made node_modules from nothing with the lockfile there.
  fs.rmSync(modules(project), { recursive: true })
  assert.equal((await lode(project, ['install'])).code, 0)
  const replayDir = path.join(project.home, '.local', 'state', 'lode', 'replay')
  const recordFile = path.join(replayDir, fs.readdirSync(replayDir)[0]!)
  const original = readJson(recordFile)
  const file = (name: string): unknown[] => ['f', name, Buffer.from('pwned').toString('base64'), 0o755]
  fs.symlinkSync(path.join(root, 'outside'), path.join(project.dir, 'linked'))
  const forgeries: Array<(trees: Array<{ dir: string, entries: unknown[] }>) => void> = [
    (trees) => { trees[0]!.entries.push(file('../../outside/pwned.txt')) },
    (trees) => { trees[0]!.entries.push(file(path.join(root, 'outside', 'pwned.txt'))) },
    (trees) => { trees[0]!.entries.push(['l', 'evil', '../../outside/x'], file('evil/pwned.txt')) },
    (trees) => { trees[0]!.entries.push(['d', '..'], ['d', '../../outside/made']) },
    (trees) => { trees.push({ dir: '../outside/node_modules', entries: [file('pwned.txt')] }) },
    (trees) => { trees.push({ dir: 'linked/node_modules', entries: [file('pwned.txt')] }) },
    (trees) => { trees[0]!.entries.push(['f', 'big', 5, 'x']) },
    (trees) => { trees[0]!.entries = 'x' as never },
  ]
  for (const forge of forgeries) {
    const record = structuredClone(original) as { trees: Array<{ dir: string, entries: unknown[] }> }
    forge(record.trees)
    fs.writeFileSync(recordFile, JSON.stringify(record))
    fs.rmSync(modules(project), { recursive: true })
    const result = await expectSafe(project, root, ['install'], [...INSTALL_WRITES, path.join('project', 'linked')])
    assert.equal(result.code, 0, result.stderr)
    assert.ok(!fs.existsSync(path.join(root, 'outside', 'node_modules')))
    assert.deepEqual(fs.readdirSync(project.dir).filter((name) => name.includes('.replay-')), [])
  }
})

test('an install lock lode did not write (garbage, a directory, a link out of node_modules) is taken over or refused, never waited on forever', async () => {
  const { project, root } = await installedSandbox()
  const lock = modules(project, '.lode-install.lock')
  const forgeries: Array<() => void> = [
    () => { fs.writeFileSync(lock, 'not a pid') },
    () => { fs.writeFileSync(lock, '-5') },
    () => { fs.writeFileSync(lock, '1'.repeat(100)) },
    () => { fs.symlinkSync(path.join(root, 'outside', 'pid'), lock) },
    () => { fs.symlinkSync(path.join(root, 'outside', 'x'), lock) },
    () => { fs.mkdirSync(lock) },
  ]
  for (const forge of forgeries) {
    for (const args of [['install'], ['prune']]) {
      fs.rmSync(lock, { recursive: true, force: true })
      // Without lode's record the install takes the full path, which takes the lock.
      fs.rmSync(modules(project, '.lode-state.json'), { force: true })
      forge()
      const result = await expectSafe(project, root, args)
      if (result.code !== 0) assert.match(result.stderr, /\.lode-install\.lock/)
    }
  }
  // node_modules itself a link that leads nowhere (today's lode made it again and again, forever).
  fs.rmSync(modules(project), { recursive: true })
  fs.symlinkSync('nowhere', modules(project))
  const result = await expectSafe(project, root)
  assert.match(result.stderr, /^\[ERR_LODE_INVALID_MODULES_DIR\] /)
})

test('store prune: project registrations that are not projects are dropped, not followed', async () => {
  const { project, root, outside } = await installedSandbox()
  const projects = path.join(defaultStoreDir(project), 'v11', 'projects')
  // A file among the links, a registration to a file, one to a directory outside, one relative to it.
  fs.writeFileSync(path.join(projects, `${'0'.repeat(32)}x`), 'not a link')
  fs.symlinkSync(path.join(outside, 'secret.txt'), path.join(projects, 'f'.repeat(32)))
  fs.symlinkSync(path.join(outside, 'x'), path.join(projects, 'e'.repeat(32)))
  fs.symlinkSync('../../../../../../../outside/x', path.join(projects, 'd'.repeat(32)))
  const result = await expectSafe(project, root, ['store', 'prune'], HOME_WRITES)
  assert.equal(result.code, 0, result.stderr)
  assert.ok(!fs.existsSync(path.join(projects, 'f'.repeat(32))), 'the registration of a file is dropped')
  assert.ok(fs.existsSync(path.join(projects, `${'0'.repeat(32)}x`)), 'what is not a registration is left alone')
})

test('store prune: the global virtual store or a file bucket linked out of the store removes nothing outside it', async () => {
  const { project, root, outside } = await installedSandbox()
  const store = path.join(defaultStoreDir(project), 'v11')
  // The global virtual store's directory, or one of the store's file buckets, linked to a directory outside.
  fs.rmSync(path.join(store, 'links'), { recursive: true, force: true })
  fs.symlinkSync(path.join(outside, 'x'), path.join(store, 'links'))
  await expectSafe(project, root, ['store', 'prune'], HOME_WRITES)
  fs.rmSync(path.join(store, 'links'))
  const bucket = fs.readdirSync(path.join(store, 'files'))[0]!
  fs.renameSync(path.join(store, 'files', bucket), path.join(root, 'bucket'))
  fs.symlinkSync(path.join(outside, 'x'), path.join(store, 'files', bucket))
  for (const args of [['store', 'prune'], ['store', 'prune', '--force']]) await expectSafe(project, root, args, HOME_WRITES)
})

test('deploy: a lockfile importer outside the workspace is refused, and nothing is copied from there', async () => {
  const project = makeProject(registry, { name: 'root', version: '1.0.0', private: true }, {
    'pnpm-workspace.yaml': 'packages:\n  - packages/*\nminimumReleaseAge: 0\n',
    'packages/app/package.json': JSON.stringify({ name: 'app', version: '1.0.0', dependencies: { good: '1.0.0' } }),
    'packages/app/index.js': 'module.exports = "app"\n',
  })
  assert.equal((await lode(project, ['install'])).code, 0)
  const root = path.dirname(project.dir)
  fs.mkdirSync(path.join(root, 'outside', 'x'), { recursive: true })
  fs.writeFileSync(path.join(root, 'outside', 'x', 'keep.txt'), 'precious')
  fs.writeFileSync(path.join(root, 'outside', 'secret.txt'), 'secret', { mode: 0o600 })
  fs.writeFileSync(path.join(root, 'outside', 'package.json'), JSON.stringify({ name: 'evil', version: '1.0.0' }))
  // The app's lockfile entry links a dependency to `outside`, and an importer makes it a project to copy.
  const lockfile = fs.readFileSync(path.join(project.dir, 'pnpm-lock.yaml'), 'utf8')
    .replace(/( {2}packages\/app:\n {4}dependencies:\n)/, '$1      outside:\n        specifier: link:../../../outside\n        version: link:../../../outside\n')
    .replace(/\nimporters:\n/, '\nimporters:\n\n  ../outside: {}\n')
  assert.match(lockfile, /link:\.\.\/\.\.\/\.\.\/outside/)
  fs.writeFileSync(path.join(project.dir, 'pnpm-lock.yaml'), lockfile)
  const before = snapshot(root)
  const result = await lodeWithin(project, ['--filter', 'app', 'deploy', path.join(root, 'deployed')])
  assert.deepEqual(changesOutside(before, snapshot(root), HOME_WRITES), [], 'nothing was deployed, nothing outside changed')
  assert.match(result.stderr, /^\[ERR_LODE_[A-Z_]+\] .*pnpm-lock\.yaml/, result.stderr)
  assert.match(result.stderr, /\.\.\/outside/)
})
