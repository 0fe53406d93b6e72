import { MANIFEST_DEPENDENCY_FIELDS } from '@lode/core.constants'
import { nameOf } from '@lode/core.dep-path'
import { pruneWorkspaceCatalogs } from '@lode/pkg-manager.config.settings'
import type { Lockfile } from '@lode/pkg-manager.lockfile.format'

export interface CatalogPruneInput {
  /** Every project's package.json, as the install leaves it. */
  manifests: ReadonlyArray<Record<string, unknown>>
  /** `overrides` as written in pnpm-workspace.yaml (a `catalog:` value uses its target's entry). */
  overrides: Readonly<Record<string, string>>
  /** The lockfile's `catalogs` section (without a lockfile, none): its entries stay. */
  lockfileCatalogs: Lockfile['catalogs']
}

/**
 * pnpm 11's `catalogPrune` (`cleanupUnusedCatalogs`), after a successful install: an entry of the
 * default catalog stays while a project depends on its package with `catalog:` (in any dependency
 * group, peers too) or an override's value is `catalog:` for it; an entry of a named catalog stays
 * while its package is used with `catalog:<name>` or `catalog:`. Entries of the lockfile's
 * `catalogs` section stay too. The rest goes from pnpm-workspace.yaml. Returns whether it changed.
 */
export async function pruneUnusedCatalogs (dir: string, input: CatalogPruneInput): Promise<boolean> {
  const references = new Map<string, Set<string>>()
  const reference = (name: string, specifier: string): void => {
    const set = references.get(name)
    if (set === undefined) references.set(name, new Set([specifier]))
    else set.add(specifier)
  }
  for (const manifest of input.manifests) {
    for (const group of MANIFEST_DEPENDENCY_FIELDS) {
      const deps = manifest[group]
      if (typeof deps !== 'object' || deps === null) continue
      for (const [name, specifier] of Object.entries(deps)) if (typeof specifier === 'string') reference(name, specifier)
    }
  }
  for (const [selector, value] of Object.entries(input.overrides)) {
    if (!value.startsWith('catalog:')) continue
    const target = selector.slice(selector.lastIndexOf('>') + 1)
    reference(nameOf(target), value)
  }
  for (const [catalog, entries] of Object.entries(input.lockfileCatalogs ?? {})) {
    for (const name of Object.keys(entries)) reference(name, catalog === 'default' ? 'catalog:' : `catalog:${catalog}`)
  }
  return await pruneWorkspaceCatalogs(dir, (name, catalog) => {
    const used = references.get(name)
    return used !== undefined && (used.has('catalog:') || (catalog !== undefined && used.has(`catalog:${catalog}`)))
  })
}
