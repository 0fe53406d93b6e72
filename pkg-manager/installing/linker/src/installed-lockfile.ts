import type { DependencyGroup } from '@lode/core.constants'
import { DEPENDENCY_GROUPS } from '@lode/core.constants'
import { pkgIdOf } from '@lode/core.dep-path'
import type { Lockfile } from '@lode/pkg-manager.lockfile.format'

import { includesImporterGroup } from './importer-groups.js'
import type { Layout } from './layout.js'

/**
 * What a filtered install puts on disk: the selected importers as resolved now, the others as the
 * last install left them (empty, as pnpm records them, if it did not install them), with the packages of both.
 */
export function installedLockfile (next: Lockfile, installed: Lockfile | undefined, selected: ReadonlySet<string>): Lockfile {
  const importers: Lockfile['importers'] = {}
  for (const [id, snapshot] of Object.entries(next.importers)) {
    importers[id] = selected.has(id) ? snapshot : installed?.importers[id] ?? {}
  }
  return {
    ...next,
    importers,
    packages: { ...installed?.packages, ...next.packages },
    snapshots: { ...installed?.snapshots, ...next.snapshots },
  }
}

/** The lockfile with only the importers' dependency groups `include` installs. */
export function withGroups (lockfile: Lockfile, include: Readonly<Record<DependencyGroup, boolean>>): Lockfile {
  const left = DEPENDENCY_GROUPS.filter((group) => !includesImporterGroup(include, group))
  if (left.length === 0) return lockfile
  const importers = Object.fromEntries(Object.entries(lockfile.importers).map(([id, snapshot]) => {
    const kept = { ...snapshot }
    for (const group of left) delete kept[group]
    return [id, kept]
  }))
  return { ...lockfile, importers }
}

/** The lockfile with only the packages the layout reached (or skipped), as `.pnpm/lock.yaml` records them. */
export function reachedOnly (lockfile: Lockfile, layout: Layout, skipped: ReadonlySet<string>): Lockfile {
  const depPaths = new Set([...layout.packages.map((pkg) => pkg.depPath), ...skipped])
  const snapshots = Object.fromEntries(Object.entries(lockfile.snapshots ?? {}).filter(([depPath]) => depPaths.has(depPath)))
  const pkgIds = new Set<string>(Object.keys(snapshots).map(pkgIdOf))
  return {
    ...lockfile,
    snapshots,
    packages: Object.fromEntries(Object.entries(lockfile.packages ?? {}).filter(([pkgId]) => pkgIds.has(pkgId))),
  }
}
