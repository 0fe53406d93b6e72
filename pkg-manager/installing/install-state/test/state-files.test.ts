import assert from 'node:assert/strict'
import { spawn, spawnSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { test } from 'node:test'

import { recordedSegments } from '@lode/core.safe-name'

import { lockProject } from '../src/install-lock.js'
import { upToDateState } from '../src/install-state.js'
import { manifestDigest, pnpmStateVouches, readPnpmWorkspaceState } from '../src/pnpm-workspace-state.js'
import { fileStamp, isRecordedPath, parseInstallState, quickUpToDate } from '../src/quick-check.js'
import { parseReplayRecord, replayFile, replayInstall } from '../src/replay.js'
import { sandbox, snapshot, writePnpmState, writeState } from './helpers.js'
import type { Sandbox } from './helpers.js'

// The files lode reads back as its own, forged as a repository (or another user) can: each is
// checked into a typed value at its reader, and a forged one is never acted on.

const STATE = path.join('node_modules', '.lode-state.json')

test('the rule for recorded paths here is safe-name\'s recordedSegments', () => {
  const paths = ['a', 'a/b', 'packages/a/package.json', '.', '..', '../a', 'a/../b', 'a/./b', 'a//b', '/a', 'C:\\a', 'C:/a', '\\\\server\\a', 'a\0b', '',
    'a/', '/', '.a', 'a..', '...', 'node_modules/.modules.yaml', 'a\\..\\b', 'é/😀', ' ', 5, null, undefined, ['a'], { a: 1 }]
  for (const candidate of paths) {
    assert.equal(isRecordedPath(candidate), recordedSegments(candidate) !== undefined, JSON.stringify(candidate))
  }
})

test('parseInstallState reads what writeInstallState writes, and nothing else', async () => {
  const box = sandbox()
  const state = await writeState(box)
  assert.deepEqual(parseInstallState(fs.readFileSync(path.join(box.dir, STATE))), state)
  const quick = state['quick'] as Record<string, unknown>
  const forgeries: unknown[] = [
    null, [], 'x', 5, {}, { ...state, inputs: 5 }, { ...state, packages: -1 }, { ...state, packages: 1.5 }, { ...state, packages: '3' },
    { ...state, quick: null }, { ...state, quick: [] },
    ...[['../outside/secret.txt'], ['/etc/passwd'], ['a/../../b'], ['a//b'], [''], [5], 'package.json', [['x']]].map((files) => ({ ...state, quick: { ...quick, files, stamps: [null] } })),
    { ...state, quick: { ...quick, stamps: [] } },
    { ...state, quick: { ...quick, stamps: (quick['stamps'] as unknown[]).map(() => [1, 2]) } },
    { ...state, quick: { ...quick, dirs: [['../outside', 1]] } },
    { ...state, quick: { ...quick, dirs: [['/tmp', 1]] } },
    { ...state, quick: { ...quick, dirs: [['packages', '1']] } },
    { ...state, quick: { ...quick, dirs: 5 } },
    { ...state, quick: { ...quick, key: 5 } },
    { ...state, quick: { ...quick, frozenSetting: 'false' } },
  ]
  for (const forged of forgeries) assert.equal(parseInstallState(JSON.stringify(forged)), undefined, JSON.stringify(forged))
  // `__proto__` is an own key of JSON.parse's result: it neither supplies the fields nor changes a prototype.
  assert.equal(parseInstallState('{"__proto__": {"inputs": "x", "packages": 1}}'), undefined)
  assert.equal(parseInstallState('{"inputs": "x", "packages": 1, "__proto__": {"quick": 5}}')?.quick, undefined)
  assert.equal(parseInstallState('{"inputs": "x", "packages": 1'), undefined)
  assert.equal(parseInstallState(Buffer.from([0xff, 0xfe])), undefined)
})

/** A forged state file, its key the real one. */
function forgeState (box: Sandbox, state: Record<string, unknown>, quick: Record<string, unknown>): void {
  fs.writeFileSync(path.join(box.dir, STATE), JSON.stringify({ ...state, quick: { ...(state['quick'] as object), ...quick } }))
}

test('the quick check and the full path\'s state take no record of files outside the project, or of the wrong types, as up to date', async () => {
  const box = sandbox()
  const state = await writeState(box)
  assert.equal(quickUpToDate(box.quick), 0, 'the record lode wrote is up to date')
  const digest = (state['inputs'] as string)
  assert.equal((await upToDateState(box.dir, digest))?.packages, 0)
  const secret = path.join(box.outside, 'secret.txt')
  const stamp = fileStamp(secret)
  const before = snapshot(box.outside)
  for (const files of [['../outside/secret.txt'], [secret]]) {
    forgeState(box, state, { files, stamps: [stamp], dirs: [] })
    assert.equal(quickUpToDate(box.quick), undefined, JSON.stringify(files))
    assert.equal(await upToDateState(box.dir, digest), undefined)
  }
  forgeState(box, state, { dirs: [['../outside', fs.statSync(box.outside).mtimeMs]] })
  assert.equal(quickUpToDate(box.quick), undefined)
  // Paths that name nothing that can be: too long, through a file (found by the fuzzer: the stat threw).
  for (const files of [['x'.repeat(5000)], ['package.json/x']]) {
    forgeState(box, state, { files, stamps: [[1, 2, 3, 4]], dirs: [] })
    assert.equal(quickUpToDate(box.quick), undefined)
    forgeState(box, state, { dirs: [[files[0], 1]] })
    assert.equal(quickUpToDate(box.quick), undefined)
  }
  for (const forged of [{ dirs: 5 }, { files: 'package.json' }, { stamps: [[1, 2]], files: [1] }, { digest: null }]) {
    forgeState(box, state, forged)
    assert.equal(quickUpToDate(box.quick), undefined, JSON.stringify(forged))
    assert.equal(await upToDateState(box.dir, digest), undefined)
  }
  assert.deepEqual(snapshot(box.outside), before)
})

test('the quick check does not write its record through a node_modules that is a symlink', async () => {
  const box = sandbox()
  await writeState(box)
  // Touched, not changed: the check would write new stamps into the record.
  fs.utimesSync(path.join(box.dir, 'package.json'), new Date(), new Date(Date.now() + 5000))
  const modules = path.join(box.dir, 'node_modules')
  fs.renameSync(modules, path.join(box.outside, 'node_modules'))
  fs.symlinkSync(path.join(box.outside, 'node_modules'), modules)
  const before = snapshot(box.outside)
  assert.equal(quickUpToDate(box.quick), undefined)
  assert.deepEqual(snapshot(box.outside), before)
})

/** A replay record of the sandbox's node_modules as writeReplay would keep it, with its state file. */
interface ReplayRecordShape {
  format: number
  key: string
  trees: Array<{ dir: string, entries: unknown[][] }>
  events: unknown[]
}

async function replayable (box: Sandbox): Promise<{ record: ReplayRecordShape, file: string }> {
  await writeState(box)
  const modules = path.join(box.dir, 'node_modules')
  const file = (name: string, mode = 0o644): unknown[] => ['f', name, fs.readFileSync(path.join(modules, name)).toString('base64'), mode]
  const record = {
    format: 1,
    key: box.quick.key,
    trees: [{ dir: 'node_modules', entries: [file('.lode-state.json'), file('.modules.yaml'), ['d', '.bin'], ['f', '.bin/tool', Buffer.from('#!/bin/sh\n').toString('base64'), 0o755]] }],
    events: [{ type: 'up-to-date' }],
  }
  fs.rmSync(modules, { recursive: true })
  return { record, file: replayFile(box.dir, box.env) }
}

test('replayInstall writes back a record of the project\'s node_modules; one that writes outside it, through a link, or of the wrong shape is not written at all', async () => {
  const box = sandbox()
  const { record, file } = await replayable(box)
  fs.mkdirSync(path.dirname(file), { recursive: true })
  fs.writeFileSync(file, JSON.stringify(record))
  assert.deepEqual(replayInstall(box.quick, box.env), [{ type: 'up-to-date' }])
  assert.equal(fs.statSync(path.join(box.dir, 'node_modules', '.bin', 'tool')).mode & 0o777, 0o755)

  fs.symlinkSync(box.outside, path.join(box.dir, 'linked'))
  const pwned = (name: string): unknown[] => ['f', name, Buffer.from('pwned').toString('base64'), 0o755]
  const forgeries: Array<(trees: typeof record.trees) => unknown> = [
    (trees) => trees[0]!.entries.push(pwned('../../outside/pwned.txt')),
    (trees) => trees[0]!.entries.push(pwned(path.join(box.outside, 'pwned.txt'))),
    (trees) => trees[0]!.entries.push(['l', 'evil', box.outside], pwned('evil/pwned.txt')),
    (trees) => trees[0]!.entries.push(['l', 'evil', box.outside], ['d', 'evil/x']),
    (trees) => trees[0]!.entries.push(pwned('.bin/../../../outside/pwned.txt')),
    (trees) => trees[0]!.entries.push(pwned('missing/pwned.txt')),
    (trees) => trees[0]!.entries.push(pwned('.bin/tool')),
    (trees) => trees[0]!.entries.push(['f', 'setuid', '', 0o4755]),
    (trees) => trees[0]!.entries.push(['f', 'bytes', 'not base64!', 0o644]),
    (trees) => trees[0]!.entries.push(['l', 'nul', 'a\0b']),
    (trees) => trees[0]!.entries.push(['x', 'unknown']),
    (trees) => trees[0]!.entries.push('f' as never),
    (trees) => trees.push({ dir: '../outside/node_modules', entries: [pwned('pwned.txt')] }),
    (trees) => trees.push({ dir: path.join(box.outside, 'node_modules'), entries: [] }),
    (trees) => trees.push({ dir: 'linked/node_modules', entries: [pwned('pwned.txt')] }),
    (trees) => trees.push({ dir: 'node_modules/a/node_modules', entries: [] }),
    (trees) => trees.push({ dir: 'node_modules', entries: [] }),
    (trees) => trees.push({ dir: 'missing/node_modules', entries: [] }),
    (trees) => { trees[0]!.entries = 'x' as never },
    (trees) => { trees[0]!.dir = 5 as never },
  ]
  for (const forge of forgeries) {
    fs.rmSync(path.join(box.dir, 'node_modules'), { recursive: true, force: true })
    const forged = structuredClone(record)
    forge(forged.trees)
    fs.writeFileSync(file, JSON.stringify(forged))
    const before = snapshot(box.root)
    assert.equal(replayInstall(box.quick, box.env), undefined, JSON.stringify(forged.trees))
    assert.deepEqual(snapshot(box.root), before, 'nothing written')
  }
  for (const forged of [{ ...record, events: [5] }, { ...record, events: {} }, { ...record, trees: {} }, { ...record, key: 'other' }, { ...record, format: 2 }]) {
    assert.equal(parseReplayRecord(JSON.stringify(forged), box.quick), undefined)
  }
  // A symlink where the tree goes, even one to nothing: the full path decides.
  fs.symlinkSync('nowhere', path.join(box.dir, 'node_modules'))
  fs.writeFileSync(file, JSON.stringify(record))
  assert.equal(replayInstall(box.quick, box.env), undefined)
  assert.equal(fs.readlinkSync(path.join(box.dir, 'node_modules')), 'nowhere')
})

test('pnpm\'s workspace state and .modules.yaml of the wrong types read as no record: pnpm\'s record vouches for nothing then', async () => {
  const box = sandbox()
  await writePnpmState(box)
  const stateFile = path.join(box.dir, 'node_modules', '.pnpm-workspace-state-v1.json')
  const modulesFile = path.join('node_modules', '.modules.yaml')
  const contents = (): Record<string, Uint8Array> => ({
    'package.json': fs.readFileSync(path.join(box.dir, 'package.json')),
    'pnpm-lock.yaml': fs.readFileSync(path.join(box.dir, 'pnpm-lock.yaml')),
    [modulesFile]: fs.readFileSync(path.join(box.dir, modulesFile)),
  })
  const vouches = (): boolean => pnpmStateVouches({ config: box.config, include: { dependencies: true, devDependencies: true, optionalDependencies: true }, contents: contents(), manifestFiles: ['package.json'] })
  assert.equal(vouches(), true, 'the record lode wrote vouches')
  const state = JSON.parse(fs.readFileSync(stateFile, 'utf8')) as Record<string, unknown>
  const validation = state['validation'] as Record<string, unknown>
  assert.ok(readPnpmWorkspaceState(stateFile)?.projects.has(box.dir))
  const forgeries: unknown[] = [
    null, [], 'x', { ...state, filteredInstall: 'false' }, { ...state, projects: 'abc' }, { ...state, projects: [box.dir] }, { ...state, settings: [] },
    { ...state, validation: { ...validation, manifests: ['x'] } }, { ...state, validation: { ...validation, manifests: { '.': 5 } } },
    { ...state, validation: { ...validation, lockfile: 5 } }, { ...state, validation: [] },
    { ...state, settings: { ...state['settings'] as object, registryRoutes: 'x' } },
  ]
  for (const forged of forgeries) {
    fs.writeFileSync(stateFile, JSON.stringify(forged))
    assert.equal(vouches(), false, JSON.stringify(forged))
  }
  fs.writeFileSync(stateFile, '{"filteredInstall": false, "projects": {}, "settings": {}, "__proto__": {"validation": {}}}')
  assert.equal(readPnpmWorkspaceState(stateFile)?.validation, undefined)
  assert.equal(vouches(), false)
  fs.writeFileSync(stateFile, JSON.stringify(state))
  const modules = JSON.parse(fs.readFileSync(path.join(box.dir, modulesFile), 'utf8')) as Record<string, unknown>
  for (const forged of [null, [], { ...modules, virtualStoreDir: 5 }, { ...modules, storeDir: ['x'] }, { ...modules, storeDir: undefined }, { ...modules, virtualStoreDir: '../../outside/x' }]) {
    fs.writeFileSync(path.join(box.dir, modulesFile), JSON.stringify(forged))
    assert.equal(vouches(), false, JSON.stringify(forged))
  }
})

test('an install lock lode did not write is taken over (a file that holds no pid, a symlink, never followed) or refused (anything else)', async () => {
  const box = sandbox()
  const modules = path.join(box.dir, 'node_modules')
  const lockFile = path.join(modules, '.lode-install.lock')
  const take = async (mayWait = false): Promise<void> => {
    const lock = await lockProject(modules, { onWait: (message) => { assert.ok(mayWait, `waited: ${message}`) }, signal: AbortSignal.timeout(10_000) })
    assert.equal(fs.readFileSync(lockFile, 'utf8'), String(process.pid))
    await lock.release({ failed: false })
  }
  const before = snapshot(box.outside)
  for (const forge of [
    () => { fs.writeFileSync(lockFile, 'not a pid') },
    () => { fs.writeFileSync(lockFile, '-5') },
    () => { fs.writeFileSync(lockFile, '1'.repeat(100)) },
    () => { fs.writeFileSync(lockFile, '99999999999') },
    () => { fs.symlinkSync(path.join(box.outside, 'pid'), lockFile) },
    () => { fs.symlinkSync(path.join(box.outside, 'x'), lockFile) },
    () => { fs.symlinkSync('/dev/zero', lockFile) },
  ]) {
    forge()
    await take()
  }
  assert.deepEqual(snapshot(box.outside), before)
  // Left empty by a writer that died before writing its pid: taken over after a while.
  fs.writeFileSync(lockFile, '')
  const started = performance.now()
  await take(true)
  assert.ok(performance.now() - started >= 1000, 'an empty lock is waited on a moment first')
  // A FIFO would block a reader until someone writes to it.
  for (const forge of [() => { fs.mkdirSync(lockFile) }, () => { assert.equal(spawnSync('mkfifo', [lockFile]).status, 0, 'mkfifo is needed for this test') }]) {
    forge()
    await assert.rejects(lockProject(modules, { onWait: () => {} }), (err: Error & { code?: string }) => {
      assert.equal(err.code, 'ERR_LODE_INVALID_INSTALL_LOCK')
      assert.ok(err.message.includes(lockFile), err.message)
      return true
    })
    fs.rmSync(lockFile, { recursive: true })
  }
})

test('a lock held by a live process is waited on; node_modules that cannot be a directory is refused', async () => {
  const box = sandbox()
  const modules = path.join(box.dir, 'node_modules')
  const child = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60_000)'])
  try {
    fs.writeFileSync(path.join(modules, '.lode-install.lock'), String(child.pid))
    const waits: string[] = []
    await assert.rejects(lockProject(modules, { onWait: (message) => waits.push(message), signal: AbortSignal.timeout(500) }), { name: 'AbortError' })
    assert.deepEqual(waits, [`Waiting for another install in ${box.dir} (process ${child.pid}) to finish`])
  } finally {
    child.kill()
  }
  fs.rmSync(modules, { recursive: true })
  for (const forge of [() => { fs.symlinkSync('nowhere', modules) }, () => { fs.writeFileSync(modules, '') }]) {
    forge()
    await assert.rejects(lockProject(modules, { onWait: () => {}, signal: AbortSignal.timeout(5000) }), { code: 'ERR_LODE_INVALID_MODULES_DIR' })
    fs.rmSync(modules)
  }
})

test('a manifest\'s digest is the structural one: byte for byte what earlier installs recorded, whatever the key order', () => {
  const manifest = { name: '@many/p001', version: '1.0.0', private: true, main: 'index.js', dependencies: { zod: '^4.0.0', 'é': 'x' }, list: [1, true, null, 'a'], nested: { b: 2, a: { c: false } }, gone: undefined }
  // Recorded by the digest before it gathered its input (one hash update per value).
  assert.equal(manifestDigest(manifest), '334e2c17d30db22da0bcfbb0d26e697e')
  assert.equal(manifestDigest({}), '5a3590fbe3ffbfe0a65167de3111dcd0')
  assert.equal(manifestDigest([]), '63d63c64950f7d33cf10e33ecc46a9d7')
  assert.equal(manifestDigest('s'), '8289ae9fc6f7ac764425b84e4ab09743')
  const reordered = { nested: { a: { c: false }, b: 2 }, list: [1, true, null, 'a'], dependencies: { 'é': 'x', zod: '^4.0.0' }, main: 'index.js', private: true, version: '1.0.0', name: '@many/p001' }
  assert.equal(manifestDigest(reordered), manifestDigest(manifest))
  assert.notEqual(manifestDigest({ ...manifest, private: false }), manifestDigest(manifest))
})
