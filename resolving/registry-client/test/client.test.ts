import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import { gzipSync } from 'node:zlib'

import { TestRegistry } from '@lode/__utils__.test-fixtures'
import { ACCEPT_ABBREVIATED, ACCEPT_FULL, RegistryClient, createAuthHeaderLookup, decodeBody, verboseDuration } from '@lode/resolving.registry-client'
import type { RegistryClientOptions } from '@lode/resolving.registry-client'

let registry: TestRegistry
before(async () => {
  registry = await TestRegistry.start([
    { name: 'alpha', version: '1.0.0', scripts: { test: 'x' } },
    { name: 'alpha', version: '1.1.0' },
    { name: '@scope/beta', version: '2.0.0' },
  ])
})
after(async () => { await registry.close() })

function client (overrides: Partial<RegistryClientOptions> = {}): RegistryClient {
  return new RegistryClient({
    authHeader: () => undefined,
    networkConcurrency: 4,
    retry: { retries: 2, factor: 2, minTimeout: 5, maxTimeout: 20 },
    timeout: 5000,
    strictSsl: true,
    userAgent: 'lode-test',
    ...overrides,
  })
}

test('abbreviated and full packuments, gzip-decoded, with their validators', async () => {
  const c = client()
  try {
    const abbreviated = await c.get(`${registry.url}alpha`, { accept: ACCEPT_ABBREVIATED, subject: 'alpha' })
    assert.equal(abbreviated.status, 200)
    if (abbreviated.status !== 200) return
    const doc = JSON.parse(abbreviated.body.toString()) as { versions: Record<string, Record<string, unknown>>, time?: unknown }
    assert.deepEqual(Object.keys(doc.versions), ['1.0.0', '1.1.0'])
    assert.equal(doc.time, undefined, 'abbreviated documents have no time field')
    assert.equal(doc.versions['1.0.0']!['scripts'], undefined)
    assert.match(abbreviated.etag ?? '', /^".+"$/)
    const last = registry.recorded.at(-1)!
    assert.match(String(last.headers['accept-encoding']), /gzip/)
    assert.equal(last.headers.accept, ACCEPT_ABBREVIATED)

    const full = await c.get(`${registry.url}@scope%2fbeta`, { accept: ACCEPT_FULL, subject: '@scope/beta' })
    assert.equal(full.status, 200)
    if (full.status !== 200) return
    assert.ok((JSON.parse(full.body.toString()) as { time?: unknown }).time)

    const notModified = await c.get(`${registry.url}alpha`, { accept: ACCEPT_ABBREVIATED, subject: 'alpha', etag: abbreviated.etag })
    assert.deepEqual(notModified, { status: 304 })
  } finally {
    await c.close()
  }
})

test('5xx and connection resets are retried with pnpm\'s warning, then succeed', async () => {
  const warnings: string[] = []
  const c = client({ onWarning: (message) => warnings.push(message) })
  try {
    registry.injectFaults('/alpha', [{ status: 503 }, { reset: true }])
    const result = await c.get(`${registry.url}alpha`, { accept: ACCEPT_ABBREVIATED, subject: 'alpha' })
    assert.equal(result.status, 200)
    assert.equal(warnings.length, 2)
    assert.equal(warnings[0], `GET ${registry.url}alpha error (503). Will retry in 5 milliseconds. 2 retries left.`)
    assert.match(warnings[1]!, new RegExp(`^GET ${registry.url}alpha error \\(\\w+\\)\\. Will retry in 10 milliseconds\\. 1 retries left\\.$`))
  } finally {
    await c.close()
  }
})

test('a registry still failing after the retries is an error naming the URL', async () => {
  const c = client({ onWarning: () => {} })
  try {
    registry.injectFaults('/alpha', [{ status: 500 }, { status: 500 }, { status: 500 }])
    await assert.rejects(c.get(`${registry.url}alpha`, { accept: ACCEPT_ABBREVIATED, subject: 'alpha' }), (err: Error & { code?: string }) => {
      assert.equal(err.code, 'ERR_LODE_FETCH_500')
      assert.ok(err.message.includes(`${registry.url}alpha`))
      return true
    })
    // Nothing listens on this port (it was just closed), so every attempt is refused.
    const dead = await TestRegistry.start()
    const deadUrl = dead.url
    await dead.close()
    await assert.rejects(c.get(`${deadUrl}alpha`, { accept: ACCEPT_ABBREVIATED, subject: 'alpha' }), (err: Error & { code?: string }) => {
      assert.equal(err.code, 'ERR_LODE_FETCH_FAILED')
      assert.ok(err.message.includes(`${deadUrl}alpha`))
      assert.ok(err.message.includes('ECONNREFUSED'))
      return true
    })
  } finally {
    await c.close()
  }
})

test('an error that is not the network\'s (a proxy URL that does not parse) fails at once, not retried', async () => {
  const warnings: string[] = []
  const c = client({ proxy: { httpProxy: 'not a url' }, onWarning: (message) => warnings.push(message) })
  try {
    await assert.rejects(c.get(`${registry.url}alpha`, { accept: ACCEPT_ABBREVIATED, subject: 'alpha' }), (err: Error & { code?: string }) => {
      assert.equal(err.code, 'ERR_LODE_FETCH_FAILED')
      assert.ok(err.message.includes(`${registry.url}alpha`))
      assert.match(err.message, /ERR_INVALID_URL/)
      assert.doesNotMatch(err.message, /after retrying/)
      return true
    })
    assert.deepEqual(warnings, [])
  } finally {
    await c.close()
  }
})

test('404 is ERR_LODE_NOT_FOUND naming the package', async () => {
  const c = client()
  try {
    await assert.rejects(c.get(`${registry.url}nope`, { accept: ACCEPT_ABBREVIATED, subject: 'nope' }), (err: Error & { code?: string }) => {
      assert.equal(err.code, 'ERR_LODE_NOT_FOUND')
      assert.match(err.message, /^nope is not in the registry/)
      return true
    })
  } finally {
    await c.close()
  }
})

test('auth: the token of the longest matching .npmrc prefix is sent; 401 and 403 name the setting', async () => {
  const host = new URL(registry.url).host
  registry.requiredAuthorization = 'Bearer right'
  try {
    const good = client({
      authHeader: createAuthHeaderLookup({ [`//${host}/:_authToken`]: 'right', [`//${host}/other/:_authToken`]: 'wrong' }, registry.url),
    })
    try {
      assert.equal((await good.get(`${registry.url}alpha`, { accept: ACCEPT_ABBREVIATED, subject: 'alpha' })).status, 200)
    } finally {
      await good.close()
    }
    const none = client()
    try {
      await assert.rejects(none.get(`${registry.url}alpha`, { accept: ACCEPT_ABBREVIATED, subject: 'alpha' }), (err: Error & { code?: string, hint?: string }) => {
        assert.equal(err.code, 'ERR_LODE_FETCH_401')
        assert.ok(err.hint?.includes(`//${host}/:_authToken`))
        return true
      })
    } finally {
      await none.close()
    }
    const bad = client({ authHeader: createAuthHeaderLookup({ _authToken: 'stale' }, registry.url) })
    try {
      await assert.rejects(bad.get(`${registry.url}alpha`, { accept: ACCEPT_ABBREVIATED, subject: 'alpha' }), (err: Error & { code?: string, hint?: string }) => {
        assert.equal(err.code, 'ERR_LODE_FETCH_403')
        assert.match(err.hint ?? '', /not accepted/)
        return true
      })
    } finally {
      await bad.close()
    }
  } finally {
    registry.requiredAuthorization = undefined
  }
})

test('a GET answered 409 (a busy registry) is retried, as pnpm retries it; a PUT\'s or DELETE\'s 409 is the caller\'s', async () => {
  const c = client()
  try {
    registry.injectFaults('/alpha', [{ status: 409 }])
    const answer = await c.get(`${registry.url}alpha`, { accept: ACCEPT_FULL, subject: 'alpha' })
    assert.equal(answer.status, 200)
    registry.injectFaults('/-/package/alpha/dist-tags/x', [{ status: 409, body: '{"error":"conflict"}' }])
    const deleted = await c.send('DELETE', `${registry.url}-/package/alpha/dist-tags/x`, undefined, { subject: 'alpha' })
    assert.equal(deleted.status, 409)
  } finally {
    await c.close()
  }
})

test('a DELETE goes once, without a body: a 500 is not retried (the registry may have taken it), a 404 is the caller\'s to read', async () => {
  const c = client()
  try {
    const path = '/-/package/alpha/dist-tags/next'
    registry.injectFaults(path, [{ status: 500, body: '{"error":"busy"}' }])
    const before = registry.recorded.length
    await assert.rejects(c.send('DELETE', `${registry.url}-/package/alpha/dist-tags/next`, undefined, { subject: 'alpha' }), { code: 'ERR_LODE_FETCH_500' })
    const sent = registry.recorded.slice(before)
    assert.deepEqual(sent.map((r) => [r.method, r.url]), [['DELETE', path]], 'sent once')
    assert.equal(sent[0]!.headers['content-type'], undefined)
    const missing = await c.send('DELETE', `${registry.url}-/package/alpha/dist-tags/next`, undefined, { subject: 'alpha' })
    assert.equal(missing.status, 404)
  } finally {
    await c.close()
  }
})

test('a change refused with 401 throws FETCH_401, or with answerRefusals is answered: its body and www-authenticate challenge (a login\'s OTP)', async () => {
  const c = client()
  try {
    const path = '/-/user/org.couchdb.user:erin'
    registry.injectFaults(path, [{ status: 401, body: '{"error":"otp"}', headers: { 'www-authenticate': 'OTP' } }])
    await assert.rejects(c.send('PUT', `${registry.url}-/user/org.couchdb.user:erin`, '{}', { subject: 'erin' }), { code: 'ERR_LODE_FETCH_401' })
    registry.injectFaults(path, [{ status: 401, body: '{"error":"otp"}', headers: { 'www-authenticate': 'OTP' } }])
    const answered = await c.send('PUT', `${registry.url}-/user/org.couchdb.user:erin`, '{}', { subject: 'erin', answerRefusals: true })
    assert.deepEqual([answered.status, answered.body.toString(), answered.challenge], [401, '{"error":"otp"}', 'OTP'])
  } finally {
    await c.close()
  }
})

test('concurrent identical requests share one request', async () => {
  const c = client()
  try {
    const before = registry.requests.length
    const results = await Promise.all(Array.from({ length: 5 }, async () => await c.get(`${registry.url}alpha`, { accept: ACCEPT_ABBREVIATED, subject: 'alpha' })))
    assert.equal(registry.requests.length - before, 1)
    assert.ok(results.every((r) => r.status === 200))
  } finally {
    await c.close()
  }
})

test('auth lookup: longest prefix, _auth and username/_password, default-registry credentials', () => {
  const lookup = createAuthHeaderLookup({
    '//reg.test/:_authToken': 'root',
    '//reg.test/deep/path/:_authToken': 'deep',
    '//other.test/:_auth': 'YWJjOmRlZg==',
    '//third.test/:username': 'u',
    '//third.test/:_password': Buffer.from('p').toString('base64'),
    _authToken: 'default-token',
  }, 'https://default.test/npm/')
  assert.equal(lookup('https://reg.test/deep/path/pkg'), 'Bearer deep')
  assert.equal(lookup('https://reg.test/deep/other'), 'Bearer root')
  assert.equal(lookup('https://other.test/x'), 'Basic YWJjOmRlZg==')
  assert.equal(lookup('https://third.test/x'), `Basic ${Buffer.from('u:p').toString('base64')}`)
  assert.equal(lookup('https://default.test/npm/x'), 'Bearer default-token')
  assert.equal(lookup('https://default.test/elsewhere'), undefined)
  assert.equal(lookup('https://unknown.test/x'), undefined)
})

test('retry waits are worded as pnpm words them', () => {
  assert.equal(verboseDuration(10_000), '10 seconds')
  assert.equal(verboseDuration(60_000), '1 minute')
  assert.equal(verboseDuration(90_000), '1 minute 30 seconds')
  assert.equal(verboseDuration(1000), '1 second')
  assert.equal(verboseDuration(1500), '1.5 seconds')
  assert.equal(verboseDuration(1), '1 millisecond')
  assert.equal(verboseDuration(5), '5 milliseconds')
})

test('decodeBody (a body fetched with decode: false): gzip within the bound; past it ERR_LODE_FETCH_TOO_LARGE naming the URL; damaged data throws zlib\'s error', () => {
  const json = Buffer.from(JSON.stringify({ name: 'big', versions: {} }).padEnd(4096, ' '))
  const opts = { url: 'http://127.0.0.1:1/big', subject: 'big', maxSize: 8192 }
  assert.deepEqual(decodeBody(gzipSync(json), 'gzip', opts), json)
  assert.deepEqual(decodeBody(json, undefined, opts), json)
  assert.throws(() => decodeBody(gzipSync(json), 'gzip', { ...opts, maxSize: 1000 }),
    { name: 'LodeError', code: 'ERR_LODE_FETCH_TOO_LARGE', message: /GET http:\/\/127\.0\.0\.1:1\/big answered with more than 1000 bytes while fetching big/ })
  assert.throws(() => decodeBody(Buffer.from('not gzip at all'), 'gzip', opts), (err: NodeJS.ErrnoException) => err.code === 'Z_DATA_ERROR')
})

test('decodeBody: a gzip body inflates whole whatever its last trailer says (it only sizes the output buffer); an uncompressed one is bounded too; the hint is the caller\'s tooLargeHint', () => {
  const first = Buffer.from('a'.repeat(100_000))
  const second = Buffer.from('b'.repeat(10))
  // Two gzip members: the trailer read for the buffer's size is the last one's, 10 bytes.
  const twoMembers = Buffer.concat([gzipSync(first), gzipSync(second)])
  const opts = { url: 'http://127.0.0.1:1/p', subject: 'p', maxSize: 200_000 }
  assert.deepEqual(decodeBody(twoMembers, 'gzip', opts), Buffer.concat([first, second]))
  const hint = 'raise packumentMaxSize'
  assert.throws(() => decodeBody(twoMembers, 'gzip', { ...opts, maxSize: 50_000, tooLargeHint: hint }), { code: 'ERR_LODE_FETCH_TOO_LARGE', hint })
  assert.throws(() => decodeBody(first, undefined, { ...opts, maxSize: 50_000, tooLargeHint: hint }),
    { code: 'ERR_LODE_FETCH_TOO_LARGE', message: /GET http:\/\/127\.0\.0\.1:1\/p answered with more than 50000 bytes while fetching p\./, hint })
  assert.throws(() => decodeBody(first, 'identity', { ...opts, maxSize: 50_000 }), { code: 'ERR_LODE_FETCH_TOO_LARGE', hint: /tarballMaxUnpackedSize/ })
})
