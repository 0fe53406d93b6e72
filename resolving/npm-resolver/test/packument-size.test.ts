import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { after, before, test } from 'node:test'

import { TestRegistry } from '@lode/__utils__.test-fixtures'
import { parseWantedSpec } from '@lode/resolving.npm-resolver'
import type { RegistrySpec } from '@lode/resolving.npm-resolver'

import { PackumentThread, withResolver } from './helpers.js'


const CAP = 20_000

let registry: TestRegistry
before(async () => {
  registry = await TestRegistry.start([
    { name: 'small', version: '1.0.0' },
    // Gzipped to a few hundred bytes, 100 kB once inflated: refused by the thread that inflates it.
    { name: 'inflates-large', version: '1.0.0', manifest: { funding: `https://127.0.0.1/${'x'.repeat(100_000)}` } },
    // Random text: past the cap as sent, refused before its body is read.
    { name: 'sent-large', version: '1.0.0', manifest: { funding: `https://127.0.0.1/${randomBytes(60_000).toString('base64')}` } },
  ])
})
after(async () => { await registry.close() })

const spec = (name: string): RegistrySpec => parseWantedSpec(name, '^1.0.0', 'the test') as RegistrySpec

test('a packument past packumentMaxSize, as sent or once inflated, is ERR_LODE_FETCH_TOO_LARGE naming the package and the setting, with or without the packument thread; nothing is cached', async () => {
  for (const threaded of [false, true]) {
    const pool = threaded ? new PackumentThread() : undefined
    const cacheDir = fs.mkdtempSync(path.join(os.tmpdir(), 'lode-packument-size-'))
    try {
      await withResolver(registry.url, { packuments: pool, cacheDir, packumentMaxSize: CAP }, async (resolver) => {
        assert.equal((await resolver.resolve(spec('small'))).version, '1.0.0', 'a packument within the cap')
        for (const name of ['inflates-large', 'sent-large']) {
          await assert.rejects(resolver.resolve(spec(name)), (err: Error & { code?: string, hint?: string }) => {
            assert.equal(err.code, 'ERR_LODE_FETCH_TOO_LARGE', `${name}: ${err.message}`)
            assert.match(err.message, new RegExp(`^GET ${registry.url}${name} answered with more than ${CAP} bytes while fetching ${name}\\.$`))
            assert.match(err.hint ?? '', /packumentMaxSize in pnpm-workspace\.yaml/)
            assert.match(err.hint ?? '', new RegExp(`\\(${CAP} now\\)`))
            return true
          }, `${name}, ${threaded ? 'in the thread' : 'on this thread'}`)
        }
      })
      const cached = fs.readdirSync(cacheDir, { recursive: true }).map(String).filter((file) => file.endsWith('.mpk'))
      assert.deepEqual(cached.map((file) => path.basename(file)), ['small.mpk'])
    } finally {
      await pool?.close()
    }
  }
  const sentLarge = registry.recorded.filter((request) => request.url === '/sent-large')
  assert.ok(sentLarge.length >= 2 && sentLarge.every((request) => /\bgzip\b/.test(String(request.headers['accept-encoding']))), 'asked for gzipped, and still past the cap')
})
