import { LodeError } from '@lode/fs.error'
import { createMatcher } from '@lode/fs.matcher'
import { redactUrl } from '@lode/resolving.registry-client'

import { MetadataSource } from './metadata.js'
import type { MetadataSourceOptions } from './metadata.js'
import type { PackageMeta, Packument } from './packument.js'
import { narrowToPublishedBy, pickLowestVersion, pickVersion } from './pick-version.js'
import type { PreferredVersions } from './pick-version.js'
import { registryFor } from './registries.js'
import type { Registries } from './registries.js'
import type { RegistrySpec } from './spec.js'

export interface NpmResolverOptions extends MetadataSourceOptions {
  registries: Registries
  /** Minutes a version must have been published before it is picked (pnpm's `minimumReleaseAge`); 0 turns it off. */
  minimumReleaseAge: number
  /** Names, `@scope/*` globs or `name@version` entries exempt from `minimumReleaseAge`. */
  minimumReleaseAgeExclude: readonly string[]
}

export interface ResolvedRegistryPackage {
  name: string
  version: string
  registry: string
  meta: PackageMeta
  /** Set when no fitting version was old enough and a younger one was picked (pnpm 11's policy violation). */
  immature?: ReleaseAgeViolation
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

  constructor (private readonly opts: NpmResolverOptions) {
    this.metadata = new MetadataSource(opts)
    this.publishedBy = opts.minimumReleaseAge > 0 ? new Date(opts.now() - opts.minimumReleaseAge * 60_000) : undefined
    this.exclude = releaseAgeExclusions(opts.minimumReleaseAgeExclude)
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
      releaseAge !== undefined && packument.time !== undefined ? narrowToPublishedBy(withTrusted(packument, this.exclude), releaseAge) : packument
    let packument = await this.metadata.get({
      name: spec.name,
      registry,
      full: false,
      canUseCached: (cached) => pickVersion(view(cached), spec, preferred) !== undefined,
    })
    if (releaseAge !== undefined && packument.time === undefined && !this.opts.offline && !publishedBefore(packument, releaseAge)) {
      // The abbreviated document has no publish times; fetch the full one, as pnpm 11 does.
      packument = await this.metadata.get({ name: spec.name, registry, full: true, canUseCached: () => true })
    }
    const version = pickVersion(view(packument), spec, preferred)
    if (version !== undefined) return { name: spec.name, version, registry, meta: packument.versions.get(version)! }
    if (releaseAge !== undefined) {
      // Nothing fitting is old enough: pnpm 11 takes the lowest fitting version and reports it,
      // and the install then fails (strict) or records it in minimumReleaseAgeExclude.
      const young = pickLowestVersion(packument, spec, preferred)
      if (young !== undefined) {
        const resolved: ResolvedRegistryPackage = { name: spec.name, version: young, registry, meta: packument.versions.get(young)! }
        const publishedAt = packument.time?.[young]
        if (publishedAt !== undefined) resolved.immature = { name: spec.name, version: young, publishedAt: new Date(publishedAt).toISOString(), cutoff: releaseAge.toISOString() }
        return resolved
      }
    }
    throw noMatchingVersion(spec, packument, registry)
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

function releaseAgeExclusions (patterns: readonly string[]): (name: string, version?: string) => boolean {
  const names: string[] = []
  const versions = new Map<string, Set<string>>()
  for (const pattern of patterns) {
    const at = pattern.indexOf('@', 1)
    if (at === -1) {
      names.push(pattern)
    } else {
      const set = versions.get(pattern.slice(0, at)) ?? new Set()
      for (const version of pattern.slice(at + 1).split('||')) set.add(version.trim())
      versions.set(pattern.slice(0, at), set)
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
