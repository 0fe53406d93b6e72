import assert from 'node:assert/strict'
import { test } from 'node:test'

import { fuzz } from '@lode/__utils__.test-fixtures/fuzz'
import { encodeMsgpackFile, encodeMsgpackPart } from '@lode/fs.msgpack-file'
import { PIECEWISE_PARSE_SIZE, packumentDocument, readPackumentDocument, storedFromBody, trimPackument } from '@lode/resolving.npm-resolver'
import type { PackumentTask } from '@lode/resolving.npm-resolver'

import { PACKUMENTS, trimmedBytes } from './fuzz-targets.js'

const parsed = (text: string) => () => packumentDocument(JSON.parse(Buffer.from(text).toString('utf8')))
const read = (text: string) => () => readPackumentDocument(Buffer.from(text))

const task = (body: Uint8Array): Omit<PackumentTask, 'cacheFile'> => ({
  body, encoding: undefined, url: 'http://127.0.0.1:1/p', name: 'p', registry: 'http://127.0.0.1:1/', maxSize: 1024 ** 3,
  fetchedAt: 1, full: true, etag: '"e"', lastModified: undefined,
})

test('a packument read from its bytes trims to the cache entry of the parsed document: repeated, integer-like, escaped and __proto__ keys, non-ASCII text, a version past 64 KiB', () => {
  const more = [
    ' {"versions" : { } , "time" : [] } ',
    '{"versions":{"1.0.0":[],"2.0.0":"x","3.0.0":{"dist":{"tarball":"t","integrity":"i"},"dependencies":{"a":1,"b":"2"}}},"modified":5}',
    '{"versions":{"1":{"dist":{"tarball":"t","integrity":"i"}}},"versions":{"2":{"dist":{"tarball":"t","integrity":"i"}}},"dist-tags":"latest"}',
  ]
  for (const text of [...PACKUMENTS, ...more]) {
    const expected = trimmedBytes(parsed(text))
    assert.ok(expected !== undefined)
    assert.deepEqual(trimmedBytes(read(text)), expected, text.slice(0, 200))
  }
})

test('bytes JSON.parse refuses are refused (ERR_LODE_BAD_PACKUMENT from storedFromBody); JSON that is not a package document is not one', () => {
  const refused = [
    '', ' ', '{"versions":{}', '{"versions":{},}', '{"versions":{}} x', '\uFEFF{"versions":{}}', '{"a":01,"versions":{}}', '{"a":-,"versions":{}}',
    '{"a":1.,"versions":{}}', '{"a":1e,"versions":{}}', '{"a":tru,"versions":{}}', '{"a":[1,],"versions":{}}', '{"a":[1 2],"versions":{}}',
    '{"a":"\u0001","versions":{}}', '{"a":"\\x","versions":{}}', '{"a":"\\u12g4","versions":{}}', '{"a" 1,"versions":{}}', '{a:1,"versions":{}}',
    '{"versions":{"1":{"dist":{"tarball":"t","integrity":"i"},"x":[}}}', '{"versions":{"1":{"readme":"a\tb"}}}', '{"versions":{"1" {}}}',
    `{"versions":{"1":{"readme":"${'x'.repeat(70_000)}\u0001"}}}`, '{"versions":{"1":{"x":"unterminated}}}',
  ]
  for (const text of refused) {
    assert.throws(() => JSON.parse(text), SyntaxError)
    assert.throws(() => trimmedBytes(read(text)), SyntaxError, JSON.stringify(text.slice(0, 100)))
  }
  for (const text of ['[1]', '"versions"', 'null', '{"versions":[]}', '{"versions":{},"versions":1}', '{"name":"p"}']) {
    assert.equal(trimmedBytes(parsed(text)), undefined)
    assert.equal(trimmedBytes(read(text)), undefined, text)
  }
  // Past the size read piece by piece, through the task as the packument thread runs it.
  const padding = ' '.repeat(PIECEWISE_PARSE_SIZE)
  assert.throws(() => storedFromBody(task(Buffer.from(`{"versions":{"1":{}}}${padding}x`))),
    { name: 'LodeError', code: 'ERR_LODE_BAD_PACKUMENT', message: /sent metadata for p that is not valid JSON\.$/ })
  assert.throws(() => storedFromBody(task(Buffer.from(`{"versions":[]}${padding}`))),
    { name: 'LodeError', code: 'ERR_LODE_BAD_PACKUMENT', message: /sent metadata for p that is not a package document\.$/ })
})

test('a packument past PIECEWISE_PARSE_SIZE: storedFromBody gives the cache entry of the parsed document, byte for byte, without ever decoding the document, or a readme, to a string', () => {
  const versions: Record<string, unknown> = {}
  const time: Record<string, string> = {}
  for (let i = 0; i < 120; i++) {
    versions[`1.0.${i}`] = {
      name: 'p', version: `1.0.${i}`, description: 'd', dependencies: { a: `^${i}.0.0` }, dist: { tarball: `http://127.0.0.1:1/p-1.0.${i}.tgz`, integrity: `sha512-${i}` },
      ...i % 7 === 0 ? { deprecated: 'old' } : {}, readme: `# p — ${i}\n${'lorem ipsum ✓ '.repeat(6000)}`,
    }
    time[`1.0.${i}`] = '2025-01-01T00:00:00.000Z'
  }
  const text = JSON.stringify({ name: 'p', 'dist-tags': { latest: '1.0.119' }, versions, time, readme: 'x'.repeat(200_000) })
  const body = Buffer.from(text)
  assert.ok(body.length > PIECEWISE_PARSE_SIZE)
  // The entry as the parsed document gives it, each version's encoding copied out and joined.
  const parsed = trimPackument('p', 'http://127.0.0.1:1/', JSON.parse(text))
  const parts = parsed.versions.names.map((version) => Buffer.from(encodeMsgpackPart(parsed.versions.get(version))))
  let end = 0
  const encoded = {
    names: [...parsed.versions.names],
    ends: parts.map((part) => (end += part.length)),
    data: Buffer.concat(parts),
    deprecated: parsed.versions.names.filter((version) => parsed.versions.isDeprecated(version)),
  }
  const expected = encodeMsgpackFile({ packument: { ...parsed, versions: encoded }, fetchedAt: 1, full: true, etag: '"e"' })
  // The longest string made from the document's bytes.
  const buffers = Buffer.prototype as { toString: (this: Buffer, encoding?: BufferEncoding, start?: number, end?: number) => string }
  const toString = buffers.toString
  let longest = 0
  buffers.toString = function (encoding, start, end) {
    if (this.length === body.length) longest = Math.max(longest, (end ?? this.length) - (start ?? 0))
    return toString.call(this, encoding, start, end)
  }
  const sent = task(body)
  let stored: ReturnType<typeof storedFromBody>
  try {
    stored = storedFromBody(sent)
  } finally {
    buffers.toString = toString
  }
  assert.ok(encodeMsgpackFile(stored).equals(expected), 'the same cache file')
  assert.equal(stored.packument.versions.names.length, 120)
  assert.ok(stored.packument.versions.data.buffer instanceof SharedArrayBuffer, 'the encodings reach the main thread shared, not copied')
  assert.equal(body.buffer.detached, true, 'the body\'s memory is given back once read')
  assert.ok(longest > 0 && longest <= 64 * 1024, `a string of ${longest} bytes was made from the document`)
  assert.equal(sent.body.length, 0, 'the task let go of the body as sent')
})

test('fuzz: a mutated packument is read from its bytes as JSON.parse reads it, or refused where JSON.parse refuses it', async (t) => {
  const { outcomes } = await fuzz(new URL('./fuzz-targets.js', import.meta.url), 'packumentReader', 2000)
  t.diagnostic(JSON.stringify(outcomes))
  assert.ok((outcomes['read'] ?? 0) > 0 && (outcomes['refused'] ?? 0) > 0, 'some read, some refused')
})
