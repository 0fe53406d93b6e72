import { isDeepStrictEqual } from 'node:util'

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
    const last = installed?.importers[id]
    // One the last install left as it is now is the same object, so that `holdsTheSame` tells by identity.
    importers[id] = selected.has(id) || (last !== undefined && isDeepStrictEqual(last, snapshot)) ? snapshot : last ?? {}
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

/**
 * Whether `derived` (made from `lockfile` by the functions above) holds the very entries of
 * `lockfile`: each top-level value the same, or an object of the same keys with the same values.
 * Then its text is the lockfile's (a filtered install over a tree the last install left as this
 * one wants it: `add` in one project of many), and it is not serialized again.
 */
export function holdsTheSame (derived: Lockfile, lockfile: Lockfile): boolean {
  const sameEntries = (a: unknown, b: unknown): boolean => {
    if (a === b) return true
    if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false
    const keys = Object.keys(a)
    if (keys.length !== Object.keys(b).length) return false
    return keys.every((key) => Object.hasOwn(b, key) && (a as Record<string, unknown>)[key] === (b as Record<string, unknown>)[key])
  }
  const keys = Object.keys(derived)
  if (keys.length !== Object.keys(lockfile).length) return false
  return keys.every((key) => Object.hasOwn(lockfile, key) && sameEntries(derived[key as keyof Lockfile], lockfile[key as keyof Lockfile]))
}
