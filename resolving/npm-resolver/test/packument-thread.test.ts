import assert from 'node:assert/strict'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { after, before, test } from 'node:test'

import { TestRegistry } from '@lode/__utils__.test-fixtures'
import { decodeMsgpackFile } from '@lode/fs.msgpack-file'
import { metadataCachePath, parseWantedSpec } from '@lode/resolving.npm-resolver'
import type { RegistrySpec } from '@lode/resolving.npm-resolver'

import { PackumentThread, withResolver } from './helpers.js'

const tempDir = (prefix: string): string => fs.mkdtempSync(path.join(os.tmpdir(), `lode-${prefix}-`))


let registry: TestRegistry
before(async () => {
  registry = await TestRegistry.start([
    { name: 'parsed', version: '1.0.0', dependencies: { dep: '^2.0.0' } },
    { name: 'parsed', version: '1.1.0', deprecated: 'use 2' },
    { name: 'parsed', version: '2.0.0' },
  ])
})
after(async () => { await registry.close() })


const spec = (wanted: string): RegistrySpec => parseWantedSpec('parsed', wanted, 'the test') as RegistrySpec

test('a packument fetched gzipped is parsed and cached by the pool\'s thread; the resolver picks from what it sent back', async () => {
  const pool = new PackumentThread()
  const cacheDir = tempDir('packument-cache')
  try {
    await withResolver(registry.url, { packuments: pool, cacheDir }, async (resolver) => {
      const picked = await resolver.resolve(spec('^1.0.0'))
      assert.equal(picked.version, '1.0.0', 'the deprecated 1.1.0 is passed over, as without the thread')
      assert.deepEqual(picked.meta.dependencies, { dep: '^2.0.0' })
      assert.equal((await resolver.resolve(spec('latest'))).version, '2.0.0')
    })
    // The thread wrote the entry before answering: it is there, complete, with the registry's validator.
    const file = metadataCachePath(cacheDir, registry.url, 'parsed')
    const stored = decodeMsgpackFile<{ etag?: string, packument: { versions: { names: string[] } } }>(file, fs.readFileSync(file))
    assert.deepEqual(stored.packument.versions.names, ['1.0.0', '1.1.0', '2.0.0'])
    assert.equal(typeof stored.etag, 'string')
    assert.equal(registry.metadataRequests.filter((url) => url === '/parsed').length, 1)
  } finally {
    await pool.close()
  }
})

test('through the pool: a body that will not inflate is fetched again and used; one that is not JSON is ERR_LODE_BAD_PACKUMENT', async () => {
  const pool = new PackumentThread()
  try {
    registry.injectFaults('/parsed', [{ status: 200, body: 'not gzip at all', headers: { 'content-encoding': 'gzip' } }])
    await withResolver(registry.url, { packuments: pool }, async (resolver) => {
      assert.equal((await resolver.resolve(spec('^2.0.0'))).version, '2.0.0')
    })
    registry.injectFaults('/parsed', [{ invalidJson: true }])
    await withResolver(registry.url, { packuments: pool }, async (resolver) => {
      await assert.rejects(resolver.resolve(spec('^2.0.0')), { name: 'LodeError', code: 'ERR_LODE_BAD_PACKUMENT', message: /for parsed that is not valid JSON/ })
    })
  } finally {
    await pool.close()
  }
})

test('through the pool: a cache entry the thread cannot write is reported once, as a warning, and the resolution goes on', async () => {
  const pool = new PackumentThread()
  const cacheDir = tempDir('packument-cache-blocked')
  // A file where the registry's directory of the cache would be: no entry can be written under it.
  fs.mkdirSync(path.dirname(path.dirname(metadataCachePath(cacheDir, registry.url, 'parsed'))), { recursive: true })
  fs.writeFileSync(path.dirname(metadataCachePath(cacheDir, registry.url, 'parsed')), 'not a directory')
  const warnings: string[] = []
  try {
    await withResolver(registry.url, { packuments: pool, cacheDir, onWarning: (message) => warnings.push(message) }, async (resolver) => {
      assert.equal((await resolver.resolve(spec('^2.0.0'))).version, '2.0.0')
    })
    assert.equal(warnings.length, 1)
    assert.match(warnings[0]!, /^Could not write the metadata cache in /)
  } finally {
    await pool.close()
  }
})
