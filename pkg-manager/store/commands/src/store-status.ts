import path from 'node:path'

import { depPathToFilename, nameOf, pkgIdOf } from '@lode/core.dep-path'
import { LodeError } from '@lode/core.error'
import type { Config } from '@lode/pkg-manager.config.settings'
import { packagesCheck, skippedPackages } from '@lode/pkg-manager.installing.package-is-installable'
import { readInstalledLockfile, readLockfile } from '@lode/pkg-manager.lockfile.format'
import { modifiedPackages } from '@lode/store.controller'
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
  const skipped = skippedPackages(lockfile, packagesCheck(config, false))
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
