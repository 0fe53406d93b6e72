import { own } from '@lode/core.safe-name'
import type { ProjectSnapshot } from '@lode/pkg-manager.lockfile.format'
import semver from 'semver'

import { catalogName } from './catalogs.js'
import type { Catalogs } from './catalogs.js'
import { lockedVersionOf } from './lockfile-pins.js'
import type { Importer, ProjectManifest } from './types.js'

/**
 * pnpm's stale peer pins (autoInstallPeers): a project's own peer dependency that none of its
 * dependency groups lists is installed for it and locked. When a project of the workspace depends
 * on that package with a range that overlaps the peer's range but that the locked version does not
 * meet (another project added a newer version), the lock no longer holds: the peer is picked again,
 * with the lockfile's weight taken off the locked version and off the versions projects name.
 *
 * By importer (in the order given): alias → the versions to unpin.
 */
export function stalePeerPins (
  importers: ReadonlyArray<Pick<Importer, 'manifest' | 'replacedSpecs' | 'addedAliases'> & { locked: ProjectSnapshot | undefined }>,
  catalogs: Catalogs | undefined
): Array<Map<string, ReadonlySet<string>>> {
  const none = importers.map(() => new Map<string, ReadonlySet<string>>())
  if (!importers.some(({ manifest }) => manifest.peerDependencies !== undefined)) return none
  const directSpecs = directSpecsByName(importers, catalogs)
  return importers.map(({ manifest, locked }) => {
    const stale = new Map<string, ReadonlySet<string>>()
    for (const [alias, peerRange] of Object.entries(manifest.peerDependencies ?? {})) {
      if (listed(manifest, alias) || semver.validRange(peerRange) === null) continue
      const ref = [locked?.dependencies, locked?.devDependencies, locked?.optionalDependencies]
        .map((group) => own(group, alias)?.version).find((found) => found !== undefined)
      const version = ref === undefined ? undefined : lockedVersionOf(ref)
      const pinned = version === undefined || semver.valid(version) === null ? undefined : version
      if (pinned === undefined) continue
      const overlapping = [...directSpecs.get(alias) ?? []].filter((spec) => semver.intersects(spec, peerRange))
      if (!overlapping.some((spec) => !semver.satisfies(pinned, spec, true))) continue
      const named = [...directSpecs.get(alias)!].flatMap((spec) => semver.clean(spec) ?? [])
      stale.set(alias, new Set([pinned, ...named]))
    }
    return stale
  })
}

function listed (manifest: ProjectManifest, alias: string): boolean {
  return own(manifest.dependencies, alias) !== undefined || own(manifest.devDependencies, alias) !== undefined ||
    own(manifest.optionalDependencies, alias) !== undefined
}

/**
 * Every project's semver ranges (a catalog's entry for `catalog:`) of each dependency name, as
 * package.json had them before the command's edit (pnpm reads them before it writes the edit).
 */
function directSpecsByName (
  importers: ReadonlyArray<Pick<Importer, 'manifest' | 'replacedSpecs' | 'addedAliases'>>,
  catalogs: Catalogs | undefined
): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>()
  for (const { manifest, replacedSpecs, addedAliases } of importers) {
    for (const group of ['dependencies', 'devDependencies', 'optionalDependencies'] as const) {
      for (const [alias, edited] of Object.entries(manifest[group] ?? {})) {
        if (addedAliases?.includes(alias) === true) continue
        const written = own(replacedSpecs, alias) ?? edited
        // A catalog that lacks the entry is reported where the dependency is resolved.
        const spec = written.startsWith('catalog:') ? own(own(catalogs, catalogName(written)), alias) : written
        if (spec === undefined || semver.validRange(spec) === null) continue
        const specs = out.get(alias)
        if (specs === undefined) out.set(alias, new Set([spec]))
        else specs.add(spec)
      }
    }
  }
  return out
}
