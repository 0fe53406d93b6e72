import crypto from 'node:crypto'
import fs from 'node:fs'
import { setTimeout as sleep } from 'node:timers/promises'
import { promisify } from 'node:util'
import zlib from 'node:zlib'

import semver from 'semver'
import { Agent, request } from 'undici'
import type { Dispatcher } from 'undici'

import { claimMirrorDir, MIRROR_PLACEHOLDER, packumentFile, tarballFile, writeAtomic } from './layout.js'
import { readLockfile, thisMachine } from './lockfile.js'
import type { LockedPackage } from './lockfile.js'

const gunzip = promisify(zlib.gunzip)

/** Registry metadata, typed only as far as the mirror reads or rewrites it. */
export interface Packument {
  versions?: Record<string, { dist?: { tarball?: unknown } } | undefined>
  time?: Record<string, string | undefined>
  'dist-tags'?: Record<string, string | undefined>
  modified?: string
  [field: string]: unknown
}

export interface PackumentPair {
  full: Packument
  abbr: Packument
}

export interface Upstream {
  /** The registry URL, ending in `/`. */
  registry: string
  dispatcher: Dispatcher
  signal?: AbortSignal
}

const ACCEPT_FULL = 'application/json'
const RETRIES = 3

export function withTrailingSlash (url: string): string {
  return url.endsWith('/') ? url : `${url}/`
}

/**
 * GET `url`, retried up to 3 times on network errors, 5xx and 429; undefined on 404 or 410. With
 * `accept` set, asks for gzip and decodes it (undici's `request` does not); without, asks for the
 * bytes as they are (a tarball).
 */
async function get (upstream: Upstream, url: string, accept?: string): Promise<Buffer | undefined> {
  for (let attempt = 0; ; attempt++) {
    let failure: unknown
    try {
      const response = await request(url, {
        dispatcher: upstream.dispatcher,
        headers: accept === undefined ? {} : { accept, 'accept-encoding': 'gzip' },
        ...(upstream.signal === undefined ? {} : { signal: upstream.signal }),
      })
      const status = response.statusCode
      if (status === 200) {
        const data = Buffer.from(await response.body.arrayBuffer())
        const encoding = response.headers['content-encoding']
        return accept !== undefined && (encoding === 'gzip' || encoding === 'x-gzip') ? await gunzip(data) : data
      }
      await response.body.dump()
      if (status === 404 || status === 410) return undefined
      failure = new Error(`GET ${url}: HTTP ${status}`)
      if (status < 500 && status !== 429) throw failure
    } catch (err) {
      if (err === failure || upstream.signal?.aborted === true) throw err
      failure = err
    }
    if (attempt === RETRIES) throw failure
    await sleep(250 * 2 ** attempt, undefined, upstream.signal === undefined ? {} : { signal: upstream.signal })
  }
}

function parsePackument (data: Buffer, url: string): Packument {
  const doc: unknown = JSON.parse(data.toString('utf8'))
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) throw new Error(`GET ${url}: not a packument`)
  const versions = (doc as Packument).versions
  if (versions !== undefined && (typeof versions !== 'object' || versions === null)) throw new Error(`GET ${url}: versions is not an object`)
  return doc as Packument
}

/**
 * Both packuments of `name`: the full one as upstream serves it, and the abbreviated one derived
 * from it with the fields npm's install-v1 format keeps. Derived rather than fetched because some
 * registries (and proxies in front of them) ignore the install-v1 Accept header and send the full
 * document, which would make every tool parse megabytes the real registry never sends.
 */
export async function fetchPackument (upstream: Upstream, name: string): Promise<PackumentPair | undefined> {
  const url = upstream.registry + name.replace('/', '%2f')
  const full = await get(upstream, url, ACCEPT_FULL)
  if (full === undefined) return undefined
  const doc = parsePackument(full, url)
  return { full: doc, abbr: abbreviate(doc) }
}

/** The per-version fields of npm's abbreviated (install-v1) packument. */
const ABBREVIATED_FIELDS = [
  'name', 'version', 'deprecated', 'dependencies', 'optionalDependencies', 'devDependencies',
  'bundleDependencies', 'bundledDependencies', 'peerDependencies', 'peerDependenciesMeta',
  'acceptDependencies', 'bin', 'directories', 'dist', 'engines', 'os', 'cpu', 'libc',
  '_hasShrinkwrap', 'hasInstallScript', 'funding',
]

export function abbreviate (full: Packument): Packument {
  const versions: Record<string, Record<string, unknown>> = {}
  for (const [version, manifest] of Object.entries(full.versions ?? {})) {
    const picked: Record<string, unknown> = {}
    for (const field of ABBREVIATED_FIELDS) {
      const value = (manifest as Record<string, unknown>)[field]
      if (value !== undefined) picked[field] = value
    }
    // npm's registry sets hasInstallScript from the scripts the abbreviated form drops.
    const scripts = (manifest as { scripts?: Record<string, unknown> }).scripts
    if (picked['hasInstallScript'] === undefined && scripts !== undefined && ['preinstall', 'install', 'postinstall'].some((s) => scripts[s] !== undefined)) {
      picked['hasInstallScript'] = true
    }
    versions[version] = picked
  }
  return { name: full.name, 'dist-tags': { ...full['dist-tags'] }, modified: full.time?.['modified'] ?? full.modified, versions } as Packument
}

/** A tarball URL's path after the registry prefix; a URL elsewhere keeps its whole path. */
export function registryPath (tarballUrl: string, registry: string): string {
  const url = new URL(tarballUrl)
  const base = new URL(registry)
  // The host, not the origin: some registries list http tarball URLs while served over https.
  return url.host === base.host && url.pathname.startsWith(base.pathname)
    ? url.pathname.slice(base.pathname.length)
    : url.pathname.slice(1)
}

/** Each version's upstream tarball URL. */
export function tarballUrls (doc: Packument): Map<string, string> {
  const urls = new Map<string, string>()
  for (const [version, manifest] of Object.entries(doc.versions ?? {})) {
    const tarball = manifest?.dist?.tarball
    if (typeof tarball === 'string') urls.set(version, tarball)
  }
  return urls
}

/**
 * Makes the pair look as the registry did at `cutoff` and points its tarballs at the mirror. Mutates
 * and returns `docs`.
 *
 * - A version published after `cutoff` (by the full doc's `time`) is removed from both docs; one
 *   with no time is kept. The abbreviated doc keeps only versions the full doc kept, so the pair
 *   agrees even if a publish landed between the two requests.
 * - `time.modified` and the abbreviated `modified` become the latest remaining version's time.
 * - A dist-tag on a removed version: `latest` moves to the highest remaining release (the highest
 *   remaining version if there is no release); any other tag is deleted.
 * - `dist.tarball` becomes `{{MIRROR}}/<path after the registry prefix>`.
 */
export function freezePackument (docs: PackumentPair, opts: { cutoff: Date, registry: string }): PackumentPair {
  const { full, abbr } = docs
  const time = full.time ?? {}
  const cutoff = opts.cutoff.getTime()
  const removed = new Set<string>()
  for (const version of [...Object.keys(full.versions ?? {}), ...Object.keys(time)]) {
    if (version === 'created' || version === 'modified') continue
    const published = time[version]
    if (published !== undefined && Date.parse(published) > cutoff) removed.add(version)
  }
  for (const version of removed) {
    delete full.versions?.[version]
    delete time[version]
  }
  const kept = new Set(Object.keys(full.versions ?? {}))
  for (const version of Object.keys(abbr.versions ?? {})) {
    if (!kept.has(version)) delete abbr.versions?.[version]
  }

  let modified: string | undefined
  for (const version of kept) {
    const published = time[version]
    if (published !== undefined && (modified === undefined || Date.parse(published) > Date.parse(modified))) modified = published
  }
  if (modified !== undefined) {
    if (full.time !== undefined) full.time.modified = modified
    abbr.modified = modified
  }

  const tags = full['dist-tags']
  if (tags !== undefined) {
    for (const [tag, version] of Object.entries(tags)) {
      if (version === undefined || !removed.has(version)) continue
      const replacement = tag === 'latest' ? highest([...kept]) : undefined
      if (replacement === undefined) delete tags[tag]
      else tags[tag] = replacement
    }
    abbr['dist-tags'] = { ...tags }
  }

  for (const doc of [full, abbr]) {
    for (const manifest of Object.values(doc.versions ?? {})) {
      const dist = manifest?.dist
      if (typeof dist?.tarball !== 'string') continue
      try {
        dist.tarball = `${MIRROR_PLACEHOLDER}/${registryPath(dist.tarball, opts.registry)}`
      } catch {
        // Not a URL: left as it is, like any other field the mirror has no use for.
      }
    }
  }
  return docs
}

function highest (versions: string[]): string | undefined {
  const valid = versions.filter((v) => semver.valid(v) !== null)
  const releases = valid.filter((v) => semver.prerelease(v) === null)
  return semver.rsort(releases.length > 0 ? releases : valid)[0]
}

export function hasPackument (dir: string, name: string): boolean {
  return fs.existsSync(packumentFile(dir, name, 'abbr')) && fs.existsSync(packumentFile(dir, name, 'full'))
}

/** The abbreviated doc is written first so that the full doc's presence means both are there. */
export async function storePackument (dir: string, name: string, docs: PackumentPair): Promise<void> {
  await writeAtomic(packumentFile(dir, name, 'abbr'), JSON.stringify(docs.abbr))
  await writeAtomic(packumentFile(dir, name, 'full'), JSON.stringify(docs.full))
}

/**
 * Fetches `name`'s packuments, freezes them at `cutoff` and stores them in `dir`. Returns every
 * version's upstream tarball URL from before the cut-off, or undefined when upstream has no such
 * package.
 */
export async function fillPackument (
  upstream: Upstream,
  opts: { dir: string, name: string, cutoff: Date }
): Promise<Map<string, string> | undefined> {
  const docs = await fetchPackument(upstream, opts.name)
  if (docs === undefined) return undefined
  const urls = tarballUrls(docs.full)
  await storePackument(opts.dir, opts.name, freezePackument(docs, { cutoff: opts.cutoff, registry: upstream.registry }))
  return urls
}

const SRI = /^(sha1|sha256|sha384|sha512)-([A-Za-z0-9+/]+=*)(?:\?.*)?$/
const STRENGTH = ['sha1', 'sha256', 'sha384', 'sha512']

/** Whether `data` matches the SRI string: its strongest algorithm decides, any of its digests may match (as ssri does). */
export function matchesIntegrity (data: Buffer, integrity: string): boolean {
  const hashes = integrity.trim().split(/\s+/).flatMap((part) => {
    const match = SRI.exec(part)
    return match === null ? [] : [{ algorithm: match[1]!, digest: match[2]! }]
  })
  const strongest = Math.max(...hashes.map((h) => STRENGTH.indexOf(h.algorithm)))
  if (strongest < 0) return false
  const algorithm = STRENGTH[strongest]!
  const actual = crypto.createHash(algorithm).update(data).digest('base64')
  return hashes.some((h) => h.algorithm === algorithm && h.digest === actual)
}

/**
 * Downloads `url` into `file` (atomically), checked against `integrity` when given. Returns false
 * when upstream has no such file.
 */
export async function fillTarball (
  upstream: Upstream,
  opts: { url: string, file: string, integrity?: string, label: string }
): Promise<boolean> {
  const data = await get(upstream, opts.url)
  if (data === undefined) return false
  if (opts.integrity !== undefined && !matchesIntegrity(data, opts.integrity)) {
    throw new Error(`${opts.label}: integrity mismatch: ${opts.url} does not match the lockfile's ${opts.integrity}`)
  }
  await writeAtomic(opts.file, data)
  return true
}

/**
 * Runs `task` over `items`, `concurrency` at a time. The first failure aborts the others (through
 * `abort`) and is thrown once every task has stopped, so nothing is written after this settles.
 */
async function runPool<T> (
  items: T[],
  opts: { concurrency: number, abort: AbortController, onDone: (done: number) => void },
  task: (item: T) => Promise<void>
): Promise<void> {
  let next = 0
  let done = 0
  let failure: { error: unknown } | undefined
  async function worker (): Promise<void> {
    while (next < items.length && failure === undefined) {
      const item = items[next++]!
      try {
        await task(item)
      } catch (error) {
        if (failure === undefined) {
          failure = { error }
          opts.abort.abort()
        }
        return
      }
      opts.onDone(++done)
    }
  }
  await Promise.all(Array.from({ length: Math.min(opts.concurrency, items.length) }, worker))
  if (failure !== undefined) throw failure.error
}

type LockedTarball = LockedPackage & { integrity: string }

function isWanted (pkg: LockedPackage): pkg is LockedTarball {
  return pkg.integrity !== undefined && pkg.installable
}

export interface BuildOptions {
  lockfiles: string[]
  /** The registry to copy from. */
  upstream: string
  dir: string
  /** Versions published after this are left out. */
  cutoff: Date
  /** Requests at a time (default 16). */
  concurrency?: number
  log: (line: string) => void
}

export interface BuildResult {
  /** Packages whose packuments the mirror holds for these lockfiles. */
  packuments: number
  /** Tarballs the mirror holds for these lockfiles (those an install on this machine fetches). */
  tarballs: number
  /** Packuments and tarballs fetched from upstream by this call (0 when it was complete). */
  fetched: number
}

/**
 * Copies the packuments of every package in `lockfiles` and the tarballs an install on this machine
 * fetches into `dir`, frozen at `cutoff`. Incremental: what `dir` holds is not fetched again.
 */
export async function buildMirror (opts: BuildOptions): Promise<BuildResult> {
  const registry = withTrailingSlash(opts.upstream)
  const concurrency = opts.concurrency ?? 16
  await claimMirrorDir(opts.dir, opts.cutoff)

  const machine = thisMachine()
  const locked = new Map<string, LockedPackage>()
  for (const lockfile of opts.lockfiles) {
    for (const pkg of readLockfile(fs.readFileSync(lockfile, 'utf8'), machine)) {
      // Lockfiles may disagree (one locks it for another platform): one that fetches it wins.
      const key = `${pkg.name}@${pkg.version}`
      const seen = locked.get(key)
      if (seen === undefined || (!isWanted(seen) && isWanted(pkg))) locked.set(key, pkg)
    }
  }
  const names = [...new Set([...locked.values()].map((pkg) => pkg.name))].sort()
  const wanted = [...locked.values()].filter(isWanted)

  const dispatcher = new Agent({ connections: concurrency, keepAliveTimeout: 10_000 })
  const abort = new AbortController()
  const upstream: Upstream = { registry, dispatcher, signal: abort.signal }
  // Upstream tarball URLs of the packages fetched now, from before the cut-off: a lockfile may
  // lock a version published after it, and its install still needs the tarball.
  const fetchedUrls = new Map<string, Map<string, string>>()
  try {
    const missingNames = names.filter((name) => !hasPackument(opts.dir, name))
    await runPool(missingNames, { concurrency, abort, onDone: progress(opts.log, 'packuments', missingNames.length) }, async (name) => {
      const urls = await fillPackument(upstream, { dir: opts.dir, name, cutoff: opts.cutoff })
      if (urls === undefined) throw new Error(`${name}: not found at ${registry}`)
      fetchedUrls.set(name, urls)
    })

    const missingTarballs: Array<{ pkg: LockedTarball, url: string, file: string }> = []
    const storedUrls = new Map<string, Map<string, string>>()
    for (const pkg of wanted) {
      // Most tarballs sit at npm's conventional path: checking it first spares reading packuments.
      const conventional = conventionalPath(pkg)
      if (fs.existsSync(tarballFileOrThrow(opts.dir, conventional, pkg))) continue
      let url = fetchedUrls.get(pkg.name)?.get(pkg.version)
      if (url === undefined) {
        let urls = storedUrls.get(pkg.name)
        if (urls === undefined) {
          urls = storedTarballUrls(opts.dir, pkg.name, registry)
          storedUrls.set(pkg.name, urls)
        }
        url = urls.get(pkg.version) ?? registry + conventional
      }
      const file = tarballFileOrThrow(opts.dir, registryPath(url, registry), pkg)
      if (!fs.existsSync(file)) missingTarballs.push({ pkg, url, file })
    }
    await runPool(missingTarballs, { concurrency, abort, onDone: progress(opts.log, 'tarballs', missingTarballs.length) }, async ({ pkg, url, file }) => {
      const label = `${pkg.name}@${pkg.version}`
      const found = await fillTarball(upstream, { url, file, integrity: pkg.integrity, label })
      if (!found) throw new Error(`${label}: ${url} not found`)
    })
    return { packuments: names.length, tarballs: wanted.length, fetched: missingNames.length + missingTarballs.length }
  } finally {
    await dispatcher.destroy()
  }
}

function progress (log: (line: string) => void, what: string, total: number): (done: number) => void {
  return (done) => {
    if (done % 200 === 0 || done === total) log(`${what}: ${done}/${total} fetched`)
  }
}

/** npm's layout: `<name>/-/<name without scope>-<version>.tgz`. */
function conventionalPath (pkg: LockedPackage): string {
  return `${pkg.name}/-/${pkg.name.slice(pkg.name.indexOf('/') + 1)}-${pkg.version}.tgz`
}

function tarballFileOrThrow (dir: string, urlPath: string, pkg: LockedPackage): string {
  const file = tarballFile(dir, urlPath)
  if (file === undefined) throw new Error(`${pkg.name}@${pkg.version}: unsafe tarball path ${JSON.stringify(urlPath)}`)
  return file
}

/** Upstream tarball URLs from a stored (already frozen) abbreviated packument. */
function storedTarballUrls (dir: string, name: string, registry: string): Map<string, string> {
  const doc = JSON.parse(fs.readFileSync(packumentFile(dir, name, 'abbr'), 'utf8')) as Packument
  const urls = new Map<string, string>()
  for (const [version, url] of tarballUrls(doc)) {
    if (url.startsWith(`${MIRROR_PLACEHOLDER}/`)) urls.set(version, registry + url.slice(MIRROR_PLACEHOLDER.length + 1))
  }
  return urls
}
