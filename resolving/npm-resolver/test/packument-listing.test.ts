import assert from 'node:assert/strict'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { after, before, test } from 'node:test'
import { gzipSync } from 'node:zlib'

import { TestRegistry } from '@lode/__utils__.test-fixtures'
import { readMsgpackFileSync, writeMsgpackFile } from '@lode/fs.msgpack-file'
import { MetadataSource, listingFromBody, listingOfStored, metadataCachePath, parseWantedSpec } from '@lode/resolving.npm-resolver'
import type { RegistrySpec } from '@lode/resolving.npm-resolver'

import { NOW, testClient, withResolver } from './helpers.js'

let registry: TestRegistry
before(async () => {
  registry = await TestRegistry.start([
    { name: 'listed', version: '1.0.0', publishedAt: '2026-04-01T00:00:00.000Z' },
    { name: 'listed', version: '1.1.0', publishedAt: '2026-04-02T00:00:00.000Z' },
  ])
})
after(async () => { await registry.close() })

/** A check's metadata source over a real client, as the lockfile verifier makes one; closed after `fn`. */
async function withSource (
  cacheDir: string, fn: (source: MetadataSource) => Promise<void>, onWarning: (message: string) => void = () => {}
): Promise<void> {
  const client = testClient()
  const source = new MetadataSource({ client, cacheDir, offline: false, preferOffline: false, now: () => NOW, onWarning })
  try {
    await fn(source)
  } finally {
    await source.flush()
    await client.close()
  }
}

const range = (bare: string): RegistrySpec => parseWantedSpec('listed', bare, 'package.json') as RegistrySpec

test('a lockfile check\'s listing is cached as sent; resolution parses it once, keeping the time the registry vouched for it', async () => {
  const cacheDir = fs.mkdtempSync(path.join(os.tmpdir(), 'lode-cache-'))
  const file = metadataCachePath(cacheDir, registry.url, 'listed')
  const asked = registry.metadataRequests.length
  await withSource(cacheDir, async (source) => {
    const listing = await source.listing({ name: 'listed', registry: registry.url })
    assert.equal(listing.modified, '2026-04-02T00:00:00.000Z')
    assert.equal(listing.tarballOf('1.1.0'), `${registry.url}listed/-/listed-1.1.0.tgz`)
    assert.equal(listing.tarballOf('9.9.9'), undefined)
    assert.equal(await source.listing({ name: 'listed', registry: registry.url }), listing, 'asked once per install')
  })
  assert.equal(registry.metadataRequests.length, asked + 1)
  const sent = readMsgpackFileSync<Record<string, unknown>>(file)!.value
  assert.ok(sent['sent'] instanceof Uint8Array, 'the body as sent')
  assert.equal(sent['encoding'], 'gzip')
  assert.equal(sent['packument'], undefined, 'not parsed for resolution')
  assert.deepEqual(sent['listing'], { versions: ['1.0.0', '1.1.0'], modified: '2026-04-02T00:00:00.000Z' }, 'beside what the check read of it')

  // The next check revalidates it (a 304) and reads the listing kept beside it.
  const recorded = registry.recorded.length
  await withSource(cacheDir, async (source) => {
    assert.equal((await source.listing({ name: 'listed', registry: registry.url })).tarballOf('1.0.0'), `${registry.url}listed/-/listed-1.0.0.tgz`)
  })
  assert.equal(registry.recorded.length, recorded + 1)
  assert.ok(registry.recorded.at(-1)!.headers['if-none-match'], 'with the etag it was sent with')

  // Resolution reads it (prefer-offline: without a request), parses it, and caches it parsed, with the file's time kept.
  const vouched = new Date(NOW - 3_600_000)
  fs.utimesSync(file, vouched, vouched)
  await withResolver(registry.url, { cacheDir, preferOffline: true }, async (resolver) => {
    assert.equal((await resolver.resolve(range('^1.0.0'))).version, '1.1.0')
  })
  assert.equal(registry.recorded.length, recorded + 1, 'no request')
  const parsed = readMsgpackFileSync<Record<string, unknown>>(file)!
  assert.ok(typeof parsed.value['packument'] === 'object' && parsed.value['sent'] === undefined, 'cached parsed now')
  assert.equal(parsed.mtimeMs, vouched.getTime(), 'as old as the registry\'s answer')
  await withSource(cacheDir, async (source) => {
    assert.equal((await source.listing({ name: 'listed', registry: registry.url })).modified, '2026-04-02T00:00:00.000Z', 'a parsed entry lists too')
  })
})

test('a body cached as sent that does not parse is damaged: resolution fetches it again, with a warning; a listing of the wrong shape is none', async () => {
  const cacheDir = fs.mkdtempSync(path.join(os.tmpdir(), 'lode-cache-'))
  const file = metadataCachePath(cacheDir, registry.url, 'listed')
  await withSource(cacheDir, async (source) => { await source.listing({ name: 'listed', registry: registry.url }) })
  const { etag, listing } = readMsgpackFileSync<Record<string, unknown>>(file)!.value
  // The registry's own etag on a body that is not JSON: the registry answers 304, and the body does not parse.
  await writeMsgpackFile(file, { sent: gzipSync('{"versions": nope'), encoding: 'gzip', fetchedAt: NOW, full: false, etag, listing })
  const warnings: string[] = []
  await withSource(cacheDir, async (source) => {
    const read = await source.listing({ name: 'listed', registry: registry.url })
    assert.equal(read.tarballOf('1.0.0'), `${registry.url}listed/-/listed-1.0.0.tgz`, 'the check reads the listing, not the body')
  }, (message) => warnings.push(message))
  assert.equal(warnings.length, 0, warnings.join('\n'))
  await withResolver(registry.url, { cacheDir, preferOffline: true, onWarning: (message) => warnings.push(message) }, async (resolver) => {
    assert.equal((await resolver.resolve(range('^1.0.0'))).version, '1.1.0')
  })
  assert.equal(warnings.length, 1, warnings.join('\n'))
  assert.match(warnings[0]!, /listed\.mpk is damaged .*not valid JSON.*fetched again/)
  assert.ok(typeof readMsgpackFileSync<Record<string, unknown>>(file)!.value['packument'] === 'object', 'fetched again and cached parsed')

  for (const bad of [{ versions: [1] }, { versions: ['1.0.0'], otherTarballs: [['1.0.0']] }, { versions: ['1.0.0'], modified: 5 }]) {
    await writeMsgpackFile(file, { sent: gzipSync('{}'), fetchedAt: NOW, full: false, etag, listing: bad })
    const shapes: string[] = []
    await withSource(cacheDir, async (source) => {
      assert.equal((await source.listing({ name: 'listed', registry: registry.url })).modified, '2026-04-02T00:00:00.000Z')
    }, (message) => shapes.push(message))
    assert.equal(shapes.length, 1, JSON.stringify(bad))
    assert.match(shapes[0]!, /does not have the expected shape/)
  }
})

test('listingFromBody: the versions trimPackument keeps, with their tarballs; what is no package document is ERR_LODE_BAD_PACKUMENT', () => {
  const sent = (doc: string): Parameters<typeof listingFromBody>[0] =>
    ({ body: Buffer.from(doc), encoding: undefined, url: 'http://registry.test/x', name: 'x', registry: 'http://registry.test/', maxSize: 1 << 20 })
  const dist = (v: string, fields: Record<string, string>): string => `"${v}": ${JSON.stringify({ dist: fields })}`
  const tarball = (v: string): string => `http://registry.test/x/-/x-${v}.tgz`
  const listing = listingFromBody(sent(`{"modified": "2026-01-01T00:00:00.000Z", "versions": {${[
    dist('1.0.0', { tarball: tarball('1.0.0'), integrity: 'sha512-a' }),
    dist('1.0.1', { tarball: tarball('1.0.1'), shasum: 'ab' }),
    dist('1.0.2', { tarball: tarball('1.0.2') }),
    dist('1.0.3', { integrity: 'sha512-a' }),
    // A version named like an Object property is a version like any other.
    dist('__proto__', { tarball: tarball('proto'), integrity: 'sha512-a' }),
  ].join(', ')}}}`))!
  assert.deepEqual(listing, { versions: ['1.0.0', '1.0.1', '__proto__'], otherTarballs: [['__proto__', tarball('proto')]], modified: '2026-01-01T00:00:00.000Z' },
    'the versions with a tarball and integrity; the tarballs not at the usual place')
  const read = listingOfStored(listing, 'x', 'http://registry.test/')
  assert.equal(read.modified, '2026-01-01T00:00:00.000Z')
  assert.deepEqual(['1.0.0', '1.0.1', '1.0.2', '1.0.3', '__proto__', 'toString'].map((v) => read.tarballOf(v)),
    [tarball('1.0.0'), tarball('1.0.1'), undefined, undefined, tarball('proto'), undefined])
  assert.equal(listingFromBody(sent('{"modified": 5, "versions": {}}'))!.modified, undefined, 'a modified that is no string is none')
  assert.throws(() => listingFromBody(sent('{"versions": [')), { code: 'ERR_LODE_BAD_PACKUMENT', message: /for x that is not valid JSON/ })
  assert.throws(() => listingFromBody(sent('{"versions": []}')), { code: 'ERR_LODE_BAD_PACKUMENT' })
  assert.throws(() => listingFromBody({ ...sent('{}'), maxSize: 1 }), { code: 'ERR_LODE_FETCH_TOO_LARGE' })
})
