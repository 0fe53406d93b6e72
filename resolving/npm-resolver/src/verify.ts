// pnpm 11's verification of a lockfile's registry entries against the supply-chain policies
// (its npm-resolver `createNpmResolutionVerifier`): before an install uses a lockfile, every
// registry package in it must have an integrity, a tarball URL the registry publishes, a publish
// time older than `minimumReleaseAge`, and no trust downgrade under `trustPolicy: no-downgrade`.
import { createHash } from 'node:crypto'

import type { RegistryClient } from '@lode/resolving.registry-client'
import semver from 'semver'

import { isSent, metadataCachePath, readCacheFile } from './metadata-cache.js'
import { MetadataSource } from './metadata.js'
import type { MetadataSourceOptions } from './metadata.js'
import type { Packument } from './packument.js'
import { registryFor } from './registries.js'
import type { Registries } from './registries.js'
import { releaseAgeExclusions } from './resolver.js'
import { trustDowngrade } from './trust.js'

/** What pnpm calls each kind of violation (`ERR_LODE_<code>` when it is the only kind). */
export type ViolationCode = 'MINIMUM_RELEASE_AGE_VIOLATION' | 'TRUST_DOWNGRADE' | 'TARBALL_URL_MISMATCH' | 'MISSING_TARBALL_INTEGRITY'

export interface EntryViolation {
  code: ViolationCode
  /** Follows `name@version` in the message: `was published at …`. */
  reason: string
}

export interface LockfileVerifierOptions extends MetadataSourceOptions {
  client: RegistryClient
  registries: Registries
  /** Minutes; 0 turns the age check off. */
  minimumReleaseAge: number
  minimumReleaseAgeExclude: readonly string[]
  /** `trustPolicy: no-downgrade` (undefined: off). */
  trustPolicy?: { exclude: readonly string[], ignoreAfter: number | undefined } | undefined
}

/**
 * The policy a verdict was reached under. A past verdict still holds when it was reached under a
 * policy at least as strict (see `policyCovers`): entries only grow older.
 */
export interface VerificationPolicy {
  /** The checks this verifier makes whatever the settings (pnpm's unconditional ones): a verdict of an older lode lacks it. */
  checks: number
  /** The registries entries were checked against (default and scoped), digested. */
  registries: string
  minimumReleaseAge: number
  minimumReleaseAgeExclude: string[]
  trustPolicy: 'no-downgrade' | null
  trustPolicyExclude: string[]
  trustPolicyIgnoreAfter: number | null
}

const CHECKS_VERSION = 1

export function verificationPolicy (opts: Pick<LockfileVerifierOptions, 'registries' | 'minimumReleaseAge' | 'minimumReleaseAgeExclude' | 'trustPolicy'>): VerificationPolicy {
  const routes = [['', opts.registries.default], ...Object.entries(opts.registries.scoped).sort(([a], [b]) => a < b ? -1 : a > b ? 1 : 0)]
  return {
    checks: CHECKS_VERSION,
    registries: createHash('sha256').update(JSON.stringify(routes)).digest('hex'),
    minimumReleaseAge: opts.minimumReleaseAge,
    minimumReleaseAgeExclude: sortedUnique(opts.minimumReleaseAgeExclude),
    trustPolicy: opts.trustPolicy === undefined ? null : 'no-downgrade',
    trustPolicyExclude: sortedUnique(opts.trustPolicy?.exclude ?? []),
    trustPolicyIgnoreAfter: opts.trustPolicy?.ignoreAfter ?? null,
  }
}

/** Whether a verdict reached under `past` holds under `current` (pnpm's `canTrustPastCheck`). */
export function policyCovers (past: unknown, current: VerificationPolicy): boolean {
  if (typeof past !== 'object' || past === null) return false
  const cached = past as Partial<Record<keyof VerificationPolicy, unknown>>
  return cached.checks === current.checks && cached.registries === current.registries &&
    typeof cached.minimumReleaseAge === 'number' && cached.minimumReleaseAge >= current.minimumReleaseAge &&
    JSON.stringify(cached.minimumReleaseAgeExclude) === JSON.stringify(current.minimumReleaseAgeExclude) &&
    (cached.trustPolicy ?? null) === current.trustPolicy &&
    JSON.stringify(cached.trustPolicyExclude) === JSON.stringify(current.trustPolicyExclude) &&
    (cached.trustPolicyIgnoreAfter ?? null) === current.trustPolicyIgnoreAfter
}

function sortedUnique (patterns: readonly string[]): string[] {
  return [...new Set(patterns)].sort()
}

/** One lockfile entry: `name@version` and its `resolution`. */
export interface RegistryEntry {
  name: string
  version: string
  /** The entry's key names a URL or path (a tarball, git or directory dependency), not a registry version. */
  nonSemver: boolean
  resolution: Readonly<Record<string, unknown>>
}

/**
 * Checks lockfile entries against the registry, as pnpm 11 does: each package's documents are
 * fetched once (abbreviated, then the full one only when the publish time or the publisher is
 * needed), through lode's metadata cache. One per install; `close()` flushes the cache.
 */
export class LockfileVerifier {
  readonly policy: VerificationPolicy
  private readonly metadata: MetadataSource
  private readonly cutoff: number
  private readonly ageExcluded: (name: string, version?: string) => boolean
  private readonly trustExcluded: ((name: string, version?: string) => boolean) | undefined
  private readonly warnedMissingTime = new Set<string>()
  private readonly attestationTimes = new Map<string, Promise<string | undefined>>()

  constructor (private readonly opts: LockfileVerifierOptions) {
    this.policy = verificationPolicy(opts)
    this.metadata = new MetadataSource(opts)
    this.cutoff = opts.now() - opts.minimumReleaseAge * 60_000
    this.ageExcluded = releaseAgeExclusions(opts.minimumReleaseAgeExclude)
    this.trustExcluded = opts.trustPolicy === undefined ? undefined : releaseAgeExclusions(opts.trustPolicy.exclude, 'trustPolicyExclude')
  }

  /** The first violation of `entry`, or undefined when it passes. Registry errors (a package the registry does not have) are thrown. */
  async verify (entry: RegistryEntry): Promise<EntryViolation | undefined> {
    const { resolution } = entry
    // Directories, git repositories, local tarballs and git hosts' archives are not the registry's to vouch for.
    if (!isRemoteTarball(resolution)) return undefined
    const integrity = resolution['integrity']
    if (typeof integrity !== 'string' || integrity === '') {
      return { code: 'MISSING_TARBALL_INTEGRITY', reason: 'has no "integrity" field, so its downloaded tarball cannot be verified' }
    }
    if (entry.nonSemver) return undefined
    const rawTarball = resolution['tarball']
    if (!semver.valid(entry.version)) {
      return { code: 'TARBALL_URL_MISMATCH', reason: `has a non-semver version ("${entry.version}") and so cannot be verified against the registry's published metadata` }
    }
    if (rawTarball !== undefined && typeof rawTarball !== 'string') {
      return { code: 'TARBALL_URL_MISMATCH', reason: 'has a non-string "tarball" field, so its URL cannot be verified' }
    }
    const registry = this.registryOf(entry.name, rawTarball)
    if (rawTarball !== undefined) {
      const published = (await this.metadata.listing({ registry, name: entry.name })).tarballOf(entry.version)
      if (published === undefined || canonicalUrl(published) !== canonicalUrl(rawTarball)) {
        return {
          code: 'TARBALL_URL_MISMATCH',
          reason: published === undefined ? 'could not be verified against the registry\'s published metadata' : `has a tarball URL (${rawTarball}) that does not match the registry's published metadata (${published})`,
        }
      }
    }
    if (this.opts.minimumReleaseAge > 0 && !this.ageExcluded(entry.name, entry.version)) {
      const violation = await this.checkAge(registry, entry)
      if (violation !== undefined) return violation
    }
    if (this.trustExcluded !== undefined && !this.trustExcluded(entry.name, entry.version)) {
      const downgrade = trustDowngrade(await this.packument(registry, entry.name, true), entry.version, {
        excluded: (name, version) => this.trustExcluded!(name, version),
        ignoreAfter: this.opts.trustPolicy?.ignoreAfter,
        now: this.opts.now,
        onWarning: (message) => { this.warnOnce(`trustPolicy:${entry.name}`, message) },
      })
      if (downgrade !== undefined) return { code: 'TRUST_DOWNGRADE', reason: downgrade.message }
    }
    return undefined
  }

  async close (): Promise<void> {
    await this.metadata.flush()
  }

  /** The registry of a package: its scope's, or (with a tarball URL) the scoped registry the URL is under, else the default. */
  private registryOf (name: string, tarball: string | undefined): string {
    if (tarball !== undefined) {
      const { scoped } = this.opts.registries
      const own = name.startsWith('@') ? scoped[name.slice(0, name.indexOf('/'))] : undefined
      const url = canonicalUrl(tarball)
      const prefixes = (own === undefined ? Object.values(scoped) : [own]).sort((a, b) => canonicalUrl(b).length - canonicalUrl(a).length)
      const under = prefixes.find((prefix) => url.startsWith(canonicalUrl(prefix)))
      if (under !== undefined) return under
    }
    return registryFor(this.opts.registries, name)
  }

  private async packument (registry: string, name: string, full: boolean): Promise<Packument> {
    return await this.metadata.get({ name, registry, full, canUseCached: () => true })
  }

  /** pnpm's age check: the publish time from the cheapest source that has it, then the cut-off. */
  private async checkAge (registry: string, entry: RegistryEntry): Promise<EntryViolation | undefined> {
    const published = await this.publishedAt(registry, entry)
    if (published === undefined) {
      // minimumReleaseAgeIgnoreMissingTime (pnpm's default): a registry that keeps no times at all is not held against the package.
      if ((await this.packument(registry, entry.name, true)).time === undefined) {
        this.warnOnce(`minimumReleaseAge:${entry.name}`, `The metadata of ${entry.name} is missing the "time" field; skipping the minimumReleaseAge check for this package.`)
        return undefined
      }
      return { code: 'MINIMUM_RELEASE_AGE_VIOLATION', reason: 'could not be checked against minimumReleaseAge (version not present in registry manifest)' }
    }
    const publishedMs = Date.parse(published)
    if (Number.isNaN(publishedMs)) return { code: 'MINIMUM_RELEASE_AGE_VIOLATION', reason: 'publish timestamp is not a valid date' }
    if (publishedMs > this.cutoff) {
      return { code: 'MINIMUM_RELEASE_AGE_VIOLATION', reason: `was published at ${new Date(publishedMs).toISOString()}, within the minimumReleaseAge cutoff (${new Date(this.cutoff).toISOString()})` }
    }
    return undefined
  }

  /**
   * When `entry` was published, in pnpm's order: a package last modified before the cut-off that
   * lists the version (its abbreviated document says so), a full document already in the cache,
   * the registry's attestations, the full document.
   */
  private async publishedAt (registry: string, entry: RegistryEntry): Promise<string | undefined> {
    const abbreviated = await this.metadata.listing({ registry, name: entry.name }).catch(() => undefined)
    const modified = abbreviated?.modified === undefined ? NaN : Date.parse(abbreviated.modified)
    const listed = abbreviated?.tarballOf(entry.version) !== undefined
    if (!Number.isNaN(modified) && modified < this.cutoff && listed) return abbreviated.modified
    const cached = readCacheFile(metadataCachePath(this.opts.cacheDir, registry, entry.name), () => {})?.stored
    const cachedTime = cached === undefined || isSent(cached) ? undefined : cached.packument.time?.[entry.version]
    if (cachedTime !== undefined) return cachedTime
    if (!this.opts.offline) {
      const attested = await this.attestedAt(registry, entry)
      if (attested !== undefined) return attested
    }
    return (await this.packument(registry, entry.name, true)).time?.[entry.version]
  }

  /** The earliest transparency-log time of the version's attestations (the registry's `/-/npm/v1/attestations/` answer), if any. */
  private async attestedAt (registry: string, entry: RegistryEntry): Promise<string | undefined> {
    const key = `${registry}\0${entry.name}@${entry.version}`
    let pending = this.attestationTimes.get(key)
    if (pending === undefined) {
      pending = (async () => {
        let body: unknown
        try {
          const response = await this.opts.client.get(`${registry}-/npm/v1/attestations/${entry.name}@${entry.version}`, { accept: 'application/json', subject: entry.name })
          if (response.status !== 200) return undefined
          body = JSON.parse(response.body.toString('utf8'))
        } catch {
          // No attestations (a 404), or none readable: the full document decides, as with pnpm.
          return undefined
        }
        return earliestIntegratedTime(body)
      })()
      this.attestationTimes.set(key, pending)
    }
    return await pending
  }

  private warnOnce (key: string, message: string): void {
    if (this.warnedMissingTime.has(key)) return
    this.warnedMissingTime.add(key)
    this.opts.onWarning(message)
  }
}

/** A resolution that is a tarball fetched over http(s) (a registry's, or one at a URL), not a git host's archive. */
function isRemoteTarball (
  resolution: Readonly<Record<string, unknown>> | null | undefined
): resolution is Readonly<Record<string, unknown>> {
  if (typeof resolution !== 'object' || resolution === null) return false
  if (resolution['type'] !== undefined && resolution['type'] !== null) return false
  const tarball = resolution['tarball']
  if (typeof tarball !== 'string') return true
  if (isGitHostedArchive(tarball)) return false
  let protocol: string | undefined
  try {
    protocol = new URL(tarball).protocol
  } catch {
    protocol = undefined
  }
  return protocol === undefined || protocol === 'http:' || protocol === 'https:'
}

/** A GitHub, GitLab or Bitbucket archive URL of a commit (pnpm's `isGitHostedTarballUrl`): a git dependency, not a registry's tarball. */
export function isGitHostedArchive (url: string): boolean {
  let parsed: URL
  try {
    parsed = new URL(url)
  } catch {
    return false
  }
  if (parsed.protocol !== 'https:') return false
  const segments = parsed.pathname.split('/').filter((segment) => segment !== '')
  switch (parsed.hostname.toLowerCase()) {
    case 'codeload.github.com': return segments.length === 4 && segments[2] === 'tar.gz' && /^[0-9a-f]{40}$/i.test(segments[3]!)
    case 'bitbucket.org': return segments.length === 4 && segments[2] === 'get' && /^[0-9a-f]{40}\.tar\.gz$/i.test(segments[3]!)
    case 'gitlab.com': return segments.includes('-') && segments.at(-2) === 'archive' && /\.tar\.gz$/.test(segments.at(-1)!)
    default: return false
  }
}

function earliestIntegratedTime (body: unknown): string | undefined {
  const attestations = (body as { attestations?: unknown } | null)?.attestations
  if (!Array.isArray(attestations)) return undefined
  let earliest: number | undefined
  for (const attestation of attestations) {
    const entries = (attestation as { bundle?: { verificationMaterial?: { tlogEntries?: unknown } } } | null)
      ?.bundle?.verificationMaterial?.tlogEntries
    if (!Array.isArray(entries)) continue
    for (const tlog of entries) {
      const raw = (tlog as { integratedTime?: unknown } | null)?.integratedTime
      const seconds = typeof raw === 'string' ? Number(raw) : typeof raw === 'number' ? raw : NaN
      if (Number.isFinite(seconds) && seconds > 0 && (earliest === undefined || seconds < earliest)) earliest = seconds
    }
  }
  return earliest === undefined ? undefined : new Date(earliest * 1000).toISOString()
}

/** A URL as pnpm compares tarball URLs: parsed and printed again, `%2f` as `/`, without its scheme. */
function canonicalUrl (url: string): string {
  let normalized: string
  try {
    normalized = new URL(url).toString()
  } catch {
    normalized = url
  }
  normalized = normalized.replace(/%2f/gi, '/')
  const schemeEnd = normalized.indexOf('://')
  return schemeEnd === -1 ? normalized : normalized.slice(schemeEnd + 3)
}
