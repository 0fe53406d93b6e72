// In a file of its own: it asserts the peak RSS of its process.
import assert from 'node:assert/strict'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { test } from 'node:test'
import { gzipSync } from 'node:zlib'

import { integrityOf } from '@lode/__utils__.test-fixtures'
import { extract } from '@lode/worker.extract'

import { gzipTar, gzipTrailerSize, tempFiles } from './streamed-tarball.js'

test('a 2 GiB gzip bomb whose trailer says 1 KiB is rejected with the default limits, in bounded memory', async () => {
  const manifest = Buffer.from('{"name":"bomb","version":"1.0.0"}')
  const entries = [
    { name: 'package/package.json', size: manifest.length, content: manifest },
    { name: 'package/bomb.bin', size: 2 * 1024 ** 3 },
  ]
  // The end-of-archive blocks in a second gzip member, whose trailer (ISIZE 1024) is the file's.
  const bomb = Buffer.concat([await gzipTar(entries, { end: false, level: 1 }), gzipSync(Buffer.alloc(1024))])
  assert.equal(gzipTrailerSize(bomb), 1024)
  assert.ok(bomb.length < 16 * 1024 * 1024, `a small tarball (${bomb.length} bytes)`)

  const storeDir = fs.mkdtempSync(path.join(os.tmpdir(), 'lode-extract-bomb-'))
  const started = performance.now()
  const result = await extract({ tarball: new Uint8Array(bomb).buffer, integrity: integrityOf(bomb), storeDir, pkgId: 'bomb@1.0.0' })
  const seconds = (performance.now() - started) / 1000
  if (result.ok) assert.fail('the bomb was extracted')
  assert.equal(result.error.code, 'ERR_LODE_TARBALL_TOO_LARGE')
  assert.match(result.error.message, /bomb@1\.0\.0 unpacks to more than 1 GiB/)
  assert.deepEqual(tempFiles(storeDir) ?? [], [])
  assert.ok(seconds < 10, `refused in ${seconds.toFixed(1)} s`)
  // Before the limits, this took 4 GB and failed with a RangeError.
  const peakMb = process.resourceUsage().maxRSS / 1024
  assert.ok(peakMb < 400, `peak RSS ${peakMb.toFixed(0)} MB`)
  fs.rmSync(storeDir, { recursive: true, force: true })
})
