import { createHash } from 'node:crypto'
import fs from 'node:fs'
import fsp from 'node:fs/promises'
import path from 'node:path'

import { STORE_FILES_DIR, STORE_INDEX_FILE } from '@lode/core.constants'
import { casFilePath, storePath } from '@lode/store.cafs'
import type { CasFileInfo } from '@lode/store.cafs'
import { StoreIndex } from '@lode/store.index'

// pnpm's `store status` and `store prune`, over lode's store: the index (`index.db`) and the
// content-addressable files (`files/<2 hex>/<126 hex>[-exec]`).

import { storeSubdir } from './project-registry.js'

/** A package as installed: the name pnpm reports it by, its index row's key, and its directory in node_modules. */
export interface InstalledPackage {
  id: string
  /** `undefined` for a package the index keys otherwise (git, a directory): not checked, as pnpm does not check it. */
  indexKey: string | undefined
  dir: string
}

const CHECKS_AT_ONCE = 8

/**
 * pnpm's `store status`: the installed packages whose files differ from what the store index
 * recorded when they were added (a file missing or changed: hard links share the store's copy, so
 * a change in node_modules is a change in the store). A package the index has no row for is not
 * checked. Returns their ids, in the order given.
 */
export async function modifiedPackages (storeDir: string, packages: readonly InstalledPackage[]): Promise<string[]> {
  // No store yet: nothing to check, and nothing is created.
  if (!fs.existsSync(path.join(storePath(storeDir), STORE_INDEX_FILE))) return []
  const index = new StoreIndex(storeDir)
  let rows
  try {
    rows = index.getMany(packages.flatMap((pkg) => pkg.indexKey === undefined ? [] : [pkg.indexKey]))
  } finally {
    index.close()
  }
  const modified = new Set<string>()
  let next = 0
  const check = async (): Promise<void> => {
    while (next < packages.length) {
      const pkg = packages[next++]!
      const row = pkg.indexKey === undefined ? undefined : rows.get(pkg.indexKey)
      if (row === undefined) continue
      for (const [file, info] of row.files) {
        let content: Buffer
        try {
          content = await fsp.readFile(path.join(pkg.dir, file))
        } catch {
          modified.add(pkg.id)
          break
        }
        if (createHash('sha512').update(content).digest('hex') !== info.digest) {
          modified.add(pkg.id)
          break
        }
      }
    }
  }
  await Promise.all(Array.from({ length: CHECKS_AT_ONCE }, check))
  return packages.filter((pkg) => modified.has(pkg.id)).map((pkg) => pkg.id)
}

export interface PruneOptions {
  /** pnpm's `--force`: a directory inside `files/` (no store file is one) is removed, not only reported. */
  force: boolean
  onWarning: (message: string) => void
  /** The index keys of the packages registered projects have installed (`registeredProjects`): their files stay, linked or not. */
  inUse: Iterable<string>
}

export interface PruneResult {
  /** Store files removed, and their bytes. */
  files: number
  bytes: number
  /** Index rows removed (their package.json went). */
  packages: number
}

/**
 * pnpm's `store prune`: every store file no package directory links to any more (one link left:
 * the store's own) and no registered project's package has (`inUse`) is removed, then the index
 * rows of packages whose package.json is gone, and the temporary files a crash left in
 * `<store>/v11/tmp`. A file another install links to stays. As
 * with pnpm, an install running meanwhile may find a file it was about to link gone (it fails
 * clearly, and the next install fetches it again); and packages imported by copy or clone
 * (packageImportMethod) link to nothing, so their files go.
 */
export async function pruneStore (storeDir: string, opts: PruneOptions): Promise<PruneResult> {
  const root = storePath(storeDir)
  // Checked before anything goes: the files are removed by what their directories list.
  const filesDir = storeSubdir(storeDir, STORE_FILES_DIR)
  const inUse = inUseFiles(storeDir, opts.inUse)
  // A symlink in tmp's place goes itself (fs.rm does not follow it).
  await fsp.rm(path.join(root, 'tmp'), { recursive: true, force: true })
  let files = 0
  let bytes = 0
  for (const bucket of await readdirOrEmpty(filesDir)) {
    const bucketDir = path.join(filesDir, bucket)
    // A bucket is a directory of the store's; anything else (a symlink out of the store) is alien, and never listed.
    if (!(await fsp.lstat(bucketDir)).isDirectory()) {
      if (!opts.force) {
        opts.onWarning(`An alien file is present in the store: ${bucketDir}`)
        continue
      }
      await fsp.rm(bucketDir, { force: true })
      opts.onWarning(`An alien file has been removed from the store: ${bucketDir}`)
      files++
      continue
    }
    for (const entry of await readdirOrEmpty(bucketDir)) {
      const file = path.join(bucketDir, entry)
      const stat = await fsp.lstat(file)
      if (stat.isDirectory()) {
        if (!opts.force) {
          opts.onWarning(`An alien directory is present in the store: ${file}`)
          continue
        }
        await fsp.rm(file, { recursive: true, force: true })
        opts.onWarning(`An alien directory has been removed from the store: ${file}`)
        files++
        continue
      }
      if (stat.nlink !== 1 || inUse.has(file)) continue
      await fsp.unlink(file)
      files++
      bytes += stat.size
    }
  }
  // Every row whose package.json is no longer in the store goes (this prune's, or one a prune cut short left).
  let packages = 0
  if (fs.existsSync(path.join(root, STORE_INDEX_FILE))) {
    const index = new StoreIndex(storeDir)
    try {
      const gone: string[] = []
      for (const [key, row] of index.all()) {
        const manifest = row.files.get('package.json')
        if (manifest !== undefined && !fs.existsSync(casFilePath(storeDir, manifest.digest, manifest.mode))) gone.push(key)
      }
      index.delete(gone)
      packages = gone.length
    } finally {
      index.close()
    }
  }
  return { files, bytes, packages }
}

/** The store files of the packages with these index keys (their side effects' files too, as pnpm keeps them). */
function inUseFiles (storeDir: string, keys: Iterable<string>): Set<string> {
  const files = new Set<string>()
  const wanted = [...keys]
  if (wanted.length === 0 || !fs.existsSync(path.join(storePath(storeDir), STORE_INDEX_FILE))) return files
  const index = new StoreIndex(storeDir)
  try {
    for (const row of index.getMany(wanted).values()) {
      for (const info of row.files.values()) files.add(casFilePath(storeDir, info.digest, info.mode))
      for (const diff of row.sideEffects?.values() ?? []) {
        const added = (diff as { added?: unknown } | undefined)?.added
        if (!(added instanceof Map)) continue
        for (const info of (added as Map<string, CasFileInfo>).values()) files.add(casFilePath(storeDir, info.digest, info.mode))
      }
    }
  } finally {
    index.close()
  }
  return files
}

/** A directory's entries; none when it does not exist. */
export async function readdirOrEmpty (dir: string): Promise<string[]> {
  try {
    return await fsp.readdir(dir)
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return []
    throw err
  }
}

/** pnpm's sizes (pretty-bytes): `0 B`, `543 B`, `2.61 kB`, `15.5 kB`, three significant digits, powers of 1000. */
export function prettyBytes (bytes: number): string {
  const units = ['B', 'kB', 'MB', 'GB', 'TB', 'PB']
  if (bytes < 1000) return `${bytes} B`
  const exponent = Math.min(Math.floor(Math.log10(bytes) / 3), units.length - 1)
  return `${Number((bytes / 1000 ** exponent).toPrecision(3))} ${units[exponent]!}`
}
