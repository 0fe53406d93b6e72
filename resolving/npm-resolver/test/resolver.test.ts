import assert from 'node:assert/strict'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { after, before, test } from 'node:test'

import { TestRegistry } from '@lode/__utils__.test-fixtures'
import { PackageVersions, metadataCachePath, narrowToPublishedBy, parseWantedSpec, pickVersion } from '@lode/resolving.npm-resolver'
import type { NpmResolver, NpmResolverOptions, PackageMeta, Packument, RegistrySpec } from '@lode/resolving.npm-resolver'

import { NOW, withResolver as withResolverFor } from './helpers.js'

let registry: TestRegistry
before(async () => {
  registry = await TestRegistry.start([
    { name: 'pick', version: '1.0.0' },
    { name: 'pick', version: '1.1.0' },
    { name: 'pick', version: '1.2.0', deprecated: 'broken' },
    { name: 'pick', version: '2.0.0' },
    { name: 'pick', version: '3.0.0-beta.1' },
    // 2.1.0 is a day younger than the cut-off of a 1440-minute minimumReleaseAge.
    { name: 'fresh', version: '2.0.0', publishedAt: '2026-05-01T00:00:00.000Z' },
    { name: 'fresh', version: '2.1.0', publishedAt: '2026-05-31T12:00:00.000Z' },
    { name: 'fresh', version: '3.0.0', publishedAt: '2026-05-31T13:00:00.000Z' },
    { name: 'fresh', version: '3.1.0', publishedAt: '2026-05-31T12:00:00.000Z' },
  ])
  registry.setDistTag('pick', 'next', '3.0.0-beta.1')
  registry.setDistTag('pick', 'latest', '1.1.0')
})
after(async () => { await registry.close() })

async function withResolver (opts: Partial<NpmResolverOptions>, fn: (resolver: NpmResolver) => Promise<void>): Promise<void> {
  await withResolverFor(registry.url, opts, fn)
}

function spec (bare: string, alias = 'pick'): RegistrySpec {
  const wanted = parseWantedSpec(alias, bare, 'package.json')
  assert.equal(wanted.kind, 'registry')
  return wanted
}

test('pnpm\'s picks: latest when it fits, else the highest; deprecated gives way; tags and aliases', async () => {
  await withResolver({}, async (resolver) => {
    assert.equal((await resolver.resolve(spec('^1.0.0'))).version, '1.1.0', 'latest (1.1.0) fits ^1.0.0 and wins over 1.2.0')
    assert.equal((await resolver.resolve(spec('>=1.2.0'))).version, '2.0.0')
    assert.equal((await resolver.resolve(spec('~1.2.0 || 1.0.0'))).version, '1.0.0', 'the deprecated 1.2.0 gives way to 1.0.0')
    assert.equal((await resolver.resolve(spec('1.2.0'))).version, '1.2.0', 'an exact version is taken even when deprecated')
    assert.equal((await resolver.resolve(spec('next'))).version, '3.0.0-beta.1')
    assert.equal((await resolver.resolve(spec(''))).version, '1.1.0', 'an empty specifier is *')
    const aliased = parseWantedSpec('my-pick', 'npm:pick@^2', 'package.json')
    assert.deepEqual(aliased, { kind: 'registry', alias: 'my-pick', aliased: true, type: 'range', name: 'pick', range: '^2' })
    assert.equal((await resolver.resolve(aliased as RegistrySpec)).version, '2.0.0')
    assert.equal((await resolver.resolve(spec('^1.0.0'), { '1.0.0': { type: 'version', weight: 1000 } })).version, '1.0.0', 'a preferred version wins')
  })
})

test('no matching version names the range and the latest release', async () => {
  await withResolver({}, async (resolver) => {
    await assert.rejects(resolver.resolve(spec('^9.0.0')), (err: Error & { code?: string }) => {
      assert.equal(err.code, 'ERR_LODE_NO_MATCHING_VERSION')
      assert.match(err.message, /pick matches "\^9\.0\.0".*the latest release is 1\.1\.0/)
      return true
    })
    await assert.rejects(resolver.resolve(spec('^1.0.0', 'nope')), { code: 'ERR_LODE_NOT_FOUND' })
  })
})

test('minimumReleaseAge skips versions younger than the cut-off (else takes the lowest, reported), fetching the full document only when needed', async () => {
  await withResolver({ minimumReleaseAge: 1440 }, async (resolver) => {
    const before = registry.recorded.length
    assert.equal((await resolver.resolve(spec('^2.0.0', 'fresh'))).version, '2.0.0')
    const accepts = registry.recorded.slice(before).map((r) => r.headers.accept)
    assert.deepEqual(accepts, ['application/vnd.npm.install-v1+json; q=1.0, application/json; q=0.8, */*', 'application/json'])
    assert.equal((await resolver.resolve(spec('^2.0.0', 'fresh'))).immature, undefined, 'a mature pick is no violation')
    // Nothing fitting is old enough: the lowest fitting version, reported as a violation.
    assert.deepEqual((await resolver.resolve(spec('^3.0.0', 'fresh'))).immature, {
      name: 'fresh', version: '3.0.0', publishedAt: '2026-05-31T13:00:00.000Z', cutoff: '2026-05-31T00:00:00.000Z',
    })
    assert.equal((await resolver.resolve(spec('2.1.0', 'fresh'))).immature?.version, '2.1.0')
    await assert.rejects(resolver.resolve(spec('^4.0.0', 'fresh')), { code: 'ERR_LODE_NO_MATCHING_VERSION' })
    // pick was modified long ago: the abbreviated document is enough.
    const beforePick = registry.recorded.length
    await resolver.resolve(spec('^1.0.0'))
    assert.equal(registry.recorded.length - beforePick, 1)
  })
  await withResolver({ minimumReleaseAge: 1440, minimumReleaseAgeExclude: ['fresh'] }, async (resolver) => {
    assert.equal((await resolver.resolve(spec('^2.0.0', 'fresh'))).version, '2.1.0')
  })
  await withResolver({ minimumReleaseAge: 1440, minimumReleaseAgeExclude: ['fresh@3.1.0'] }, async (resolver) => {
    const picked = await resolver.resolve(spec('^3.0.0', 'fresh'))
    assert.equal(picked.version, '3.1.0', 'an excluded version counts as mature')
    assert.equal(picked.immature, undefined)
  })
})

test('under minimumReleaseAge a cached packument the registry vouched for within the age answers unasked; an older one, one from the future, or an excluded package asks, and a 304 renews it', async () => {
  const cacheDir = fs.mkdtempSync(path.join(os.tmpdir(), 'lode-cache-'))
  await withResolver({ cacheDir }, async (resolver) => { await resolver.resolve(spec('^1.0.0')) })
  const file = metadataCachePath(cacheDir, registry.url, 'pick')
  const vouchedAt = (minutesAgo: number): void => {
    const time = new Date(NOW - minutesAgo * 60_000)
    fs.utimesSync(file, time, time)
  }
  const requestsFor = async (opts: Partial<NpmResolverOptions>, bare: string): Promise<number> => {
    const before = registry.recorded.length
    await withResolver({ cacheDir, minimumReleaseAge: 1440, ...opts }, async (resolver) => {
      await resolver.resolve(spec(bare)).catch((err: Error & { code?: string }) => { assert.equal(err.code, 'ERR_LODE_NO_MATCHING_VERSION') })
    })
    return registry.recorded.length - before
  }
  vouchedAt(60)
  assert.equal(await requestsFor({}, '^1.0.0'), 0, 'an hour old under a day\'s release age: a version added since would be too young')
  assert.equal(await requestsFor({}, '^9.0.0'), 1, 'nothing in the cache fits: the registry is asked')
  vouchedAt(60)
  assert.equal(await requestsFor({ minimumReleaseAge: 0 }, '^1.0.0'), 1, 'no release age: revalidated')
  vouchedAt(60)
  assert.equal(await requestsFor({ minimumReleaseAgeExclude: ['pick@1.1.0'] }, '^1.0.0'), 1, 'a package named in minimumReleaseAgeExclude: revalidated')
  vouchedAt(-60)
  assert.equal(await requestsFor({}, '^1.0.0'), 1, 'a file from the future is not fresh')
  vouchedAt(1441)
  const bytes = fs.readFileSync(file)
  assert.equal(await requestsFor({}, '^1.0.0'), 1, 'older than the release age: revalidated')
  assert.equal(fs.statSync(file).mtimeMs, NOW, 'the 304 renewed the file\'s time')
  assert.deepEqual(fs.readFileSync(file), bytes, 'and only its time')
  assert.equal(await requestsFor({}, '^1.0.0'), 0, 'so the next install asks nothing')
})

test('the metadata cache: a 304 leaves it as it is, --offline reads only it, --prefer-offline asks only when it must', async () => {
  const cacheDir = fs.mkdtempSync(path.join(os.tmpdir(), 'lode-cache-'))
  await withResolver({ cacheDir }, async (resolver) => { await resolver.resolve(spec('^1.0.0')) })
  const file = metadataCachePath(cacheDir, registry.url, 'pick')
  assert.ok(fs.existsSync(file))
  const cached = { bytes: fs.readFileSync(file), ino: fs.statSync(file).ino }

  const before = registry.recorded.length
  await withResolver({ cacheDir, now: () => NOW + 1000 }, async (resolver) => { await resolver.resolve(spec('^1.0.0')) })
  const conditional = registry.recorded.slice(before)
  assert.equal(conditional.length, 1)
  assert.ok(conditional[0]!.headers['if-none-match'], 'the cached etag is sent')
  assert.deepEqual({ bytes: fs.readFileSync(file), ino: fs.statSync(file).ino }, cached, 'not written again after the 304')

  const offlineBefore = registry.requests.length
  await withResolver({ cacheDir, offline: true }, async (resolver) => {
    assert.equal((await resolver.resolve(spec('^2.0.0'))).version, '2.0.0')
    await assert.rejects(resolver.resolve(spec('^1.0.0', 'fresh')), (err: Error & { code?: string }) => {
      assert.equal(err.code, 'ERR_LODE_NO_OFFLINE_META')
      assert.match(err.message, /^fresh /)
      return true
    })
  })
  assert.equal(registry.requests.length, offlineBefore, 'offline makes no request')

  await withResolver({ cacheDir, preferOffline: true }, async (resolver) => {
    await resolver.resolve(spec('^1.0.0'))
    assert.equal(registry.requests.length, offlineBefore, 'the cache can answer ^1.0.0')
    await registry.publish({ name: 'pick', version: '4.0.0' })
    assert.equal((await resolver.resolve(spec('^4.0.0'))).version, '4.0.0', 'a range the cache cannot answer is fetched')
    assert.equal(registry.requests.length, offlineBefore + 1)
  })
})

test('a damaged cache entry is fetched again, with a warning', async () => {
  const cacheDir = fs.mkdtempSync(path.join(os.tmpdir(), 'lode-cache-'))
  await withResolver({ cacheDir }, async (resolver) => { await resolver.resolve(spec('^1.0.0')) })
  const file = metadataCachePath(cacheDir, registry.url, 'pick')
  fs.writeFileSync(file, fs.readFileSync(file).subarray(0, 20))
  const warnings: string[] = []
  await withResolver({ cacheDir, onWarning: (m) => warnings.push(m) }, async (resolver) => {
    assert.equal((await resolver.resolve(spec('^1.0.0'))).version, '1.1.0')
  })
  assert.equal(warnings.length, 1)
  assert.match(warnings[0]!, /pick\.mpk/)
})

test('narrowToPublishedBy moves dist-tags back with the versions it drops', () => {
  const meta = (version: string): [string, PackageMeta] => [version, { name: 'x', version, dist: { tarball: 't', integrity: 'i' } }]
  const packument: Packument = {
    name: 'x',
    distTags: { latest: '2.1.0', next: '3.0.0-rc.1' },
    time: { '1.0.0': '2025-01-01T00:00:00.000Z', '2.0.0': '2025-02-01T00:00:00.000Z', '2.1.0': '2026-05-31T00:00:00.000Z', '3.0.0-rc.1': '2026-05-31T00:00:00.000Z' },
    versions: PackageVersions.fromEntries([meta('1.0.0'), meta('2.0.0'), meta('2.1.0'), meta('3.0.0-rc.1')]),
  }
  const narrowed = narrowToPublishedBy(packument, new Date('2026-01-01T00:00:00.000Z'))
  assert.deepEqual(narrowed.versions.names, ['1.0.0', '2.0.0'])
  assert.deepEqual(narrowed.distTags, { latest: '2.0.0' }, 'latest moves back within its major; next has no candidate and is dropped')
  assert.equal(pickVersion(packument, { type: 'range', name: 'x', range: '*' }), '2.1.0')
  assert.equal(pickVersion(packument, { type: 'tag', name: 'x', tag: 'nope' }), undefined)
})

test('metadata that is not JSON, or not a package document, is ERR_LODE_BAD_PACKUMENT naming the package; nothing is cached', async () => {
  const cacheDir = fs.mkdtempSync(path.join(os.tmpdir(), 'lode-cache-'))
  registry.injectFaults('/pick', [{ status: 200, body: '{"name":"pick",' }, { status: 200, body: '{"name":"pick","versions":[]}' }])
  await withResolver({ cacheDir }, async (resolver) => {
    await assert.rejects(resolver.resolve(spec('^1.0.0')), { code: 'ERR_LODE_BAD_PACKUMENT', message: /metadata for pick that is not valid JSON/ })
  })
  await withResolver({ cacheDir }, async (resolver) => {
    await assert.rejects(resolver.resolve(spec('^1.0.0')), { code: 'ERR_LODE_BAD_PACKUMENT', message: /metadata for pick that is not a package document/ })
  })
  assert.equal(fs.existsSync(metadataCachePath(cacheDir, registry.url, 'pick')), false)
})

test('a cached packument gives the picks and fields the registry\'s gave, deprecation included', async () => {
  const cacheDir = fs.mkdtempSync(path.join(os.tmpdir(), 'lode-cache-'))
  const specs = [spec('^1.0.0'), spec('>=1.2.0 <2'), spec('1.2.0'), { type: 'tag', name: 'pick', tag: 'next' } as const, spec('^2.0.0')]
  const online: unknown[] = []
  await withResolver({ cacheDir }, async (resolver) => {
    for (const wanted of specs) online.push(await resolver.resolve(wanted))
  })
  const cached: unknown[] = []
  await withResolver({ cacheDir, offline: true }, async (resolver) => {
    for (const wanted of specs) cached.push(await resolver.resolve(wanted))
  })
  assert.deepEqual(cached, online)
  assert.deepEqual(online.map((resolved) => (resolved as { version: string }).version), ['1.1.0', '1.2.0', '1.2.0', '3.0.0-beta.1', '2.0.0'])
  assert.equal((online[1] as { meta: PackageMeta }).meta.deprecated, 'broken')
})
