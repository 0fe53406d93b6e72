import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import fs from 'node:fs'
import http from 'node:http'
import https from 'node:https'
import net from 'node:net'
import type { AddressInfo } from 'node:net'
import { after, before, test } from 'node:test'

import { TestRegistry } from '@lode/__utils__.test-fixtures'
import type { PublishedPackage } from '@lode/__utils__.test-fixtures'
import { ACCEPT_ABBREVIATED, MAX_REDIRECTS, RegistryClient, createAuthHeaderLookup, networkDeadlines, redactUrl } from '@lode/resolving.registry-client'
import type { RegistryClientOptions } from '@lode/resolving.registry-client'

// Small deadlines keep each case to a second or two: headers in 200 ms, a body below 100 B/s over
// 200 ms is dropped, a whole response in 3 s; three attempts, 10 then 20 ms apart.
const TIMEOUT = 600

let registry: TestRegistry
let small: PublishedPackage
let big: PublishedPackage
before(async () => {
  registry = await TestRegistry.start()
  small = await registry.publish({ name: 'small', version: '1.0.0' })
  // Incompressible, so that it really is 40 kB on the wire.
  big = await registry.publish({ name: 'big', version: '1.0.0', files: { 'blob.bin': randomBytes(40_000) } })
})
after(async () => { await registry.close() })

interface Run {
  client: RegistryClient
  warnings: string[]
}

function client (overrides: Partial<RegistryClientOptions> = {}): Run {
  const warnings: string[] = []
  return {
    warnings,
    client: new RegistryClient({
      authHeader: () => undefined,
      networkConcurrency: 4,
      retry: { retries: 2, factor: 2, minTimeout: 10, maxTimeout: 40 },
      timeout: TIMEOUT,
      strictSsl: true,
      userAgent: 'lode-test',
      onWarning: (message) => warnings.push(message),
      ...overrides,
    }),
  }
}

function tarballPath (pkg: PublishedPackage): string {
  return new URL(pkg.tarballUrl).pathname
}

function requestsOf (path: string, since: number): number {
  return registry.requests.slice(since).filter((url) => url === path).length
}

async function elapsed<T> (fn: () => Promise<T>): Promise<{ ms: number, result: PromiseSettledResult<T> }> {
  const start = performance.now()
  const [result] = await Promise.allSettled([fn()])
  return { ms: performance.now() - start, result }
}

function rejection (result: PromiseSettledResult<unknown>): Error & { code?: string, hint?: string } {
  if (result.status !== 'rejected') assert.fail('the request should have failed')
  return result.reason as Error & { code?: string, hint?: string }
}

async function getTarball (run: Run, pkg: PublishedPackage, url = pkg.tarballUrl): Promise<Buffer> {
  const result = await run.client.get(url, { accept: '*/*', subject: `${pkg.name}@${pkg.version}` })
  assert.equal(result.status, 200)
  return (result as { body: Buffer }).body
}

test('the default deadlines follow fetch-timeout: pnpm\'s 60 s gives headers 20 s, a whole response 5 minutes', () => {
  assert.deepEqual(networkDeadlines({ timeout: 60_000 }), {
    stall: 60_000,
    headers: 20_000,
    response: 300_000,
    lowSpeedLimit: 100,
    lowSpeedTime: 20_000,
  })
  assert.deepEqual(networkDeadlines({ timeout: 0 }), { stall: 0, headers: 0, response: 0, lowSpeedLimit: 100, lowSpeedTime: 0 })
  assert.equal(networkDeadlines({ timeout: 60_000, headersTimeout: 5000 }).headers, 5000)
})

test('500 then 503 are retried, and the GET succeeds once the fault clears', async () => {
  const run = client()
  try {
    const path = tarballPath(small)
    const since = registry.requests.length
    registry.injectFaults(path, [{ status: 500 }, { status: 503 }])
    assert.deepEqual(await getTarball(run, small), small.tarball)
    assert.equal(requestsOf(path, since), 3)
    assert.deepEqual(run.warnings.map((w) => /error \((\d+)\)/.exec(w)?.[1]), ['500', '503'])
  } finally {
    await run.client.close()
  }
})

test('a 503 that stays is ERR_LODE_FETCH_503 naming the package, after fetch-retries retries', async () => {
  const run = client()
  try {
    const path = tarballPath(small)
    const since = registry.requests.length
    registry.injectFaults(path, [{ status: 503 }, { status: 503 }, { status: 503 }])
    const { result } = await elapsed(async () => await getTarball(run, small))
    const err = rejection(result)
    assert.equal(err.code, 'ERR_LODE_FETCH_503')
    assert.match(err.message, /while fetching small@1\.0\.0, after retrying/)
    assert.ok(err.message.includes(small.tarballUrl))
    assert.equal(requestsOf(path, since), 3)
    assert.equal(run.warnings.length, 2)
  } finally {
    await run.client.close()
  }
})

test('429 with Retry-After waits what the registry asks, capped at fetch-retry-maxtimeout', async () => {
  const run = client({ retry: { retries: 1, factor: 2, minTimeout: 5, maxTimeout: 250 } })
  try {
    registry.injectFaults(tarballPath(small), [{ status: 429, headers: { 'retry-after': '1' } }])
    const { ms, result } = await elapsed(async () => await getTarball(run, small))
    assert.equal(result.status, 'fulfilled')
    assert.deepEqual(run.warnings, [`GET ${small.tarballUrl} error (429). Will retry in 250 milliseconds. 1 retries left.`])
    assert.ok(ms >= 240, `waited ${ms} ms`)
  } finally {
    await run.client.close()
  }
})

test('a connection reset in the middle of the body is retried', async () => {
  const run = client()
  try {
    const path = tarballPath(big)
    const since = registry.requests.length
    registry.injectFaults(path, [{ resetMidBody: true }])
    assert.deepEqual(await getTarball(run, big), big.tarball)
    assert.equal(requestsOf(path, since), 2)
    assert.match(run.warnings[0] ?? '', /error \((ECONNRESET|UND_ERR_SOCKET)\)/)
  } finally {
    await run.client.close()
  }
})

test('a body shorter than its content-length is retried', async () => {
  const run = client()
  try {
    const path = tarballPath(big)
    const since = registry.requests.length
    registry.injectFaults(path, [{ truncate: true }])
    assert.deepEqual(await getTarball(run, big), big.tarball)
    assert.equal(requestsOf(path, since), 2)
    assert.equal(run.warnings.length, 1)
  } finally {
    await run.client.close()
  }
})

test('a damaged gzip stream is retried', async () => {
  const run = client()
  try {
    const since = registry.requests.length
    registry.injectFaults('/small', [{ status: 200, body: 'not gzip at all', headers: { 'content-encoding': 'gzip' } }])
    const result = await run.client.get(`${registry.url}small`, { accept: ACCEPT_ABBREVIATED, subject: 'small' })
    assert.equal(result.status, 200)
    assert.equal(requestsOf('/small', since), 2)
    assert.match(run.warnings[0] ?? '', /error \(Z_DATA_ERROR\)/)
  } finally {
    await run.client.close()
  }
})

test('a trickling body (1 byte/s) hits the low-speed limit, is retried, then fails with ERR_LODE_FETCH_TIMEOUT in bounded time', async () => {
  const run = client()
  try {
    const path = tarballPath(big)
    const since = registry.requests.length
    registry.injectFaults(path, [1, 2, 3].map(() => ({ slowBody: { bytesPerSecond: 1 } })))
    const { ms, result } = await elapsed(async () => await getTarball(run, big))
    const err = rejection(result)
    assert.equal(err.code, 'ERR_LODE_FETCH_TIMEOUT')
    assert.match(err.message, /LOW_SPEED: the response came slower than 100 bytes a second for 200 milliseconds\) while fetching big@1\.0\.0, after retrying/)
    assert.match(err.hint ?? '', /fetch-timeout/)
    assert.equal(requestsOf(path, since), 3)
    assert.equal(run.warnings.length, 2)
    // Three attempts of one 200 ms window each (a window may start just before the first byte), and 30 ms of waits.
    assert.ok(ms < 2000, `took ${ms} ms`)
  } finally {
    await run.client.close()
  }
})

test('a slow body that keeps coming is not cut, however long past the header deadline it takes', async () => {
  const run = client({ responseTimeout: 10_000 })
  try {
    const path = tarballPath(big)
    const since = registry.requests.length
    // About 2 s for 40 kB: ten low-speed windows and ten header deadlines.
    registry.injectFaults(path, [{ slowBody: { bytesPerSecond: 20_000 } }])
    const { ms, result } = await elapsed(async () => await getTarball(run, big))
    assert.deepEqual(result.status === 'fulfilled' ? result.value : result.reason, big.tarball)
    assert.ok(ms > 1500, `took ${ms} ms`)
    assert.equal(requestsOf(path, since), 1)
    assert.deepEqual(run.warnings, [])
  } finally {
    await run.client.close()
  }
})

test('a body above the low-speed limit that never ends is cut by the whole-response deadline', async () => {
  const run = client({ responseTimeout: 800, retry: { retries: 1, factor: 2, minTimeout: 10, maxTimeout: 10 } })
  try {
    const path = tarballPath(big)
    registry.injectFaults(path, [1, 2].map(() => ({ slowBody: { bytesPerSecond: 2000 } })))
    const { ms, result } = await elapsed(async () => await getTarball(run, big))
    const err = rejection(result)
    assert.equal(err.code, 'ERR_LODE_FETCH_TIMEOUT')
    assert.match(err.message, /RESPONSE_TIMEOUT: the response took longer than 800 milliseconds/)
    assert.ok(ms >= 1600 && ms < 3000, `took ${ms} ms`)
  } finally {
    await run.client.close()
  }
})

test('a server that never answers its headers: retried after the header deadline, then ERR_LODE_FETCH_TIMEOUT in bounded time', async () => {
  const run = client()
  try {
    const since = registry.requests.length
    registry.injectFaults('/small', [1, 2, 3].map(() => ({ noHeaders: true as const })))
    const { ms, result } = await elapsed(async () => await run.client.get(`${registry.url}small`, { accept: ACCEPT_ABBREVIATED, subject: 'small' }))
    const err = rejection(result)
    assert.equal(err.code, 'ERR_LODE_FETCH_TIMEOUT')
    assert.match(err.message, /HEADERS_TIMEOUT: no answer within 200 milliseconds\) while fetching small, after retrying/)
    assert.equal(requestsOf('/small', since), 3)
    assert.deepEqual(run.warnings, [
      `GET ${registry.url}small error (HEADERS_TIMEOUT). Will retry in 10 milliseconds. 2 retries left.`,
      `GET ${registry.url}small error (HEADERS_TIMEOUT). Will retry in 20 milliseconds. 1 retries left.`,
    ])
    // 3 × 200 ms + 30 ms of waits.
    assert.ok(ms >= 600 && ms < 1500, `took ${ms} ms`)

    registry.injectFaults('/small', [{ noHeaders: true }])
    const recovered = await run.client.get(`${registry.url}small`, { accept: ACCEPT_ABBREVIATED, subject: 'small' })
    assert.equal(recovered.status, 200)
  } finally {
    await run.client.close()
  }
})

test('a packument that is not JSON is returned as the bytes it is: parsing is the resolver\'s concern', async () => {
  const run = client()
  try {
    const since = registry.requests.length
    registry.injectFaults('/small', [{ invalidJson: true }])
    const result = await run.client.get(`${registry.url}small`, { accept: ACCEPT_ABBREVIATED, subject: 'small' })
    assert.equal(result.status, 200)
    assert.throws(() => JSON.parse((result as { body: Buffer }).body.toString()), SyntaxError)
    assert.equal(requestsOf('/small', since), 1)
  } finally {
    await run.client.close()
  }
})

test('404 and other 4xx fail at once, not retried', async () => {
  const run = client()
  try {
    const since = registry.requests.length
    const missing = `${registry.url}small/-/small-9.9.9.tgz`
    await assert.rejects(run.client.get(missing, { accept: '*/*', subject: 'small@9.9.9' }), (err: Error & { code?: string }) => {
      assert.equal(err.code, 'ERR_LODE_NOT_FOUND')
      assert.match(err.message, /^small@9\.9\.9 is not in the registry/)
      assert.ok(err.message.includes(missing))
      return true
    })
    assert.equal(requestsOf('/small/-/small-9.9.9.tgz', since), 1)
    registry.injectFaults(tarballPath(small), [{ status: 410 }])
    await assert.rejects(getTarball(run, small), { code: 'ERR_LODE_FETCH_410' })
    assert.equal(requestsOf(tarballPath(small), since), 1)
    assert.deepEqual(run.warnings, [])
  } finally {
    await run.client.close()
  }
})

test('a URL that is not http(s) fails at once with ERR_LODE_FETCH_INVALID_URL', async () => {
  const run = client()
  try {
    for (const url of ['not a url', 'ftp://127.0.0.1/x', 'http://user:SECRET@[bad/x']) {
      await assert.rejects(run.client.get(url, { accept: '*/*', subject: 'x@1.0.0' }), (err: Error & { code?: string }) => {
        assert.equal(err.code, 'ERR_LODE_FETCH_INVALID_URL')
        assert.ok(!err.message.includes('SECRET'), err.message)
        return true
      })
    }
    assert.deepEqual(run.warnings, [])
  } finally {
    await run.client.close()
  }
})

test('redirects are followed (relative and absolute, every redirect status); the token stays with its origin', async () => {
  const other = await TestRegistry.start()
  try {
    await other.publish({ name: 'small', version: '1.0.0' })
    const host = new URL(registry.url).host
    const run = client({ authHeader: createAuthHeaderLookup({ [`//${host}/:_authToken`]: 'mine' }, registry.url) })
    try {
      // Same origin, relative Location: the token goes along.
      registry.injectFaults('/moved', [{ redirect: { status: 302, location: tarballPath(small) } }])
      assert.deepEqual(await getTarball(run, small, `${registry.url}moved`), small.tarball)
      assert.equal(registry.recorded.at(-1)!.url, tarballPath(small))
      assert.equal(registry.recorded.at(-1)!.headers.authorization, 'Bearer mine')

      // Another origin (another port): followed, without the token.
      for (const status of [301, 302, 303, 307, 308] as const) {
        registry.injectFaults('/away', [{ redirect: { status, location: `${other.url}small` } }])
        const result = await run.client.get(`${registry.url}away`, { accept: ACCEPT_ABBREVIATED, subject: 'small' })
        assert.equal(result.status, 200, `after ${status}`)
        assert.equal(registry.recorded.at(-1)!.headers.authorization, 'Bearer mine')
        assert.equal(other.recorded.at(-1)!.url, '/small')
        assert.equal(other.recorded.at(-1)!.headers.authorization, undefined, `the token went to another origin after ${status}`)
      }
    } finally {
      await run.client.close()
    }

    // Unless .npmrc gives that origin a token of its own.
    const both = client({
      authHeader: createAuthHeaderLookup({ [`//${host}/:_authToken`]: 'mine', [`//${new URL(other.url).host}/:_authToken`]: 'theirs' }, registry.url),
    })
    try {
      registry.injectFaults('/away', [{ redirect: { status: 302, location: `${other.url}small` } }])
      await both.client.get(`${registry.url}away`, { accept: ACCEPT_ABBREVIATED, subject: 'small' })
      assert.equal(other.recorded.at(-1)!.headers.authorization, 'Bearer theirs')
    } finally {
      await both.client.close()
    }
  } finally {
    await other.close()
  }
})

test('too many redirects, and a redirect with no Location, are coded errors, not retried', async () => {
  const run = client()
  try {
    const since = registry.requests.length
    registry.injectFaults('/loop', Array.from({ length: MAX_REDIRECTS + 1 }, () => ({ redirect: { status: 302 as const, location: '/loop' } })))
    await assert.rejects(run.client.get(`${registry.url}loop`, { accept: '*/*', subject: 'loop@1.0.0' }), (err: Error & { code?: string }) => {
      assert.equal(err.code, 'ERR_LODE_FETCH_TOO_MANY_REDIRECTS')
      assert.match(err.message, /redirected more than 20 times .* while fetching loop@1\.0\.0/)
      return true
    })
    assert.equal(requestsOf('/loop', since), MAX_REDIRECTS + 1)
    registry.injectFaults('/nowhere', [{ status: 302 }])
    await assert.rejects(run.client.get(`${registry.url}nowhere`, { accept: '*/*', subject: 'x' }), { code: 'ERR_LODE_FETCH_BAD_REDIRECT' })
    assert.deepEqual(run.warnings, [])
  } finally {
    await run.client.close()
  }
})

const fixture = (name: string): string => fs.readFileSync(new URL(`../../test/fixtures/${name}`, import.meta.url), 'utf8')

async function httpsServer (certName: string): Promise<{ url: string, connections: () => number, close: () => Promise<void> }> {
  let connections = 0
  const server = https.createServer({ key: fixture(`${certName}-key.pem`), cert: fixture(`${certName}-cert.pem`) }, (_req, res) => {
    res.writeHead(200, { 'content-type': 'application/octet-stream' })
    res.end('tls ok')
  })
  server.on('connection', () => { connections++ })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    url: `https://127.0.0.1:${(server.address() as AddressInfo).port}/`,
    connections: () => connections,
    close: async () => {
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => { resolve() }))
    },
  }
}

test('a certificate that fails verification is not retried: ERR_LODE_FETCH_TLS at once, with a hint about ca and strict-ssl', async () => {
  const server = await httpsServer('loopback')
  try {
    const run = client()
    try {
      const { ms, result } = await elapsed(async () => await run.client.get(`${server.url}pkg`, { accept: '*/*', subject: 'pkg@1.0.0' }))
      const err = rejection(result)
      assert.equal(err.code, 'ERR_LODE_FETCH_TLS')
      assert.match(err.message, /DEPTH_ZERO_SELF_SIGNED_CERT.*while fetching pkg@1\.0\.0/)
      assert.match(err.hint ?? '', /cafile=/)
      assert.match(err.hint ?? '', /strict-ssl=false/)
      assert.equal(server.connections(), 1)
      assert.deepEqual(run.warnings, [])
      assert.ok(ms < 1000, `took ${ms} ms`)
    } finally {
      await run.client.close()
    }
    // The same server is fine once its certificate is trusted, or checks are off.
    for (const trusting of [client({ ca: [fixture('loopback-cert.pem')] }), client({ strictSsl: false })]) {
      try {
        const result = await trusting.client.get(`${server.url}pkg`, { accept: '*/*', subject: 'pkg@1.0.0' })
        assert.equal(result.status === 200 && result.body.toString(), 'tls ok')
      } finally {
        await trusting.client.close()
      }
    }
  } finally {
    await server.close()
  }
})

/** An HTTP proxy that tunnels CONNECT to where it is asked (all on 127.0.0.1), counting the tunnels. */
async function connectProxy (): Promise<{ url: string, tunnels: () => number, close: () => Promise<void> }> {
  let tunnels = 0
  const server = http.createServer((_req, res) => { res.writeHead(502).end() })
  server.on('connect', (req: http.IncomingMessage, socket: net.Socket, head: Buffer) => {
    tunnels++
    const [host, port] = (req.url ?? '').split(':')
    const upstream = net.connect(Number(port), host, () => {
      socket.write('HTTP/1.1 200 Connection Established\r\n\r\n')
      upstream.write(head)
      upstream.pipe(socket).pipe(upstream)
    })
    upstream.on('error', () => { socket.destroy() })
    socket.on('error', () => { upstream.destroy() })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    tunnels: () => tunnels,
    close: async () => {
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => { resolve() }))
    },
  }
}

test('through an HTTPS proxy, the registry\'s certificate is checked against ca and strict-ssl as without one', async () => {
  const server = await httpsServer('loopback')
  const proxy = await connectProxy()
  try {
    const untrusting = client({ proxy: { httpsProxy: proxy.url } })
    try {
      const result = await Promise.allSettled([untrusting.client.get(`${server.url}pkg`, { accept: '*/*', subject: 'pkg@1.0.0' })])
      assert.equal(rejection(result[0]).code, 'ERR_LODE_FETCH_TLS')
    } finally {
      await untrusting.client.close()
    }
    for (const trusting of [client({ ca: [fixture('loopback-cert.pem')], proxy: { httpsProxy: proxy.url } }), client({ strictSsl: false, proxy: { httpsProxy: proxy.url } })]) {
      try {
        const result = await trusting.client.get(`${server.url}pkg`, { accept: '*/*', subject: 'pkg@1.0.0' })
        assert.equal(result.status === 200 && result.body.toString(), 'tls ok')
      } finally {
        await trusting.client.close()
      }
    }
    assert.equal(proxy.tunnels(), 3, 'every request went through the proxy')
  } finally {
    await proxy.close()
    await server.close()
  }
})

test('HEAD answers with the status, following no redirect and sending no credentials; no answer at all rejects after its own retries', async () => {
  const seen: Array<{ method: string | undefined, url: string | undefined, authorization: string | undefined }> = []
  let busy = 1
  const server = http.createServer((req, res) => {
    seen.push({ method: req.method, url: req.url, authorization: req.headers.authorization })
    const status = req.url === '/public' ? 200 : req.url === '/moved' ? 301 : req.url === '/busy' && busy-- > 0 ? 503 : 404
    res.writeHead(status, status === 301 ? { location: '/public' } : {}).end()
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  const run = client({ authHeader: () => 'Bearer secret' })
  const retry = { retries: 2, factor: 2, minTimeout: 10, maxTimeout: 20 }
  try {
    assert.equal(await run.client.head(`${base}/public`, { subject: 'repo', retry }), 200)
    assert.equal(await run.client.head(`${base}/private`, { subject: 'repo', retry }), 404)
    assert.equal(await run.client.head(`${base}/moved`, { subject: 'repo', retry }), 301)
    assert.equal(await run.client.head(`${base}/busy`, { subject: 'repo', retry }), 404, 'a 503 is retried')
    assert.deepEqual(seen.map((request) => `${request.method ?? ''} ${request.url ?? ''}`), ['HEAD /public', 'HEAD /private', 'HEAD /moved', 'HEAD /busy', 'HEAD /busy'])
    assert.ok(seen.every((request) => request.authorization === undefined), 'no credentials')
  } finally {
    server.closeAllConnections()
    await new Promise<void>((resolve) => server.close(() => { resolve() }))
  }
  try {
    await assert.rejects(run.client.head(`${base}/public`, { subject: 'repo', retry }))
    assert.equal(run.warnings.filter((warning) => warning.startsWith(`HEAD ${base}/public error`)).length, 2, run.warnings.join('\n'))
  } finally {
    await run.client.close()
  }
})

test('a certificate for another host name is ERR_LODE_FETCH_TLS naming the host, not retried', async () => {
  const server = await httpsServer('other-name')
  const run = client({ ca: [fixture('other-name-cert.pem')] })
  try {
    await assert.rejects(run.client.get(`${server.url}pkg`, { accept: '*/*', subject: 'pkg@1.0.0' }), (err: Error & { code?: string, hint?: string }) => {
      assert.equal(err.code, 'ERR_LODE_FETCH_TLS')
      assert.match(err.message, /ERR_TLS_CERT_ALTNAME_INVALID/)
      assert.match(err.hint ?? '', /not for 127\.0\.0\.1/)
      return true
    })
    assert.equal(server.connections(), 1)
    assert.deepEqual(run.warnings, [])
  } finally {
    await run.client.close()
    await server.close()
  }
})

test('credentials in a registry URL are sent as Basic auth, never in the URL, and never printed', async () => {
  const withSecret = registry.url.replace('://', '://user:SECRET@')
  const run = client()
  const messages: string[] = []
  const collect = async (url: string, subject = 'small'): Promise<void> => {
    try {
      await run.client.get(url, { accept: ACCEPT_ABBREVIATED, subject })
    } catch (err) {
      const { message, hint, code } = err as Error & { hint?: string, code?: string }
      messages.push(`${code}: ${message} ${hint ?? ''}`)
    }
  }
  try {
    registry.requiredAuthorization = `Basic ${Buffer.from('user:SECRET').toString('base64')}`
    const ok = await run.client.get(`${withSecret}small`, { accept: ACCEPT_ABBREVIATED, subject: 'small' })
    assert.equal(ok.status, 200)
    assert.equal(registry.recorded.at(-1)!.url, '/small')

    registry.injectFaults('/small', [{ status: 503 }, { status: 503 }, { status: 503 }])
    await collect(`${withSecret}small`)
    registry.injectFaults('/small', [1, 2, 3].map(() => ({ noHeaders: true as const })))
    await collect(`${withSecret}small?token=SECRET&access_key=SECRET`)
    await collect(`${withSecret}nope`)
    registry.requiredAuthorization = 'Bearer something else'
    await collect(`${withSecret}small`)
    registry.requiredAuthorization = undefined
    registry.injectFaults('/loop', Array.from({ length: MAX_REDIRECTS + 1 }, () => ({ redirect: { status: 302 as const, location: '/loop?signature=SECRET' } })))
    await collect(`${withSecret}loop`)
    await collect(`${withSecret}nope?auth=SECRET`, `${withSecret}nope?auth=SECRET`)
    const tls = await httpsServer('loopback')
    try {
      await collect(`${tls.url.replace('://', '://user:SECRET@')}pkg`)
    } finally {
      await tls.close()
    }

    assert.deepEqual(messages.map((m) => m.split(':')[0]), [
      'ERR_LODE_FETCH_503', 'ERR_LODE_FETCH_TIMEOUT', 'ERR_LODE_NOT_FOUND', 'ERR_LODE_FETCH_403', 'ERR_LODE_FETCH_TOO_MANY_REDIRECTS', 'ERR_LODE_NOT_FOUND', 'ERR_LODE_FETCH_TLS',
    ])
    assert.ok(run.warnings.length >= 4)
    for (const text of [...messages, ...run.warnings]) {
      assert.ok(!text.includes('SECRET'), text)
      assert.ok(!text.includes('user:'), text)
    }
    assert.match(messages[0]!, /GET http:\/\/\*\*\*@127\.0\.0\.1:\d+\/small failed with HTTP 503/)
    assert.match(messages[3]!, /user and password written in the registry URL were not accepted/)
    assert.match(messages[5]!, /^ERR_LODE_NOT_FOUND: http:\/\/\*\*\*@127\.0\.0\.1:\d+\/nope\?auth=\*\*\* is not in the registry/)
  } finally {
    registry.requiredAuthorization = undefined
    await run.client.close()
  }
})

test('.npmrc credentials win over those in the URL', async () => {
  const host = new URL(registry.url).host
  const run = client({ authHeader: createAuthHeaderLookup({ [`//${host}/:_authToken`]: 'npmrc' }, registry.url) })
  try {
    await run.client.get(`${registry.url.replace('://', '://user:SECRET@')}small`, { accept: ACCEPT_ABBREVIATED, subject: 'small' })
    assert.equal(registry.recorded.at(-1)!.headers.authorization, 'Bearer npmrc')
  } finally {
    await run.client.close()
  }
})

test('redactUrl masks userinfo and secret-looking query parameters, and leaves other URLs as they are', () => {
  assert.equal(redactUrl('https://user:pass@reg.test/npm/'), 'https://***@reg.test/npm/')
  assert.equal(redactUrl('https://TOKEN@reg.test/x'), 'https://***@reg.test/x')
  assert.equal(redactUrl('https://cdn.test/a.tgz?X-Amz-Signature=abc&X-Amz-Credential=def&x-id=GetObject'), 'https://cdn.test/a.tgz?X-Amz-Signature=***&X-Amz-Credential=***&x-id=GetObject')
  assert.equal(redactUrl('https://reg.test/a?token=1&auth=2&password=3&api_key=4&secret=5&sig=6&page=7'), 'https://reg.test/a?token=***&auth=***&password=***&api_key=***&secret=***&sig=***&page=7')
  assert.equal(redactUrl('https://reg.test/@scope%2fpkg'), 'https://reg.test/@scope%2fpkg')
  assert.equal(redactUrl('http://127.0.0.1:4873/a b'), 'http://127.0.0.1:4873/a b')
  assert.equal(redactUrl('http://u:p@[bad/x?token=t'), 'http://***@[bad/x?token=***')
})

test('a body arriving in many writes is read whole, with or without a content-length; with one, it owns its memory (a store thread takes it without a copy)', async () => {
  const bytes = randomBytes(300_000)
  const server = http.createServer((req, res) => {
    res.writeHead(200, req.url === '/declared' ? { 'content-length': bytes.length } : {})
    for (let at = 0; at < bytes.length; at += 7_000) res.write(bytes.subarray(at, at + 7_000))
    res.end()
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  const { client: c } = client()
  try {
    for (const path of ['/declared', '/chunked']) {
      const answer = await c.get(`${base}${path}`, { accept: '*/*', subject: 'many@1.0.0' })
      assert.equal(answer.status, 200)
      if (answer.status !== 200) return
      assert.ok(answer.body.equals(bytes), path)
      if (path === '/declared') assert.equal(answer.body.buffer.byteLength, bytes.length, 'one buffer of the declared length, not a slice of a pool')
    }
  } finally {
    await c.close()
    server.closeAllConnections()
    await new Promise<void>((resolve) => server.close(() => { resolve() }))
  }
})

test('a body past maxSize, as sent or once decoded, is ERR_LODE_FETCH_TOO_LARGE at once, not retried', async () => {
  const { gzipSync } = await import('node:zlib')
  const http = await import('node:http')
  // Compressed once, before the client starts: compressing in the handler would stall this process's event loop
  // past the client's short test timeout on a loaded machine.
  const bomb = gzipSync(Buffer.alloc(50_000_000))
  const twoMembers = Buffer.concat([gzipSync(Buffer.alloc(300_000, 'a')), gzipSync(Buffer.alloc(10, 'b'))])
  let requests = 0
  const server = http.createServer((req, res) => {
    requests++
    if (req.url === '/declared') {
      res.writeHead(200, { 'content-length': 50_000 })
      res.end(Buffer.alloc(50_000))
    } else if (req.url === '/chunked') {
      res.writeHead(200)
      for (let i = 0; i < 10; i++) res.write(Buffer.alloc(10_000))
      res.end()
    } else if (req.url === '/two-members') {
      res.writeHead(200, { 'content-encoding': 'gzip' })
      res.end(twoMembers)
    } else {
      // 5 kB on the wire, 50 MB once inflated.
      res.writeHead(200, { 'content-encoding': 'gzip' })
      res.end(bomb)
    }
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  // What is tested is the size bound, not the clock: a generous timeout keeps a slow machine from answering first.
  const { client: c } = client({ timeout: 10_000 })
  try {
    for (const [path, maxSize] of [['/declared', 20_000], ['/chunked', 20_000], ['/bomb', 1_000_000]] as const) {
      const before = requests
      await assert.rejects(c.get(`${base}${path}`, { accept: '*/*', subject: 'huge@1.0.0', maxSize }), (err: Error & { code?: string }) => {
        assert.equal(err.code, 'ERR_LODE_FETCH_TOO_LARGE', `${path}: ${err.message}`)
        assert.match(err.message, /huge@1\.0\.0/)
        return true
      })
      assert.equal(requests - before, 1, `${path} is not retried`)
    }
    // Within the bound, the same server's answer is read whole.
    const fits = await c.get(`${base}/declared`, { accept: '*/*', subject: 'fits', maxSize: 50_000 })
    assert.equal(fits.status === 200 ? fits.body.length : 0, 50_000)
    // The caller's hint names its setting.
    for (const path of ['/declared', '/chunked', '/bomb']) {
      await assert.rejects(c.get(`${base}${path}`, { accept: '*/*', subject: 'p', maxSize: 20_000, tooLargeHint: 'raise packumentMaxSize' }),
        { code: 'ERR_LODE_FETCH_TOO_LARGE', hint: 'raise packumentMaxSize' }, path)
    }
    // Gzip members whose last trailer gives less than the whole: inflated whole all the same.
    const whole = await c.get(`${base}/two-members`, { accept: '*/*', subject: 'p', maxSize: 1_000_000 })
    assert.deepEqual(whole.status === 200 ? whole.body : undefined, Buffer.concat([Buffer.alloc(300_000, 'a'), Buffer.alloc(10, 'b')]))
  } finally {
    await c.close()
    server.closeAllConnections()
    await new Promise<void>((resolve) => server.close(() => { resolve() }))
  }
})
