import type { DependencyGroup } from '@lode/core.constants'
import { nameOf, pkgIdOf, refToDepPath, splitNameAt, withoutPeersSuffix } from '@lode/core.dep-path'
import { own } from '@lode/core.safe-name'
import type { Lockfile } from '@lode/pkg-manager.lockfile.format'

import { includesImporterGroup } from './importer-groups.js'
import type { DirectDependencyChange } from './link-types.js'

/** pnpm's summary: direct dependencies the importer gained or lost since the last install, per group (not those skipped, which it did not gain). */
export function directChanges (
  before: Lockfile | undefined,
  after: Lockfile,
  include: Readonly<Record<DependencyGroup, boolean>>,
  linkedVersion: (ref: string) => string | undefined,
  skipped: ReadonlySet<string>
): DirectDependencyChange[] {
  const changes: DirectDependencyChange[] = []
  for (const group of ['dependencies', 'optionalDependencies', 'devDependencies'] as const) {
    if (!includesImporterGroup(include, group)) continue
    const old = before?.importers['.']?.[group] ?? {}
    const now = after.importers['.']?.[group] ?? {}
    const describe = (alias: string, ref: string, change: '+' | '-'): DirectDependencyChange => {
      // A workspace project: pnpm shows its version and where it is (`a 1.0.0 <- packages/a`).
      const version = ref.startsWith('link:') ? linkedVersion(ref) : undefined
      if (version !== undefined) return { group, change, alias, version, linkedFrom: ref.slice('link:'.length) }
      const pkgId = pkgIdOf(refToDepPath(alias, ref))
      // A reference that names its package (an `npm:` alias, `name@1.0.0`) is shown with the name.
      const named = pkgIdOf(ref) === pkgId
      // A package whose id is not its version (a git commit, a URL) has its version in its lockfile entry, which pnpm shows.
      const recorded = (change === '+' ? after : before)?.packages?.[pkgId]?.version
      const shown = typeof recorded === 'string' ? recorded : named ? splitNameAt(pkgId).rest ?? pkgId : withoutPeersSuffix(ref)
      return named ? { group, change, alias, name: nameOf(pkgId), version: shown } : { group, change, alias, version: shown }
    }
    for (const alias of [...new Set([...Object.keys(old), ...Object.keys(now)])].sort()) {
      const was = own(old, alias)?.version
      const is = own(now, alias)?.version
      // A patch added or removed changes the reference, not the dependency: pnpm lists neither.
      if (was === is || (was !== undefined && is !== undefined && withoutPatchHash(was) === withoutPatchHash(is))) continue
      if (was !== undefined) changes.push(describe(alias, was, '-'))
      if (is !== undefined && !skipped.has(refToDepPath(alias, is))) changes.push(describe(alias, is, '+'))
    }
  }
  return changes
}

function withoutPatchHash (ref: string): string {
  return ref.replace(/\(patch_hash=[0-9a-f]+\)/, '')
}
