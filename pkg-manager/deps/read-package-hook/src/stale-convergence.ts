import { printable } from '@lode/core.error'
import semver from 'semver'

import type { Override } from './overrides.js'

/**
 * pnpm 11's warning for a convergence override (`name@: 1.0.0`) that is stale: the highest version
 * above the override's that one of the declared ranges of `name` resolves to (`bestOf`, with the
 * install's policies; undefined when none fits) and that every declared range admits. One message
 * per stale override.
 */
export async function staleConvergenceWarnings (
  overrides: readonly Override[],
  declaredRanges: ReadonlyMap<string, ReadonlySet<string>>,
  bestOf: (name: string, range: string) => Promise<string | undefined>
): Promise<string[]> {
  const warnings = await Promise.all(overrides.filter((override) => override.converge === true).map(async (override) => {
    const name = override.targetPkg.name
    const ranges = [...declaredRanges.get(name) ?? []]
    if (ranges.length === 0) return undefined
    const picks = await Promise.all(ranges.map(async (range) => await bestOf(name, range).catch(() => undefined)))
    const above = (version: string | undefined): version is string =>
      version !== undefined && semver.valid(version) !== null && semver.gt(version, override.newSpecifier)
    const best = picks
      .filter(above)
      .sort(semver.rcompare)
      .find((version) => ranges.every((range) => semver.satisfies(version, range, true)))
    if (best === undefined) return undefined
    // The names and the value come from pnpm-workspace.yaml: printed as they are only when printable.
    return `The convergence override "${printable(name)}@": "${printable(override.newSpecifier)}" is stale: every declared range of ${printable(name)} also admits ${best}. ` +
      `Change the override's value to ${best} in pnpm-workspace.yaml, or remove the override and run "lode dedupe".`
  }))
  return warnings.filter((warning) => warning !== undefined)
}
