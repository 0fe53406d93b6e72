import fs from 'node:fs/promises'
import path from 'node:path'

import { GLOBAL_VIRTUAL_STORE_DIR, METADATA_CACHE_DIR, STORE_FILES_DIR } from '@lode/core.constants'
import { nameOf } from '@lode/core.dep-path'
import { LodeError } from '@lode/core.error'
import type { Config } from '@lode/pkg-manager.config.settings'
import { pruneDlxCache } from '@lode/pkg-manager.exec.dlx'
import { readInstalledLockfile } from '@lode/pkg-manager.lockfile.format'
import type { Resolution } from '@lode/pkg-manager.lockfile.format'
import { pruneGlobalVirtualStore, pruneStore, readdirOrEmpty, registeredProjects, storeSubdir, type PruneResult } from '@lode/store.controller'
import { gitIndexKey, storeIndexKey } from '@lode/store.index'

/**
 * pnpm's `store prune`: the dlx installs older than `dlxCacheMaxAge` (and those a newer one
 * replaced), lode's registry metadata cache (fetched again as needed), the slots of the global
 * virtual store (`<store>/v11/links`) no registered project reaches, then the store files no
 * install links to any more and no registered project (lode's or pnpm's) has installed, their
 * index rows and the store's temp files.
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
  // Read first: a registered project that cannot be read stops the prune before anything is
  // removed. Its messages (stale registrations) come where pnpm prints them, after the cache's.
  const registryInfo: string[] = []
  const inUse = await installedIndexKeys(config.storeDir, (message) => { registryInfo.push(message) })
  // The directories the prunes remove from, checked to be the store's own (no symlink out of it) before anything goes.
  for (const dir of [GLOBAL_VIRTUAL_STORE_DIR, STORE_FILES_DIR]) storeSubdir(config.storeDir, dir)
  await pruneDlxCache(config, opts.now())
  for (const entry of await readdirOrEmpty(config.cacheDir)) {
    if (entry.startsWith(METADATA_CACHE_DIR.replace(/-v\d+$/, ''))) await fs.rm(path.join(config.cacheDir, entry), { recursive: true, force: true })
  }
  opts.onInfo('Removed all cached metadata files')
  for (const message of registryInfo) opts.onInfo(message)
  // The global virtual store's slots no registered project reaches go first: their files are then unlinked in the store.
  await pruneGlobalVirtualStore(config.storeDir, opts.onInfo)
  return await pruneStore(config.storeDir, { ...opts, inUse })
}

/**
 * The store index keys of the packages each registered project has installed, from its
 * `node_modules/.pnpm/lock.yaml` (pnpm's `getInUse`): a project installed by copy, or moved
 * with its node_modules, keeps its files. Registrations of projects gone are dropped.
 */
async function installedIndexKeys (storeDir: string, onInfo: (message: string) => void): Promise<Set<string>> {
  const keys = new Set<string>()
  for (const project of await registeredProjects(storeDir, onInfo)) {
    let read
    try {
      read = await readInstalledLockfile(project)
    } catch (err) {
      throw new LodeError('STORE_DIR_PRUNE_IN_USE_FILES', `Failed to read the store files that registered projects use: ${project}: ${(err as Error).message}`, {
        hint: 'Install that project again, or remove its node_modules, then prune again.',
      })
    }
    for (const [pkgId, pkg] of Object.entries(read?.lockfile.packages ?? {})) {
      for (const key of indexKeysOf(pkgId, pkg.resolution)) keys.add(key)
    }
  }
  return keys
}

/** pnpm's `packageIndexKeys`: a package with an integrity is keyed by it; a git package (or a tarball without one) twice, built and not. */
function indexKeysOf (pkgId: string, resolution: Resolution): string[] {
  const { type, integrity, tarball, gitHosted } = resolution as Record<string, unknown>
  const isGit = type === 'git' || (type === undefined && typeof tarball === 'string' && (gitHosted === true || typeof integrity !== 'string'))
  if (isGit) {
    // pnpm names the package by its id in the lockfile; lode's git fetcher keys the row by the id without `name@`: both are kept.
    return [pkgId, pkgId.slice(nameOf(pkgId).length + 1)].flatMap((id) => [gitIndexKey(id, true), gitIndexKey(id, false)])
  }
  return type === undefined && typeof integrity === 'string' ? [storeIndexKey(integrity, pkgId)] : []
}
