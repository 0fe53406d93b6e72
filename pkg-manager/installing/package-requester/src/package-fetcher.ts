import fsp from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'

import { nameOf } from '@lode/core.dep-path'
import { LodeError, hasErrno, isLodeError } from '@lode/core.error'
import { parsePackageJson } from '@lode/fs.package-json'
import { createAllowBuild } from '@lode/pkg-manager.building.lifecycle'
import type { Config } from '@lode/pkg-manager.config.settings'
import { currentPlatform, platformMismatch, platformOfOptional } from '@lode/pkg-manager.installing.package-is-installable'
import type { Platform, PlatformFields } from '@lode/pkg-manager.installing.package-is-installable'
import type { Resolution } from '@lode/pkg-manager.lockfile.format'
import { isGitResolution } from '@lode/resolving.git-resolver'
import { registryTarballUrl } from '@lode/resolving.npm-resolver/registries'
import { redactUrl } from '@lode/resolving.registry-client'
import type { RegistryClient } from '@lode/resolving.registry-client'
import { packFiles } from '@lode/store.cafs'
import { StoreIndex, createPackageFilesIndex, decodeRow, encodeRow, gitIndexKey, isOtherPackage, storeIndexKey } from '@lode/store.index'
import type { PackageFilesIndex, PackageIdentity, StoredFiles } from '@lode/store.index'
import { DEFAULT_EXTRACT_LIMITS } from '@lode/worker.extract/limits'
import { StorePool } from '@lode/worker.pools'
import pLimit from 'p-limit'
import type { LimitFunction } from 'p-limit'

import { fetchGitPackage, packFiles as packDirectory } from './git-fetcher.js'
import type { GitPackageSource } from './git-fetcher.js'
import type { PipelineTrace } from './pipeline-trace.js'

/** A package to have in the store: `name@version` and where its tarball is. */
export interface PackageToFetch {
  pkgId: string
  resolution: Resolution
}

export interface PackageFetcherOptions {
  config: Config
  client: RegistryClient
  /** The registry URL (ending in `/`) a package name resolves from. */
  registryFor: (name: string) => string
  trace?: PipelineTrace | undefined
  signal?: AbortSignal | undefined
  onWarning?: ((message: string) => void) | undefined
  /** `--ignore-scripts`: git packages are not prepared (and stored as not built, as pnpm does). */
  ignoreScripts?: boolean | undefined
}

/**
 * Tarballs downloaded and not yet extracted, in bytes, past which no new download starts: memory
 * stays bounded whatever the packages' sizes, while downloads run as many at once as
 * `networkConcurrency` allows (a count of tarballs in memory held them to the pace of extraction:
 * 16 at a time, which behind a 50 ms round trip made an install from a lockfile wait on the network).
 */
const TARBALL_BACKLOG_BYTES = 64 * 1024 * 1024

/**
 * Gets packages into the store: the store index says what is there; the rest is downloaded on
 * the main thread and extracted by the store pool, at most `TARBALL_BACKLOG_BYTES` of tarballs in
 * memory at a time. Fetches can start while resolution still runs (`prefetch`); each package is fetched at
 * most once per install. Owns the store index connection and the store pool; `close()` ends both.
 */
export class PackageFetcher {
  private index: StoreIndex | undefined
  private storePool: StorePool | undefined
  /** The store thread's checkpoint of the index, under way (see `settled`). */
  private checkpointing: Promise<boolean> | undefined
  private inFlight: LimitFunction | undefined
  private backlogBytes = 0
  /** While a resolution runs, the store threads extraction may use (see `resolving`). */
  private extractionThreads: number | undefined
  private readonly backlogWaiters: Array<() => void> = []
  private readonly fetches = new Map<string, Promise<StoredPackage>>()
  /** Git packages being fetched (during resolution, to read their manifests, or to link them), by id. */
  private readonly gitFetches = new Map<string, Promise<FetchedGit>>()
  private readonly allowBuild: (depPath: string) => boolean | undefined
  /** Set by `close()`: fetches still queued give up instead of downloading for nothing. */
  private closing = false
  private readonly platform: Platform
  /** The configured bounds on a tarball (the extract thread's defaults for the rest). */
  private readonly limits: { maxSize?: number, maxFiles?: number }
  downloaded = 0

  constructor (private readonly opts: PackageFetcherOptions) {
    const { tarballMaxUnpackedSize, tarballMaxFiles } = opts.config
    this.limits = {
      ...(tarballMaxUnpackedSize === undefined ? {} : { maxSize: tarballMaxUnpackedSize }),
      ...(tarballMaxFiles === undefined ? {} : { maxFiles: tarballMaxFiles }),
    }
    this.allowBuild = createAllowBuild(opts.config.allowBuilds)
    this.platform = currentPlatform(opts.config.supportedArchitectures)
  }

  /**
   * Fetches a git package into the store (once per install), for its manifest: resolution needs
   * it, and linking then finds the package fetched. A hosted archive's integrity comes with it.
   */
  async fetchGit (source: GitPackageSource): Promise<{ manifest: Record<string, unknown>, integrity?: string }> {
    const { manifest, integrity } = await this.gitFetch(source)
    return integrity === undefined ? { manifest } : { manifest, integrity }
  }

  /** Starts fetching a package just resolved, unless the store has it or it is for another platform. */
  prefetch (pkg: PackageToFetch & { platform?: PlatformFields }): void {
    // A git package resolved was fetched to read its manifest.
    if (isGitResolution(pkg.resolution)) return
    const key = integrityKey(pkg)
    if (key === undefined || this.fetches.has(key)) return
    // Nor one whose name says it is for another platform (pnpm skips such optional packages; a required one is fetched when linked).
    if (platformMismatch(platformOfOptional(pkg.platform ?? {}, nameOf(pkg.pkgId)), this.platform) !== undefined) return
    if (this.openIndex().has(key)) return
    this.fetches.set(key, this.fetch(pkg, key))
  }

  /**
   * Rows for `packages`: those the store has, read in one statement, now; the others (already
   * fetching, or fetched now) as promises. `reused` counts the packages the store already had.
   */
  rows (packages: readonly PackageToFetch[]): { rows: Array<StoredPackage | Promise<StoredPackage>>, reused: number } {
    const keys = packages.map((pkg) => isGitResolution(pkg.resolution) ? this.gitKey(pkg.pkgId) : integrityKey(pkg))
    const stored = this.openIndex().getManyStored(keys.filter((key): key is string => key !== undefined && !this.fetches.has(key)))
    let reused = 0
    const rows = packages.map((pkg, i) => {
      const key = keys[i]
      if (isGitResolution(pkg.resolution)) {
        const id = gitId(pkg.pkgId)
        const row = this.gitFetches.has(id) ? undefined : stored.get(key!)
        if (row !== undefined) {
          reused++
          return row
        }
        return this.gitFetch({ id, resolution: pkg.resolution, subject: pkg.pkgId }).then((fetched) => fetched.stored)
      }
      // A `file:` directory: its files (without node_modules) are put in the store as they are now.
      if (key === undefined) return this.addDirectory(pkg)
      const row = stored.get(key)
      if (row !== undefined) {
        if (isOtherPackage(row, expectedIdentity(pkg.pkgId))) {
          const refused = Promise.reject(otherPackage(pkg.pkgId, this.tarballLocation(pkg), row, 'store'))
          // Awaited when the package is linked, as a fetch is.
          refused.catch(() => {})
          return refused
        }
        reused++
        return row
      }
      let fetching = this.fetches.get(key)
      if (fetching === undefined) this.fetches.set(key, fetching = this.fetch(pkg, key))
      return fetching
    })
    return { rows, reused }
  }

  /**
   * The packages downloaded and extracted again, whatever the index says: files of theirs went
   * missing from the store (deleted by hand, a cleaner), which extraction writes back. A directory
   * is packed again; a git package is fetched again.
   */
  refetch (packages: readonly PackageToFetch[]): Array<Promise<StoredPackage>> {
    return packages.map((pkg) => {
      if (isGitResolution(pkg.resolution)) {
        const id = gitId(pkg.pkgId)
        this.gitFetches.delete(id)
        return this.gitFetch({ id, resolution: pkg.resolution, subject: pkg.pkgId }).then((fetched) => fetched.stored)
      }
      const key = integrityKey(pkg)
      if (key === undefined) return this.addDirectory(pkg)
      const fetching = this.fetch(pkg, key)
      this.fetches.set(key, fetching)
      return fetching
    })
  }

  /**
   * Every package of the install is in the store: the rows it added are committed, and go into the
   * index's file (`StoreIndex.checkpoint`) on a store thread, while this one goes on.
   */
  settled (): void {
    if (this.downloaded === 0 || this.index === undefined) return
    if (this.storePool === undefined) {
      this.index.checkpoint()
      return
    }
    this.index.flush()
    this.checkpointing = this.storePool.checkpointIndex(this.opts.config.storeDir)
  }

  /**
   * Waits for the fetches under way (queued ones give up), then closes the store index and the store
   * pool, the pool also when the index's last commit fails (whose error it throws).
   */
  async close (): Promise<void> {
    this.closing = true
    await Promise.allSettled(this.fetches.values())
    // Closed after the thread's checkpoint, so this connection is the last and finds the log moved already.
    await this.checkpointing
    try {
      this.index?.close()
    } finally {
      await this.storePool?.close()
    }
  }

  /** The store index key of a git package (`name@<id>`): pnpm's, which says whether its build may have run. */
  private gitKey (pkgId: string): string {
    return gitIndexKey(gitId(pkgId), this.opts.ignoreScripts !== true && this.allowBuild(pkgId) !== false)
  }

  private gitFetch (source: GitPackageSource): Promise<FetchedGit> {
    let fetching = this.gitFetches.get(source.id)
    if (fetching === undefined) {
      fetching = this.fetchGitNow(source)
      // Awaited by resolution or when the package is linked; a failure surfaces there.
      fetching.catch(() => {})
      this.gitFetches.set(source.id, fetching)
    }
    return fetching
  }

  private async fetchGitNow (source: GitPackageSource): Promise<FetchedGit> {
    this.opts.signal?.throwIfAborted()
    const index = this.openIndex()
    const fetched = await fetchGitPackage(source, {
      storeDir: this.opts.config.storeDir,
      download: async (url) => await this.download({ pkgId: source.subject, resolution: { integrity: '', tarball: url } }),
      extract: async (tarball, integrity) => {
        const { storePool } = this.openPool()
        const extracted = await storePool.extract(tarball, {
          integrity,
          storeDir: this.opts.config.storeDir,
          pkgId: source.subject,
          limits: this.limits,
        })
        return decodeRow(extracted.row).files
      },
      allowBuild: this.allowBuild,
      ignoreScripts: this.opts.ignoreScripts === true,
      userAgent: this.opts.config.userAgent,
      onWarning: this.opts.onWarning ?? (() => {}),
      signal: this.opts.signal,
    })
    this.downloaded++
    this.opts.trace?.count('downloaded', 1)
    const name = typeof fetched.manifest['name'] === 'string' ? fetched.manifest['name'] : source.subject
    const { requiresBuild, manifest, algo, files } = createPackageFilesIndex(fetched.files, fetched.manifest)
    // pnpm's key order for a git package's row.
    const row: PackageFilesIndex = {
      requiresBuild: requiresBuild === true,
      requiresPrepare: fetched.requiresPrepare,
      manifest,
      algo,
      files,
    }
    index.queueWriteEncoded(this.gitKey(`${name}@${source.id}`), encodeRow(row))
    return {
      stored: storedPackage(row),
      manifest: fetched.manifest,
      ...fetched.integrity === undefined ? {} : { integrity: fetched.integrity },
    }
  }

  private openIndex (): StoreIndex {
    return (this.index ??= new StoreIndex(this.opts.config.storeDir))
  }

  /**
   * A resolution is under way (`true`), or over. Meanwhile extraction leaves two cores to it (the
   * main thread's and the packument thread's; one store thread at least): nothing waits on an
   * extraction yet, and on 2 cores the second store thread took CPU from the resolution's critical
   * path (clean installs 6-11 % longer, 0.5 CPU s more).
   */
  resolving (on: boolean): void {
    this.extractionThreads = on ? Math.max(1, os.availableParallelism() - 2) : undefined
    this.storePool?.useThreads(this.extractionThreads ?? Number.POSITIVE_INFINITY)
  }

  /** The store pool only starts when something has to be extracted. */
  private openPool (): { storePool: StorePool, inFlight: LimitFunction } {
    if (this.storePool === undefined) {
      this.storePool = new StorePool()
      if (this.extractionThreads !== undefined) this.storePool.useThreads(this.extractionThreads)
    }
    // As many downloads as the network allows; the backlog's bytes bound the memory.
    this.inFlight ??= pLimit(this.opts.config.networkConcurrency)
    return { storePool: this.storePool, inFlight: this.inFlight }
  }

  private fetch (pkg: PackageToFetch, key: string): Promise<StoredPackage> {
    const index = this.openIndex()
    const { storePool, inFlight } = this.openPool()
    const integrity = key.slice(0, key.indexOf('\t'))
    // Tarballs wait in memory between download and extraction: only so many may be there at once.
    const fetching = inFlight(async () => {
      this.opts.signal?.throwIfAborted()
      if (this.closing) throw new Error(`${pkg.pkgId} was not needed after all`)
      // A tarball damaged on its way fails its integrity check: it is downloaded again, as pnpm does, up to fetchRetries times.
      for (let retriesLeft = this.opts.config.fetchRetries; ; retriesLeft--) {
        while (this.backlogBytes >= TARBALL_BACKLOG_BYTES) await new Promise<void>((resolve) => { this.backlogWaiters.push(resolve) })
        const tarball = await this.download(pkg)
        const size = tarball.byteLength
        this.backlogBytes += size
        this.opts.trace?.count('downloaded', 1)
        const extractStart = performance.now()
        try {
          const storeDir = this.opts.config.storeDir
          const extracted = await storePool.extract(tarball, { integrity, storeDir, pkgId: pkg.pkgId, limits: this.limits })
          // Its package.json says which package it is, before its row says it is this one.
          if (isOtherPackage(extracted, expectedIdentity(pkg.pkgId))) throw otherPackage(pkg.pkgId, this.tarballLocation(pkg), extracted, 'tarball')
          index.queueWriteEncoded(key, extracted.row)
          const { files, requiresBuild } = extracted
          this.downloaded++
          this.opts.trace?.count('extracted', 1)
          this.opts.trace?.span('extract', pkg.pkgId, extractStart, performance.now())
          return { files, requiresBuild }
        } catch (err) {
          if (retriesLeft <= 0 || !isLodeError(err, 'ERR_LODE_TARBALL_INTEGRITY')) throw err
          this.opts.onWarning?.(`${err.message} Downloading it again (${retriesLeft} ${retriesLeft === 1 ? 'retry' : 'retries'} left).`)
        } finally {
          this.backlogBytes -= size
          for (const wake of this.backlogWaiters.splice(0)) wake()
        }
      }
    })
    // Awaited when the package is linked, if it is; a failure surfaces there.
    fetching.catch(() => {})
    return fetching
  }

  private async addDirectory (pkg: PackageToFetch): Promise<StoredPackage> {
    const directory = 'directory' in pkg.resolution && typeof pkg.resolution.directory === 'string' ? path.resolve(this.opts.config.dir, pkg.resolution.directory) : undefined
    if (directory === undefined) throw new LodeError('UNSUPPORTED_RESOLUTION', `lode cannot install ${pkg.pkgId}: its lockfile entry has neither an integrity nor a directory.`, { hint: 'Delete its entry from pnpm-lock.yaml and install again.' })
    const manifestFile = path.join(directory, 'package.json')
    const manifestText = await fsp.readFile(manifestFile, 'utf8').catch((err: unknown) => {
      if (hasErrno(err, 'ENOENT')) return undefined
      throw err
    })
    const manifest = manifestText === undefined ? undefined : parsePackageJson(manifestText, manifestFile)
    // As pnpm: what `npm pack` would pack of the directory (its `files`, never node_modules), as it is now.
    return storedPackage(createPackageFilesIndex(await packDirectory(directory, manifest ?? {}, this.opts.config.storeDir), manifest))
  }

  /** Where a package's tarball comes from: its lockfile `tarball` (a URL or `file:`), else the registry's URL for it. */
  private tarballLocation (pkg: PackageToFetch): string {
    const location = 'tarball' in pkg.resolution && typeof pkg.resolution.tarball === 'string' ? pkg.resolution.tarball : undefined
    if (location !== undefined) return location
    const name = nameOf(pkg.pkgId)
    return registryTarballUrl(this.opts.registryFor(name), name, pkg.pkgId.slice(name.length + 1))
  }

  private async download (pkg: PackageToFetch): Promise<Uint8Array> {
    const url = this.tarballLocation(pkg)
    if (url.startsWith('file:')) return await fsp.readFile(path.resolve(this.opts.config.dir, url.slice(5)))
    if (this.opts.config.offline) {
      throw new LodeError('NO_OFFLINE_TARBALL', `${pkg.pkgId} is not in the store ${this.opts.config.storeDir}, and --offline forbids downloading it from ${redactUrl(url)}.`, {
        hint: 'Run the install once without --offline (or with --prefer-offline) to put the package in the store.',
      })
    }
    // Without validators the client answers 200 or throws.
    // A tarball is never larger than what it unpacks to: the same bound holds for the download.
    const maxSize = this.limits.maxSize ?? DEFAULT_EXTRACT_LIMITS.maxSize
    const response = await this.opts.client.get(url, { accept: '*/*', subject: pkg.pkgId, maxSize }) as { body: Buffer }
    return response.body
  }
}

/** A git package fetched: what linking needs, and what resolution needs (its manifest, an archive's integrity). */
interface FetchedGit {
  stored: StoredPackage
  manifest: Record<string, unknown>
  integrity?: string
}

/** `name@<id>` → `<id>`. */
function gitId (pkgId: string): string {
  return pkgId.slice(nameOf(pkgId).length + 1)
}

/** What linking needs of a package in the store: its files as a link task carries them (`packFiles`), and whether it builds. */
export type StoredPackage = StoredFiles

function storedPackage (row: PackageFilesIndex): StoredPackage {
  return { files: packFiles(row.files), requiresBuild: row.requiresBuild === true }
}

/**
 * What a package's own package.json must say it is: a registry package's id is its `name@version`;
 * a tarball's (a URL, a `file:`) is `name@<where>`, its name being the one its manifest gave when it
 * was resolved. pnpm 11 checks a stored package's name and version so (`UNEXPECTED_PKG_CONTENT_IN_STORE`).
 */
function expectedIdentity (pkgId: string): PackageIdentity {
  const name = nameOf(pkgId)
  const version = pkgId.slice(name.length + 1)
  // A version holds neither; a URL, `file:` or a git id does.
  return /[:/]/.test(version) ? { name } : { name, version }
}

/**
 * A package whose package.json names another package than the one asked for: a tarball the
 * registry (or the lockfile) gives for one package that is another's, or a store row that holds one.
 */
function otherPackage (pkgId: string, location: string, actual: PackageIdentity, where: 'tarball' | 'store'): LodeError {
  const says = `its package.json says ${actual.name ?? '(no name)'}@${actual.version ?? '(no version)'}`
  const from = location.startsWith('file:') ? location : redactUrl(location)
  if (where === 'store') {
    return new LodeError('UNEXPECTED_PKG_CONTENT_IN_STORE', `The store's copy of ${pkgId} (from ${from}) is another package: ${says}.`, {
      hint: `Either the lockfile's entry for ${pkgId} is broken (its integrity names another package's tarball), or the registry's metadata for it does not match its tarball. Nothing was installed. Restore pnpm-lock.yaml from version control, or delete the entry and install again; if the registry serves this, do not install this version.`,
    })
  }
  return new LodeError('UNEXPECTED_PKG_CONTENT', `The tarball of ${pkgId} from ${from} is another package: ${says}.`, {
    hint: `The registry's metadata (or the lockfile) gives ${pkgId} a tarball of another package: a substituted or misconfigured package. Nothing was added to the store index or installed. Check the registry and the lockfile's entry; do not install this version.`,
  })
}

/** The store index key of a package with an integrity (registry and tarball packages); undefined for directories. */
function integrityKey (pkg: PackageToFetch): string | undefined {
  const integrity = 'integrity' in pkg.resolution && typeof pkg.resolution.integrity === 'string' ? pkg.resolution.integrity : undefined
  return integrity === undefined ? undefined : storeIndexKey(integrity, pkg.pkgId)
}

