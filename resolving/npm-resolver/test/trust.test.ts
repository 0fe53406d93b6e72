import assert from 'node:assert/strict'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { after, before, test } from 'node:test'

import { TestRegistry } from '@lode/__utils__.test-fixtures'
import type { PackageSpec } from '@lode/__utils__.test-fixtures'
import { NpmResolver, parseWantedSpec } from '@lode/resolving.npm-resolver'
import type { NpmResolverOptions, RegistrySpec } from '@lode/resolving.npm-resolver'
import { RegistryClient } from '@lode/resolving.registry-client'

const NOW = Date.parse('2026-06-01T00:00:00.000Z')
const PROVENANCE = { url: 'https://attestations.test/x', provenance: { predicateType: 'https://slsa.dev/provenance/v1' } }
const TRUSTED = { name: 'GitHub Actions', email: 'npm-oidc-no-reply@github.com', trustedPublisher: { id: 'github', oidcConfigId: 'oidc:1' } }

const day = (n: number): string => new Date(Date.parse('2026-01-01T00:00:00.000Z') + n * 86_400_000).toISOString()
const publish = (name: string, version: string, at: number, trust: 'trusted' | 'provenance' | 'staged' | 'none'): PackageSpec => ({
  name,
  version,
  publishedAt: day(at),
  ...trust === 'none' ? {} : { attestations: PROVENANCE },
  ...trust === 'trusted' ? { npmUser: TRUSTED } : trust === 'staged' ? { npmUser: { name: 'a', approver: { name: 'b' } } } : {},
})

let registry: TestRegistry
before(async () => {
  registry = await TestRegistry.start([
    // 1.1.0 lost its trusted publisher: a downgrade; 1.2.0 has it again; 1.3.0 (published before 1.0.0's lane took it up) has none.
    publish('taken', '1.0.0', 1, 'trusted'),
    publish('taken', '1.1.0', 2, 'none'),
    publish('taken', '1.0.1', 3, 'provenance'),
    publish('taken', '2.0.0-rc.1', 4, 'none'),
    // Provenance first, then nothing but a newer major: a downgrade whatever the range.
    publish('lost', '1.0.0', 1, 'provenance'),
    publish('lost', '2.0.0', 2, 'none'),
    // A staged publish outranks a trusted publisher.
    publish('staged', '1.0.0', 1, 'staged'),
    publish('staged', '1.1.0', 2, 'trusted'),
    // Never had evidence: nothing to lose.
    publish('plain', '1.0.0', 1, 'none'),
    publish('plain', '1.1.0', 2, 'none'),
  ])
  registry.setDistTag('taken', 'latest', '1.1.0')
})
after(async () => { await registry.close() })

async function withResolver (
  opts: Partial<NpmResolverOptions>,
  fn: (resolver: NpmResolver, warnings: string[]) => Promise<void>
): Promise<void> {
  const client = new RegistryClient({ authHeader: () => undefined, networkConcurrency: 4, retry: { retries: 0, factor: 1, minTimeout: 1, maxTimeout: 1 }, timeout: 5000, strictSsl: true, userAgent: 'lode-test' })
  const warnings: string[] = []
  const resolver = new NpmResolver({
    client,
    cacheDir: fs.mkdtempSync(path.join(os.tmpdir(), 'lode-cache-')),
    offline: false,
    preferOffline: false,
    now: () => NOW,
    onWarning: (message) => { warnings.push(message) },
    registries: { default: registry.url, scoped: {} },
    minimumReleaseAge: 0,
    minimumReleaseAgeExclude: [],
    trustPolicy: { exclude: [], ignoreAfter: undefined },
    ...opts,
  })
  try {
    await fn(resolver, warnings)
  } finally {
    await resolver.close()
    await client.close()
  }
}

const spec = (name: string, range: string): RegistrySpec => parseWantedSpec(name, range, 'package.json') as RegistrySpec

test('trustPolicy: a version published with weaker evidence than an earlier one is passed over for the next best, with pnpm\'s warning', async () => {
  await withResolver({}, async (resolver, warnings) => {
    assert.equal((await resolver.resolve(spec('taken', '^1.0.0'))).version, '1.0.0')
    assert.deepEqual(warnings, ['Skipped trust downgrades rejected by trustPolicy: taken@1.1.0, taken@1.0.1. Resolved taken@1.0.0 instead.'])
    assert.equal((await resolver.resolve(spec('plain', '^1.0.0'))).version, '1.1.0', 'no earlier evidence, nothing to lose')
    // A prerelease counts only against prereleases: 2.0.0-rc.1 has no evidence, 1.0.0 had a trusted publisher.
    await assert.rejects(resolver.resolve(spec('taken', '2.0.0-rc.1')), { code: 'ERR_LODE_TRUST_DOWNGRADE' })
  })
})

test('trustPolicy: with no fitting version left, the first downgrade fails the pick, naming the package, both evidences and trustPolicyExclude', async () => {
  await withResolver({}, async (resolver) => {
    await assert.rejects(resolver.resolve(spec('lost', '^2.0.0')), (err: Error & { code?: string, hint?: string }) => {
      assert.equal(err.code, 'ERR_LODE_TRUST_DOWNGRADE')
      assert.equal(err.message, 'High-risk trust downgrade for "lost@2.0.0" (possible package takeover)')
      assert.match(err.hint!, /Earlier versions had provenance attestation, but this version has no trust evidence\./)
      assert.match(err.hint!, /add "lost@2\.0\.0" to trustPolicyExclude/)
      return true
    })
    await assert.rejects(resolver.resolve(spec('staged', '1.1.0')), /High-risk trust downgrade for "staged@1\.1\.0"/)
  })
})

test('trustPolicy: trustPolicyExclude (a name or name@version) and trustPolicyIgnoreAfter let a version through; off, nothing is checked', async () => {
  await withResolver({ trustPolicy: { exclude: ['lost@2.0.0'], ignoreAfter: undefined } }, async (resolver, warnings) => {
    assert.equal((await resolver.resolve(spec('lost', '^2.0.0'))).version, '2.0.0')
    assert.equal((await resolver.resolve(spec('taken', '^1.0.0'))).version, '1.0.0', 'other versions are still checked')
    assert.equal(warnings.length, 1)
  })
  await withResolver({ trustPolicy: { exclude: ['taken'], ignoreAfter: undefined } }, async (resolver, warnings) => {
    assert.equal((await resolver.resolve(spec('taken', '^1.0.0'))).version, '1.1.0')
    assert.deepEqual(warnings, [])
  })
  // Published more than 100 days before NOW: too old to be checked.
  await withResolver({ trustPolicy: { exclude: [], ignoreAfter: 100 * 24 * 60 } }, async (resolver) => {
    assert.equal((await resolver.resolve(spec('lost', '^2.0.0'))).version, '2.0.0')
  })
  await withResolver({ trustPolicy: undefined }, async (resolver) => {
    assert.equal((await resolver.resolve(spec('lost', '^2.0.0'))).version, '2.0.0')
  })
})
