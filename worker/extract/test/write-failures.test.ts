import assert from 'node:assert/strict'
import crypto from 'node:crypto'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { after, test } from 'node:test'
import { gzipSync } from 'node:zlib'

import { buildTarball, integrityOf } from '@lode/__utils__.test-fixtures'
import { extract } from '@lode/worker.extract'
import type { ExtractResult } from '@lode/worker.extract'

import { gzipTar, gzipTrailerSize, patterned, tempFiles } from './streamed-tarball.js'

/*
 * A store that cannot be written (a full disk, a file where a directory belongs): extract returns
 * the coded error, naming the file, instead of throwing what piscina would pass on without its
 * code; no part of a file stays under a digest name, and no temp file stays.
 */

const MiB = 1024 * 1024
const stores: string[] = []
after(() => {
  for (const storeDir of stores) fs.rmSync(storeDir, { recursive: true, force: true })
})

function tempStore (): string {
  const storeDir = fs.mkdtempSync(path.join(os.tmpdir(), 'lode-extract-fail-'))
  stores.push(storeDir)
  return storeDir
}

/**
 * Runs `fn` with the writes of this thread, after the first `allowed`, going to /dev/full instead
 * of their file: the kernel's own ENOSPC as Node reports it, at the CAS writer's write (a full disk
 * cannot be had without root otherwise). The files are still created where the writer puts them.
 */
async function onFullDisk<T> (allowed: number, fn: () => Promise<T>): Promise<T> {
  assert.ok(fs.existsSync('/dev/full'), 'this test needs /dev/full (Linux) for a real ENOSPC')
  const full = fs.openSync('/dev/full', 'w')
  const writeSync = fs.writeSync as (...args: unknown[]) => number
  let writes = 0
  fs.writeSync = (fd: number, ...rest: unknown[]): number => writeSync(++writes > allowed ? full : fd, ...rest)
  try {
    return await fn()
  } finally {
    fs.writeSync = writeSync
    fs.closeSync(full)
  }
}

/** Every file under the store's `files/` holds the content its name says: none was left cut short. */
function assertNoPartialFile (storeDir: string): number {
  const filesDir = path.join(storeDir, 'v11', 'files')
  let count = 0
  for (const prefix of fs.existsSync(filesDir) ? fs.readdirSync(filesDir) : []) {
    for (const name of fs.readdirSync(path.join(filesDir, prefix))) {
      const digest = crypto.createHash('sha512').update(fs.readFileSync(path.join(filesDir, prefix, name))).digest('hex')
      assert.equal(digest, prefix + name.replace(/-exec$/, ''), `${prefix}/${name} holds what its name says`)
      count++
    }
  }
  return count
}

function failed (result: ExtractResult): { code: string, message: string, hint?: string } {
  if (result.ok) assert.fail('extract should have failed')
  return result.error
}

test('a full disk while a tarball is written to the CAS: ERR_LODE_ENOSPC naming the CAS file, the files before it whole, none cut short', async () => {
  const { tarball, integrity } = await buildTarball([
    { name: 'package/package.json', content: '{"name":"full","version":"1.0.0"}' },
    { name: 'package/a.js', content: 'a'.repeat(5000) },
    { name: 'package/b.js', content: 'b'.repeat(5000) },
    { name: 'package/c.js', content: 'c'.repeat(5000) },
  ])
  const storeDir = tempStore()
  const error = failed(await onFullDisk(2, async () => await extract({ tarball: new Uint8Array(tarball).buffer, integrity, storeDir, pkgId: 'full@1.0.0' })))
  assert.equal(error.code, 'ERR_LODE_ENOSPC')
  const digest = crypto.createHash('sha512').update('b'.repeat(5000)).digest('hex')
  assert.equal(error.message, `Cannot write ${path.join(storeDir, 'v11', 'files', digest.slice(0, 2), digest.slice(2))}: no space left on the device.`)
  assert.match(error.hint ?? '', /Free some disk space/)
  assert.equal(assertNoPartialFile(storeDir), 2, 'package.json and a.js, written before the disk was full')
  assert.deepEqual(tempFiles(storeDir) ?? [], [])
})

test('a full disk while a large file is streamed to the CAS: ERR_LODE_ENOSPC naming its temp file, which is removed', async () => {
  const entries = [
    { name: 'package/package.json', size: 34, content: Buffer.from('{"name":"large","version":"1.0.0"}') },
    { name: 'package/data.bin', size: 9 * MiB, content: patterned(9 * MiB) },
  ]
  // The end-of-archive blocks in a second gzip member: the trailer says 1024, the tarball is streamed.
  const tarball = Buffer.concat([await gzipTar(entries, { end: false }), gzipSync(Buffer.alloc(1024))])
  assert.equal(gzipTrailerSize(tarball), 1024)
  const storeDir = tempStore()
  const error = failed(await onFullDisk(1, async () => await extract({ tarball: new Uint8Array(tarball).buffer, integrity: integrityOf(tarball), storeDir, pkgId: 'large@1.0.0' })))
  assert.equal(error.code, 'ERR_LODE_ENOSPC')
  assert.match(error.message, new RegExp(`^Cannot write ${path.join(storeDir, 'v11', 'tmp')}/[^ ]+: no space left on the device\\.$`))
  assert.equal(assertNoPartialFile(storeDir), 1)
  assert.deepEqual(tempFiles(storeDir), [])
})

test('a file where the CAS\'s files directory belongs: ERR_LODE_ENOTDIR naming the path, returned rather than thrown', async () => {
  const { tarball, integrity } = await buildTarball([{ name: 'package/package.json', content: '{"name":"blocked","version":"1.0.0"}' }])
  const storeDir = tempStore()
  fs.mkdirSync(path.join(storeDir, 'v11'), { recursive: true })
  fs.writeFileSync(path.join(storeDir, 'v11', 'files'), '')
  const error = failed(await extract({ tarball: new Uint8Array(tarball).buffer, integrity, storeDir, pkgId: 'blocked@1.0.0' }))
  assert.equal(error.code, 'ERR_LODE_ENOTDIR')
  assert.match(error.message, new RegExp(`^Cannot open ${path.join(storeDir, 'v11', 'files')}/`))
})
