import fsp from 'node:fs/promises'
import path from 'node:path'

import { LodeError, isLodeError } from '@lode/fs.error'
import { parsePackageJson } from '@lode/fs.package-json'
import type { Config } from '@lode/pkg-manager.config'
import { nameOf, platformMismatch } from '@lode/pkg-manager.linker'
import type { Platform, PlatformFields } from '@lode/pkg-manager.linker'
import type { Resolution } from '@lode/pkg-manager.lockfile'
import { registryTarballUrl } from '@lode/resolving.npm-resolver/registries'
import { redactUrl } from '@lode/resolving.registry-client'
import type { RegistryClient } from '@lode/resolving.registry-client'
import { createCasWriter, packFiles } from '@lode/store.cafs'
import type { CasFileInfo } from '@lode/store.cafs'
import { StoreIndex, createPackageFilesIndex, storeIndexKey } from '@lode/store.index'
import type { PackageFilesIndex } from '@lode/store.index'
import { DEFAULT_EXTRACT_LIMITS } from '@lode/worker.extract/limits'
import { StorePool, addTarballToStore } from '@lode/worker.pools'
import { familySync } from 'detect-libc'
import pLimit from 'p-limit'
import type { LimitFunction } from 'p-limit'

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
}

/**
 * Gets packages into the store: the store index says what is there; the rest is downloaded on
 * the main thread and extracted by the store pool, at most a few dozen tarballs in memory at a
 * time. Fetches can start while resolution still runs (`prefetch`); each package is fetched at
 * most once per install. Owns the store index connection and the store pool; `close()` ends both.
 */
export class PackageFetcher {
  private index: StoreIndex | undefined
  private storePool: StorePool | undefined
  private inFlight: LimitFunction | undefined
  private readonly fetches = new Map<string, Promise<StoredPackage>>()
  /** Set by `close()`: fetches still queued give up instead of downloading for nothing. */
  private closing = false
  private readonly platform: Platform = currentPlatform()
  /** The configured bounds on a tarball (the extract thread's defaults for the rest). */
  private readonly limits: { maxSize?: number, maxFiles?: number }
  downloaded = 0

  constructor (private readonly opts: PackageFetcherOptions) {
    const { tarballMaxUnpackedSize, tarballMaxFiles } = opts.config
    this.limits = {
      ...(tarballMaxUnpackedSize === undefined ? {} : { maxSize: tarballMaxUnpackedSize }),
      ...(tarballMaxFiles === undefined ? {} : { maxFiles: tarballMaxFiles }),
    }
  }

  /** Starts fetching a package just resolved, unless the store has it or it is for another platform. */
  prefetch (pkg: PackageToFetch & { platform?: PlatformFields }): void {
    const key = integrityKey(pkg)
    if (key === undefined || this.fetches.has(key)) return
    if (pkg.platform !== undefined && platformMismatch(pkg.platform, this.platform) !== undefined) return
    if (this.openIndex().has(key)) return
    this.fetches.set(key, this.fetch(pkg, key))
  }

  /**
   * Rows for `packages`: those the store has, read in one statement, now; the others (already
   * fetching, or fetched now) as promises. `reused` counts the packages the store already had.
   */
  rows (packages: readonly PackageToFetch[]): { rows: Array<StoredPackage | Promise<StoredPackage>>, reused: number } {
    const keys = packages.map(integrityKey)
    const stored = this.openIndex().getMany(keys.filter((key): key is string => key !== undefined && !this.fetches.has(key)))
    let reused = 0
    const rows = packages.map((pkg, i) => {
      const key = keys[i]
      // A `file:` directory: its files (without node_modules) are put in the store as they are now.
      if (key === undefined) return this.addDirectory(pkg)
      const row = stored.get(key)
      if (row !== undefined) {
        reused++
        return storedPackage(row)
      }
      let fetching = this.fetches.get(key)
      if (fetching === undefined) this.fetches.set(key, fetching = this.fetch(pkg, key))
      return fetching
    })
    return { rows, reused }
  }

  /** Waits for the fetches under way (queued ones give up), then closes the store index and the store pool. */
  async close (): Promise<void> {
    this.closing = true
    await Promise.allSettled(this.fetches.values())
    this.index?.close()
    await this.storePool?.close()
  }

  private openIndex (): StoreIndex {
    return (this.index ??= new StoreIndex(this.opts.config.storeDir))
  }

  /** The store pool only starts when something has to be extracted. */
  private openPool (): { storePool: StorePool, inFlight: LimitFunction } {
    this.storePool ??= new StorePool()
    // Enough downloads ahead to keep the store pool busy, not the whole graph in memory.
    this.inFlight ??= pLimit(Math.max(16, this.storePool.threads * 8))
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
        const tarball = await this.download(pkg)
        this.opts.trace?.count('downloaded', 1)
        try {
          const { files, requiresBuild } = await addTarballToStore({ pool: storePool, index, storeDir: this.opts.config.storeDir, pkgId: pkg.pkgId, integrity, tarball, limits: this.limits })
          this.downloaded++
          this.opts.trace?.count('extracted', 1)
          return { files, requiresBuild }
        } catch (err) {
          if (retriesLeft <= 0 || !isLodeError(err, 'ERR_LODE_TARBALL_INTEGRITY')) throw err
          this.opts.onWarning?.(`${err.message} Downloading it again (${retriesLeft} ${retriesLeft === 1 ? 'retry' : 'retries'} left).`)
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
    const cas = createCasWriter(this.opts.config.storeDir, { now: Date.now })
    const files = new Map<string, CasFileInfo>()
    const walk = async (dir: string, prefix: string): Promise<void> => {
      for (const entry of await fsp.readdir(dir, { withFileTypes: true })) {
        const rel = prefix === '' ? entry.name : `${prefix}/${entry.name}`
        if (entry.isDirectory()) {
          if (entry.name !== 'node_modules') await walk(path.join(dir, entry.name), rel)
        } else if (entry.isFile()) {
          const full = path.join(dir, entry.name)
          const [content, stat] = await Promise.all([fsp.readFile(full), fsp.stat(full)])
          files.set(rel, cas.addFile(content, stat.mode & 0o777))
        }
      }
    }
    await walk(directory, '')
    const manifestFile = files.has('package.json') ? await fsp.readFile(path.join(directory, 'package.json'), 'utf8') : undefined
    return storedPackage(createPackageFilesIndex(files, manifestFile === undefined ? undefined : parsePackageJson(manifestFile, path.join(directory, 'package.json'))))
  }

  private async download (pkg: PackageToFetch): Promise<Uint8Array> {
    const location = 'tarball' in pkg.resolution && typeof pkg.resolution.tarball === 'string' ? pkg.resolution.tarball : undefined
    if (location?.startsWith('file:') === true) return await fsp.readFile(path.resolve(this.opts.config.dir, location.slice(5)))
    const name = nameOf(pkg.pkgId)
    const url = location ?? registryTarballUrl(this.opts.registryFor(name), name, pkg.pkgId.slice(name.length + 1))
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

/** What linking needs of a package in the store: its files as a link task carries them (`packFiles`), and whether it builds. */
export interface StoredPackage {
  files: string
  requiresBuild: boolean
}

function storedPackage (row: PackageFilesIndex): StoredPackage {
  return { files: packFiles(row.files), requiresBuild: row.requiresBuild === true }
}

/** The store index key of a package with an integrity (registry and tarball packages); undefined for directories. */
function integrityKey (pkg: PackageToFetch): string | undefined {
  const integrity = 'integrity' in pkg.resolution && typeof pkg.resolution.integrity === 'string' ? pkg.resolution.integrity : undefined
  return integrity === undefined ? undefined : storeIndexKey(integrity, pkg.pkgId)
}

/** The platform packages' `os`, `cpu` and `libc` fields are checked against. */
export function currentPlatform (): Platform {
  return { os: process.platform, cpu: process.arch, libc: familySync() ?? undefined }
}
