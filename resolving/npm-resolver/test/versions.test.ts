import assert from 'node:assert/strict'
import { test } from 'node:test'

import { decodeMsgpackPart, encodeMsgpackPart } from '@lode/fs.msgpack-file'
import { PackageVersions } from '@lode/resolving.npm-resolver'
import type { PackageMeta } from '@lode/resolving.npm-resolver'

const meta = (version: string, extra: Partial<PackageMeta> = {}): [string, PackageMeta] =>
  [version, { name: 'x', version, dist: { tarball: `t/${version}`, integrity: `i-${version}` }, ...extra }]

test('encoded versions are decoded one at a time, when asked for, and once', () => {
  const versions = PackageVersions.fromEntries([meta('1.0.0'), meta('1.1.0', { deprecated: 'use 2' }), meta('2.0.0', { dependencies: { y: '^1.0.0' } })])
  const encoded = versions.encode(encodeMsgpackPart)
  const decoded: string[] = []
  const lazy = PackageVersions.decode(encoded, (bytes) => {
    const value = decodeMsgpackPart('x.mpk', bytes) as PackageMeta
    decoded.push(value.version)
    return value
  })
  assert.deepEqual(lazy.names, ['1.0.0', '1.1.0', '2.0.0'])
  assert.equal(lazy.has('1.1.0'), true)
  assert.equal(lazy.has('1.2.0'), false)
  assert.equal(lazy.isDeprecated('1.1.0'), true)
  assert.equal(lazy.isDeprecated('2.0.0'), false)
  const old = lazy.filter((version) => version.startsWith('1.'))
  assert.deepEqual(old.names, ['1.0.0', '1.1.0'])
  assert.equal(old.isDeprecated('1.1.0'), true)
  assert.deepEqual(decoded, [], 'names, lookups, deprecation and filtering decode nothing')

  assert.deepEqual(lazy.get('2.0.0'), meta('2.0.0', { dependencies: { y: '^1.0.0' } })[1])
  assert.equal(lazy.get('2.0.0'), lazy.get('2.0.0'))
  assert.deepEqual(old.get('1.1.0'), versions.get('1.1.0'))
  assert.equal(lazy.get('3.0.0'), undefined)
  assert.deepEqual(decoded, ['2.0.0', '1.1.0'])
  // Past a few lookups a map answers them; the answers stay the same.
  for (const [version] of [meta('1.0.0'), meta('1.1.0'), meta('2.0.0')]) assert.equal(lazy.get(version)?.version, version)
  assert.equal(lazy.has('9.9.9'), false)
})

test('a damaged encoded version is ERR_LODE_MSGPACK_FILE_CORRUPTED naming the file', () => {
  const encoded = PackageVersions.fromEntries([meta('1.0.0')]).encode(encodeMsgpackPart)
  const lazy = PackageVersions.decode({ ...encoded, data: Uint8Array.of(0x82, 0xa1) }, (bytes) => decodeMsgpackPart('cache/x.mpk', bytes) as PackageMeta)
  assert.throws(() => lazy.get('1.0.0'), (err: Error & { code?: string }) => {
    assert.equal(err.code, 'ERR_LODE_MSGPACK_FILE_CORRUPTED')
    assert.match(err.message, /cache\/x\.mpk/)
    return true
  })
})

test('encoded versions are a buffer of their own, not a slice of Node\'s pool that a message to the main thread would carry whole', () => {
  const encoded = PackageVersions.fromEntries([meta('1.0.0'), meta('2.0.0')]).encode(encodeMsgpackPart)
  assert.ok(encoded.data.byteLength < 1024)
  assert.equal(encoded.data.buffer.byteLength, encoded.data.byteLength)
  assert.ok(Buffer.isBuffer(encoded.data), 'a Buffer: MessagePack\'s binary type in the cache file, as before')
  assert.ok(encoded.data.buffer instanceof SharedArrayBuffer, 'shared with the main thread, not copied to it')
  assert.equal(structuredClone<Uint8Array>(encoded.data).buffer.byteLength, encoded.data.byteLength)
  const lazy = PackageVersions.decode(encoded, (bytes) => decodeMsgpackPart('x.mpk', bytes) as PackageMeta)
  assert.deepEqual(lazy.get('1.0.0'), meta('1.0.0')[1])
  assert.deepEqual(lazy.get('2.0.0'), meta('2.0.0')[1])
})
