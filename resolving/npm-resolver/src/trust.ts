import { LodeError } from '@lode/core.error'
import semver from 'semver'

import type { Packument } from './packument.js'
import type { TrustEvidence } from './types.js'

// pnpm 11's ranking of what a version's publication proves (its npm-resolver `trustChecks`).
const TRUST_RANK: Readonly<Record<TrustEvidence, number>> = { stagedPublish: 3, trustedPublisher: 2, provenance: 1 }

export interface TrustCheck {
  /** `trustPolicyExclude`: the name (any version) or this version is exempt. */
  excluded: (name: string, version: string) => boolean
  /** `trustPolicyIgnoreAfter`: minutes after publication past which a version is not checked. */
  ignoreAfter: number | undefined
  now: () => number
  onWarning: (message: string) => void
}

/**
 * pnpm 11's `trustPolicy: no-downgrade` for one version of `packument` (a full document): the
 * version may not have weaker trust evidence than the strongest of the versions published before
 * it (prereleases count only for a prerelease). Returns the `ERR_LODE_TRUST_DOWNGRADE` to throw, or
 * undefined when the version passes. Without publish times the check is skipped with a warning, as
 * pnpm does with `minimumReleaseAgeIgnoreMissingTime` (its default).
 */
export function trustDowngrade (packument: Packument, version: string, check: TrustCheck): LodeError | undefined {
  const { name } = packument
  if (check.excluded(name, version)) return undefined
  const time = packument.time
  if (time === undefined) {
    check.onWarning(`The metadata of ${name} is missing the "time" field; skipping the trustPolicy check for this package.`)
    return undefined
  }
  const publishedAt = time[version]
  if (publishedAt === undefined) {
    return new LodeError('TRUST_CHECK_FAIL', `Missing time for version ${version} of ${name} in metadata`, {
      hint: 'The registry\'s metadata for this package is incomplete; add the package to trustPolicyExclude in pnpm-workspace.yaml if you trust it.',
    })
  }
  const published = new Date(publishedAt).getTime()
  if (check.ignoreAfter !== undefined && check.ignoreAfter > 0 && (check.now() - published) / 60_000 > check.ignoreAfter) return undefined
  const prerelease = semver.prerelease(version, true) !== null
  let earlier: TrustEvidence | undefined
  for (const [other, evidence] of Object.entries(packument.trust ?? {})) {
    if (!prerelease && semver.prerelease(other, true) !== null) continue
    const at = time[other]
    if (at === undefined || !(new Date(at).getTime() < published) || !packument.versions.has(other)) continue
    if (earlier === undefined || TRUST_RANK[evidence] > TRUST_RANK[earlier]) earlier = evidence
  }
  if (earlier === undefined) return undefined
  const current = packument.trust?.[version]
  if (current !== undefined && TRUST_RANK[current] >= TRUST_RANK[earlier]) return undefined
  return new LodeError('TRUST_DOWNGRADE', `High-risk trust downgrade for "${name}@${version}" (possible package takeover)`, {
    hint: `Trust checks are based solely on publish date, not semver. A package cannot be installed if any earlier-published version had stronger trust evidence. Earlier versions had ${describe(earlier)}, but this version has ${describe(current)}. A trust downgrade may indicate a supply chain incident. If you trust this version, add "${name}@${version}" to trustPolicyExclude in pnpm-workspace.yaml.`,
  })
}

function describe (evidence: TrustEvidence | undefined): string {
  switch (evidence) {
    case 'stagedPublish': return 'staged publish'
    case 'trustedPublisher': return 'trusted publisher'
    case 'provenance': return 'provenance attestation'
    default: return 'no trust evidence'
  }
}
