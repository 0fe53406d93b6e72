import { splitNameAt } from '@lode/core.dep-path'
import { LodeError } from '@lode/core.error'
import { createMatcher } from '@lode/core.matcher'
import semver from 'semver'

/**
 * pnpm's package queries (`why`, `list <pattern>`): a name or name pattern (`*` any run of
 * characters) matching a package's name or the alias it is installed under, optionally with
 * `@<version or range>` that its version satisfies (never a `link:`). A query with a tag or any
 * other spec is `ERR_LODE_INVALID_PACKAGE_QUERY`.
 */
export function createPackageSearch (queries: readonly string[]): (pkg: { alias: string, name: string, version: string }) => boolean {
  const searches = queries.map((query) => {
    const { name, rest } = splitNameAt(query)
    const matchName = createMatcher([name])
    if (rest === undefined) return (pkg: { alias: string, name: string }) => matchName(pkg.name) || matchName(pkg.alias)
    const range = semver.validRange(rest)
    if (range === null) {
      throw new LodeError('INVALID_PACKAGE_QUERY', `Invalid query - ${query}. Only a name, a name pattern or name@<version or range> can be searched for.`, {
        hint: 'For example: lode why react, lode why "@babel/*", lode why react@^18.',
      })
    }
    return (pkg: { alias: string, name: string, version: string }) =>
      (matchName(pkg.name) || matchName(pkg.alias)) && !pkg.version.startsWith('link:') && semver.satisfies(pkg.version, range)
  })
  return (pkg) => searches.some((search) => search(pkg))
}
