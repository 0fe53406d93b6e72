import assert from 'node:assert/strict'
import { test } from 'node:test'

import { packTar } from '@lode/__utils__.test-fixtures'
import { readTar } from '@lode/worker.extract'
import { extract as tarExtract } from 'tar-stream'

// readTar reads what tar-stream reads: each archive here goes through both, entry by entry, and a
// broken one fails in both with the same words.

type Read = Array<[name: string, mode: number, type: string | undefined, size: number, content: string]> | { error: string }

function ours (archive: Buffer): Read {
  try {
    return [...readTar(archive)].map((entry) => [entry.name, entry.mode, entry.type, entry.size, entry.content().toString('latin1')])
  } catch (err) {
    return { error: (err as Error).message }
  }
}

async function theirs (archive: Buffer): Promise<Read> {
  const read: Read = []
  try {
    const extractor = tarExtract()
    extractor.end(archive)
    for await (const entry of extractor) {
      const chunks: Buffer[] = []
      for await (const chunk of entry) chunks.push(chunk as Buffer)
      const { header } = entry
      read.push([header.name, header.mode ?? 0, header.type ?? undefined, header.size ?? 0, Buffer.concat(chunks).toString('latin1')])
    }
    return read
  } catch (err) {
    return { error: (err as Error).message }
  }
}

async function assertSame (archive: Buffer, label: string): Promise<Read> {
  const read = ours(archive)
  assert.deepEqual(read, await theirs(archive), label)
  return read
}

/** A header block by hand: the fields given, the rest empty, the checksum computed (or `checksum` as given). */
function header (fields: { name?: string, mode?: number, size?: number | Buffer, type?: string, magic?: 'ustar' | 'gnu' | 'none', prefix?: string, checksum?: number }): Buffer {
  const block = Buffer.alloc(512)
  block.write(fields.name ?? '', 0, 100, 'utf8')
  block.write((fields.mode ?? 0o644).toString(8).padStart(7, '0'), 100)
  if (Buffer.isBuffer(fields.size)) fields.size.copy(block, 124)
  else block.write((fields.size ?? 0).toString(8).padStart(11, '0'), 124)
  block.write('00000000000', 136)
  block.write(fields.type ?? '0', 156)
  const magic = fields.magic ?? 'ustar'
  if (magic === 'ustar') block.write('ustar\u000000', 257, 'latin1')
  if (magic === 'gnu') block.write('ustar  \u0000', 257, 'latin1')
  if (fields.prefix !== undefined) block.write(fields.prefix, 345, 155)
  block.fill(0x20, 148, 156)
  let sum = 0
  for (const byte of block) sum += byte
  block.write((fields.checksum ?? sum).toString(8).padStart(6, '0') + '\u0000 ', 148, 'latin1')
  return block
}

function data (content: string | Buffer): Buffer {
  const bytes = Buffer.from(content)
  return Buffer.concat([bytes, Buffer.alloc((512 - bytes.length % 512) % 512)])
}

function pax (records: Record<string, string>): Buffer {
  let text = ''
  for (const [key, value] of Object.entries(records)) {
    const body = ` ${key}=${value}\n`
    let length = body.length + 1
    while (String(length).length + body.length !== length) length = String(length).length + body.length
    text += `${length}${body}`
  }
  return Buffer.from(text)
}

const END = Buffer.alloc(1024)

test('archives as npm packs them: files, directories, links, modes, long names by ustar prefix and by pax', async () => {
  const long = `package/${'deep/'.repeat(30)}file.js`
  const read = await assertSame(await packTar([
    { name: 'package/', type: 'directory' },
    { name: 'package/package.json', content: '{"name":"a","version":"1.0.0"}' },
    { name: 'package/bin/cli.js', content: '#!/usr/bin/env node\n', mode: 0o755 },
    { name: 'package/empty.txt', content: '' },
    { name: 'package/exactly-512.bin', content: Buffer.alloc(512, 7) },
    { name: 'package/link.js', type: 'symlink', linkname: 'bin/cli.js' },
    { name: 'package/hard.js', type: 'link', linkname: 'package/empty.txt' },
    { name: `package/${'p'.repeat(90)}/${'n'.repeat(90)}.js`, content: 'prefix' },
    { name: long, content: 'pax path' },
    { name: 'package/ünïcode.js', content: 'utf8 name' },
  ]), 'packed')
  assert.ok(Array.isArray(read) && read.some(([name]) => name === long), 'the long name came whole')
})

test('hand-made headers: GNU long names and magic, global and per-entry pax, base-256 sizes, zero blocks between entries, a trailing slash on a file', async () => {
  const size256 = Buffer.alloc(12)
  size256[0] = 0x80
  size256.writeUInt32BE(5, 8)
  const longName = `package/${'x'.repeat(150)}.js`
  const archive = Buffer.concat([
    header({ name: '././@LongLink', type: 'L', size: longName.length + 1, magic: 'gnu' }), data(`${longName}\0`),
    header({ name: 'package/short.js', size: 3, magic: 'gnu' }), data('gnu'),
    header({ name: 'pax_global_header', type: 'g', size: pax({ path: 'package/global.js' }).length }), data(pax({ path: 'package/global.js' })),
    header({ name: 'package/plain.js', size: 5 }), data('plain'),
    header({ name: 'PaxHeader', type: 'x', size: pax({ size: '4' }).length }), data(pax({ size: '4' })),
    header({ name: 'package/sized.js', size: 0 }), data('four'),
    Buffer.alloc(512),
    header({ name: 'package/b256.js', size: size256 }), data('b-256'),
    header({ name: 'package/old-dir/', size: 0 }),
    header({ name: 'package/fifo', type: '6' }),
    END,
  ])
  const read = await assertSame(archive, 'hand-made')
  assert.ok(Array.isArray(read))
  assert.deepEqual(read.map(([name]) => name), [longName, 'package/plain.js', 'package/global.js', 'package/b256.js', 'package/old-dir/', 'package/fifo'])
})

test('broken archives fail with tar-stream\'s words: a bad checksum, an unknown format, data or a header cut short, a pax header too large', async () => {
  const file = Buffer.concat([header({ name: 'package/a.js', size: 600 }), data(Buffer.alloc(600, 1))])
  const cases: Array<[string, Buffer, RegExp]> = [
    ['bad checksum', Buffer.concat([header({ name: 'package/a.js', checksum: 1 }), END]), /Invalid tar header. Maybe the tar is corrupted/],
    ['unknown format', Buffer.concat([header({ name: 'package/a.js', magic: 'none' }), END]), /unknown format/],
    ['data cut short', file.subarray(0, 512 + 600), /Unexpected end of data/],
    ['a header cut short', Buffer.concat([file, Buffer.alloc(100, 1)]), /Unexpected end of data/],
    ['pax header too large', header({ name: 'PaxHeader', type: 'x', size: 5 * 1024 * 1024 }), /Header exceeds max size/],
  ]
  for (const [label, archive, words] of cases) {
    const read = await assertSame(archive, label)
    assert.ok(!Array.isArray(read) && words.test(read.error), `${label}: ${JSON.stringify(read)}`)
  }
})
