import assert from 'node:assert/strict'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { test } from 'node:test'

import { prepareFileAtomic, removeAtomicTemps, writeFileAtomic } from '@lode/fs.write-file-atomic'

test('writes the file, creating its directory, and replaces an existing one whole', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lode-atomic-'))
  const file = path.join(dir, 'a', 'b', 'file.txt')
  await writeFileAtomic(file, 'one')
  assert.equal(fs.readFileSync(file, 'utf8'), 'one')
  const inode = fs.statSync(file).ino
  await writeFileAtomic(file, Buffer.from('two'))
  assert.equal(fs.readFileSync(file, 'utf8'), 'two')
  assert.notEqual(fs.statSync(file).ino, inode, 'replaced by rename, not rewritten in place')
  assert.deepEqual(fs.readdirSync(path.dirname(file)), ['file.txt'], 'no temp file is left')
})

test('a failed write leaves the old file and no temp file', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lode-atomic-'))
  const file = path.join(dir, 'file.txt')
  fs.writeFileSync(file, 'old')
  // A directory where the file should go makes the rename fail.
  const blocked = path.join(dir, 'blocked')
  fs.mkdirSync(path.join(blocked, 'child'), { recursive: true })
  await assert.rejects(writeFileAtomic(blocked, 'new'))
  assert.deepEqual(fs.readdirSync(dir).sort(), ['blocked', 'file.txt'])
  assert.equal(fs.readFileSync(file, 'utf8'), 'old')
})

test('removeAtomicTemps removes the temp files a killed write left beside the file, nothing else', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lode-atomic-'))
  const file = path.join(dir, 'lock.yaml')
  await writeFileAtomic(file, 'kept')
  for (const name of ['lock.yaml.0123456789ab.tmp', 'lock.yaml.ffffffffffff.tmp', 'lock.yaml.tmp', 'lock.yaml.0123456789ab.tmp.bak', 'other.yaml.0123456789ab.tmp']) {
    fs.writeFileSync(path.join(dir, name), '')
  }
  await removeAtomicTemps(file)
  assert.deepEqual(fs.readdirSync(dir).sort(), ['lock.yaml', 'lock.yaml.0123456789ab.tmp.bak', 'lock.yaml.tmp', 'other.yaml.0123456789ab.tmp'])
  assert.equal(fs.readFileSync(file, 'utf8'), 'kept')
  await removeAtomicTemps(path.join(dir, 'missing', 'file'))
})

test('prepareFileAtomic: the file changes only on commit; a discarded one leaves the old file and no temp file', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lode-atomic-'))
  const file = path.join(dir, 'lock.yaml')
  fs.writeFileSync(file, 'old')
  const discarded = await prepareFileAtomic(file, 'never')
  assert.equal(fs.readFileSync(file, 'utf8'), 'old')
  await discarded.discard()
  assert.deepEqual(fs.readdirSync(dir), ['lock.yaml'])
  assert.equal(fs.readFileSync(file, 'utf8'), 'old')
  const committed = await prepareFileAtomic(file, 'new')
  assert.equal(fs.readFileSync(file, 'utf8'), 'old', 'not before commit')
  await committed.commit()
  assert.equal(fs.readFileSync(file, 'utf8'), 'new')
  assert.deepEqual(fs.readdirSync(dir), ['lock.yaml'])
})

test('run as root, a replaced file keeps its owner and group (prepared ones too); a new file is root\'s', { skip: process.getuid?.() !== 0 ? 'needs root' : false }, async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lode-atomic-'))
  const file = path.join(dir, 'pnpm-lock.yaml')
  fs.writeFileSync(file, 'old')
  fs.chownSync(file, 1234, 2345)
  await writeFileAtomic(file, 'new')
  assert.deepEqual([fs.statSync(file).uid, fs.statSync(file).gid, fs.readFileSync(file, 'utf8')], [1234, 2345, 'new'])
  const prepared = await prepareFileAtomic(file, 'prepared')
  await prepared.commit()
  assert.deepEqual([fs.statSync(file).uid, fs.statSync(file).gid], [1234, 2345])
  const fresh = path.join(dir, 'new.yaml')
  await writeFileAtomic(fresh, 'x')
  assert.equal(fs.statSync(fresh).uid, 0)
})
