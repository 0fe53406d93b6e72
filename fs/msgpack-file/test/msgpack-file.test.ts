import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import fs from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { test } from 'node:test'

import { encodeMsgpackFile, readMsgpackFileSync, writeMsgpackFile, writeMsgpackFileSync } from '@lode/fs.msgpack-file'

async function tempDir (): Promise<string> {
  return fs.mkdtemp(path.join(os.tmpdir(), 'lode-msgpack-'))
}

interface Entry { etag: string, versions: Map<string, { size: number }>, fetchedAt: number }
const isEntry = (v: unknown): v is Entry =>
  typeof v === 'object' && v !== null && typeof (v as Entry).etag === 'string' && (v as Entry).versions instanceof Map

const entry: Entry = {
  etag: '"abc"',
  versions: new Map([['1.0.0', { size: 1 }], ['2.0.0-béta', { size: 2 }]]),
  fetchedAt: 1763700000000.5,
}

test('a written file reads back equal, in a directory created on demand', async () => {
  const dir = await tempDir()
  const file = path.join(dir, 'a', 'b', 'pkg.mpk')
  await writeMsgpackFile(file, entry)
  assert.deepEqual(readMsgpackFileSync(file, { validate: isEntry })?.value, entry)
  assert.deepEqual(await fs.readdir(path.dirname(file)), ['pkg.mpk'], 'no temp file is left behind')
})

test('a missing file reads as undefined, also when a parent directory is a file', async () => {
  const dir = await tempDir()
  assert.equal(readMsgpackFileSync(path.join(dir, 'nope.mpk'))?.value, undefined)
  await fs.writeFile(path.join(dir, 'file'), '')
  assert.equal(readMsgpackFileSync(path.join(dir, 'file', 'nope.mpk'))?.value, undefined)
})

test('every truncation of a file is reported as truncated, never decoded', async () => {
  const dir = await tempDir()
  const file = path.join(dir, 'pkg.mpk')
  await writeMsgpackFile(file, entry)
  const whole = await fs.readFile(file)
  for (let length = 0; length < whole.length; length++) {
    await fs.writeFile(file, whole.subarray(0, length))
    assert.throws(() => readMsgpackFileSync(file), { code: 'ERR_LODE_MSGPACK_FILE_TRUNCATED' }, `cut at ${length}`)
  }
})

test('a flipped byte anywhere is reported as corrupted', async () => {
  const dir = await tempDir()
  const file = path.join(dir, 'pkg.mpk')
  await writeMsgpackFile(file, entry)
  const whole = await fs.readFile(file)
  for (let i = 0; i < whole.length; i++) {
    const damaged = Buffer.from(whole)
    damaged[i] = damaged[i]! ^ 0x40
    await fs.writeFile(file, damaged)
    assert.throws(() => readMsgpackFileSync(file),
      (err: { code: string }) => err.code === 'ERR_LODE_MSGPACK_FILE_CORRUPTED' || err.code === 'ERR_LODE_MSGPACK_FILE_TRUNCATED',
      `byte ${i}`)
  }
  await fs.writeFile(file, Buffer.concat([whole, Buffer.from([0])]))
  assert.throws(() => readMsgpackFileSync(file), { code: 'ERR_LODE_MSGPACK_FILE_CORRUPTED' })
  await fs.writeFile(file, '{"json": true}')
  assert.throws(() => readMsgpackFileSync(file), { code: 'ERR_LODE_MSGPACK_FILE_CORRUPTED', message: new RegExp(file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')) })
})

test('a value of the wrong shape is rejected by validate', async () => {
  const file = path.join(await tempDir(), 'pkg.mpk')
  await writeMsgpackFile(file, { something: 'else' })
  assert.throws(() => readMsgpackFileSync(file, { validate: isEntry }), { code: 'ERR_LODE_MSGPACK_FILE_CORRUPTED' })
})

test('concurrent writers of one file leave one whole file', async () => {
  const file = path.join(await tempDir(), 'pkg.mpk')
  await Promise.all(Array.from({ length: 20 }, (_, i) => writeMsgpackFile(file, { ...entry, etag: String(i) })))
  const read = readMsgpackFileSync(file, { validate: isEntry })?.value
  assert.ok(read !== undefined && /^\d+$/.test(read.etag))
  assert.deepEqual(await fs.readdir(path.dirname(file)), ['pkg.mpk'])
})

test('writeMsgpackFileSync writes the bytes encodeMsgpackFile gives, for a large value too (in a buffer of its size hint, or one grown), and the next value is whole', async () => {
  const dir = await tempDir()
  const large = { etag: '"large"', data: Buffer.alloc(20 * 1024 * 1024, 7), names: ['1.0.0'] }
  const small = { etag: '"small"', data: Buffer.from('small'), names: [] }
  for (const sizeHint of [undefined, large.data.length + 1024, 1024 * 1024]) {
    const file = path.join(dir, `large-${sizeHint}.mpk`)
    writeMsgpackFileSync(file, large, sizeHint === undefined ? {} : { sizeHint })
    assert.ok((await fs.readFile(file)).equals(encodeMsgpackFile(large)), `sizeHint ${sizeHint}`)
    assert.deepEqual(readMsgpackFileSync(file)?.value, large)
    writeMsgpackFileSync(path.join(dir, 'small.mpk'), small)
    assert.deepEqual(readMsgpackFileSync(path.join(dir, 'small.mpk'))?.value, small)
    assert.deepEqual(readMsgpackFileSync(file)?.value, large, 'the large file is as written')
  }
})

test('a read gives the file\'s modification time with its value; a directory in its place is a file system error naming it, a FIFO is refused', async () => {
  const dir = await tempDir()
  const file = path.join(dir, 'pkg.mpk')
  await writeMsgpackFile(file, entry)
  const when = new Date('2026-01-02T03:04:05Z')
  await fs.utimes(file, when, when)
  const read = readMsgpackFileSync(file, { validate: isEntry })
  assert.deepEqual(read, { value: entry, mtimeMs: when.getTime() })
  const taken = path.join(dir, 'dir.mpk')
  await fs.mkdir(taken)
  assert.throws(() => readMsgpackFileSync(taken), (err: Error) => err.message.includes(taken))
  // A FIFO in a file's place is refused at once, not waited on for a writer.
  const fifo = path.join(dir, 'fifo.mpk')
  execFileSync('mkfifo', [fifo])
  assert.throws(() => readMsgpackFileSync(fifo), { code: 'ERR_LODE_MSGPACK_FILE_CORRUPTED', message: /is not a regular file/ })
})
