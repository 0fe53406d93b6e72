import { createHash } from 'node:crypto'
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { gzipSync } from 'node:zlib'

import { buildPackageTarball } from './tarball.js'
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
}

/** What a test can make the next requests for a path do: answer a status (with `body`, else an error document), or drop the connection. */
export type Fault = { status: number, body?: string } | { reset: true }

export interface RecordedRequest {
  url: string
  headers: http.IncomingHttpHeaders
}

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
  readonly requests: string[] = []
  readonly recorded: RecordedRequest[] = []
  /** When set, every request must carry `Authorization: <value>`, else 401. */
  requiredAuthorization: string | undefined
  /** When set, each response waits this many milliseconds (by request path): to reorder concurrent responses. */
  responseDelay: ((path: string) => number) | undefined
  private readonly faults = new Map<string, Fault[]>()
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
    const versions = this.packages.get(spec.name) ?? []
    versions.push(pkg)
    this.packages.set(spec.name, versions)
    // npm moves `latest` to the newest non-prerelease publication.
    if (!spec.version.includes('-')) this.setDistTag(spec.name, 'latest', spec.version)
    return pkg
  }

  setDistTag (name: string, tag: string, version: string): void {
    this.distTags.set(name, { ...this.distTags.get(name), [tag]: version })
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
      const doc: Record<string, unknown> = { ...v.manifest, dist: { integrity: v.integrity, tarball: v.tarballUrl } }
      if (v.deprecated !== undefined) doc['deprecated'] = v.deprecated
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
    const delay = this.responseDelay?.(decodeURIComponent(req.url ?? '/')) ?? 0
    if (delay > 0) {
      setTimeout(() => { this.respond(req, res) }, delay)
      return
    }
    this.respond(req, res)
  }

  private respond (req: http.IncomingMessage, res: http.ServerResponse): void {
    const url = decodeURIComponent(req.url ?? '/')
    this.requests.push(url)
    this.recorded.push({ url, headers: req.headers })
    const fault = this.faults.get(url)?.shift()
    if (fault !== undefined) {
      if ('reset' in fault) { req.socket.destroy(); return }
      res.writeHead(fault.status, { 'content-type': 'application/json' })
      res.end(fault.body ?? JSON.stringify({ error: `injected ${fault.status}` }))
      return
    }
    if (this.requiredAuthorization !== undefined && req.headers.authorization !== this.requiredAuthorization) {
      res.writeHead(req.headers.authorization === undefined ? 401 : 403, { 'content-type': 'application/json' })
      res.end('{"error":"authentication required"}')
      return
    }
    const tarballMatch = /^\/((?:@[^/]+\/)?[^/]+)\/-\/(.+\.tgz)$/.exec(url)
    if (tarballMatch !== null) {
      const pkg = this.packages.get(tarballMatch[1]!)?.find((p) => p.tarballUrl.endsWith(`/-/${tarballMatch[2]!}`))
      if (pkg === undefined) return notFound(res)
      res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': pkg.tarball.length })
      res.end(pkg.tarball)
      return
    }
    const abbreviated = (req.headers.accept ?? '').startsWith('application/vnd.npm.install-v1+json')
    const doc = this.packument(url.slice(1), abbreviated)
    if (doc === undefined) return notFound(res)
    const body = Buffer.from(JSON.stringify(doc))
    const etag = `"${createHash('sha1').update(body).digest('hex')}"`
    if (req.headers['if-none-match'] === etag) {
      res.writeHead(304, { etag })
      res.end()
      return
    }
    const headers: http.OutgoingHttpHeaders = {
      'content-type': abbreviated ? 'application/vnd.npm.install-v1+json' : 'application/json',
      etag,
      'last-modified': new Date(doc['modified'] as string).toUTCString(),
    }
    if (/\bgzip\b/.test(String(req.headers['accept-encoding'] ?? ''))) {
      res.writeHead(200, { ...headers, 'content-encoding': 'gzip' })
      res.end(gzipSync(body))
    } else {
      res.writeHead(200, headers)
      res.end(body)
    }
  }

  async close (): Promise<void> {
    this.server.closeAllConnections()
    await new Promise<void>((resolve, reject) => this.server.close((err) => { if (err) reject(err); else resolve() }))
  }
}

function hasInstallScript (scripts: Record<string, unknown>): boolean {
  return ['preinstall', 'install', 'postinstall'].some((name) => typeof scripts[name] === 'string')
}

function notFound (res: http.ServerResponse): void {
  res.writeHead(404, { 'content-type': 'application/json' })
  res.end('{"error":"Not found"}')
}
