import semver from 'semver'

import type { Packument } from './packument.js'
import type { RegistrySpec } from './spec.js'

/**
 * Versions the resolver would like to reuse, with weights: pnpm adds weight for versions already
 * in the lockfile, already resolved elsewhere in the graph and picked for direct dependencies.
 * A key is a version, a range or a dist-tag.
 */
export type PreferredVersions = Readonly<Record<string, { type: 'version' | 'range' | 'tag', weight: number }>>

// pnpm's weights (resolver-base): a version in the lockfile, a version seen in the graph, and a direct dependency's version.
export const EXISTING_VERSION_WEIGHT = 1
export const RESOLVED_VERSION_WEIGHT = 1_000
export const DIRECT_DEP_WEIGHT = 1_000_000
/** pnpm's weight for the versions `import` read from another lockfile: above every other preference. */
export const IMPORTED_VERSION_WEIGHT = 1_000_000_000

const rangeCache = new Map<string, semver.Range | null>()
const versionCache = new Map<string, semver.SemVer | null>()

function parseRange (range: string): semver.Range | null {
  let parsed = rangeCache.get(range)
  if (parsed === undefined) {
    try { parsed = new semver.Range(range, true) } catch { parsed = null }
    rangeCache.set(range, parsed)
  }
  return parsed
}

function parseVersion (version: string): semver.SemVer | null {
  let parsed = versionCache.get(version)
  if (parsed === undefined) {
    try { parsed = new semver.SemVer(version, true) } catch { parsed = null }
    versionCache.set(version, parsed)
  }
  return parsed
}

/** Loose satisfaction without prereleases, as pnpm tests versions against ranges. */
export function satisfiesLoose (version: string, range: string): boolean {
  const parsedRange = parseRange(range)
  const parsedVersion = parseVersion(version)
  return parsedRange !== null && parsedVersion !== null && parsedRange.test(parsedVersion)
}

// The versions of a packument's list that fit a range, by list and range: a resolution asks again
// for the same package and range from every dependent, and a test of each of a packument's few
// hundred versions was most of the time an update spent picking. A short list (a preference group,
// made anew by each pick) is tested as it comes: remembering it would cost more than the tests.
const satisfyingCache = new WeakMap<readonly string[], Map<string, readonly string[]>>()
const REMEMBERED_LIST_LENGTH = 32

/** The versions of `versions` that fit `range` (loosely, without prereleases), in their order. */
function satisfying (versions: readonly string[], range: string): readonly string[] {
  if (versions.length < REMEMBERED_LIST_LENGTH) return fitting(versions, range)
  let byRange = satisfyingCache.get(versions)
  if (byRange === undefined) satisfyingCache.set(versions, byRange = new Map<string, readonly string[]>())
  let fit = byRange.get(range)
  if (fit === undefined) byRange.set(range, fit = fitting(versions, range))
  return fit
}

function fitting (versions: readonly string[], range: string): readonly string[] {
  const parsedRange = parseRange(range)
  if (parsedRange === null) return []
  return versions.filter((version) => {
    const parsed = parseVersion(version)
    return parsed !== null && parsedRange.test(parsed)
  })
}

function maxSatisfying (versions: readonly string[], range: string): string | undefined {
  return extremeSatisfying(versions, range, 1)
}

function minSatisfying (versions: readonly string[], range: string): string | undefined {
  return extremeSatisfying(versions, range, -1)
}

/** The highest (`direction` 1) or lowest (-1) version that fits the range. */
function extremeSatisfying (versions: readonly string[], range: string, direction: 1 | -1): string | undefined {
  let best: string | undefined
  let bestParsed: semver.SemVer | undefined
  for (const version of satisfying(versions, range)) {
    const parsed = parseVersion(version)!
    if (bestParsed === undefined || parsed.compare(bestParsed) === direction) {
      best = version
      bestParsed = parsed
    }
  }
  return best
}

/**
 * The version pnpm would pick for `spec` from `packument` (already narrowed to the versions old
 * enough to install), or `undefined` when none fits:
 * - an exact version is taken as is, a tag through `dist-tags`;
 * - for a range, the preferred versions come first (heaviest group first; within a group `latest`
 *   if it is there and fits, else the highest that fits), then `latest` when it fits, then the
 *   highest version that fits; a deprecated pick gives way to the highest non-deprecated one that fits.
 */
export function pickVersion (packument: Packument, spec: RegistrySpec, preferred: PreferredVersions = {}): string | undefined {
  switch (spec.type) {
    case 'version': return packument.versions.has(spec.version) ? spec.version : undefined
    case 'tag': {
      const version = packument.distTags[spec.tag]
      return version !== undefined && packument.versions.has(version) ? version : undefined
    }
    case 'range': return pickFromRange(packument, spec.range, preferred)
  }
}

function pickFromRange (packument: Packument, range: string, preferred: PreferredVersions): string | undefined {
  const latest = packument.distTags['latest']
  const versions = packument.versions.names
  if (Object.keys(preferred).length > 0) {
    for (const group of groupByPreference(packument, range, preferred)) {
      const picked = latest !== undefined && group.includes(latest) && satisfiesLoose(latest, range)
        ? latest
        : maxSatisfying(group, range)
      if (picked !== undefined) return nonDeprecatedPick(packument, group, picked, range) ?? picked
    }
  }
  if (latest !== undefined && packument.versions.has(latest) && (range === '*' || satisfiesLoose(latest, range))) {
    if (!packument.versions.isDeprecated(latest)) return latest
    return nonDeprecatedPick(packument, versions, latest, range) ?? latest
  }
  const max = maxSatisfying(versions, range)
  if (max === undefined) return undefined
  return nonDeprecatedPick(packument, versions, max, range) ?? max
}

/**
 * The lowest version that fits `spec` (preferred groups first, as in `pickVersion`): pnpm's pick
 * when no version is old enough for `minimumReleaseAge`, so the youngest-risk choice is the oldest
 * release. Under `*` every version counts, prereleases too, as pnpm sorts them.
 */
export function pickLowestVersion (packument: Packument, spec: RegistrySpec, preferred: PreferredVersions = {}): string | undefined {
  if (spec.type !== 'range') return pickVersion(packument, spec, preferred)
  const range = spec.range
  if (Object.keys(preferred).length > 0) {
    for (const group of groupByPreference(packument, range, preferred)) {
      const picked = minSatisfying(group, range)
      if (picked !== undefined) return picked
    }
  }
  const versions = packument.versions.names
  if (range === '*') return versions.map(parseVersion).filter((v) => v !== null).sort((a, b) => a.compare(b))[0]?.raw
  return minSatisfying(versions, range)
}

/** Versions that fit the range or a preferred selector, grouped by summed weight, heaviest first. */
function groupByPreference (packument: Packument, range: string, preferred: PreferredVersions): string[][] {
  const weights = new Map<string, number>()
  const add = (version: string, weight: number): void => { weights.set(version, (weights.get(version) ?? 0) + weight) }
  for (const version of satisfying(packument.versions.names, range)) add(version, 0)
  for (const [selector, { type, weight }] of Object.entries(preferred)) {
    if (selector === range) continue
    switch (type) {
      case 'tag': {
        const version = packument.distTags[selector]
        if (version !== undefined) add(version, weight)
        break
      }
      case 'range':
        for (const version of satisfying(packument.versions.names, selector)) add(version, weight)
        break
      case 'version':
        if (packument.versions.has(selector)) add(selector, weight)
        break
    }
  }
  const groups = new Map<number, string[]>()
  for (const [version, weight] of weights) {
    const group = groups.get(weight)
    if (group === undefined) groups.set(weight, [version])
    else group.push(version)
  }
  return [...groups.entries()].sort((a, b) => b[0] - a[0]).map(([, group]) => group)
}

function nonDeprecatedPick (packument: Packument, candidates: readonly string[], picked: string, range: string): string | undefined {
  if (!packument.versions.isDeprecated(picked) || candidates.length <= 1) return undefined
  const fine = (version: string): boolean => version !== picked
    && packument.versions.has(version)
    && !packument.versions.isDeprecated(version)
  if (range === '*' && !satisfiesLoose(picked, range)) {
    // A prerelease `latest` under `*`: prefer a non-deprecated build of the same release.
    const pickedParsed = parseVersion(picked)
    if (pickedParsed !== null) {
      let best: semver.SemVer | undefined
      for (const version of candidates) {
        const parsed = parseVersion(version)
        if (parsed === null || !fine(version)) continue
        if (parsed.major !== pickedParsed.major || parsed.minor !== pickedParsed.minor || parsed.patch !== pickedParsed.patch) continue
        if (best === undefined || parsed.compare(best) > 0) best = parsed
      }
      if (best !== undefined) return best.raw
    }
  }
  return maxSatisfying(candidates.filter(fine), range)
}

/**
 * `packument` cut to the versions published at or before `publishedBy` (pnpm's
 * `minimumReleaseAge`), dist-tags moved back to the best kept version of the same lane. Needs `time`.
 */
export function narrowToPublishedBy (packument: Packument, publishedBy: Date): Packument {
  const time = packument.time ?? {}
  const cutoff = publishedBy.getTime()
  return narrowVersions(packument, (version) => {
    const at = time[version]
    return at !== undefined && new Date(at).getTime() <= cutoff
  })
}

/** `packument` cut to the versions `keep` accepts, dist-tags moved back to the best kept version of the same lane (pnpm's `filterPkgMetadataVersions`). */
export function narrowVersions (packument: Packument, keep: (version: string) => boolean): Packument {
  const versions = packument.versions.filter(keep)
  const distTags: Record<string, string> = {}
  for (const [tag, tagged] of Object.entries(packument.distTags)) {
    if (versions.has(tagged)) {
      distTags[tag] = tagged
      continue
    }
    const moved = bestTagCandidate(tag, tagged, versions)
    if (moved !== undefined) distTags[tag] = moved
  }
  return { ...packument, versions, distTags }
}

// pnpm's tiers for moving a dist-tag back: same prerelease-ness on the same major is best, then a
// prerelease of a stable tag's major, then (for `latest` only) a lower major.
function bestTagCandidate (tag: string, tagged: string, versions: Packument['versions']): string | undefined {
  const original = parseVersion(tagged)
  if (original === null) return undefined
  let best: { version: string, parsed: semver.SemVer, tier: number, deprecated: boolean } | undefined
  for (const version of versions.names) {
    const parsed = parseVersion(version)
    if (parsed === null || parsed.compare(original) > 0) continue
    const tier = tagTier(tag, original, parsed)
    if (tier === undefined) continue
    const candidate = { version, parsed, tier, deprecated: versions.isDeprecated(version) }
    if (best === undefined) { best = candidate; continue }
    const ranksHigher = candidate.tier !== best.tier ? candidate.tier > best.tier : parsed.compare(best.parsed) > 0
    if ((ranksHigher && best.deprecated === candidate.deprecated) || (best.deprecated && !candidate.deprecated)) best = candidate
  }
  return best?.version
}

function tagTier (tag: string, original: semver.SemVer, candidate: semver.SemVer): number | undefined {
  const originalPre = original.prerelease.length > 0
  const candidatePre = candidate.prerelease.length > 0
  if (candidatePre === originalPre) {
    if (candidate.major === original.major) return 2
    return tag === 'latest' ? 0 : undefined
  }
  if (candidatePre && candidate.major === original.major && candidate.compare(original) < 0) return 1
  return undefined
}
