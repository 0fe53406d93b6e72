import assert from 'node:assert/strict'
import { createHash } from 'node:crypto'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { test } from 'node:test'

import { createCasWriter } from '@lode/store.cafs'
import { StoreIndex, createPackageFilesIndex, storeIndexKey } from '@lode/store.index'

import { indexRowsByKey, indexRowsOf, packagesWithFile, parseFileHash, readStoreFile } from '../src/index.js'

const hexOf = (content: string): string => createHash('sha512').update(content).digest('hex')

test('parseFileHash takes an integrity or a hex digest; anything else (a path, another algorithm, nothing) is a coded error', () => {
  const hex = hexOf('x')
  assert.equal(parseFileHash(`sha512-${Buffer.from(hex, 'hex').toString('base64')}`, 'cat-file'), hex)
  assert.equal(parseFileHash(hex.toUpperCase(), 'find-hash'), hex)
  for (const bad of ['../../etc/passwd', `sha1-${createHash('sha1').update('x').digest('base64')}`, 'sha512-', hex.slice(1)]) {
    assert.throws(() => parseFileHash(bad, 'cat-file'), { code: 'ERR_LODE_INVALID_HASH' }, bad)
  }
  assert.throws(() => parseFileHash(undefined, 'cat-file'), { code: 'ERR_LODE_MISSING_HASH', message: 'Missing file hash' })
  assert.throws(() => parseFileHash('', 'find-hash'), { code: 'ERR_LODE_MISSING_HASH' })
})

test('readStoreFile, packagesWithFile and indexRowsOf read the store: files by digest (an executable\'s too), rows with a file or a side effect\'s, rows of a version', () => {
  const storeDir = fs.mkdtempSync(path.join(os.tmpdir(), 'lode-inspect-'))
  // No store yet: nothing found, and nothing created.
  assert.deepEqual(packagesWithFile(storeDir, hexOf('x')), [])
  assert.equal(fs.existsSync(path.join(storeDir, 'v11', 'index.db')), false)
  const cas = createCasWriter(storeDir, { now: Date.now })
  const index = new StoreIndex(storeDir)
  const shared = cas.addFile(Buffer.from('shared'), 0o644)
  const script = cas.addFile(Buffer.from('#!/bin/sh\n'), 0o755)
  const built = cas.addFile(Buffer.from('built output'), 0o644)
  index.queueWrite(storeIndexKey('sha512-a', 'a@1.0.0'), createPackageFilesIndex(new Map([['x.txt', shared], ['bin.sh', script]]), { name: 'a', version: '1.0.0' }))
  const b = createPackageFilesIndex(new Map([['y.txt', shared]]), { name: 'b', version: '2.0.0' })
  b.sideEffects = new Map([['linux-x64', { added: new Map([['out.bin', built]]) }]])
  index.queueWrite(storeIndexKey('sha512-b', 'b@2.0.0'), b)
  index.queueWrite(storeIndexKey('sha512-b2', 'b@2.0.0'), createPackageFilesIndex(new Map(), { name: 'b', version: '2.0.0' }))
  index.close()

  assert.equal(readStoreFile(storeDir, shared.digest).toString(), 'shared')
  assert.equal(readStoreFile(storeDir, script.digest).toString(), '#!/bin/sh\n')
  assert.throws(() => readStoreFile(storeDir, hexOf('absent')), { code: 'ERR_LODE_INVALID_HASH' })
  assert.deepEqual(packagesWithFile(storeDir, shared.digest).map((found) => `${found.name}@${found.version}`).sort(), ['a@1.0.0', 'b@2.0.0'])
  assert.deepEqual(packagesWithFile(storeDir, built.digest), [{ name: 'b', version: '2.0.0', indexKey: storeIndexKey('sha512-b', 'b@2.0.0') }])
  assert.deepEqual([...indexRowsOf(storeDir, 'b@2.0.0').keys()].sort(), [storeIndexKey('sha512-b', 'b@2.0.0'), storeIndexKey('sha512-b2', 'b@2.0.0')])
  assert.equal(indexRowsOf(storeDir, 'a@1.0.').size, 0, 'a key\'s whole name@version')
  assert.deepEqual([...indexRowsByKey(storeDir, [storeIndexKey('sha512-b2', 'b@2.0.0'), storeIndexKey('sha512-none', 'b@2.0.0')]).keys()], [storeIndexKey('sha512-b2', 'b@2.0.0')])
  assert.equal(indexRowsByKey(fs.mkdtempSync(path.join(os.tmpdir(), 'lode-no-store-')), ['x']).size, 0, 'no store: no rows, nothing made')
})
