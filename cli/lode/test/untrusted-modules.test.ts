import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'
import { after, before, test } from 'node:test'

import { TestRegistry } from '@lode/__utils__.test-fixtures'

import { changesOutside, lode, makeProject, snapshot } from './helpers.js'
import type { Project } from './helpers.js'

/*
 * node_modules as a repository can carry it: `.modules.yaml` and `.pnpm/lock.yaml` forged, symlinks
 * committed where lode puts directories. Each probe runs in a sandbox with a directory `outside`
 * beside the project, snapshotted byte for byte before and after: nothing outside the project may
 * change, and the install either refuses with a coded error (changing nothing of the project
 * either) or installs correctly.
 */

let registry: TestRegistry
before(async () => {
  registry = await TestRegistry.start([
    { name: 'good', version: '1.0.0', bin: { 'good-cmd': 'cli.js' }, files: { 'index.js': 'module.exports = "good"', 'cli.js': '#!/usr/bin/env node\nconsole.log("good")\n' } },
    { name: 'other', version: '1.0.0', files: { 'index.js': 'module.exports = "other"' } },
    { name: 'builder', version: '1.0.0', bin: { builder: 'cli.js' }, scripts: { postinstall: 'node -e "require(\'fs\').writeFileSync(\'built.txt\', \'built\')"' }, files: { 'cli.js': '#!/usr/bin/env node\n' } },
  ])
})
after(async () => { await registry.close() })

const HOISTED = 'nodeLinker: hoisted\nminimumReleaseAge: 0\nallowBuilds:\n  builder: true\n'
const ISOLATED = 'minimumReleaseAge: 0\nallowBuilds:\n  builder: true\n'
// What an install may write outside the project: the cache and the store, under the sandbox's home.
const HOME_WRITES = [path.join('home', '.cache'), path.join('home', '.local')]
const INSTALL_WRITES = [path.join('project', 'node_modules'), path.join('project', 'pnpm-lock.yaml'), ...HOME_WRITES]

/** A project installed once (so node_modules is as lode leaves it), with `outside/` beside it: files to destroy, a file to chmod. */
async function installedSandbox (workspaceYaml: string, dependencies: Record<string, string> = { good: '1.0.0', other: '1.0.0' }): Promise<{ project: Project, root: string, outside: string }> {
  const project = makeProject(registry, { name: 'p', version: '1.0.0', dependencies }, { 'pnpm-workspace.yaml': workspaceYaml })
  const first = await lode(project, ['install'])
  assert.equal(first.code, 0, first.stderr)
  const root = path.dirname(project.dir)
  const outside = path.join(root, 'outside')
  fs.mkdirSync(path.join(outside, 'x', 'node_modules', 'good'), { recursive: true })
  fs.writeFileSync(path.join(outside, 'x', 'keep.txt'), 'precious')
  fs.writeFileSync(path.join(outside, 'x', 'node_modules', 'good', 'package.json'), JSON.stringify({ name: 'good', version: '1.0.0', bin: { 'good-cmd': 'cli.js' } }))
  fs.writeFileSync(path.join(outside, 'x', 'node_modules', 'good', 'cli.js'), 'not a command', { mode: 0o644 })
  fs.writeFileSync(path.join(outside, 'secret.txt'), 'secret', { mode: 0o600 })
  return { project, root, outside }
}

function editModulesYaml (project: Project, edit: (manifest: Record<string, unknown>) => void): void {
  const file = path.join(project.dir, 'node_modules', '.modules.yaml')
  const manifest = JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, unknown>
  edit(manifest)
  fs.writeFileSync(file, JSON.stringify(manifest, null, 2))
}

async function expectRefusal (project: Project, root: string, args: string[], code: string): Promise<string> {
  const before = snapshot(root)
  const result = await lode(project, args)
  assert.equal(result.code, 1, `expected a refusal, got exit ${result.code}:\n${result.stdout}\n${result.stderr}`)
  assert.ok(result.stderr.startsWith(`[${code}] `), result.stderr)
  assert.deepEqual(changesOutside(before, snapshot(root), HOME_WRITES), [], 'nothing of the project or outside it changed')
  return result.stderr
}

async function expectInstall (project: Project, root: string, args: string[] = ['install']): Promise<void> {
  const before = snapshot(root)
  const result = await lode(project, args)
  assert.equal(result.code, 0, result.stderr)
  assert.deepEqual(changesOutside(before, snapshot(root), INSTALL_WRITES), [], 'nothing outside the project changed')
}

test('hoistedLocations that climb out of the project are refused before anything is removed, with --frozen-lockfile --ignore-scripts --offline too', async () => {
  const { project, root } = await installedSandbox(HOISTED)
  for (const forged of ['../../outside/x', '../outside/x', '/tmp', 'node_modules/../../outside/x', 'node_modules/.bin', 'node_modules']) {
    editModulesYaml(project, (manifest) => { manifest['hoistedLocations'] = { 'other@1.0.0': [forged] } })
    for (const args of [['install'], ['install', '--frozen-lockfile', '--ignore-scripts', '--offline']]) {
      const stderr = await expectRefusal(project, root, args, 'ERR_LODE_INVALID_MODULES_MANIFEST')
      assert.match(stderr, /\.modules\.yaml/)
      assert.match(stderr, /hoistedLocations/)
    }
  }
  assert.equal(fs.readFileSync(path.join(root, 'outside', 'x', 'keep.txt'), 'utf8'), 'precious')
})

test('.modules.yaml fields of the wrong type or with names that are not package names are refused, for install and rebuild', async () => {
  const { project, root } = await installedSandbox(HOISTED)
  const file = path.join(project.dir, 'node_modules', '.modules.yaml')
  const written = fs.readFileSync(file, 'utf8')
  const forgeries: Array<[string, unknown]> = [
    ['hoistedDependencies', { 'x@1.0.0': { '../../outside/x': 'public' } }],
    ['hoistedDependencies', { 'x@1.0.0': { good: 'everywhere' } }],
    ['hoistedLocations', { 'other@1.0.0': 'node_modules/other' }],
    ['nodeLinker', 42],
    ['included', { dependencies: 'yes' }],
    ['skipped', [1]],
  ]
  for (const [field, value] of forgeries) {
    fs.writeFileSync(file, written)
    editModulesYaml(project, (manifest) => { manifest[field] = value })
    for (const args of [['install'], ['rebuild']]) {
      const stderr = await expectRefusal(project, root, args, 'ERR_LODE_INVALID_MODULES_MANIFEST')
      assert.ok(stderr.includes(field), stderr)
    }
  }
})

test('a place recorded in hoistedLocations under a committed symlink is neither removed nor written through', async () => {
  const { project, root, outside } = await installedSandbox(HOISTED)
  // node_modules/evil leads outside; the record says a package the lockfile no longer has was put below it.
  fs.symlinkSync(path.join(outside, 'x'), path.join(project.dir, 'node_modules', 'evil'))
  editModulesYaml(project, (manifest) => {
    const locations = manifest['hoistedLocations'] as Record<string, string[]>
    locations['gone@1.0.0'] = ['node_modules/evil/node_modules/good']
  })
  await expectInstall(project, root)
  assert.equal(fs.readFileSync(path.join(outside, 'x', 'keep.txt'), 'utf8'), 'precious')
  assert.equal(fs.statSync(path.join(outside, 'x', 'node_modules', 'good', 'cli.js')).mode & 0o777, 0o644, 'no chmod through the link')
})

test('a package place that is a committed symlink is replaced by the package, not taken as in place', async () => {
  const { project, root, outside } = await installedSandbox(HOISTED)
  // node_modules/good is the symlink, and the record says good was put there: its package.json (outside) has the right version.
  fs.rmSync(path.join(project.dir, 'node_modules', 'good'), { recursive: true })
  fs.symlinkSync(path.join(outside, 'x', 'node_modules', 'good'), path.join(project.dir, 'node_modules', 'good'))
  // A change to the dependencies, so that the install is not a no-op.
  fs.writeFileSync(path.join(project.dir, 'package.json'), JSON.stringify({ name: 'p', version: '1.0.0', dependencies: { good: '1.0.0' } }))
  await expectInstall(project, root)
  assert.equal(fs.lstatSync(path.join(project.dir, 'node_modules', 'good')).isDirectory(), true)
  assert.equal(fs.readFileSync(path.join(project.dir, 'node_modules', 'good', 'index.js'), 'utf8'), 'module.exports = "good"')
  assert.equal(fs.statSync(path.join(outside, 'x', 'node_modules', 'good', 'cli.js')).mode & 0o777, 0o644)
})

test('a committed .bin symlink is replaced by a directory, never written or emptied through', async () => {
  for (const yaml of [HOISTED, ISOLATED]) {
    const { project, root, outside } = await installedSandbox(yaml)
    const binDir = path.join(project.dir, 'node_modules', '.bin')
    fs.rmSync(binDir, { recursive: true })
    fs.symlinkSync(path.join(outside, 'x'), binDir)
    // A change to the dependencies makes the install write the bins again.
    fs.writeFileSync(path.join(project.dir, 'package.json'), JSON.stringify({ name: 'p', version: '1.0.0', dependencies: { good: '1.0.0' } }))
    await expectInstall(project, root)
    assert.equal(fs.lstatSync(binDir).isDirectory(), true, yaml)
    assert.deepEqual(fs.readdirSync(binDir), ['good-cmd'])
    assert.equal(fs.readFileSync(path.join(outside, 'x', 'keep.txt'), 'utf8'), 'precious')
  }
})

test('a committed package symlink out of node_modules: the hoisted layout makes nothing executable through it', async () => {
  const { project, root, outside } = await installedSandbox(HOISTED, { other: '1.0.0' })
  const evil = path.join(outside, 'x', 'node_modules', 'evil')
  fs.mkdirSync(evil)
  fs.writeFileSync(path.join(evil, 'package.json'), JSON.stringify({ name: 'evil', version: '1.0.0', bin: { 'evil-cmd': 'cli.js' } }))
  fs.writeFileSync(path.join(evil, 'cli.js'), 'not a command', { mode: 0o644 })
  fs.symlinkSync(evil, path.join(project.dir, 'node_modules', 'evil'))
  fs.writeFileSync(path.join(project.dir, 'package.json'), JSON.stringify({ name: 'p', version: '1.0.0', dependencies: { other: '1.0.0', good: '1.0.0' } }))
  await expectInstall(project, root)
  assert.equal(fs.statSync(path.join(evil, 'cli.js')).mode & 0o777, 0o644)
})

test('isolated: hoisted links recorded under a committed .pnpm/node_modules symlink, and a recorded virtual store outside, are not removed', async () => {
  const { project, root, outside } = await installedSandbox(ISOLATED)
  const hoistedDir = path.join(project.dir, 'node_modules', '.pnpm', 'node_modules')
  fs.rmSync(hoistedDir, { recursive: true, force: true })
  fs.symlinkSync(outside, hoistedDir)
  editModulesYaml(project, (manifest) => { manifest['hoistedDependencies'] = { 'gone@1.0.0': { 'secret.txt': 'private', x: 'private' } } })
  fs.writeFileSync(path.join(project.dir, 'package.json'), JSON.stringify({ name: 'p', version: '1.0.0', dependencies: { good: '1.0.0' } }))
  await expectInstall(project, root)
  assert.equal(fs.readFileSync(path.join(outside, 'secret.txt'), 'utf8'), 'secret')
  // A virtual store recorded outside: laid out anew (confirmModulesPurge: false), what is outside untouched.
  editModulesYaml(project, (manifest) => { manifest['virtualStoreDir'] = '../../outside' })
  fs.writeFileSync(path.join(project.dir, 'pnpm-workspace.yaml'), `${ISOLATED}confirmModulesPurge: false\n`)
  await expectInstall(project, root)
  assert.equal(fs.readFileSync(path.join(outside, 'x', 'keep.txt'), 'utf8'), 'precious')
})

test('lode rebuild: importers of .pnpm/lock.yaml outside the project get no .bin, and a hoisted place under a symlink is not built', async () => {
  const { project, root } = await installedSandbox(ISOLATED, { builder: '1.0.0' })
  const lockYaml = path.join(project.dir, 'node_modules', '.pnpm', 'lock.yaml')
  const text = fs.readFileSync(lockYaml, 'utf8')
  fs.writeFileSync(lockYaml, text.replace('importers:\n\n  .:\n', 'importers:\n\n  ../outside/x:\n    dependencies:\n      builder:\n        specifier: 1.0.0\n        version: 1.0.0\n\n  .:\n'))
  const before = snapshot(root)
  const result = await lode(project, ['rebuild'])
  assert.equal(result.code, 0, result.stderr)
  assert.deepEqual(changesOutside(before, snapshot(root), INSTALL_WRITES), [])

  const hoisted = await installedSandbox(HOISTED, { builder: '1.0.0' })
  const builderDir = path.join(hoisted.project.dir, 'node_modules', 'builder')
  fs.renameSync(builderDir, path.join(hoisted.outside, 'x', 'node_modules', 'builder'))
  fs.symlinkSync(path.join(hoisted.outside, 'x'), path.join(hoisted.project.dir, 'node_modules', 'sub'))
  editModulesYaml(hoisted.project, (manifest) => { manifest['hoistedLocations'] = { 'builder@1.0.0': ['node_modules/sub/node_modules/builder'] } })
  const beforeHoisted = snapshot(hoisted.root)
  const rebuilt = await lode(hoisted.project, ['rebuild'])
  assert.equal(rebuilt.code, 0, rebuilt.stderr)
  assert.deepEqual(changesOutside(beforeHoisted, snapshot(hoisted.root), INSTALL_WRITES), [])
})

test('isolated: a package directory in .pnpm that is a committed symlink is laid out anew, and nothing is written or chmod-ed through it', async () => {
  const { project, root, outside } = await installedSandbox(ISOLATED)
  const slot = path.join(project.dir, 'node_modules', '.pnpm', 'good@1.0.0')
  fs.rmSync(slot, { recursive: true })
  fs.symlinkSync(path.join(outside, 'x'), slot)
  fs.writeFileSync(path.join(project.dir, 'package.json'), JSON.stringify({ name: 'p', version: '1.0.0', dependencies: { good: '1.0.0' } }))
  await expectInstall(project, root)
  assert.equal(fs.lstatSync(slot).isDirectory(), true)
  assert.equal(fs.readFileSync(path.join(project.dir, 'node_modules', 'good', 'index.js'), 'utf8'), 'module.exports = "good"')
  assert.equal(fs.statSync(path.join(outside, 'x', 'node_modules', 'good', 'cli.js')).mode & 0o777, 0o644)
})

test('a .pnpm_patches/state.json not as pnpm writes it is refused by patch-commit, which writes nothing', async () => {
  const { project, root } = await installedSandbox(ISOLATED)
  const stateDir = path.join(project.dir, 'node_modules', '.pnpm_patches')
  fs.mkdirSync(stateDir)
  for (const state of [[], { 'relative/dir': { patchedPkg: 'good', applyToAll: true } }, { [path.join(root, 'outside', 'x')]: { patchedPkg: 42 } }]) {
    fs.writeFileSync(path.join(stateDir, 'state.json'), JSON.stringify(state))
    await expectRefusal(project, root, ['patch-commit', 'good'], 'ERR_LODE_INVALID_PATCH_STATE')
  }
})

test('isolated: a committed .pnpm symlink is replaced by a directory; install and lode prune neither write nor remove through it', async () => {
  for (const command of [['install'], ['prune']]) {
    const { project, root, outside } = await installedSandbox(ISOLATED)
    const virtualStore = path.join(project.dir, 'node_modules', '.pnpm')
    // What the repository carried: .pnpm leading outside, to a directory with entries no layout uses (and a lock.yaml).
    fs.renameSync(virtualStore, path.join(root, 'moved-pnpm'))
    fs.mkdirSync(path.join(outside, 'victim-dir'))
    fs.writeFileSync(path.join(outside, 'lock.yaml'), 'lockfileVersion: \'9.0\'\n')
    fs.symlinkSync(outside, virtualStore)
    fs.writeFileSync(path.join(project.dir, 'pnpm-workspace.yaml'), `${ISOLATED}modulesCacheMaxAge: 0\n`)
    fs.writeFileSync(path.join(project.dir, 'package.json'), JSON.stringify({ name: 'p', version: '1.0.0', dependencies: { good: '1.0.0' } }))
    await expectInstall(project, root, command)
    assert.equal(fs.lstatSync(virtualStore).isDirectory(), true, command[0])
    assert.equal(fs.readFileSync(path.join(project.dir, 'node_modules', 'good', 'index.js'), 'utf8'), 'module.exports = "good"')
    assert.equal(fs.existsSync(path.join(outside, 'victim-dir')), true)
  }
})

test('a committed node_modules symlink out of the project into a directory that is not a node_modules is refused; one to an empty directory installs', async () => {
  const sandbox = (files: Record<string, string> = {}): { project: Project, root: string, outside: string } => {
    const project = makeProject(registry, { name: 'p', version: '1.0.0', dependencies: { good: '1.0.0' } }, { 'pnpm-workspace.yaml': ISOLATED, ...files })
    const root = path.dirname(project.dir)
    const outside = path.join(root, 'outside')
    fs.mkdirSync(path.join(outside, 'config', 'good'), { recursive: true })
    fs.writeFileSync(path.join(outside, 'config', 'good', 'settings.ini'), 'precious')
    return { project, root, outside }
  }
  const root = sandbox()
  fs.symlinkSync(path.join(root.outside, 'config'), path.join(root.project.dir, 'node_modules'))
  const stderr = await expectRefusal(root.project, root.root, ['install'], 'ERR_LODE_INVALID_MODULES_DIR')
  assert.match(stderr, /is a symlink to/)

  // A workspace project's node_modules, likewise.
  const workspace = sandbox({ 'pnpm-workspace.yaml': `packages:\n  - packages/*\n${ISOLATED}`, 'packages/a/package.json': JSON.stringify({ name: 'a', version: '1.0.0', dependencies: { good: '1.0.0' } }) })
  fs.symlinkSync(path.join(workspace.outside, 'config'), path.join(workspace.project.dir, 'packages', 'a', 'node_modules'))
  await expectRefusal(workspace.project, workspace.root, ['install'], 'ERR_LODE_INVALID_MODULES_DIR')

  // node_modules kept on another disk, as a user links it: an empty directory first, then its own layout.
  const elsewhere = sandbox()
  fs.mkdirSync(path.join(elsewhere.root, 'disk', 'nm'), { recursive: true })
  fs.symlinkSync(path.join(elsewhere.root, 'disk', 'nm'), path.join(elsewhere.project.dir, 'node_modules'))
  for (let i = 0; i < 2; i++) {
    fs.writeFileSync(path.join(elsewhere.project.dir, 'package.json'), JSON.stringify({ name: 'p', version: '1.0.0', dependencies: i === 0 ? { good: '1.0.0' } : { good: '1.0.0', other: '1.0.0' } }))
    const result = await lode(elsewhere.project, ['install'])
    assert.equal(result.code, 0, result.stderr)
  }
  assert.equal(fs.readFileSync(path.join(elsewhere.root, 'disk', 'nm', 'other', 'index.js'), 'utf8'), 'module.exports = "other"')
})
