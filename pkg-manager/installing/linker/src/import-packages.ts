import { isLodeError } from '@lode/core.error'
import type { Config } from '@lode/pkg-manager.config.settings'
import { isLocalSource } from '@lode/pkg-manager.lockfile.format'
import { patchOf } from '@lode/pkg-manager.patching.patches'
import type { Patch } from '@lode/pkg-manager.patching.patches'
import type { LinkToWrite, PackageToImport } from '@lode/worker.link'
import { writeSymlinks } from '@lode/worker.link/symlinks'

import type { LaidOutPackage } from './layout.js'
import type { LinkThreads, LinkTrace, PackageInStore, PackageSource } from './link-types.js'

// Packages per link task: enough to keep messaging cheap, few enough that threads share the work.
const LINK_BATCH = 16
// Store index rows read (and decoded) at a time: the first link tasks leave before the last rows
// are read. The first chunk is a task for each of two threads, and chunks double from there, so
// the link threads start as soon as they can.
const ROWS_CHUNK = 128
const FIRST_ROWS_CHUNK = 2 * LINK_BATCH
// Symlinks per task of symlinks only.
const LINKS_BATCH = 512

export interface ImportOptions {
  config: Config
  /** The node_modules the packages go to (named in the warning about a store on another file system). */
  modulesDir: string
  /** The caller found none of the packages' directories there: the link threads do not look again. */
  absent?: boolean
  fetcher: PackageSource
  /** The link pool, lent by its owner. */
  linkThreads: LinkThreads
  patches: readonly Patch[]
  trace?: LinkTrace | undefined
  signal?: AbortSignal | undefined
  onWarning?: ((message: string) => void) | undefined
  /** After each package read or fetched, and each batch imported. */
  onProgress: (counts: ImportCounts) => void
  /**
   * Symlinks to write besides the packages' own (direct dependencies, hoisted packages, packages
   * already there); asked for once every package is in the store (its task on its way).
   */
  links: () => readonly LinkToWrite[]
}

/** The packages imported, and those of them whose rows say they build (install scripts or binding.gyp). */
export interface ImportedPackages {
  wantBuild: LaidOutPackage[]
  counts: ImportCounts
}

export interface ImportCounts {
  /** Packages imported so far. */
  added: number
  /** Packages the store already had. */
  reused: number
}

/**
 * Imports the packages into `node_modules/.pnpm` with the link pool, each as soon as its files are
 * in the store, with its dependencies' symlinks beside it: the rows the store index has are read a
 * chunk at a time, the others are fetched (or awaited, when resolution started fetching them).
 * Then the other symlinks (`links`, planned meanwhile), by the pool too, or on this thread when
 * there is no package to import and no pool running. Settles only when no task is under way, so the caller may go on
 * meanwhile. Resolves with the packages whose rows say they build (install scripts or binding.gyp).
 */
export async function importPackages (
  packages: readonly LaidOutPackage[],
  opts: ImportOptions
): Promise<ImportedPackages> {
  const { config } = opts
  const counts: ImportCounts = { added: 0, reused: 0 }
  const wantBuild: LaidOutPackage[] = []
  if (packages.length === 0 && opts.linkThreads.started === undefined) {
    writeSymlinks(opts.links())
    return { wantBuild, counts }
  }
  const linkPool = opts.linkThreads.pool()
  const tasks: Array<Promise<unknown>> = []
  // A failed link batch stops the install; it is rethrown once the work under way has settled.
  let failure: Error | undefined
  const fail = (err: unknown): void => { failure ??= err instanceof Error ? err : new Error(String(err)) }
  let batch: LaidOutPackage[] = []
  let batchRows: PackageInStore[] = []
  let batchLinks: LinkToWrite[] = []
  let warnedCrossDevice = false
  const toImport = (pkg: LaidOutPackage, stored: PackageInStore): PackageToImport => {
    const patch = patchOf(pkg.depPath, opts.patches)
    return {
      dir: pkg.dir,
      files: stored.files,
      // A package from a local source is put in place over its last copy (see packagesToImport).
      ...(isLocalSource(pkg.resolution) ? { replace: true } : {}),
      ...(stored.requiresBuild ? { builds: true } : {}),
      ...(patch === undefined ? {} : { patch: { file: patch.file, label: pkg.pkgId } }),
    }
  }
  const link = async (packages: PackageToImport[], links: LinkToWrite[], absent: boolean): Promise<void> => {
    const outcome = await linkPool.link({ storeDir: config.storeDir, method: config.packageImportMethod, packages, links, absent })
    if (outcome.crossDevice && !warnedCrossDevice) {
      warnedCrossDevice = true
      opts.onWarning?.(`The store ${config.storeDir} is on another file system than ${opts.modulesDir}: files are cloned or copied instead of hardlinked. Set store-dir to a directory on the same file system to save space and time.`)
    }
  }
  const run = (packages: LaidOutPackage[], rows: PackageInStore[], links: LinkToWrite[]): void => {
    if (failure !== undefined || opts.signal?.aborted === true) return
    const count = packages.length
    const imports = packages.map((pkg, i) => toImport(pkg, rows[i]!))
    tasks.push(link(imports, links, opts.absent === true).catch(async (err: unknown) => {
      // A store file gone from under lode (pnpm checks the store and fetches again): the batch's
      // packages are fetched anew, their files written back, and the batch imported again (those
      // already in place are left).
      if (!isLodeError(err, 'ERR_LODE_STORE_FILE_MISSING') || opts.fetcher.refetch === undefined) throw err
      const fresh = await Promise.all(opts.fetcher.refetch(packages))
      await link(packages.map((pkg, i) => toImport(pkg, fresh[i]!)), links, false)
    }).then(() => {
      counts.added += count
      opts.trace?.count('linked', count)
      opts.onProgress(counts)
    }, fail))
  }
  const flush = (): void => {
    if (batch.length === 0) return
    run(batch, batchRows, batchLinks)
    batch = []
    batchRows = []
    batchLinks = []
  }
  const add = (pkg: LaidOutPackage, stored: PackageInStore): void => {
    if (stored.requiresBuild) wantBuild.push(pkg)
    batch.push(pkg)
    batchRows.push(stored)
    for (const link of pkg.links) batchLinks.push([link.path, link.target])
    if (batch.length >= LINK_BATCH) flush()
  }
  const fetched: Array<Promise<void>> = []
  try {
    for (let start = 0, size = FIRST_ROWS_CHUNK; start < packages.length && failure === undefined; size = Math.min(2 * size, ROWS_CHUNK)) {
      opts.signal?.throwIfAborted()
      const chunk = packages.slice(start, start + size)
      start += chunk.length
      const { rows, reused } = opts.fetcher.rows(chunk)
      counts.reused += reused
      chunk.forEach((pkg, i) => {
        const row = rows[i]!
        if (!(row instanceof Promise)) {
          add(pkg, row)
          return
        }
        fetched.push(row.then((fetchedRow) => {
          add(pkg, fetchedRow)
          opts.onProgress(counts)
        }, fail))
      })
      opts.onProgress(counts)
    }
    // The other links go out once every package is in the store: a failed download leaves none of them.
    await Promise.all(fetched)
    const links = failure === undefined ? opts.links() : []
    for (let start = 0; start < links.length; start += LINKS_BATCH) run([], [], links.slice(start, start + LINKS_BATCH))
    flush()
    // The threads have the last tasks; this thread would only wait for them.
    if (failure === undefined) opts.fetcher.settled?.()
    await Promise.all(tasks)
  } catch (err) {
    fail(err)
    // Batches under way finish (each package is whole or absent) before the failure goes up.
    await Promise.allSettled([...fetched, ...tasks])
  }
  if (failure !== undefined) throw failure
  opts.signal?.throwIfAborted()
  return { wantBuild, counts }
}
