import fs from 'node:fs/promises'
import path from 'node:path'

import { METADATA_CACHE_DIR } from '@lode/core.constants'
import { depPathToFilename, nameOf, pkgIdOf } from '@lode/core.dep-path'
import { LodeError } from '@lode/core.error'
import type { Config } from '@lode/pkg-manager.config'
import { readInstalledLockfile, readLockfile } from '@lode/pkg-manager.lockfile'
import { currentPlatform, skippedPackages } from '@lode/pkg-manager.package-is-installable'
import { modifiedPackages, pruneStore, type PruneResult } from '@lode/store.controller'
import { storeIndexKey } from '@lode/store.index'

/**
 * pnpm's `store status`: the packages of the project's lockfile (pnpm-lock.yaml, else the one the
 * last install left in node_modules/.pnpm) whose installed files differ from what the store
 * recorded, by their dependency paths. No lockfile: nothing to check.
 */
export async function storeStatus (config: Config): Promise<string[]> {
  if (config.nodeLinker === 'hoisted') {
    throw new LodeError('STORE_STATUS_HOISTED', 'lode store status checks the packages of node_modules/.pnpm; with nodeLinker: hoisted there is none.', {
      hint: 'Check with pnpm store status for now.',
    })
  }
  const read = await readLockfile(config.dir) ?? await readInstalledLockfile(config.dir)
  if (read === undefined) return []
  const { lockfile } = read
  const skipped = skippedPackages(lockfile, { engineStrict: false, nodeVersion: config.nodeVersion, platform: currentPlatform() })
  const packages = Object.keys(lockfile.snapshots ?? {}).filter((depPath) => !skipped.has(depPath)).map((depPath) => {
    const pkgId = pkgIdOf(depPath)
    const integrity = (lockfile.packages?.[pkgId]?.resolution as { integrity?: unknown } | undefined)?.integrity
    return {
      id: depPath,
      indexKey: typeof integrity === 'string' ? storeIndexKey(integrity, pkgId) : undefined,
      dir: path.join(config.virtualStoreDir, depPathToFilename(depPath, config.virtualStoreDirMaxLength), 'node_modules', nameOf(pkgId)),
    }
  })
  return await modifiedPackages(config.storeDir, packages)
}

/**
 * pnpm's `store prune`: the dlx installs older than `dlxMaxAgeMinutes` (and those a newer one
 * replaced), lode's registry metadata cache (fetched again as needed), then the store files no
 * install links to any more, their index rows and the store's temp files.
 */
export async function storePrune (
  config: Config,
  opts: {
    force: boolean
    now: () => number
    dlxMaxAgeMinutes?: number
    onInfo: (message: string) => void
    onWarning: (message: string) => void
  }
): Promise<PruneResult> {
  await cleanDlxCache(path.join(config.cacheDir, 'dlx'), (opts.dlxMaxAgeMinutes ?? 1440) * 60_000, opts.now())
  for (const entry of await readdirOrEmpty(config.cacheDir)) {
    if (entry.startsWith(METADATA_CACHE_DIR.replace(/-v\d+$/, ''))) await fs.rm(path.join(config.cacheDir, entry), { recursive: true, force: true })
  }
  opts.onInfo('Removed all cached metadata files')
  return await pruneStore(config.storeDir, opts)
}

/** Each `<key>` whose `pkg` link is missing or too old goes; in the others, what `pkg` does not point at. */
async function cleanDlxCache (dlxDir: string, maxAgeMs: number, now: number): Promise<void> {
  for (const key of await readdirOrEmpty(dlxDir)) {
    const keyDir = path.join(dlxDir, key)
    const link = await fs.lstat(path.join(keyDir, 'pkg')).catch(() => undefined)
    if (link?.isSymbolicLink() !== true || link.mtimeMs + maxAgeMs < now) {
      await fs.rm(keyDir, { recursive: true, force: true })
      continue
    }
    const inUse = await fs.readlink(path.join(keyDir, 'pkg'))
    for (const entry of await readdirOrEmpty(keyDir)) {
      if (entry !== 'pkg' && entry !== inUse) await fs.rm(path.join(keyDir, entry), { recursive: true, force: true })
    }
  }
}

async function readdirOrEmpty (dir: string): Promise<string[]> {
  return await fs.readdir(dir).catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT') return []
    throw err
  })
}
