import { createHash } from 'node:crypto'
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { gzipSync } from 'node:zlib'

import semver from 'semver'

import { buildPackageTarball, integrityOf } from './tarball.js'
import type { PackageSpec } from './tarball.js'

export interface PublishedPackage {
  name: string
  version: string
  integrity: string
  tarball: Buffer
  tarballUrl: string
  manifest: Record<string, unknown>
  deprecated?: string
  publishedAt: string
  npmUser?: Record<string, unknown>
  attestations?: Record<string, unknown>
}

/**
 * What a test can make the next request for a path do, in place of (or to) the normal answer:
 * - `status`: answer it (with `body`, else an error document, and any extra `headers`);
 * - `reset`: drop the connection before answering;
 * - `resetMidBody`: send the headers and half the body, then reset the connection (RST);
 * - `truncate`: announce the whole body's `content-length`, send half, then close (FIN);
 * - `slowBody`: send the body at `bytesPerSecond`;
 * - `noHeaders`: accept the request and never answer;
 * - `invalidJson`: answer 200 with a packument cut off mid-document (a valid HTTP body);
 * - `redirect`: answer `status` with `location` (relative or absolute), as is.
 * The faults that spoil a body apply to a 200 answer; a 304 or 404 goes out as it is.
 */
export type Fault =
  | { status: number, body?: string, headers?: Record<string, string> }
  | { reset: true }
  | { resetMidBody: true }
  | { truncate: true }
  | { slowBody: { bytesPerSecond: number } }
  | { noHeaders: true }
  | { invalidJson: true }
  | { redirect: { status: 301 | 302 | 303 | 307 | 308, location: string } }

interface Answer {
  status: number
  headers: http.OutgoingHttpHeaders
  body: Buffer
}

export interface RecordedRequest {
  url: string
  method: string
  headers: http.IncomingHttpHeaders
  /** A POST's or PUT's body (the audit endpoint's request, a change). */
  body?: string
}

/** A security advisory as the npm registry's bulk advisory endpoint returns it. */
export interface Advisory {
  id: number
  url: string
  title: string
  severity: 'info' | 'low' | 'moderate' | 'high' | 'critical'
  vulnerable_versions: string
  cwe?: string[]
  cvss?: { score: number, vectorString: string | null }
}

const BULK_ADVISORIES_PATH = '/-/npm/v1/security/advisories/bulk'

const DEFAULT_PUBLISHED_AT = '2025-01-01T00:00:00.000Z'

// The fields the npm registry keeps in an abbreviated ("corgi") packument's versions.
const ABBREVIATED_FIELDS = [
  'name', 'version', 'dependencies', 'optionalDependencies', 'devDependencies', 'bundleDependencies',
  'bundledDependencies', 'peerDependencies', 'peerDependenciesMeta', 'bin', 'directories', 'engines',
  'cpu', 'os', 'libc', '_hasShrinkwrap', 'hasInstallScript', 'deprecated', 'funding',
]

/**
 * An npm-compatible registry on 127.0.0.1 serving generated packages over real HTTP: packuments
 * at `/<name>` (abbreviated for the install `Accept` header, full otherwise, with an etag and
 * gzip when asked) and tarballs at `/<name>/-/<file>.tgz`. It counts what it served, so a test can
 * check that a tool downloaded nothing, and it can require a token or inject faults.
 */
export class TestRegistry {
  readonly packages = new Map<string, PublishedPackage[]>()
  readonly distTags = new Map<string, Record<string, string>>()
  /** What the bulk advisory endpoint knows, by package name; without an entry, the endpoint is a 404. */
  advisories: Map<string, Advisory[]> | undefined
  readonly requests: string[] = []
  readonly recorded: RecordedRequest[] = []
  /** When set, every request must carry `Authorization: <value>`, else 401. */
  requiredAuthorization: string | undefined
  /** When set, each response waits this many milliseconds (by request path): to reorder concurrent responses. */
  responseDelay: ((path: string) => number) | undefined
  private readonly faults = new Map<string, Fault[]>()
  private readonly files = new Map<string, Buffer>()
  private readonly server: http.Server
  url = ''

  private constructor () {
    this.server = http.createServer((req, res) => { this.handle(req, res) })
  }

  static async start (specs: PackageSpec[] = []): Promise<TestRegistry> {
    const registry = new TestRegistry()
    await new Promise<void>((resolve) => registry.server.listen(0, '127.0.0.1', resolve))
    registry.url = `http://127.0.0.1:${(registry.server.address() as AddressInfo).port}/`
    for (const spec of specs) await registry.publish(spec)
    return registry
  }

  async publish (spec: PackageSpec): Promise<PublishedPackage> {
    const { tarball, integrity, manifest } = await buildPackageTarball(spec)
    const file = `${spec.name.replace(/^@[^/]+\//, '')}-${spec.version}.tgz`
    const pkg: PublishedPackage = {
      name: spec.name,
      version: spec.version,
      integrity,
      tarball,
      tarballUrl: `${this.url}${spec.name}/-/${file}`,
      manifest,
      publishedAt: spec.publishedAt ?? DEFAULT_PUBLISHED_AT,
    }
    if (spec.deprecated !== undefined) pkg.deprecated = spec.deprecated
    if (spec.npmUser !== undefined) pkg.npmUser = spec.npmUser
    if (spec.attestations !== undefined) pkg.attestations = spec.attestations
    const versions = this.packages.get(spec.name) ?? []
    versions.push(pkg)
    this.packages.set(spec.name, versions)
    // npm moves `latest` to the newest non-prerelease publication.
    if (!spec.version.includes('-')) this.setDistTag(spec.name, 'latest', spec.version)
    return pkg
  }

  /** Serves a tarball packed elsewhere (a real package's files), with `manifest` as its package.json. */
  publishPacked (manifest: Record<string, unknown>, tarball: Buffer): PublishedPackage {
    const name = manifest['name'] as string
    const version = manifest['version'] as string
    const pkg: PublishedPackage = {
      name,
      version,
      integrity: integrityOf(tarball),
      tarball,
      tarballUrl: `${this.url}${name}/-/${name.replace(/^@[^/]+\//, '')}-${version}.tgz`,
      manifest,
      publishedAt: DEFAULT_PUBLISHED_AT,
    }
    this.packages.set(name, [...this.packages.get(name) ?? [], pkg])
    if (!version.includes('-')) this.setDistTag(name, 'latest', version)
    return pkg
  }

  setDistTag (name: string, tag: string, version: string): void {
    this.distTags.set(name, { ...this.distTags.get(name), [tag]: version })
  }

  /** Serves `body` at `path` (e.g. `/name/download/name-1.0.0.tgz`): a tarball at a URL of the registry's host that no packument names. */
  serveFile (path: string, body: Buffer): void {
    this.files.set(path, body)
  }

  /** The next requests whose path is `path` (e.g. `/foo`) get these faults, one each, in order. */
  injectFaults (path: string, faults: Fault[]): void {
    this.faults.set(path, [...(this.faults.get(path) ?? []), ...faults])
  }

  get tarballRequests (): string[] {
    return this.requests.filter((url) => url.endsWith('.tgz'))
  }

  get metadataRequests (): string[] {
    return this.requests.filter((url) => !url.endsWith('.tgz'))
  }

  /** The packument as the registry serves it, full or abbreviated. */
  packument (name: string, abbreviated: boolean): Record<string, unknown> | undefined {
    const versions = this.packages.get(name)
    if (versions === undefined) return undefined
    const modified = versions.map((v) => v.publishedAt).sort().at(-1)!
    const versionDocs = Object.fromEntries(versions.map((v) => {
      const doc: Record<string, unknown> = {
        ...v.manifest,
        dist: { integrity: v.integrity, tarball: v.tarballUrl, ...v.attestations === undefined ? {} : { attestations: v.attestations } },
      }
      if (v.deprecated !== undefined) doc['deprecated'] = v.deprecated
      if (v.npmUser !== undefined) doc['_npmUser'] = v.npmUser
      if (doc['scripts'] !== undefined && hasInstallScript(doc['scripts'] as Record<string, unknown>)) doc['hasInstallScript'] = true
      if (!abbreviated) return [v.version, doc]
      return [v.version, Object.fromEntries(Object.entries(doc).filter(([key]) => key === 'dist' || ABBREVIATED_FIELDS.includes(key)))]
    }))
    const doc: Record<string, unknown> = { name, 'dist-tags': this.distTags.get(name) ?? {}, modified, versions: versionDocs }
    if (!abbreviated) {
      doc['time'] = {
        created: versions.map((v) => v.publishedAt).sort()[0],
        modified,
        ...Object.fromEntries(versions.map((v) => [v.version, v.publishedAt])),
      }
    }
    return doc
  }

  private handle (req: http.IncomingMessage, res: http.ServerResponse): void {
    if (req.method === 'POST') {
      const chunks: Buffer[] = []
      req.on('data', (chunk: Buffer) => chunks.push(chunk))
      req.on('end', () => { this.respondToPost(req, res, Buffer.concat(chunks).toString()) })
      return
    }
    if (req.method === 'PUT') {
      // A change's body is recorded; what it answers is an injected fault's (this registry keeps no accounts).
      const chunks: Buffer[] = []
      req.on('data', (chunk: Buffer) => chunks.push(chunk))
      req.on('end', () => { this.respond(req, res, Buffer.concat(chunks).toString()) })
      return
    }
    const delay = this.responseDelay?.(decodeURIComponent(req.url ?? '/')) ?? 0
    if (delay > 0) {
      setTimeout(() => { this.respond(req, res) }, delay)
      return
    }
    this.respond(req, res)
  }

  private respond (req: http.IncomingMessage, res: http.ServerResponse, body?: string): void {
    const url = decodeURIComponent(req.url ?? '/')
    this.requests.push(url)
    this.recorded.push({ url, method: req.method ?? 'GET', headers: req.headers, ...body === undefined ? {} : { body } })
    // Faults and answers go by path: a query string (a signed URL's) changes neither.
    const path = url.replace(/\?.*$/s, '')
    const fault = this.faults.get(path)?.shift()
    if (fault !== undefined) {
      if ('reset' in fault) { req.socket.destroy(); return }
      if ('noHeaders' in fault) return
      if ('status' in fault) {
        const body = Buffer.from(fault.body ?? JSON.stringify({ error: `injected ${fault.status}` }))
        res.writeHead(fault.status, { 'content-type': 'application/json', 'content-length': body.length, ...fault.headers })
        res.end(body)
        return
      }
      if ('redirect' in fault) {
        res.writeHead(fault.redirect.status, { location: fault.redirect.location, 'content-length': 0 })
        res.end()
        return
      }
    }
    if (this.requiredAuthorization !== undefined && req.headers.authorization !== this.requiredAuthorization) {
      res.writeHead(req.headers.authorization === undefined ? 401 : 403, { 'content-type': 'application/json' })
      res.end('{"error":"authentication required"}')
      return
    }
    const answer = this.answer(req, path)
    if (fault === undefined || answer.status !== 200) {
      res.writeHead(answer.status, answer.headers)
      res.end(answer.body)
      return
    }
    if ('invalidJson' in fault) {
      const body = Buffer.from(JSON.stringify(this.packument(path.slice(1), false) ?? {}).slice(0, -10))
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': body.length })
      res.end(body)
      return
    }
    // The remaining faults spoil the delivery of the normal answer, which announces its full length.
    res.writeHead(200, { ...answer.headers, 'content-length': answer.body.length })
    const half = answer.body.subarray(0, Math.floor(answer.body.length / 2))
    if ('resetMidBody' in fault) {
      res.write(half, () => { req.socket.resetAndDestroy() })
    } else if ('truncate' in fault) {
      res.write(half, () => { req.socket.end() })
    } else if ('slowBody' in fault) {
      trickle(res, answer.body, fault.slowBody.bytesPerSecond)
    }
  }

  /**
   * The bulk advisory endpoint: for each name in the request (`{ name: [versions] }`), the advisories
   * of that name whose vulnerable range takes in one of the versions, as the npm registry answers.
   */
  private respondToPost (req: http.IncomingMessage, res: http.ServerResponse, body: string): void {
    const url = decodeURIComponent(req.url ?? '/')
    this.requests.push(url)
    this.recorded.push({ url, method: 'POST', headers: req.headers, body })
    // Only a status can be injected here (the other faults spoil a GET's answer).
    const fault = this.faults.get(url)?.shift()
    if (fault !== undefined && 'status' in fault) {
      res.writeHead(fault.status, { 'content-type': 'application/json', ...fault.headers })
      res.end(fault.body ?? JSON.stringify({ error: `injected ${fault.status}` }))
      return
    }
    if (this.requiredAuthorization !== undefined && req.headers.authorization !== this.requiredAuthorization) {
      res.writeHead(req.headers.authorization === undefined ? 401 : 403, { 'content-type': 'application/json' })
      res.end('{"error":"authentication required"}')
      return
    }
    if (url !== BULK_ADVISORIES_PATH || this.advisories === undefined) {
      res.writeHead(404, { 'content-type': 'application/json' })
      res.end('{"error":"Not found"}')
      return
    }
    let request: Record<string, string[]>
    try {
      request = JSON.parse(body) as Record<string, string[]>
    } catch {
      res.writeHead(400, { 'content-type': 'application/json' })
      res.end('{"error":"invalid JSON"}')
      return
    }
    const answer: Record<string, Advisory[]> = {}
    for (const [name, versions] of Object.entries(request)) {
      const found = (this.advisories.get(name) ?? [])
        .filter((advisory) => versions.some((version) => semver.satisfies(version, advisory.vulnerable_versions)))
      if (found.length > 0) answer[name] = found
    }
    res.writeHead(200, { 'content-type': 'application/json' })
    res.end(JSON.stringify(answer))
  }

  /** The normal answer to a GET of `path`: a tarball, a packument (gzipped when asked), a 304 or a 404. */
  private answer (req: http.IncomingMessage, path: string): Answer {
    const notFound = { status: 404, headers: { 'content-type': 'application/json' }, body: Buffer.from('{"error":"Not found"}') }
    const file = this.files.get(path)
    if (file !== undefined) return { status: 200, headers: { 'content-type': 'application/octet-stream', 'content-length': file.length }, body: file }
    const tarballMatch = /^\/((?:@[^/]+\/)?[^/]+)\/-\/(.+\.tgz)$/.exec(path)
    if (tarballMatch !== null) {
      const pkg = this.packages.get(tarballMatch[1]!)?.find((p) => p.tarballUrl.endsWith(`/-/${tarballMatch[2]!}`))
      if (pkg === undefined) return notFound
      return { status: 200, headers: { 'content-type': 'application/octet-stream', 'content-length': pkg.tarball.length }, body: pkg.tarball }
    }
    const abbreviated = (req.headers.accept ?? '').startsWith('application/vnd.npm.install-v1+json')
    const doc = this.packument(path.slice(1), abbreviated)
    if (doc === undefined) return notFound
    const body = Buffer.from(JSON.stringify(doc))
    const etag = `"${createHash('sha1').update(body).digest('hex')}"`
    if (req.headers['if-none-match'] === etag) return { status: 304, headers: { etag }, body: Buffer.alloc(0) }
    const headers: http.OutgoingHttpHeaders = {
      'content-type': abbreviated ? 'application/vnd.npm.install-v1+json' : 'application/json',
      etag,
      'last-modified': new Date(doc['modified'] as string).toUTCString(),
    }
    if (/\bgzip\b/.test(String(req.headers['accept-encoding'] ?? ''))) {
      return { status: 200, headers: { ...headers, 'content-encoding': 'gzip' }, body: gzipSync(body) }
    }
    return { status: 200, headers, body }
  }

  async close (): Promise<void> {
    this.server.closeAllConnections()
    await new Promise<void>((resolve, reject) => this.server.close((err) => { if (err) reject(err); else resolve() }))
  }
}

function hasInstallScript (scripts: Record<string, unknown>): boolean {
  return ['preinstall', 'install', 'postinstall'].some((name) => typeof scripts[name] === 'string')
}

/** Writes `body` at about `bytesPerSecond` (in ticks of at least 50 ms), until done or the client leaves. */
function trickle (res: http.ServerResponse, body: Buffer, bytesPerSecond: number): void {
  const tick = Math.max(50, Math.ceil(1000 / bytesPerSecond))
  const perTick = Math.max(1, Math.round(bytesPerSecond * tick / 1000))
  let sent = 0
  res.flushHeaders()
  const timer = setInterval(() => {
    const chunk = body.subarray(sent, sent + perTick)
    sent += chunk.length
    if (sent >= body.length) {
      clearInterval(timer)
      res.end(chunk)
    } else {
      res.write(chunk)
    }
  }, tick)
  res.on('close', () => { clearInterval(timer) })
}
