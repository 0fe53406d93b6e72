import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { test } from 'node:test'

import { buildTarball } from '@lode/__utils__.test-fixtures'
import { isLodeError } from '@lode/core.error'
import { StoreIndex, storeIndexKey } from '@lode/store.index'
import { StorePool, ThreadPool, addTarballToStore } from '@lode/worker.pools'

import { tempDir } from './helpers.js'

/*
 * A thread's file-system error reaches the main thread as the coded error it stands for
 * (ERR_LODE_ENOSPC, ...), naming the path, whether the thread handed it back as data or died of it:
 * piscina's copy of a thrown Error keeps neither its code nor its path.
 */

const fixtures = path.join(import.meta.dirname, 'fixtures')

async function tarballFile (dir: string): Promise<{ file: string, integrity: string }> {
  const { tarball, integrity } = await buildTarball([
    { name: 'package/package.json', content: '{"name":"full","version":"1.0.0"}' },
    { name: 'package/index.js', content: 'module.exports = 1\n' },
  ])
  const file = path.join(dir, 'full-1.0.0.tgz')
  fs.writeFileSync(file, tarball)
  return { file, integrity }
}

/** `extract-one` in a child process, its store threads' writes sent to /dev/full when `fullDisk`. */
function extractOne (storeDir: string, file: string, integrity: string, fullDisk: boolean): Record<string, unknown> {
  assert.ok(fs.existsSync('/dev/full'), 'this test needs /dev/full (Linux) for a real ENOSPC')
  const preload = fullDisk ? ['--import', path.join(fixtures, 'full-disk-in-threads.js')] : []
  return JSON.parse(execFileSync(process.execPath, [...preload, path.join(fixtures, 'extract-one.js'), storeDir, file, integrity, 'full@1.0.0'], { encoding: 'utf8' })) as Record<string, unknown>
}

/** The files under the store's `files/`. */
function casFiles (storeDir: string): string[] {
  const dir = path.join(storeDir, 'v11', 'files')
  if (!fs.existsSync(dir)) return []
  return fs.readdirSync(dir, { recursive: true, withFileTypes: true }).filter((e) => e.isFile()).map((e) => e.name)
}

test('a full disk under a store thread: ERR_LODE_ENOSPC crosses to the main thread as a LodeError naming the CAS file; no row, no file is left', async () => {
  const dir = tempDir('thread-enospc')
  const { file, integrity } = await tarballFile(dir)
  const storeDir = path.join(dir, 'store')
  const outcome = extractOne(storeDir, file, integrity, true)
  assert.equal(outcome['ok'], false)
  assert.equal(outcome['lodeError'], true)
  assert.equal(outcome['code'], 'ERR_LODE_ENOSPC')
  assert.match(outcome['message'] as string, new RegExp(`^Cannot write ${path.join(storeDir, 'v11', 'files')}/[0-9a-f]{2}/[0-9a-f]{126}: no space left on the device\\.$`))
  assert.match(outcome['hint'] as string, /Free some disk space/)
  assert.equal(outcome['indexed'], false, 'no index row for the package')
  assert.deepEqual(casFiles(storeDir), [], 'no file cut short under a digest name')
  assert.equal(fs.existsSync(path.join(storeDir, 'v11', 'tmp')), false, 'no temp file either')

  // With room on the disk, the same tarball goes in.
  const room = extractOne(storeDir, file, integrity, false)
  assert.deepEqual(room, { ok: true, indexed: true })
  for (const name of casFiles(storeDir)) assert.match(name, /^[0-9a-f]{126}$/)
})

test('a file where the store\'s files directory belongs: ERR_LODE_ENOTDIR from the store thread, naming the path; no row', async () => {
  const dir = tempDir('thread-enotdir')
  const { file, integrity } = await tarballFile(dir)
  const storeDir = path.join(dir, 'store')
  fs.mkdirSync(path.join(storeDir, 'v11'), { recursive: true })
  fs.writeFileSync(path.join(storeDir, 'v11', 'files'), '')
  const pool = new StorePool({ threads: 1 })
  const index = new StoreIndex(storeDir)
  try {
    await assert.rejects(addTarballToStore({ pool, index, storeDir, pkgId: 'full@1.0.0', integrity, tarball: fs.readFileSync(file) }), (err: Error & { code?: string }) => {
      assert.ok(isLodeError(err))
      assert.equal(err.code, 'ERR_LODE_ENOTDIR')
      assert.match(err.message, new RegExp(`^Cannot open ${path.join(storeDir, 'v11', 'files')}/`))
      return true
    })
    index.flush()
    assert.equal(index.has(storeIndexKey(integrity, 'full@1.0.0')), false)
  } finally {
    index.close()
    await pool.close()
  }
})

test('a thread that dies under its task (a stream\'s uncaught ENOSPC) rejects the task with ERR_LODE_ENOSPC, not an error without its code', async () => {
  assert.ok(fs.existsSync('/dev/full'), 'this test needs /dev/full (Linux) for a real ENOSPC')
  const pool = new ThreadPool<undefined, never>({ filename: new URL('./fixtures/stream-error.js', import.meta.url).href, name: 'writeToFullDisk' })
  try {
    await assert.rejects(pool.run(undefined), (err: Error & { code?: string, hint?: string }) => {
      assert.ok(isLodeError(err), `a LodeError, not ${err.name}: ${err.message}`)
      assert.equal(err.code, 'ERR_LODE_ENOSPC')
      assert.equal(err.message, 'Cannot write: no space left on the device.')
      return true
    })
  } finally {
    await pool.close()
  }
})
