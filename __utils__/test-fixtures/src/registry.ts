import http from 'node:http'
import type { AddressInfo } from 'node:net'

import { buildPackageTarball } from './tarball.js'
import type { PackageSpec } from './tarball.js'

export interface PublishedPackage {
  name: string
  version: string
  integrity: string
  tarball: Buffer
  tarballUrl: string
  manifest: Record<string, unknown>
}

/**
 * An npm-compatible registry on 127.0.0.1 serving generated packages over real HTTP: packuments
 * at `/<name>` and tarballs at `/<name>/-/<file>.tgz`. It counts what it served, so a test can
 * check that a tool downloaded nothing.
 */
export class TestRegistry {
  readonly packages = new Map<string, PublishedPackage[]>()
  readonly requests: string[] = []
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
    const pkg: PublishedPackage = { name: spec.name, version: spec.version, integrity, tarball, tarballUrl: `${this.url}${spec.name}/-/${file}`, manifest }
    const versions = this.packages.get(spec.name) ?? []
    versions.push(pkg)
    this.packages.set(spec.name, versions)
    return pkg
  }

  get tarballRequests (): string[] {
    return this.requests.filter((url) => url.endsWith('.tgz'))
  }

  private handle (req: http.IncomingMessage, res: http.ServerResponse): void {
    const url = decodeURIComponent(req.url ?? '/')
    this.requests.push(url)
    const tarballMatch = /^\/((?:@[^/]+\/)?[^/]+)\/-\/(.+\.tgz)$/.exec(url)
    if (tarballMatch !== null) {
      const pkg = this.packages.get(tarballMatch[1]!)?.find((p) => p.tarballUrl.endsWith(`/-/${tarballMatch[2]!}`))
      if (pkg === undefined) return notFound(res)
      res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': pkg.tarball.length })
      res.end(pkg.tarball)
      return
    }
    const versions = this.packages.get(url.slice(1))
    if (versions === undefined) return notFound(res)
    const latest = versions[versions.length - 1]!
    const body = JSON.stringify({
      name: latest.name,
      'dist-tags': { latest: latest.version },
      modified: '2025-01-01T00:00:00.000Z',
      time: Object.fromEntries(versions.map((v) => [v.version, '2025-01-01T00:00:00.000Z'])),
      versions: Object.fromEntries(versions.map((v) => [v.version, {
        ...v.manifest,
        dist: { integrity: v.integrity, tarball: v.tarballUrl },
      }])),
    })
    res.writeHead(200, { 'content-type': 'application/json' })
    res.end(body)
  }

  async close (): Promise<void> {
    this.server.closeAllConnections()
    await new Promise<void>((resolve, reject) => this.server.close((err) => { if (err) reject(err); else resolve() }))
  }
}

function notFound (res: http.ServerResponse): void {
  res.writeHead(404, { 'content-type': 'application/json' })
  res.end('{"error":"Not found"}')
}
