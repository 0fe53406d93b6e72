import { createHash } from 'node:crypto'
import fs from 'node:fs'
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { promisify } from 'node:util'
import zlib from 'node:zlib'

import { Agent } from 'undici'

import { fillPackument, fillTarball, withTrailingSlash } from './build.js'
import type { Upstream } from './build.js'
import { isPackageName, MIRROR_PLACEHOLDER, packumentFile, tarballFile } from './layout.js'
import type { PackumentKind } from './layout.js'

const gzip = promisify(zlib.gzip)

export interface MirrorServerOptions {
  dir: string
  /** Default: any free port. */
  port?: number
  /** Default: 127.0.0.1. */
  host?: string
  /** The URL clients reach the mirror at (a proxy's in front of it); default: the server's own. */
  publicUrl?: string
  /** With `cutoff`: a registry that fills misses (fetched, frozen and stored in `dir`). */
  upstream?: string
  cutoff?: Date
  log?: (line: string) => void
}

export interface MirrorStats {
  requests: number
  /** Requests the mirror could not answer from `dir` and passed to upstream. */
  misses: number
  /** Response body bytes sent. */
  bytes: number
}

export interface MirrorServer {
  /** `http://127.0.0.1:PORT/` */
  url: string
  /** Changes the URL written into tarball URLs. */
  setPublicUrl: (url: string) => void
  stats: () => MirrorStats
  close: () => Promise<void>
}

interface CachedPackument {
  body: Buffer
  etag: string
  gzipped?: Promise<Buffer>
}

const ABBREVIATED = 'application/vnd.npm.install-v1+json'

/**
 * Serves a mirror built by `buildMirror` on 127.0.0.1: packuments (abbreviated for an install-v1
 * Accept, gzip when accepted) and tarballs, both kept in memory once read so that repeated runs
 * measure the client, not this server.
 */
export async function startMirrorServer (opts: MirrorServerOptions): Promise<MirrorServer> {
  if ((opts.upstream === undefined) !== (opts.cutoff === undefined)) throw new Error('startMirrorServer: upstream and cutoff go together')
  const log = opts.log ?? (() => {})
  const stats: MirrorStats = { requests: 0, misses: 0, bytes: 0 }
  const abort = new AbortController()
  const lazy = opts.upstream === undefined || opts.cutoff === undefined
    ? undefined
    : {
        upstream: {
          registry: withTrailingSlash(opts.upstream),
          dispatcher: new Agent({ connections: 16, keepAliveTimeout: 10_000 }),
          signal: abort.signal,
        },
        cutoff: opts.cutoff,
      }

  let publicUrl = ''
  let packuments = new Map<string, Promise<CachedPackument | undefined>>()
  const tarballs = new Map<string, Promise<Buffer | undefined>>()
  // One upstream fill per name or tarball, however many requests miss it at once.
  const fills = new Map<string, Promise<boolean>>()

  function setPublicUrl (url: string): void {
    publicUrl = url.replace(/\/+$/, '')
    packuments = new Map()
  }

  function cachedPackument (name: string, kind: PackumentKind): Promise<CachedPackument | undefined> {
    const key = `${kind}:${name}`
    let entry = packuments.get(key)
    if (entry === undefined) {
      const url = publicUrl
      entry = readIfExists(packumentFile(opts.dir, name, kind))
        .then((data) => {
          if (data === undefined) return undefined
          const body = Buffer.from(data.toString('utf8').replaceAll(MIRROR_PLACEHOLDER, url))
          return { body, etag: `"${createHash('sha1').update(body).digest('hex')}"` }
        })
      cacheUnlessMissing(packuments, key, entry)
    }
    return entry
  }

  function cachedTarball (file: string): Promise<Buffer | undefined> {
    let entry = tarballs.get(file)
    if (entry === undefined) {
      entry = readIfExists(file)
      cacheUnlessMissing(tarballs, file, entry)
    }
    return entry
  }

  function fill (key: string, run: (upstream: Upstream, cutoff: Date) => Promise<boolean>): Promise<boolean> {
    if (lazy === undefined) return Promise.resolve(false)
    let filling = fills.get(key)
    if (filling === undefined) {
      stats.misses++
      log(`miss ${key}: fetching from upstream`)
      filling = run(lazy.upstream, lazy.cutoff).finally(() => fills.delete(key))
      fills.set(key, filling)
    }
    return filling
  }

  async function packumentOf (name: string, kind: PackumentKind): Promise<CachedPackument | undefined> {
    const entry = await cachedPackument(name, kind)
    if (entry === undefined && await fill(`packument ${name}`, async (upstream, cutoff) => await fillPackument(upstream, { dir: opts.dir, name, cutoff }) !== undefined)) {
      return await cachedPackument(name, kind)
    }
    return entry
  }

  async function servePackument (req: http.IncomingMessage, res: http.ServerResponse, name: string): Promise<void> {
    const kind: PackumentKind = req.headers.accept?.includes(ABBREVIATED) === true ? 'abbr' : 'full'
    const entry = await packumentOf(name, kind)
    if (entry === undefined) return sendNotFound(req, res)
    // As npm's registry: a validator, a 5-minute max-age, and 304 for a client that has this document.
    const headers: http.OutgoingHttpHeaders = { 'content-type': kind === 'abbr' ? ABBREVIATED : 'application/json', vary: 'accept, accept-encoding', etag: entry.etag, 'cache-control': 'public, max-age=300' }
    if (req.headers['if-none-match']?.split(',').some((tag) => tag.trim().replace(/^W\//, '') === entry.etag) === true) {
      send(req, res, 304, headers, Buffer.alloc(0))
      return
    }
    let body = entry.body
    if (acceptsGzip(req)) {
      entry.gzipped ??= gzip(entry.body, { level: 6 })
      body = await entry.gzipped
      headers['content-encoding'] = 'gzip'
    }
    send(req, res, 200, headers, body)
  }

  /** `GET /<name>/<dist-tag or version>`: that version's document from the full packument, as npm's registry answers it (pnpm 12's `add` asks so). */
  async function serveVersion (req: http.IncomingMessage, res: http.ServerResponse, name: string, ref: string): Promise<void> {
    const entry = await packumentOf(name, 'full')
    if (entry === undefined) return sendNotFound(req, res)
    const packument = JSON.parse(entry.body.toString('utf8')) as { 'dist-tags'?: Record<string, string>, versions?: Record<string, unknown> }
    const tags = packument['dist-tags'] ?? {}
    const version = Object.hasOwn(tags, ref) ? tags[ref]! : ref
    const versions = packument.versions ?? {}
    const doc = Object.hasOwn(versions, version) ? versions[version] : undefined
    if (doc === undefined) return sendNotFound(req, res)
    send(req, res, 200, { 'content-type': 'application/json' }, Buffer.from(JSON.stringify(doc)))
  }

  async function serveTarball (req: http.IncomingMessage, res: http.ServerResponse, urlPath: string, file: string): Promise<void> {
    let data = await cachedTarball(file)
    // Only `.tgz`: registries answer other `/-/` paths (ping, search) with things that are not files.
    if (data === undefined && urlPath.endsWith('.tgz') && await fill(`tarball ${urlPath}`, (upstream) => fillTarball(upstream, { url: upstream.registry + urlPath, file, label: urlPath }))) {
      data = await cachedTarball(file)
    }
    if (data === undefined) return sendNotFound(req, res)
    send(req, res, 200, { 'content-type': 'application/octet-stream' }, data)
  }

  function send (
    req: http.IncomingMessage,
    res: http.ServerResponse,
    status: number,
    headers: http.OutgoingHttpHeaders,
    body: Buffer
  ): void {
    res.writeHead(status, status === 304 ? headers : { ...headers, 'content-length': body.length })
    if (req.method === 'HEAD') {
      res.end()
    } else {
      stats.bytes += body.length
      res.end(body)
    }
  }

  function sendError (req: http.IncomingMessage, res: http.ServerResponse, status: number, error: string): void {
    send(req, res, status, { 'content-type': 'application/json' }, Buffer.from(JSON.stringify({ error })))
  }

  function sendNotFound (req: http.IncomingMessage, res: http.ServerResponse): void {
    sendError(req, res, 404, 'Not found')
  }

  async function handle (req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    stats.requests++
    if (req.method !== 'GET' && req.method !== 'HEAD') return sendError(req, res, 405, 'Method not allowed')
    const urlPath = (req.url ?? '/').replace(/[?#].*$/, '').replace(/^\/+/, '')
    let decoded: string
    try {
      decoded = decodeURIComponent(urlPath)
    } catch {
      return sendError(req, res, 400, 'Bad request')
    }
    if (decoded.split('/').includes('..') || decoded.includes('\0')) return sendError(req, res, 400, 'Bad request')
    if (decoded.includes('/-/')) {
      const file = tarballFile(opts.dir, urlPath)
      if (file === undefined) return sendError(req, res, 400, 'Bad request')
      return serveTarball(req, res, urlPath, file)
    }
    // `@scope/name`, `@scope%2fname` and `%40scope%2fname` all decode to the name.
    if (!isPackageName(decoded)) {
      const slash = decoded.lastIndexOf('/')
      const name = decoded.slice(0, slash)
      if (slash > 0 && isPackageName(name)) return serveVersion(req, res, name, decoded.slice(slash + 1))
      return sendNotFound(req, res)
    }
    return servePackument(req, res, decoded)
  }

  const server = http.createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      log(`${req.method} ${req.url}: ${err instanceof Error ? err.message : String(err)}`)
      if (res.headersSent) res.destroy()
      else sendError(req, res, 500, 'Internal error')
    })
  })
  server.keepAliveTimeout = 30_000
  server.maxRequestsPerSocket = 0
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(opts.port ?? 0, opts.host ?? '127.0.0.1', () => {
      server.off('error', reject)
      resolve()
    })
  })
  const address = server.address() as AddressInfo
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address
  const url = `http://${host}:${address.port}/`
  setPublicUrl(opts.publicUrl ?? url)

  return {
    url,
    setPublicUrl,
    stats: () => ({ ...stats }),
    async close () {
      abort.abort()
      await new Promise<void>((resolve) => {
        server.close(() => { resolve() })
        // Keep-alive sockets would otherwise hold close() for keepAliveTimeout.
        server.closeAllConnections()
      })
      await lazy?.upstream.dispatcher.destroy()
    },
  }
}

function acceptsGzip (req: http.IncomingMessage): boolean {
  return /\bgzip\b/.test(req.headers['accept-encoding'] ?? '')
}

async function readIfExists (file: string): Promise<Buffer | undefined> {
  try {
    return await fs.promises.readFile(file)
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code
    // ENOTDIR, EISDIR: a request path that runs into a file, or stops at a folder.
    if (code === 'ENOENT' || code === 'ENOTDIR' || code === 'EISDIR') return undefined
    throw err
  }
}

// A miss is not remembered: a fill may store the file at any moment.
function cacheUnlessMissing<T> (cache: Map<string, Promise<T | undefined>>, key: string, entry: Promise<T | undefined>): void {
  cache.set(key, entry)
  entry.then((value) => { if (value === undefined && cache.get(key) === entry) cache.delete(key) }, () => { cache.delete(key) })
}
