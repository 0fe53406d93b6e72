import semver from 'semver'

import { lowestFixedVersion } from './report.js'
import type { PublishInfo, ReportedAdvisory } from './report.js'

// `audit --fix`: an override per advisory that has a fixed version, `<name>@<vulnerable range>` to
// that version, as pnpm 11 writes them into pnpm-workspace.yaml.

/**
 * The advisories an override can fix, without those another advisory's override makes needless
 * (its vulnerable range covers theirs and its fixed version is at least as high).
 */
export function fixableAdvisories (advisories: readonly ReportedAdvisory[]): ReportedAdvisory[] {
  const fixable = advisories.filter((advisory) => advisory.patched_versions != null)
  const byName = Map.groupBy(fixable, (advisory) => advisory.module_name)
  return [...byName.values()].flatMap((list) => list.length <= 1
    ? list
    : list.filter((candidate, i) => !list.some((other, j) => subsumes(other, j, candidate, i))))
}

/** Whether `other`'s override makes `candidate`'s needless (ties go to the earlier one). */
function subsumes (
  other: ReportedAdvisory,
  otherIndex: number,
  candidate: ReportedAdvisory,
  candidateIndex: number
): boolean {
  if (otherIndex === candidateIndex || candidate.patched_versions == null || other.patched_versions == null) return false
  const candidateRange = candidate.vulnerable_versions.trim()
  const otherRange = other.vulnerable_versions.trim()
  if (semver.validRange(candidateRange) === null || semver.validRange(otherRange) === null) return false
  if (!semver.subset(candidateRange, otherRange)) return false
  const candidateFix = semver.minVersion(candidate.patched_versions)
  const otherFix = semver.minVersion(other.patched_versions)
  if (candidateFix === null || otherFix === null || semver.lt(otherFix, candidateFix)) return false
  if (!semver.subset(otherRange, candidateRange)) return true
  const order = semver.compare(otherFix, candidateFix)
  return order !== 0 ? order > 0 : candidateIndex > otherIndex
}

/** The overrides, keys sorted; each fixed version with the project's save prefix (`^` unless set otherwise). */
export function fixOverrides (advisories: readonly ReportedAdvisory[], savePrefix: string): Record<string, string> {
  const prefix = ['^', '~', '='].includes(savePrefix) || savePrefix === '' ? savePrefix : '^'
  const entries = advisories.flatMap((advisory): Array<[string, string]> => {
    if (advisory.patched_versions == null || advisory.patched_versions === '') return []
    const min = semver.minVersion(advisory.patched_versions)
    return [[`${advisory.module_name}@${advisory.vulnerable_versions}`, min === null ? advisory.patched_versions : `${prefix}${min.version}`]]
  })
  return Object.fromEntries(entries.sort(([a], [b]) => a < b ? -1 : a > b ? 1 : 0))
}

/**
 * The `name@version` entries `minimumReleaseAgeExclude` needs so the fixed versions can be
 * installed: a fixed version published within the last `minimumReleaseAge` minutes (or whose
 * publication time cannot be read).
 */
export async function releaseAgeExcludes (
  advisories: readonly ReportedAdvisory[],
  opts: { minimumReleaseAge: number, now: number, publishInfoOf: (name: string) => Promise<PublishInfo | undefined> }
): Promise<string[]> {
  const cutoff = opts.now - opts.minimumReleaseAge * 60_000
  const specs = await Promise.all(advisories.map(async (advisory): Promise<string | undefined> => {
    if (advisory.patched_versions == null) return undefined
    const min = semver.minVersion(advisory.patched_versions)
    if (min === null) return undefined
    const info = await opts.publishInfoOf(advisory.module_name)
    if (info === undefined) return `${advisory.module_name}@${min.version}`
    const lowest = lowestFixedVersion(info, advisory.patched_versions)
    if (lowest === undefined) return undefined
    const spec = `${advisory.module_name}@${lowest.version}`
    const published = info.time[lowest.key]
    if (typeof published !== 'string' || !/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/.test(published)) return spec
    const at = new Date(published).getTime()
    return Number.isNaN(at) || at > cutoff ? spec : undefined
  }))
  return specs.filter((spec) => spec !== undefined)
}
