import { LodeError } from '@lode/core.error'
import { own } from '@lode/core.safe-name'

/** pnpm's catalogs (`catalog`, `catalogs.<name>`): catalog name → package name → specifier. */
export type Catalogs = Readonly<Record<string, Readonly<Record<string, string>>>>

/** `catalog:` is the default catalog; `catalog:name` the named one. */
export function catalogName (specifier: string): string {
  return specifier.slice('catalog:'.length) || 'default'
}

/**
 * The catalog entry a `catalog:` specifier stands for; a missing entry is
 * `ERR_LODE_CATALOG_ENTRY_NOT_FOUND`. Undefined for any other specifier.
 * (`@lode/pkg-manager.deps.resolve-dependencies/catalogs`: installs that resolve nothing load only this.)
 */
export function catalogSpecifier (
  alias: string,
  specifier: string,
  catalogs: Catalogs | undefined
): { name: string, specifier: string } | undefined {
  if (!specifier.startsWith('catalog:')) return undefined
  const name = catalogName(specifier)
  const entry = own(own(catalogs, name), alias)
  if (entry === undefined) {
    throw new LodeError('CATALOG_ENTRY_NOT_FOUND', `No catalog entry '${alias}' was found for catalog '${name}' (the specifier "${specifier}" of ${alias}).`, {
      hint: name === 'default' ? `Add ${alias} to catalog in pnpm-workspace.yaml.` : `Add ${alias} to catalogs.${name} in pnpm-workspace.yaml.`,
    })
  }
  return { name, specifier: entry }
}
