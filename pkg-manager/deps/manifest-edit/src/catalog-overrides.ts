import { own } from '@lode/core.safe-name'

/**
 * The lockfile's `overrides` after catalog entries moved: an override that says `catalog:` (or
 * `catalog:<name>`) records the range its entry moved to, as pnpm records it. `locked` is the
 * lockfile's overrides, `moved` the catalog entries written (catalog, name, range), `overrides` the
 * settings' (which say `catalog:`). Selectors the lockfile does not have are left out.
 */
export function followCatalogOverrides (
  locked: Readonly<Record<string, string>>,
  moved: Readonly<Record<string, Readonly<Record<string, string>>>>,
  overrides: Readonly<Record<string, string>>
): Record<string, string> {
  const result = { ...locked }
  for (const [selector, value] of Object.entries(overrides)) {
    if (!value.startsWith('catalog:') || own(locked, selector) === undefined) continue
    const catalog = value.slice('catalog:'.length) || 'default'
    const target = selector.slice(selector.lastIndexOf('>') + 1)
    // `foo`, `foo@^1`, `@scope/foo@1`: the name.
    const range = own(own(moved, catalog), target.replace(/^(@?[^@]+)@.*$/, '$1'))
    if (range !== undefined) Object.defineProperty(result, selector, { value: range, enumerable: true, writable: true, configurable: true })
  }
  return result
}
