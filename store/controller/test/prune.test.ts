import assert from 'node:assert/strict'
import { createHash } from 'node:crypto'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { test } from 'node:test'

import { createCasWriter } from '@lode/store.cafs'
import { StoreIndex, createPackageFilesIndex, storeIndexKey } from '@lode/store.index'

import { modifiedPackages, prettyBytes, pruneStore, registerProject, registeredProjects } from '../src/index.js'

test('pruneStore removes the files nothing links to and the rows of packages whose package.json went; linked files stay', async () => {
  const storeDir = fs.mkdtempSync(path.join(os.tmpdir(), 'lode-prune-'))
  const cas = createCasWriter(storeDir, { now: Date.now })
  const index = new StoreIndex(storeDir)
  const files = (name: string): Map<string, ReturnType<typeof cas.addFile>> => new Map([
    ['package.json', cas.addFile(Buffer.from(JSON.stringify({ name, version: '1.0.0' })), 0o644)],
    ['index.js', cas.addFile(Buffer.from(`module.exports = ${JSON.stringify(name)}`), 0o644)],
  ])
  const kept = files('kept')
  const gone = files('gone')
  index.queueWrite(storeIndexKey('sha512-kept', 'kept@1.0.0'), createPackageFilesIndex(kept, { name: 'kept', version: '1.0.0' }))
  index.queueWrite(storeIndexKey('sha512-gone', 'gone@1.0.0'), createPackageFilesIndex(gone, { name: 'gone', version: '1.0.0' }))
  index.close()
  // `kept` is installed: its files are hard links in a package directory.
  const installed = fs.mkdtempSync(path.join(os.tmpdir(), 'lode-installed-'))
  for (const [file, info] of kept) fs.linkSync(path.join(storeDir, 'v11', 'files', info.digest.slice(0, 2), info.digest.slice(2)), path.join(installed, file))
  fs.mkdirSync(path.join(storeDir, 'v11', 'tmp', 'left-by-a-crash'), { recursive: true })

  const result = await pruneStore(storeDir, { force: false, inUse: [], onWarning: (message) => { assert.fail(message) } })
  const goneBytes = [...gone.values()].reduce((sum, info) => sum + info.size, 0)
  assert.deepEqual(result, { files: 2, bytes: goneBytes, packages: 1 })
  assert.equal(fs.existsSync(path.join(storeDir, 'v11', 'tmp')), false)
  const after = new StoreIndex(storeDir)
  assert.deepEqual([...after.all()].map(([key]) => key), [storeIndexKey('sha512-kept', 'kept@1.0.0')])
  after.close()
  assert.deepEqual(await modifiedPackages(storeDir, [{ id: 'kept@1.0.0', indexKey: storeIndexKey('sha512-kept', 'kept@1.0.0'), dir: installed }]), [])
  fs.appendFileSync(path.join(installed, 'index.js'), '\n')
  assert.deepEqual(await modifiedPackages(storeDir, [{ id: 'kept@1.0.0', indexKey: storeIndexKey('sha512-kept', 'kept@1.0.0'), dir: installed }]), ['kept@1.0.0'])
})

test('prettyBytes prints sizes as pnpm does', () => {
  assert.deepEqual([0, 1, 999, 1000, 2610, 15_500, 1_234_567].map(prettyBytes), ['0 B', '1 B', '999 B', '1 kB', '2.61 kB', '15.5 kB', '1.23 MB'])
})

test('pruneStore keeps the files of the packages in use (by index key), though nothing links to them', async () => {
  const storeDir = fs.mkdtempSync(path.join(os.tmpdir(), 'lode-prune-'))
  const cas = createCasWriter(storeDir, { now: Date.now })
  const index = new StoreIndex(storeDir)
  const copied = new Map([['package.json', cas.addFile(Buffer.from('{"name":"copied","version":"1.0.0"}'), 0o644)], ['bin.js', cas.addFile(Buffer.from('#!/usr/bin/env node\n'), 0o755)]])
  const unused = new Map([['package.json', cas.addFile(Buffer.from('{"name":"unused","version":"1.0.0"}'), 0o644)]])
  index.queueWrite(storeIndexKey('sha512-copied', 'copied@1.0.0'), createPackageFilesIndex(copied, { name: 'copied', version: '1.0.0' }))
  index.queueWrite(storeIndexKey('sha512-unused', 'unused@1.0.0'), createPackageFilesIndex(unused, { name: 'unused', version: '1.0.0' }))
  index.close()
  const result = await pruneStore(storeDir, { force: false, inUse: [storeIndexKey('sha512-copied', 'copied@1.0.0'), 'sha512-none\tnone@1.0.0'], onWarning: assert.fail })
  assert.deepEqual({ files: result.files, packages: result.packages }, { files: 1, packages: 1 })
  const after = new StoreIndex(storeDir)
  assert.deepEqual([...after.all()].map(([key]) => key), [storeIndexKey('sha512-copied', 'copied@1.0.0')])
  after.close()
})

test('registerProject links <store>/v11/projects/<sha256 of the real project dir, 32 hex> to the project, as pnpm 11; registeredProjects drops the projects gone', async () => {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'lode-registry-')))
  const storeDir = path.join(root, 'store')
  const project = path.join(root, 'project')
  const gone = path.join(root, 'gone')
  fs.mkdirSync(project)
  fs.mkdirSync(gone)
  fs.symlinkSync(project, path.join(root, 'alias'))
  await registerProject(storeDir, path.join(root, 'alias'))
  await registerProject(storeDir, project)
  await registerProject(storeDir, gone)
  const registry = path.join(storeDir, 'v11', 'projects')
  const name = createHash('sha256').update(project).digest('hex').slice(0, 32)
  assert.equal(fs.readlinkSync(path.join(registry, name)), project)
  assert.equal(fs.readdirSync(registry).length, 2, 'one entry per real project')
  fs.rmSync(gone, { recursive: true })
  const infos: string[] = []
  assert.deepEqual(await registeredProjects(storeDir, (message) => infos.push(message)), [project])
  assert.deepEqual(infos, [`Removed stale project registry entry: ${gone}`])
  assert.deepEqual(fs.readdirSync(registry), [name])
  // A store inside the project is not registered (it goes with the project), as pnpm does.
  const inner = path.join(project, '.pnpm-store')
  await registerProject(inner, project)
  assert.equal(fs.existsSync(path.join(inner, 'v11', 'projects')), false)
})
