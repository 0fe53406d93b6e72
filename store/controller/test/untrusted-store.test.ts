import assert from 'node:assert/strict'
import { createHash } from 'node:crypto'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { test } from 'node:test'

import { createCasWriter } from '@lode/store.cafs'

import { pruneGlobalVirtualStore, pruneStore, registerProject, registeredProjects } from '../src/index.js'

// A store shared with others (or a directory in it replaced) is input: its registrations, its
// global virtual store and its file buckets are walked and removed from. Nothing outside the store
// may go, whatever links were put there.

/** A store with one file, and `outside/` beside it: a project-like tree four levels deep (as slots are) and loose files. */
function sandbox (): { root: string, storeDir: string, outside: string } {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'lode-untrusted-store-'))
  const storeDir = path.join(root, 'store')
  createCasWriter(storeDir, { now: Date.now }).addFile(Buffer.from('stored'), 0o644)
  const outside = path.join(root, 'outside')
  fs.mkdirSync(path.join(outside, 'a', 'b', 'c', 'd', 'node_modules'), { recursive: true })
  fs.writeFileSync(path.join(outside, 'a', 'b', 'c', 'd', 'keep.txt'), 'precious')
  fs.writeFileSync(path.join(outside, 'keep.txt'), 'precious')
  return { root, storeDir, outside }
}

function snapshot (root: string): string[] {
  return fs.readdirSync(root, { recursive: true, encoding: 'utf8' }).sort().map((entry) => {
    const full = path.join(root, entry)
    const stat = fs.lstatSync(full)
    if (stat.isSymbolicLink()) return `${entry} -> ${fs.readlinkSync(full)}`
    return stat.isFile() ? `${entry} ${createHash('sha256').update(fs.readFileSync(full)).digest('hex')}` : `${entry}/`
  })
}

function assertInvalidStoreDir (dir: string): (err: Error & { code?: string }) => boolean {
  return (err) => {
    assert.equal(err.code, 'ERR_LODE_INVALID_STORE_DIR')
    assert.ok(err.message.includes(dir), err.message)
    return true
  }
}

test('registrations: only links named as pnpm names them are read; one to a file or to nothing is dropped, the rest left alone', async () => {
  const { root, storeDir, outside } = sandbox()
  const project = path.join(root, 'project')
  fs.mkdirSync(project)
  await registerProject(storeDir, project)
  const registry = path.join(storeDir, 'v11', 'projects')
  fs.symlinkSync(path.join(outside, 'keep.txt'), path.join(registry, 'f'.repeat(32)))
  fs.symlinkSync(path.join(outside, 'gone'), path.join(registry, 'e'.repeat(32)))
  fs.symlinkSync(path.join(outside, 'gone'), path.join(registry, 'not-a-registration'))
  fs.writeFileSync(path.join(registry, 'd'.repeat(32)), 'a file')
  const said: string[] = []
  assert.deepEqual(await registeredProjects(storeDir, (message) => said.push(message)), [fs.realpathSync(project)])
  assert.deepEqual(said.sort(), [`Removed stale project registry entry: ${path.join(outside, 'gone')}`, `Removed stale project registry entry: ${path.join(outside, 'keep.txt')}`])
  const left = fs.readdirSync(registry)
  assert.ok(!left.includes('f'.repeat(32)) && !left.includes('e'.repeat(32)), 'the stale registrations went')
  assert.ok(left.includes('d'.repeat(32)) && left.includes('not-a-registration'), 'what is not a registration stays')
  assert.equal(fs.readFileSync(path.join(outside, 'keep.txt'), 'utf8'), 'precious')
})

test('a registry, global virtual store or file directory that is a symlink out of the store is refused before anything in it is removed or written', async () => {
  const { root, storeDir, outside } = sandbox()
  const project = path.join(root, 'project')
  fs.mkdirSync(project)
  const store = path.join(storeDir, 'v11')
  const before = snapshot(outside)
  fs.mkdirSync(path.join(store, 'links', '@', 'x', '1.0.0', 'hash'), { recursive: true })
  fs.symlinkSync(outside, path.join(store, 'projects'))
  // The outside tree holds a dangling link named as a registration: a prune would remove it.
  fs.symlinkSync(path.join(root, 'gone'), path.join(outside, 'a'.repeat(32)))
  const withLink = snapshot(outside)
  await assert.rejects(registeredProjects(storeDir, () => {}), assertInvalidStoreDir(path.join(store, 'projects')))
  await assert.rejects(registerProject(storeDir, project), assertInvalidStoreDir(path.join(store, 'projects')))
  await assert.rejects(pruneGlobalVirtualStore(storeDir, () => {}), assertInvalidStoreDir(path.join(store, 'projects')))
  assert.deepEqual(snapshot(outside), withLink)
  fs.rmSync(path.join(store, 'projects'))
  fs.rmSync(path.join(outside, 'a'.repeat(32)))
  fs.rmSync(path.join(store, 'links'), { recursive: true })

  // The slots' directory: a prune removes every directory four levels down that no project reaches.
  await registerProject(storeDir, project)
  fs.symlinkSync(outside, path.join(store, 'links'))
  await assert.rejects(pruneGlobalVirtualStore(storeDir, () => {}), assertInvalidStoreDir(path.join(store, 'links')))
  assert.deepEqual(snapshot(outside), before)
  fs.rmSync(path.join(store, 'links'))

  // The files' directory: a prune unlinks every file there with one link.
  fs.renameSync(path.join(store, 'files'), path.join(root, 'files'))
  fs.symlinkSync(outside, path.join(store, 'files'))
  await assert.rejects(pruneStore(storeDir, { force: true, inUse: [], onWarning: () => {} }), assertInvalidStoreDir(path.join(store, 'files')))
  assert.deepEqual(snapshot(outside), before)
})

test('a file bucket that is a symlink is alien: reported, with --force the link removed, and nothing listed through it', async () => {
  const { root, storeDir, outside } = sandbox()
  const files = path.join(storeDir, 'v11', 'files')
  const bucket = fs.readdirSync(files)[0]!
  fs.renameSync(path.join(files, bucket), path.join(root, 'bucket'))
  fs.symlinkSync(path.join(outside, 'a', 'b', 'c', 'd'), path.join(files, bucket))
  const before = snapshot(outside)
  const warnings: string[] = []
  const result = await pruneStore(storeDir, { force: false, inUse: [], onWarning: (message) => warnings.push(message) })
  assert.deepEqual(result, { files: 0, bytes: 0, packages: 0 })
  assert.deepEqual(warnings, [`An alien file is present in the store: ${path.join(files, bucket)}`])
  assert.deepEqual(snapshot(outside), before)
  await pruneStore(storeDir, { force: true, inUse: [], onWarning: () => {} })
  assert.ok(!fs.existsSync(path.join(files, bucket)), 'the link is removed')
  assert.deepEqual(snapshot(outside), before)
})
