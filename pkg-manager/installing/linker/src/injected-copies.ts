import type { Config } from '@lode/pkg-manager.config.settings'
import type { Resolution } from '@lode/pkg-manager.lockfile.format'

import type { InjectedCopy, LinkThreads, PackageSource } from './link-types.js'

/** The injected copies among the packages laid out (the isolated layout's, or the hoisted layout's places). */
export function injectedCopiesOf (
  packages: ReadonlyArray<{ pkgId: string, name: string, dir: string, resolution: Resolution }>
): InjectedCopy[] {
  return packages.flatMap((pkg) => {
    const source = pkg.pkgId.slice(pkg.name.length + 1)
    if (!('directory' in pkg.resolution) || !source.startsWith('file:')) return []
    return [{ projectId: source.slice('file:'.length), pkgId: pkg.pkgId, resolution: pkg.resolution, dir: pkg.dir }]
  })
}

/**
 * pnpm's refresh of a project's injected copies once its own scripts ran (its `prepare` may build
 * files the copies made before lack): the project's files are read again and put in each copy, the
 * copy's own node_modules kept.
 */
export async function refreshInjectedCopies (
  copies: readonly InjectedCopy[],
  opts: { config: Pick<Config, 'storeDir' | 'packageImportMethod'>, fetcher: PackageSource, linkThreads: LinkThreads }
): Promise<void> {
  if (copies.length === 0) return
  const rows = await Promise.all(opts.fetcher.rows(copies).rows.map(async (row) => await row))
  await opts.linkThreads.pool().link({
    storeDir: opts.config.storeDir,
    method: opts.config.packageImportMethod,
    packages: copies.map((copy, i) => ({ dir: copy.dir, files: rows[i]!.files, replace: true })),
  })
}
