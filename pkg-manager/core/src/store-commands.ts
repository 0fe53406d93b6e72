import fs from 'node:fs/promises'
import path from 'node:path'

import { METADATA_CACHE_DIR } from '@lode/core.constants'
import { depPathToFilename, nameOf, pkgIdOf } from '@lode/core.dep-path'
import { LodeError } from '@lode/core.error'
import type { Config } from '@lode/pkg-manager.config'
import { readInstalledLockfile, readLockfile } from '@lode/pkg-manager.lockfile'
import { currentPlatform, skippedPackages } from '@lode/pkg-manager.package-is-installable'
import { modifiedPackages, pruneStore, readdirOrEmpty, type PruneResult } from '@lode/store.controller'
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
  // What the last install put in node_modules (not pnpm-lock.yaml, which has what --prod left out), else the lockfile.
  const read = await readInstalledLockfile(config.dir) ?? await readLockfile(config.dir)
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
 * pnpm's `store prune`: the dlx installs older than `dlxCacheMaxAge` (and those a newer one
 * replaced), lode's registry metadata cache (fetched again as needed), then the store files no
 * install links to any more, their index rows and the store's temp files.
 */
export async function storePrune (
  config: Config,
  opts: {
    force: boolean
    now: () => number
    onInfo: (message: string) => void
    onWarning: (message: string) => void
  }
): Promise<PruneResult> {
  await cleanDlxCache(path.join(config.cacheDir, 'dlx'), config.dlxCacheMaxAge * 60_000, opts.now())
  for (const entry of await readdirOrEmpty(config.cacheDir)) {
    if (entry.startsWith(METADATA_CACHE_DIR.replace(/-v\d+$/, ''))) await fs.rm(path.join(config.cacheDir, entry), { recursive: true, force: true })
  }
  opts.onInfo('Removed all cached metadata files')
  return await pruneStore(config.storeDir, opts)
}

/**
 * The dlx installs older than `maxAgeMs` go (a `<key>` whose `pkg` link is that old, and the
 * installs a newer one replaced that long ago); a younger one stays, whether in use, still being
 * installed, or its command still running.
 */
async function cleanDlxCache (dlxDir: string, maxAgeMs: number, now: number): Promise<void> {
  const old = async (file: string): Promise<boolean> => ((await fs.lstat(file).catch(() => undefined))?.mtimeMs ?? now) + maxAgeMs < now
  for (const key of await readdirOrEmpty(dlxDir)) {
    const keyDir = path.join(dlxDir, key)
    const link = path.join(keyDir, 'pkg')
    const linked = await fs.readlink(link).then((target) => path.resolve(keyDir, target), () => undefined)
    if (linked !== undefined && await old(link)) {
      await fs.rm(keyDir, { recursive: true, force: true })
      continue
    }
    for (const entry of await readdirOrEmpty(keyDir)) {
      const file = path.join(keyDir, entry)
      if (entry !== 'pkg' && file !== linked && await old(file)) await fs.rm(file, { recursive: true, force: true })
    }
  }
}
