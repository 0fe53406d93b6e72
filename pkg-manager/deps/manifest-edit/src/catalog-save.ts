import { LodeError } from '@lode/core.error'
import { own } from '@lode/core.safe-name'
import { readWorkspaceYaml, updateWorkspaceYaml } from '@lode/pkg-manager.config.settings'
import semver from 'semver'

import { withKeys } from './key-order.js'

// `add` and the catalogs, as pnpm 11 does it: `--save-catalog` / `--save-catalog-name` (pnpm's
// `saveCatalogName`) and `catalogMode`. Before resolving, a dependency is pointed at a catalog
// (`promoteToCatalog`); once resolved, one with a direct specifier is saved into its catalog
// (`catalogEntry`): `catalog:` in package.json, the range in pnpm-workspace.yaml and the lockfile.

export type CatalogMode = 'manual' | 'prefer' | 'strict'

export type Catalogs = Readonly<Record<string, Readonly<Record<string, string>> | undefined>>

/** An added dependency, and the catalog it is to be saved to. */
export interface CatalogDependency {
  alias: string
  bareSpecifier?: string | undefined
  saveCatalogName?: string | undefined
  /** A dependency taken through this catalog entry: the entry moves to the version resolved (see `throughCatalog`). */
  catalog?: CatalogEntryMove | undefined
}

/**
 * A catalog entry that an edit moves to the version it resolves, in the entry's range style
 * (`^1.0.0` resolved at 1.3.0 becomes `^1.3.0`). `locksResolved`: the lockfile's catalogs record
 * the version resolved now (an `add`); else the version they had, which projects the edit left
 * behind may still use (an `update`).
 */
export interface CatalogEntryMove {
  name: string
  range: string
  locksResolved?: true
}

/** `catalog:` for the default catalog, `catalog:<name>` for another. */
export function catalogReference (catalogName: string): string {
  return catalogName === 'default' ? 'catalog:' : `catalog:${catalogName}`
}

/**
 * With `catalogMode` `prefer` or `strict`: a dependency its catalog has is saved as `catalog:` when
 * what was asked for is that reference or an exact version the catalog's range covers; one the
 * catalog does not have is saved to it once resolved. Any other version is
 * `ERR_LODE_CATALOG_VERSION_MISMATCH` when strict, a warning (and the version as asked) when preferred.
 */
export function promoteToCatalog<T extends CatalogDependency> (
  dep: T,
  opts: { catalogMode: CatalogMode, saveCatalogName: string | undefined, catalogs: Catalogs, onWarning: (message: string) => void }
): T {
  if (opts.catalogMode === 'manual' || isPath(dep.bareSpecifier)) return dep
  const catalogName = opts.saveCatalogName ?? 'default'
  const reference = catalogReference(catalogName)
  const inCatalog = own(opts.catalogs[catalogName], dep.alias)
  if (inCatalog === undefined || dep.bareSpecifier === reference) return { ...dep, saveCatalogName: catalogName }
  // A version the entry's range covers: that version is resolved, and the entry moves to it (pnpm's resolveCatalogEntryTo).
  if (dep.bareSpecifier !== undefined && semver.valid(dep.bareSpecifier) !== null && semver.validRange(inCatalog) !== null
    && semver.satisfies(dep.bareSpecifier, inCatalog)) {
    return { ...dep, saveCatalogName: catalogName, catalog: { name: catalogName, range: inCatalog, locksResolved: true } }
  }
  if (opts.catalogMode === 'strict') {
    throw new LodeError('CATALOG_VERSION_MISMATCH', `Wanted dependency outside the version range defined in catalog: ${dep.alias}@${dep.bareSpecifier ?? 'latest'} is not in ${dep.alias}@${inCatalog}.`, {
      hint: `catalogMode is strict: add ${dep.alias} without a version (or with one its catalog range covers), or change the catalog in pnpm-workspace.yaml.`,
    })
  }
  opts.onWarning(`Catalog version mismatch for "${dep.alias}": using direct version "${dep.bareSpecifier ?? 'latest'}" instead of catalog version "${inCatalog}".`)
  return dep
}

/**
 * An added dependency taken through a catalog (`catalog:` or `catalog:<name>`) whose entry is a
 * registry range: pnpm moves the entry to the version it resolves, in the entry's range style.
 */
export function throughCatalog<T extends CatalogDependency> (dep: T, catalogs: Catalogs): T {
  if (dep.catalog !== undefined || dep.bareSpecifier === undefined || !dep.bareSpecifier.startsWith('catalog:')) return dep
  const name = dep.bareSpecifier.slice('catalog:'.length) || 'default'
  const range = own(catalogs[name], dep.alias)
  if (range === undefined || semver.validRange(range) === null) return dep
  return { ...dep, catalog: { name, range, locksResolved: true } }
}

/**
 * Once resolved, the catalog entry a dependency saved to a catalog adds: `undefined` when it is
 * saved as written (a `catalog:` reference already, no catalog asked for, not a registry
 * version), or when the default catalog has it already (pnpm checks the default one, whichever
 * catalog was asked for; a different range there is a warning).
 */
export function catalogEntry (
  dep: CatalogDependency,
  saved: { specifier: string, version: string | undefined },
  opts: { catalogs: Catalogs, onWarning: (message: string) => void }
): { catalogName: string, specifier: string } | undefined {
  const catalogName = dep.saveCatalogName
  if (catalogName === undefined || saved.specifier.startsWith('catalog:') || saved.version === undefined) return undefined
  const existing = own(opts.catalogs['default'], dep.alias)
  if (existing !== undefined) {
    if (existing !== saved.specifier) {
      opts.onWarning(`Skip adding ${dep.alias} to the default catalog because it already exists as ${existing}. Please use \`lode update\` to update the catalogs.`)
    }
    return undefined
  }
  return { catalogName, specifier: saved.specifier }
}

function isPath (spec: string | undefined): boolean {
  return spec !== undefined && (spec.startsWith('file:') || spec.startsWith('link:') || spec.startsWith('.') || spec.startsWith('/') || spec.startsWith('workspace:'))
}

/**
 * `add --save-catalog`: the new ranges into pnpm-workspace.yaml, the default catalog under `catalog`
 * (pnpm's; under `catalogs.default` when the file keeps it there), others under `catalogs`. New keys
 * take pnpm's order: their sorted place in a map whose keys were sorted, the end of any other.
 */
export async function writeCatalogAdditions (dir: string, additions: Readonly<Record<string, Record<string, string>>>): Promise<void> {
  if (Object.keys(additions).length === 0) return
  const yaml = readWorkspaceYaml(dir)
  const catalogs = (yaml['catalogs'] ?? {}) as Record<string, Record<string, string>>
  const { default: toDefault, ...named } = additions
  const defaultUnderCatalogs = yaml['catalog'] === undefined && own(catalogs, 'default') !== undefined
  const settings: Record<string, unknown> = {}
  if (toDefault !== undefined && !defaultUnderCatalogs) settings['catalog'] = withKeys((yaml['catalog'] ?? {}) as Record<string, string>, toDefault)
  const toNamed = defaultUnderCatalogs && toDefault !== undefined ? { ...named, default: toDefault } : named
  if (Object.keys(toNamed).length > 0) {
    settings['catalogs'] = withKeys(catalogs, Object.fromEntries(Object.entries(toNamed).map(([name, entries]) => [name, withKeys(own(catalogs, name) ?? {}, entries)])))
  }
  await updateWorkspaceYaml(dir, settings)
}
