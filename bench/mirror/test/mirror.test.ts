import assert from 'node:assert/strict'
import crypto from 'node:crypto'
import fs from 'node:fs'
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import os from 'node:os'
import path from 'node:path'
import { after, before, test } from 'node:test'
import zlib from 'node:zlib'

import { buildMirror, startLatencyProxy, startMirrorServer } from '../src/index.js'
import type { MirrorServer, Packument } from '../src/index.js'

const ABBREVIATED = 'application/vnd.npm.install-v1+json; q=1.0, application/json; q=0.8, */*'
const cutoff = new Date('2026-11-01T00:00:00Z')
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'lode-mirror-'))

// The fake upstream: `alpha` (1.0.0, 1.1.0, 1.2.0-rc.1 before the cut-off, 2.0.0 after it) and
// `@sc/pkg`, served under a path prefix as some registries are, gzipped when asked.
const published: Record<string, Record<string, string>> = {
  alpha: { '1.0.0': '2026-01-01T00:00:00.000Z', '1.1.0': '2026-06-01T00:00:00.000Z', '1.2.0-rc.1': '2026-07-01T00:00:00.000Z', '2.0.0': '2026-12-01T00:00:00.000Z' },
  '@sc/pkg': { '0.1.0': '2026-02-01T00:00:00.000Z' },
}
const distTags: Record<string, Record<string, string>> = {
  alpha: { latest: '2.0.0', next: '2.0.0', rc: '1.2.0-rc.1' },
  '@sc/pkg': { latest: '0.1.0' },
}
const tarballs = new Map<string, Buffer>()
for (const [name, versions] of Object.entries(published)) {
  for (const version of Object.keys(versions)) {
    // alpha 1.1.0 is big enough (and incompressible) for the bandwidth test.
    const size = name === 'alpha' && version === '1.1.0' ? 300_000 : 2_000
    tarballs.set(`${name}/-/${name.slice(name.indexOf('/') + 1)}-${version}.tgz`, zlib.gzipSync(crypto.randomBytes(size)))
  }
}
const integrity = (data: Buffer): string => `sha512-${crypto.createHash('sha512').update(data).digest('base64')}`
const tarballOf = (name: string, version: string): Buffer => tarballs.get(`${name}/-/${name.slice(name.indexOf('/') + 1)}-${version}.tgz`)!

let upstreamUrl = ''
const upstreamRequests: string[] = []

function packuments (name: string): { full: Record<string, unknown>, abbr: Record<string, unknown> } {
  const times = published[name]!
  const manifest = (version: string): Record<string, unknown> => ({
    name,
    version,
    dist: { tarball: `${upstreamUrl}${name}/-/${name.slice(name.indexOf('/') + 1)}-${version}.tgz`, integrity: integrity(tarballOf(name, version)) },
  })
  const versions = Object.keys(times)
  const modified = times[versions.at(-1)!]!
  return {
    full: {
      name,
      readme: 'only in the full document',
      'dist-tags': distTags[name],
      versions: Object.fromEntries(versions.map((v) => [v, { ...manifest(v), description: 'a test package', scripts: { postinstall: 'node x.js', test: 'node t.js' } }])),
      time: { created: times[versions[0]!]!, modified, ...times },
    },
    abbr: {
      name,
      modified,
      'dist-tags': distTags[name],
      versions: Object.fromEntries(versions.map((v) => [v, manifest(v)])),
    },
  }
}

// URLs the fake answers with a 503 once, to exercise the retries.
const failOnce = new Set<string>()

const upstream = http.createServer((req, res) => {
  upstreamRequests.push(req.url!)
  if (failOnce.delete(req.url!)) {
    res.writeHead(503).end()
    return
  }
  const prefix = '/registry/'
  const urlPath = req.url!.startsWith(prefix) ? req.url!.slice(prefix.length) : ''
  const tarball = tarballs.get(urlPath)
  if (tarball !== undefined) {
    res.writeHead(200, { 'content-type': 'application/octet-stream' }).end(tarball)
    return
  }
  const name = decodeURIComponent(urlPath)
  if (published[name] === undefined) {
    res.writeHead(404).end('{}')
    return
  }
  const docs = packuments(name)
  let body = Buffer.from(JSON.stringify(req.headers.accept?.includes('application/vnd.npm.install-v1+json') === true ? docs.abbr : docs.full))
  const headers: http.OutgoingHttpHeaders = { 'content-type': 'application/json' }
  if (req.headers['accept-encoding']?.includes('gzip') === true) {
    body = zlib.gzipSync(body)
    headers['content-encoding'] = 'gzip'
  }
  res.writeHead(200, headers).end(body)
})

function lockfile (entries: Record<string, string>): string {
  const file = path.join(fs.mkdtempSync(path.join(tmp, 'project-')), 'pnpm-lock.yaml')
  const packages = Object.entries(entries).map(([key, rest]) => `  '${key}':\n${rest}`).join('\n')
  fs.writeFileSync(file, `lockfileVersion: '9.0'\n\nimporters:\n\n  .: {}\n\npackages:\n\n${packages}\n`)
  return file
}
const resolution = (name: string, version: string): string => `    resolution: {integrity: ${integrity(tarballOf(name, version))}}\n`

// alpha 2.0.0 is locked but excluded on this machine; `local` is a directory, not a registry package.
const mainLockfile = (): string => lockfile({
  '@sc/pkg@0.1.0': resolution('@sc/pkg', '0.1.0'),
  'alpha@1.0.0': resolution('alpha', '1.0.0'),
  'alpha@1.1.0': resolution('alpha', '1.1.0'),
  'alpha@2.0.0': `${resolution('alpha', '2.0.0')}    os: ['!${process.platform}']\n`,
  'local@file:local': '    resolution: {directory: local, type: directory}\n',
})

interface Response { status: number, headers: http.IncomingHttpHeaders, body: Buffer, ms: number }

/** GET over a new connection (unless `agent` is given), with the path sent as written. */
function get (base: string, urlPath: string, headers: http.OutgoingHttpHeaders = {}, agent: http.Agent | false = false): Promise<Response> {
  const url = new URL(base)
  const started = performance.now()
  return new Promise((resolve, reject) => {
    http.get({ hostname: url.hostname, port: url.port, path: urlPath, headers, agent }, (res) => {
      const chunks: Buffer[] = []
      res.on('data', (chunk: Buffer) => chunks.push(chunk))
      res.on('end', () => { resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks), ms: performance.now() - started }) })
      res.on('error', reject)
    }).on('error', reject)
  })
}
const json = (response: Response): Packument => JSON.parse(response.body.toString('utf8')) as Packument

const dir = path.join(tmp, 'mirror')
const log = (): void => {}
let firstBuild: Awaited<ReturnType<typeof buildMirror>>
let server: MirrorServer

before(async () => {
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve))
  upstreamUrl = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}/registry/`
  firstBuild = await buildMirror({ lockfiles: [mainLockfile()], upstream: upstreamUrl, dir, cutoff, log })
  server = await startMirrorServer({ dir })
})
after(async () => {
  await server.close()
  upstream.closeAllConnections()
  await new Promise((resolve) => upstream.close(resolve))
  fs.rmSync(tmp, { recursive: true, force: true })
})

test('buildMirror stores the packuments and the tarballs this machine installs; a second build fetches nothing', async () => {
  assert.deepEqual(firstBuild, { packuments: 2, tarballs: 3, fetched: 5 })
  assert.deepEqual(fs.readdirSync(path.join(dir, 'packuments')).sort(), ['@sc+pkg.abbr.json', '@sc+pkg.full.json', 'alpha.abbr.json', 'alpha.full.json'])
  assert.deepEqual(fs.readdirSync(path.join(dir, 'tarballs', 'alpha', '-')).sort(), ['alpha-1.0.0.tgz', 'alpha-1.1.0.tgz'])
  assert.ok(fs.readFileSync(path.join(dir, 'tarballs', '@sc', 'pkg', '-', 'pkg-0.1.0.tgz')).equals(tarballOf('@sc/pkg', '0.1.0')))
  assert.deepEqual(JSON.parse(fs.readFileSync(path.join(dir, 'mirror.json'), 'utf8')), { cutoff: '2026-11-01T00:00:00.000Z' })
  // Each packument was asked for once (the abbreviated one is derived), with the scope's slash encoded.
  assert.equal(upstreamRequests.filter((url) => url === '/registry/@sc%2fpkg').length, 1)

  const requestsBefore = upstreamRequests.length
  const again = await buildMirror({ lockfiles: [mainLockfile()], upstream: upstreamUrl, dir, cutoff, log })
  assert.deepEqual(again, { packuments: 2, tarballs: 3, fetched: 0 })
  assert.equal(upstreamRequests.length, requestsBefore)
})

test('versions published after the cut-off are gone from both packuments; latest moves to the highest remaining release', async () => {
  const full = json(await get(server.url, '/alpha', { accept: 'application/json' }))
  const abbr = json(await get(server.url, '/alpha', { accept: ABBREVIATED }))
  for (const doc of [full, abbr]) {
    assert.deepEqual(Object.keys(doc.versions!), ['1.0.0', '1.1.0', '1.2.0-rc.1'])
    assert.deepEqual(doc['dist-tags'], { latest: '1.1.0', rc: '1.2.0-rc.1' })
  }
  assert.deepEqual(full.time, { created: '2026-01-01T00:00:00.000Z', modified: '2026-07-01T00:00:00.000Z', '1.0.0': '2026-01-01T00:00:00.000Z', '1.1.0': '2026-06-01T00:00:00.000Z', '1.2.0-rc.1': '2026-07-01T00:00:00.000Z' })
  assert.equal(abbr.modified, '2026-07-01T00:00:00.000Z')
})

test('the abbreviated packument answers an install-v1 Accept, the full one anything else; tarball URLs point at the mirror', async () => {
  const abbr = await get(server.url, '/alpha', { accept: ABBREVIATED })
  assert.equal(abbr.status, 200)
  assert.equal(abbr.headers['content-type'], 'application/vnd.npm.install-v1+json')
  assert.equal(json(abbr).readme, undefined)
  // Derived from the full document as npm's registry derives it: scripts give way to hasInstallScript.
  assert.deepEqual(Object.keys(json(abbr).versions!['1.0.0']!).sort(), ['dist', 'hasInstallScript', 'name', 'version'])
  const full = await get(server.url, '/alpha', { accept: 'application/json' })
  assert.equal(full.headers['content-type'], 'application/json')
  assert.equal(json(full).readme, 'only in the full document')
  assert.equal(Number(full.headers['content-length']), full.body.length)
  assert.equal(json(await get(server.url, '/alpha')).readme, 'only in the full document')
  for (const doc of [json(abbr), json(full)]) {
    assert.equal((doc.versions!['1.0.0']!.dist!.tarball), `${server.url}alpha/-/alpha-1.0.0.tgz`)
  }
})

test('packuments are gzipped when the client accepts gzip', async () => {
  const plain = await get(server.url, '/alpha', { accept: ABBREVIATED })
  const gzipped = await get(server.url, '/alpha', { accept: ABBREVIATED, 'accept-encoding': 'gzip, deflate' })
  assert.equal(gzipped.headers['content-encoding'], 'gzip')
  assert.equal(plain.headers['content-encoding'], undefined)
  assert.equal(Number(gzipped.headers['content-length']), gzipped.body.length)
  assert.deepEqual(JSON.parse(zlib.gunzipSync(gzipped.body).toString('utf8')), json(plain))
})

test('packuments carry an ETag and npm’s max-age; a client that has the document gets 304 with no body', async () => {
  const abbr = await get(server.url, '/alpha', { accept: ABBREVIATED })
  const full = await get(server.url, '/alpha', { accept: 'application/json' })
  assert.equal(abbr.headers['cache-control'], 'public, max-age=300')
  assert.match(String(abbr.headers.etag), /^"[0-9a-f]{40}"$/)
  assert.notEqual(abbr.headers.etag, full.headers.etag)
  const again = await get(server.url, '/alpha', { accept: ABBREVIATED, 'if-none-match': String(abbr.headers.etag) })
  assert.equal(again.status, 304)
  assert.equal(again.body.length, 0)
  assert.equal(again.headers.etag, abbr.headers.etag)
  assert.equal((await get(server.url, '/alpha', { accept: ABBREVIATED, 'if-none-match': `W/${String(abbr.headers.etag)}` })).status, 304)
  const other = await get(server.url, '/alpha', { accept: ABBREVIATED, 'if-none-match': String(full.headers.etag) })
  assert.equal(other.status, 200)
  assert.deepEqual(json(other), json(abbr))
})

test('a version or dist-tag under the name is that version\'s document, as npm\'s registry answers it; after the cut-off or unknown is 404', async () => {
  const latest = await get(server.url, '/alpha/latest')
  assert.equal(latest.status, 200)
  assert.equal(json(latest).version, '1.1.0')
  assert.equal((json(latest) as { dist?: { tarball?: string } }).dist?.tarball, `${server.url}alpha/-/alpha-1.1.0.tgz`)
  assert.equal(json(await get(server.url, '/alpha/1.0.0')).version, '1.0.0')
  assert.equal(json(await get(server.url, '/@sc/pkg/0.1.0')).version, '0.1.0')
  for (const urlPath of ['/alpha/2.0.0', '/alpha/9.9.9', '/alpha/next', '/nonexistent/latest', '/alpha/constructor', '/alpha/__proto__', '/alpha/toString']) {
    assert.equal((await get(server.url, urlPath)).status, 404, urlPath)
  }
})

test('a scoped name is found whichever way its @ and / are encoded', async () => {
  for (const urlPath of ['/@sc%2fpkg', '/@sc/pkg', '/%40sc%2fpkg', '/%40sc%2Fpkg']) {
    const response = await get(server.url, urlPath, { accept: ABBREVIATED })
    assert.equal(response.status, 200, urlPath)
    assert.equal(json(response).versions!['0.1.0']!.dist!.tarball, `${server.url}@sc/pkg/-/pkg-0.1.0.tgz`)
  }
})

test('tarballs are served byte for byte; what the mirror lacks is 404; a path with .. is 400', async () => {
  for (const [urlPath, name, version] of [['/alpha/-/alpha-1.1.0.tgz', 'alpha', '1.1.0'], ['/@sc/pkg/-/pkg-0.1.0.tgz', '@sc/pkg', '0.1.0']] as const) {
    const response = await get(server.url, urlPath)
    assert.equal(response.status, 200)
    assert.equal(response.headers['content-type'], 'application/octet-stream')
    assert.ok(response.body.equals(tarballOf(name, version)))
  }
  const missing = await get(server.url, '/nonexistent', { accept: ABBREVIATED })
  assert.equal(missing.status, 404)
  assert.deepEqual(JSON.parse(missing.body.toString('utf8')), { error: 'Not found' })
  assert.equal((await get(server.url, '/alpha/-/alpha-2.0.0.tgz')).status, 404)
  for (const urlPath of ['/alpha/-/../../../mirror.json', '/alpha/-/%2e%2e/%2e%2e/%2e%2e/mirror.json', '/..%2fmirror.json']) {
    assert.equal((await get(server.url, urlPath)).status, 400, urlPath)
  }
})

test('a version locked after the cut-off still gets its tarball, from an incremental build', async () => {
  const copy = path.join(tmp, 'mirror-copy')
  fs.cpSync(dir, copy, { recursive: true })
  const result = await buildMirror({ lockfiles: [mainLockfile(), lockfile({ 'alpha@2.0.0': resolution('alpha', '2.0.0') })], upstream: upstreamUrl, dir: copy, cutoff, log })
  assert.equal(result.fetched, 1)
  assert.ok(fs.readFileSync(path.join(copy, 'tarballs', 'alpha', '-', 'alpha-2.0.0.tgz')).equals(tarballOf('alpha', '2.0.0')))
})

test('a tarball that does not match the lockfile’s integrity fails the build, naming the package', async () => {
  const wrong = lockfile({ '@sc/pkg@0.1.0': `    resolution: {integrity: ${integrity(Buffer.from('something else'))}}\n` })
  await assert.rejects(buildMirror({ lockfiles: [wrong], upstream: upstreamUrl, dir: path.join(tmp, 'wrong'), cutoff, log }), /@sc\/pkg@0\.1\.0: integrity mismatch/)
})

test('a failed request is retried; a package upstream does not have fails the build, naming it', async () => {
  failOnce.add('/registry/@sc%2fpkg')
  failOnce.add('/registry/@sc/pkg/-/pkg-0.1.0.tgz')
  const retried = await buildMirror({ lockfiles: [lockfile({ '@sc/pkg@0.1.0': resolution('@sc/pkg', '0.1.0') })], upstream: upstreamUrl, dir: path.join(tmp, 'retried'), cutoff, log })
  assert.deepEqual(retried, { packuments: 1, tarballs: 1, fetched: 2 })
  assert.equal(failOnce.size, 0)

  const unknown = lockfile({ 'nonexistent@1.0.0': `    resolution: {integrity: ${integrity(Buffer.from('x'))}}\n` })
  await assert.rejects(buildMirror({ lockfiles: [unknown], upstream: upstreamUrl, dir: path.join(tmp, 'unknown'), cutoff, log }), /^Error: nonexistent: not found/)
})

test('a mirror cut off at another date is refused', async () => {
  await assert.rejects(buildMirror({ lockfiles: [mainLockfile()], upstream: upstreamUrl, dir, cutoff: new Date('2026-10-01T00:00:00Z'), log }), /delete the directory/)
})

test('the latency proxy costs a round trip for the connection and one per request, and passes the bytes through', async () => {
  const proxy = await startLatencyProxy({ target: server.url, rttMs: 100 })
  const agent = new http.Agent({ keepAlive: true })
  try {
    const direct = await get(server.url, '/alpha', { accept: ABBREVIATED })
    const fresh = await get(proxy.url, '/alpha', { accept: ABBREVIATED }, agent)
    const reused = await get(proxy.url, '/alpha', { accept: ABBREVIATED }, agent)
    assert.ok(fresh.body.equals(direct.body))
    assert.ok(reused.body.equals(direct.body))
    // Slack for timer granularity: a timer never fires early, but `performance.now()` is read apart.
    assert.ok(fresh.ms >= 190, `a request on a new connection took ${fresh.ms} ms`)
    assert.ok(reused.ms >= 95 && reused.ms < fresh.ms, `a request on a reused connection took ${reused.ms} ms`)
  } finally {
    agent.destroy()
    await proxy.close()
  }
})

test('the proxy’s bandwidth cap paces downloads on one link shared by all connections', async () => {
  const proxy = await startLatencyProxy({ target: server.url, rttMs: 0, bandwidthBytesPerSec: 1_000_000 })
  try {
    const size = tarballOf('alpha', '1.1.0').length
    const one = await get(proxy.url, '/alpha/-/alpha-1.1.0.tgz')
    assert.ok(one.body.equals(tarballOf('alpha', '1.1.0')))
    assert.ok(one.ms >= size / 1000 - 10, `${size} bytes at 1 MB/s took ${one.ms} ms`)
    const started = performance.now()
    const both = await Promise.all([get(proxy.url, '/alpha/-/alpha-1.1.0.tgz'), get(proxy.url, '/alpha/-/alpha-1.1.0.tgz')])
    const ms = performance.now() - started
    assert.ok(both.every((response) => response.body.equals(tarballOf('alpha', '1.1.0'))))
    assert.ok(ms >= 2 * size / 1000 - 10, `twice ${size} bytes at 1 MB/s took ${ms} ms`)
  } finally {
    await proxy.close()
  }
})

test('a server with an upstream fills a miss from it, frozen at the cut-off, and keeps it', async () => {
  const lazyDir = path.join(tmp, 'lazy')
  const lines: string[] = []
  const lazy = await startMirrorServer({ dir: lazyDir, upstream: upstreamUrl, cutoff, log: (line) => lines.push(line) })
  try {
    const abbr = await get(lazy.url, '/alpha', { accept: ABBREVIATED })
    assert.equal(abbr.status, 200)
    assert.deepEqual(Object.keys(json(abbr).versions!), ['1.0.0', '1.1.0', '1.2.0-rc.1'])
    assert.equal(json(abbr).versions!['1.1.0']!.dist!.tarball, `${lazy.url}alpha/-/alpha-1.1.0.tgz`)
    assert.ok(fs.existsSync(path.join(lazyDir, 'packuments', 'alpha.abbr.json')))
    assert.ok(fs.existsSync(path.join(lazyDir, 'packuments', 'alpha.full.json')))

    const tarball = await get(lazy.url, '/alpha/-/alpha-1.0.0.tgz')
    assert.ok(tarball.body.equals(tarballOf('alpha', '1.0.0')))
    assert.ok(fs.readFileSync(path.join(lazyDir, 'tarballs', 'alpha', '-', 'alpha-1.0.0.tgz')).equals(tarballOf('alpha', '1.0.0')))

    const requestsBefore = upstreamRequests.length
    assert.equal((await get(lazy.url, '/alpha', { accept: 'application/json' })).status, 200)
    assert.equal((await get(lazy.url, '/alpha/-/alpha-1.0.0.tgz')).status, 200)
    assert.equal(upstreamRequests.length, requestsBefore, 'what was filled is served from the mirror')

    assert.equal((await get(lazy.url, '/nonexistent')).status, 404)
    assert.equal(lazy.stats().misses, 3)
    assert.equal(lines.length, 3)
  } finally {
    await lazy.close()
  }
})
