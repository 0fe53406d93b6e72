import { isLodeError, printable } from '@lode/core.error'
import type { Lockfile, Resolution } from '@lode/pkg-manager.lockfile.format'

import type { PackageSource } from './link-types.js'

/**
 * pnpm's install of a lockfile as it is: an optional package (`optional: true` in its snapshot)
 * whose files cannot be fetched is left out, with a warning, and the rest is installed (an install
 * that resolves fails instead, as pnpm's does). Of `toImport` (the packages not on disk), the
 * optional ones are fetched first, before anything is linked (those the store has are at hand):
 * the dependency paths of those that failed are returned, for the layout to leave out, with the
 * links to them. They are not recorded as skipped: the next install tries them again.
 */
export async function unfetchableOptionalPackages (
  lockfile: Lockfile,
  toImport: ReadonlyArray<{ depPath: string, pkgId: string, resolution: Resolution }>,
  opts: { fetcher: PackageSource, onWarning?: ((message: string) => void) | undefined }
): Promise<Set<string>> {
  const unfetchable = new Set<string>()
  const isOptional = (depPath: string): boolean => lockfile.snapshots?.[depPath]?.optional === true
  const optional = [...new Map(toImport.filter((pkg) => isOptional(pkg.depPath)).map((pkg) => [pkg.depPath, pkg])).values()]
  if (optional.length === 0) return unfetchable
  // Those the store has are at hand (no promise).
  const settled = await Promise.allSettled(opts.fetcher.rows(optional).rows.map(async (row) => await row))
  settled.forEach((result, i) => {
    if (result.status === 'fulfilled') return
    const err: unknown = result.reason
    // Stopping (Ctrl-C) is no failure to fetch.
    if (err instanceof Error && err.name === 'AbortError') throw err
    const pkg = optional[i]!
    unfetchable.add(pkg.depPath)
    const detail = isLodeError(err) ? `[${err.code}] ${err.message}` : String(err)
    opts.onWarning?.(`${printable(pkg.pkgId)} is an optional dependency that could not be fetched. Excluding it from installation.\n${detail}`)
  })
  return unfetchable
}
