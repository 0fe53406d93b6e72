import { splitNameAt } from '@lode/core.dep-path'
import { LodeError, printable } from '@lode/core.error'
import { createMatcher } from '@lode/core.matcher'
import { redactUrl } from '@lode/resolving.registry-client'
import semver from 'semver'

import { MetadataSource } from './metadata.js'
import type { MetadataSourceOptions } from './metadata.js'
import type { Packument } from './packument.js'
import { narrowToPublishedBy, narrowVersions, pickLowestVersion, pickVersion } from './pick-version.js'
import type { PreferredVersions } from './pick-version.js'
import { registryFor } from './registries.js'
import type { Registries } from './registries.js'
import type { RegistrySpec } from './spec.js'
import { trustDowngrade } from './trust.js'
import type { PackageMeta } from './types.js'

export interface NpmResolverOptions extends MetadataSourceOptions {
  registries: Registries
  /** Minutes a version must have been published before it is picked (pnpm's `minimumReleaseAge`); 0 turns it off. */
  minimumReleaseAge: number
  /** Names, `@scope/*` globs or `name@version` entries exempt from `minimumReleaseAge`. */
  minimumReleaseAgeExclude: readonly string[]
  /**
   * pnpm's `trustPolicy: no-downgrade` (undefined: off): a version with weaker trust evidence than
   * an earlier-published one is passed over for the next best, and the pick fails with
   * `ERR_LODE_TRUST_DOWNGRADE` when no fitting version is left. `exclude` as
   * `minimumReleaseAgeExclude`; `ignoreAfter` in minutes since publication.
   */
  trustPolicy?: { exclude: readonly string[], ignoreAfter: number | undefined } | undefined
}

export interface ResolvedRegistryPackage {
  name: string
  version: string
  registry: string
  meta: PackageMeta
  /** Set when no fitting version was old enough and a younger one was picked (pnpm 11's policy violation). */
  immature?: ReleaseAgeViolation
  /** The registry's `latest` tag (for pnpm's "(x is available)" after a direct dependency). */
  latest?: string | undefined
}

/** A version picked although it is younger than `minimumReleaseAge`. */
export interface ReleaseAgeViolation {
  name: string
  version: string
  /** ISO times: when the version was published, and the cut-off it missed. */
  publishedAt: string
  cutoff: string
}

/** Picks versions from registry metadata the way pnpm 11 does. One per install; `close()` flushes the cache. */
export class NpmResolver {
  readonly metadata: MetadataSource
  private readonly publishedBy: Date | undefined
  private readonly exclude: (name: string, version?: string) => boolean
  /** Milliseconds a cached packument stays fresh (the release age), unless its package is named in `minimumReleaseAgeExclude`. */
  private readonly freshFor: (name: string) => number | undefined
  private readonly trustExclude: ((name: string, version?: string) => boolean) | undefined
  private readonly warnedMissingTime = new Set<string>()

  constructor (private readonly opts: NpmResolverOptions) {
    this.metadata = new MetadataSource(opts)
    this.publishedBy = opts.minimumReleaseAge > 0 ? new Date(opts.now() - opts.minimumReleaseAge * 60_000) : undefined
    this.exclude = releaseAgeExclusions(opts.minimumReleaseAgeExclude)
    this.freshFor = releaseAgeFreshness(opts.minimumReleaseAge, opts.minimumReleaseAgeExclude)
    this.trustExclude = opts.trustPolicy === undefined ? undefined : releaseAgeExclusions(opts.trustPolicy.exclude, 'trustPolicyExclude')
  }

  /** Every configured registry URL (the default first). */
  registries (): string[] {
    return [this.opts.registries.default, ...Object.values(this.opts.registries.scoped)]
  }

  registryFor (name: string): string {
    return registryFor(this.opts.registries, name)
  }

  /** Resolves `spec` to one version. Throws `ERR_LODE_NO_MATCHING_VERSION` (naming the newest version) when none fits. */
  async resolve (spec: RegistrySpec, preferred: PreferredVersions = {}): Promise<ResolvedRegistryPackage> {
    const registry = this.registryFor(spec.name)
    const releaseAge = this.publishedBy !== undefined && !this.exclude(spec.name) ? this.publishedBy : undefined
    const view = (packument: Packument): Packument =>
      releaseAge !== undefined && packument.time !== undefined
        ? narrowToPublishedBy(withTrusted(packument, this.exclude), releaseAge)
        : packument
    // trustPolicy judges a version by its publisher: only the full document says who that was.
    const trustExclude = this.trustExclude
    const trusting = trustExclude !== undefined && !trustExclude(spec.name)
    const freshFor = this.freshFor(spec.name)
    let packument = await this.metadata.get({
      name: spec.name,
      registry,
      full: trusting,
      canUseCached: (cached) => pickVersion(view(cached), spec, preferred) !== undefined,
      freshFor,
    })
    if (releaseAge !== undefined && packument.time === undefined && !this.opts.offline && !publishedBefore(packument, releaseAge)) {
      // The abbreviated document has no publish times; fetch the full one, as pnpm 11 does.
      packument = await this.metadata.get({ name: spec.name, registry, full: true, canUseCached: () => true, freshFor })
    }
    const picked = this.pick(packument, spec, preferred, view, releaseAge)
    if (picked === undefined) throw noMatchingVersion(spec, packument, registry)
    const latest = packument.distTags['latest']
    if (!trusting) return { ...picked, registry, latest }
    // pnpm 11 passes over versions that downgrade trust for the next best pick, and fails with the
    // first downgrade when none is left (or after 1000 of them).
    const check = {
      excluded: (name: string, version: string) => trustExclude(name, version),
      ignoreAfter: this.opts.trustPolicy?.ignoreAfter,
      now: this.opts.now,
      onWarning: (message: string) => {
        if (this.warnedMissingTime.has(spec.name)) return
        this.warnedMissingTime.add(spec.name)
        this.opts.onWarning(message)
      },
    }
    const rejected = new Set<string>()
    let firstDowngrade: LodeError | undefined
    for (let candidate: typeof picked | undefined = picked; candidate !== undefined && rejected.size < 1000;
      candidate = this.pick(narrowVersions(packument, (v) => !rejected.has(v)), spec, preferred, view, releaseAge)) {
      const downgrade = trustDowngrade(packument, candidate.version, check)
      if (downgrade === undefined) {
        if (rejected.size > 0) {
          const skipped = [...rejected].slice(0, 5).map((v) => `${spec.name}@${v}`).join(', ') + (rejected.size > 5 ? ` and ${rejected.size - 5} more` : '')
          this.opts.onWarning(`Skipped trust downgrades rejected by trustPolicy: ${skipped}. Resolved ${spec.name}@${candidate.version} instead.`)
        }
        return { ...candidate, registry, latest }
      }
      firstDowngrade ??= downgrade
      rejected.add(candidate.version)
    }
    throw firstDowngrade!
  }

  /**
   * The registry manifest of a version the lockfile pins (pnpm reads it for every locked package it
   * resolves again): a cached packument that has the version answers without a request, as a
   * published version does not change; no release-age or trust check (the lockfile chose it).
   */
  async lockedManifest (name: string, version: string): Promise<PackageMeta> {
    const registry = this.registryFor(name)
    const packument = await this.metadata.get({
      name,
      registry,
      full: false,
      immutable: true,
      canUseCached: (cached) => cached.versions.has(version),
    })
    const meta = packument.versions.get(version)
    if (meta === undefined) throw noMatchingVersion({ type: 'version', name, version }, packument, registry)
    return meta
  }

  /**
   * pnpm's pick from `packument`: from the versions old enough, else (nothing fitting is) the lowest
   * fitting version, reported as immature; undefined when no version fits.
   */
  private pick (packument: Packument, spec: RegistrySpec, preferred: PreferredVersions, view: (packument: Packument) => Packument, releaseAge: Date | undefined): Omit<ResolvedRegistryPackage, 'registry'> | undefined {
    const version = pickVersion(view(packument), spec, preferred)
    if (version !== undefined) return { name: spec.name, version, meta: packument.versions.get(version)! }
    if (releaseAge === undefined) return undefined
    // pnpm 11 takes the lowest fitting version and reports it, and the install then fails (strict)
    // or records it in minimumReleaseAgeExclude.
    const young = pickLowestVersion(packument, spec, preferred)
    if (young === undefined) return undefined
    const resolved: Omit<ResolvedRegistryPackage, 'registry'> = { name: spec.name, version: young, meta: packument.versions.get(young)! }
    const publishedAt = packument.time?.[young]
    if (publishedAt !== undefined) {
      resolved.immature = {
        name: spec.name,
        version: young,
        publishedAt: new Date(publishedAt).toISOString(),
        cutoff: releaseAge.toISOString(),
      }
    }
    return resolved
  }

  async close (): Promise<void> {
    await this.metadata.flush()
  }
}

/** Every version of a package modified before the cut-off is old enough, with or without `time`. */
function publishedBefore (packument: Packument, cutoff: Date): boolean {
  const modified = packument.modified === undefined ? NaN : new Date(packument.modified).getTime()
  return !Number.isNaN(modified) && modified <= cutoff.getTime()
}

/** Versions named in `minimumReleaseAgeExclude` (`name@version`) count as published at the epoch. */
function withTrusted (packument: Packument, exclude: (name: string, version?: string) => boolean): Packument {
  const trusted = packument.versions.names.filter((version) => exclude(packument.name, version))
  if (trusted.length === 0) return packument
  return { ...packument, time: { ...packument.time, ...Object.fromEntries(trusted.map((v) => [v, new Date(0).toISOString()])) } }
}

/**
 * How long a package's cached packument answers without a request under `minimumReleaseAge`
 * (minutes): the release age itself, as a version the registry added since would be too young to
 * pick. None with the age off, and none for a package `exclude` names (by name or `name@version`):
 * its young versions may be picked, so the registry is asked, as pnpm asks it.
 */
export function releaseAgeFreshness (minimumReleaseAge: number, exclude: readonly string[]): (name: string) => number | undefined {
  if (minimumReleaseAge <= 0) return () => undefined
  const named = createMatcher(exclude.map((pattern) => splitNameAt(pattern).name))
  const ms = minimumReleaseAge * 60_000
  return (name) => named(name) ? undefined : ms
}

/**
 * `minimumReleaseAgeExclude` (and `trustPolicyExclude`) patterns: names, globs, or `name@version`
 * entries (`name@1.0.0 || 1.1.0`). A range, or a glob with versions, is `ERR_LODE_INVALID_<SETTING>`
 * naming the entry, as pnpm 11 refuses it (`setting` names the list).
 */
export function releaseAgeExclusions (patterns: readonly string[], setting = 'minimumReleaseAgeExclude'): (name: string, version?: string) => boolean {
  const names: string[] = []
  const versions = new Map<string, Set<string>>()
  const invalid = (problem: string): LodeError => new LodeError(`INVALID_${setting.replace(/([A-Z])/g, '_$1').toUpperCase()}`, `Invalid value in ${setting}: ${problem}`, {
    hint: `Give ${setting} names, globs or exact versions (name@1.0.0 || 1.1.0).`,
  })
  for (const pattern of patterns) {
    const { name, rest } = splitNameAt(pattern)
    if (rest === undefined) {
      names.push(pattern)
    } else {
      const union = rest.split('||').map((version) => semver.valid(version.trim()))
      if (union.some((version) => version === null)) throw invalid(`Invalid versions union. Found: "${printable(pattern)}". Use exact versions only.`)
      if (name.includes('*')) throw invalid(`Name patterns are not allowed with version unions. Found: "${printable(pattern)}"`)
      const set = versions.get(name) ?? new Set()
      for (const version of union) set.add(version!)
      versions.set(name, set)
    }
  }
  const nameMatches = createMatcher(names)
  return (name, version) => nameMatches(name) || (version !== undefined && versions.get(name)?.has(version) === true)
}

function noMatchingVersion (spec: RegistrySpec, packument: Packument, registry: string): LodeError {
  const wanted = spec.type === 'version' ? spec.version : spec.type === 'range' ? spec.range : spec.tag
  const latest = packument.distTags['latest']
  const newest = latest === undefined ? 'it has no versions' : `the latest release is ${latest}`
  return new LodeError('NO_MATCHING_VERSION', `No version of ${spec.name} matches "${wanted}" in the registry ${redactUrl(registry)}; ${newest}.`, {
    hint: `Change the range in package.json to one that ${spec.name}'s published versions satisfy.`,
  })
}
