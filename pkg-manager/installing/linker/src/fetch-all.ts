
import type { Resolution } from '@lode/pkg-manager.lockfile.format'

import type { PackageInStore, PackageSource } from './link-types.js'

// Store index rows read at a time.
const ROWS_CHUNK = 256

/**
 * Gets `packages` into the store (the store index's rows, a chunk at a time; downloads for the
 * rest) and waits for all of them: a failure rejects before anything else happens. Keyed by
 * dependency path.
 */
export async function fetchAll (
  fetcher: PackageSource,
  packages: ReadonlyArray<{ pkgId: string, resolution: Resolution, depPath: string }>,
  onReused?: (reused: number) => void
): Promise<Map<string, PackageInStore>> {
  const rows = new Map<string, PackageInStore>()
  const pending: Array<Promise<void>> = []
  let reused = 0
  for (let start = 0; start < packages.length; start += ROWS_CHUNK) {
    const chunk = packages.slice(start, start + ROWS_CHUNK)
    const found = fetcher.rows(chunk)
    reused += found.reused
    chunk.forEach((pkg, i) => {
      const row = found.rows[i]!
      if (row instanceof Promise) pending.push(row.then((fetched) => { rows.set(pkg.depPath, fetched) }))
      else rows.set(pkg.depPath, row)
    })
    onReused?.(reused)
  }
  // Every fetch settles before a failure is reported: none is left writing into the store unawaited.
  const settled = await Promise.allSettled(pending)
  const failure = settled.find((outcome): outcome is PromiseRejectedResult => outcome.status === 'rejected')
  if (failure !== undefined) throw failure.reason
  return rows
}
