import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'
import { after, before, test } from 'node:test'

import { TestRegistry } from '@lode/__utils__.test-fixtures'

import { cloneProject, lode, makeProject, pnpmExactly } from './helpers.js'
import type { Project } from './helpers.js'

let registry: TestRegistry
before(async () => {
  registry = await TestRegistry.start([
    { name: 'leaf', version: '1.0.0' },
    { name: 'devtool', version: '1.0.0' },
  ])
})
after(async () => { await registry.close() })

/**
 * Runs lode with a module hook that records every module Node loads, so a test can tell the quick
 * check (Node's built-ins and the CLI) from the full install path (settings parsed, installer loaded).
 */
async function lodeRecordingModules (
  project: Project,
  args: string[],
  env: Record<string, string> = {}
): Promise<{ stdout: string, code: number, loadedInstaller: boolean, loadedFsStreams: boolean }> {
  const hook = path.join(project.home, 'record-modules.mjs')
  const list = path.join(project.home, 'modules.txt')
  // Node's own modules are listed too (process.moduleLoadList); the hook takes node:fs as lode does, not by `import`.
  fs.writeFileSync(hook, `import { registerHooks } from 'node:module'
const fs = process.getBuiltinModule('node:fs')
const urls = []
registerHooks({ load (url, context, next) { urls.push(url); return next(url, context) } })
process.on('exit', () => { fs.writeFileSync(${JSON.stringify(list)}, [...urls, ...process.moduleLoadList].join('\\n')) })
`)
  const result = await lode(project, args, { ...env, NODE_OPTIONS: `--import ${hook}` })
  const urls = fs.readFileSync(list, 'utf8').split('\n')
  return {
    stdout: result.stdout,
    code: result.code,
    loadedInstaller: urls.some(loadsSettingsParser),
    // What an ESM import of node:fs loads (its facade runs fs's lazy getters): ~19 ms of a no-op's ~110.
    loadedFsStreams: urls.includes('NativeModule internal/fs/streams'),
  }
}

/** The settings parser's module, yaml, or a chunk of the CLI's bundle with the settings parser in it. */
function loadsSettingsParser (url: string): boolean {
  if (url.includes('/pkg-manager/config/settings/dist/src/index.js') || url.includes('/yaml/')) return true
  return url.includes('/cli/lode/dist/bundle/') && fs.readFileSync(new URL(url), 'utf8').includes('function getConfig(')
}

test('the no-op is answered before settings or the installer are loaded; whatever changes the install takes the full path', async () => {
  const project = makeProject(registry, { name: 'root', version: '1.0.0', private: true }, {
    'pnpm-workspace.yaml': 'packages:\n  - packages/*\n',
    'packages/a/package.json': JSON.stringify({ name: 'a', version: '1.0.0', dependencies: { leaf: '1.0.0' }, devDependencies: { devtool: '1.0.0' } }),
  })
  const first = await lode(project, ['install'])
  assert.equal(first.code, 0, first.stderr)

  const quick = await lodeRecordingModules(project, ['install'])
  assert.equal(quick.code, 0)
  assert.match(quick.stdout, /^Already up to date\nDone in \d+ms using lode v/m)
  assert.equal(quick.loadedInstaller, false, 'a no-op loads neither the settings parser nor the installer')
  assert.equal(quick.loadedFsStreams, false, 'nor node:fs by an ESM import (its streams)')
  // From inside a project too: the workspace root's record answers.
  assert.equal((await lodeRecordingModules(project, ['install', '--dir', 'packages/a'])).loadedInstaller, false)

  // A variable the key covers changed: the full path decides (here nothing to do) and records the new key.
  const otherEnv = { XDG_CONFIG_HOME: path.join(project.home, 'elsewhere') }
  const slow = await lodeRecordingModules(project, ['install'], otherEnv)
  assert.match(slow.stdout, /Already up to date/)
  assert.equal(slow.loadedInstaller, true)
  assert.equal((await lodeRecordingModules(project, ['install'], otherEnv)).loadedInstaller, false, 'the next run with the same settings is quick again')

  // A flag that shapes node_modules is part of the key: --prod takes devtool out.
  const prod = await lodeRecordingModules(project, ['install', '--prod'])
  assert.equal(prod.loadedInstaller, true)
  assert.equal(fs.existsSync(path.join(project.dir, 'packages', 'a', 'node_modules', 'devtool')), false)
  assert.equal(fs.existsSync(path.join(project.dir, 'packages', 'a', 'node_modules', 'leaf')), true)

  // A project added to the workspace (its directory's parent changed) is installed.
  fs.mkdirSync(path.join(project.dir, 'packages', 'b'))
  fs.writeFileSync(path.join(project.dir, 'packages', 'b', 'package.json'), JSON.stringify({ name: 'b', version: '1.0.0', dependencies: { leaf: '1.0.0' } }))
  const added = await lodeRecordingModules(project, ['install', '--prod'])
  assert.equal(added.code, 0)
  assert.doesNotMatch(added.stdout, /Already up to date/)
  assert.ok(fs.existsSync(path.join(project.dir, 'packages', 'b', 'node_modules', 'leaf', 'package.json')))

  // A package.json written into an existing directory the globs look through counts as well.
  fs.mkdirSync(path.join(project.dir, 'packages', 'c'))
  assert.match((await lode(project, ['install', '--prod'])).stdout, /Already up to date/)
  fs.writeFileSync(path.join(project.dir, 'packages', 'c', 'package.json'), JSON.stringify({ name: 'c', version: '1.0.0', dependencies: { leaf: '1.0.0' } }))
  const inExisting = await lode(project, ['install', '--prod'])
  assert.doesNotMatch(inExisting.stdout, /Already up to date/)
  assert.ok(fs.existsSync(path.join(project.dir, 'packages', 'c', 'node_modules', 'leaf', 'package.json')))

  // pnpm-workspace.yaml is part of the key, and so is a .npmrc. (Another hoistPattern lays node_modules
  // out anew, which, as with pnpm 11, needs confirmModulesPurge off outside CI.)
  fs.appendFileSync(path.join(project.dir, 'pnpm-workspace.yaml'), 'hoistPattern: []\nconfirmModulesPurge: false\n')
  assert.equal((await lodeRecordingModules(project, ['install', '--prod'])).loadedInstaller, true)
  assert.equal(fs.existsSync(path.join(project.dir, 'node_modules', '.pnpm', 'node_modules', 'leaf')), false, 'the new hoistPattern was applied')
  fs.appendFileSync(path.join(project.dir, '.npmrc'), 'fetch-timeout=70000\n')
  assert.equal((await lodeRecordingModules(project, ['install', '--prod'])).loadedInstaller, true)
  assert.equal((await lodeRecordingModules(project, ['install', '--prod'])).loadedInstaller, false)

  // A manifest's content is compared, not its time.
  const manifest = path.join(project.dir, 'packages', 'a', 'package.json')
  fs.writeFileSync(manifest, JSON.stringify({ name: 'a', version: '1.0.0', dependencies: { leaf: '1.0.0', devtool: '1.0.0' } }))
  const edited = await lode(project, ['install', '--prod'])
  assert.doesNotMatch(edited.stdout, /Already up to date/)
  assert.ok(fs.existsSync(path.join(project.dir, 'packages', 'a', 'node_modules', 'devtool', 'package.json')))
})

test('pnpm-lock.yaml deleted over an intact node_modules: the quick check writes node_modules\' lockfile back, in CI too as pnpm 11; --frozen-lockfile fails', async () => {
  const project = makeProject(registry, { name: 'restore', version: '1.0.0', dependencies: { leaf: '1.0.0' } })
  assert.equal((await lode(project, ['install'])).code, 0)
  const lockfile = path.join(project.dir, 'pnpm-lock.yaml')
  const text = fs.readFileSync(lockfile, 'utf8')

  fs.rmSync(lockfile)
  const restored = await lodeRecordingModules(project, ['install'])
  assert.equal(restored.code, 0)
  assert.match(restored.stdout, /^Already up to date$/m)
  assert.equal(restored.loadedInstaller, false, 'answered by the quick check')
  assert.equal(fs.readFileSync(lockfile, 'utf8'), text, 'the lockfile is back, byte for byte')
  assert.equal((await lodeRecordingModules(project, ['install'])).loadedInstaller, false, 'and the next install is a no-op')

  // In CI, as pnpm 11: only a pnpm-lock.yaml that exists is frozen by CI's default, so node_modules' is written back; --frozen-lockfile fails.
  fs.rmSync(lockfile)
  const pnpmCopy = cloneProject(project)
  const byPnpm = await pnpmExactly(pnpmCopy, ['install'], { CI: 'true' })
  const inCI = await lode(project, ['install'], { CI: 'true' })
  assert.equal(inCI.code, byPnpm.code, inCI.stderr)
  assert.equal(inCI.code, 0)
  assert.equal(fs.readFileSync(lockfile, 'utf8'), fs.readFileSync(path.join(pnpmCopy.dir, 'pnpm-lock.yaml'), 'utf8'))
  fs.rmSync(lockfile)
  const flag = await lode(project, ['install', '--frozen-lockfile'])
  assert.match(flag.stderr, /^\[ERR_LODE_NO_LOCKFILE\]/)
  assert.equal(fs.existsSync(lockfile), false)

  // A manifest changed as well: the full path resolves, starting from node_modules' lockfile.
  fs.writeFileSync(path.join(project.dir, 'package.json'), JSON.stringify({ name: 'restore', version: '1.0.0', dependencies: { leaf: '1.0.0', devtool: '1.0.0' } }))
  const changed = await lodeRecordingModules(project, ['install'])
  assert.equal(changed.code, 0)
  assert.equal(changed.loadedInstaller, true)
  assert.match(fs.readFileSync(lockfile, 'utf8'), /devtool@1\.0\.0/)
  assert.ok(fs.existsSync(path.join(project.dir, 'node_modules', 'devtool', 'package.json')))
})

test('the quick check compares file stamps: a file touched but unchanged stays a no-op, a change hidden behind an old mtime does not', async () => {
  const project = makeProject(registry, { name: 'stamps', version: '1.0.0', dependencies: { leaf: '1.0.0' } })
  assert.equal((await lode(project, ['install'])).code, 0)
  const manifest = path.join(project.dir, 'package.json')
  const state = path.join(project.dir, 'node_modules', '.lode-state.json')
  const stampOf = (): unknown => (JSON.parse(fs.readFileSync(state, 'utf8')) as { quick: { stamps: unknown[] } }).quick.stamps[0]

  // Touched: the content is read and found unchanged, and the new stamp is recorded.
  const before = stampOf()
  const later = new Date(Date.now() + 5000)
  fs.utimesSync(manifest, later, later)
  const touched = await lodeRecordingModules(project, ['install'])
  assert.equal(touched.loadedInstaller, false)
  assert.match(touched.stdout, /^Already up to date$/m)
  assert.notDeepEqual(stampOf(), before)
  assert.equal((await lodeRecordingModules(project, ['install'])).loadedInstaller, false)

  // Changed (same size), its mtime set back: the ctime still moved, so the full path runs.
  const { mtime } = fs.statSync(manifest)
  const text = fs.readFileSync(manifest, 'utf8')
  const edited = text.replace('"version": "1.0.0"', '"version": "1.0.1"')
  assert.ok(edited !== text && edited.length === text.length)
  fs.writeFileSync(manifest, edited)
  fs.utimesSync(manifest, mtime, mtime)
  const changed = await lodeRecordingModules(project, ['install'])
  assert.equal(changed.code, 0)
  assert.equal(changed.loadedInstaller, true)
})
