import { splitNameAt, withoutPeersSuffix } from '@lode/core.dep-path'
import type { Lockfile } from '@lode/pkg-manager.lockfile.format'
import { DIRECT_DEP_WEIGHT, EXISTING_VERSION_WEIGHT } from '@lode/resolving.npm-resolver'
import type { PreferredVersions, RegistrySpec } from '@lode/resolving.npm-resolver'
import semver from 'semver'

// The lockfile's registry versions as pnpm weighs them in a pick: preferences (its pins), taken
// off where a package is being updated, and proof that an optional dependency was installed.

/** Preferences without the lockfile's pins of these versions (pnpm's update target: a manifest's pin of the same version stays). */
export function withoutPins (preferred: PreferredVersions, versions: ReadonlySet<string>): PreferredVersions {
  const out: Record<string, PreferredVersions[string]> = {}
  for (const [selector, value] of Object.entries(preferred)) {
    // The lockfile's weight is what is left below a direct dependency's (pnpm's pinnedByLockfile).
    const pinned = value.type === 'version' && versions.has(selector) && value.weight % DIRECT_DEP_WEIGHT >= EXISTING_VERSION_WEIGHT
    if (!pinned) out[selector] = value
    else if (value.weight > EXISTING_VERSION_WEIGHT) out[selector] = { ...value, weight: value.weight - EXISTING_VERSION_WEIGHT }
  }
  return out
}

/** Whether the lockfile has a registry version of `name` that the spec takes (a range, or the version itself). */
export function lockfileHasVersionIn (lockfile: Lockfile | undefined, name: string, spec: RegistrySpec): boolean {
  if (spec.type === 'tag') return false
  return Object.keys(lockfile?.packages ?? {}).some((pkgId) => {
    const { name: locked, rest: version = '' } = splitNameAt(pkgId)
    return locked === name && semver.valid(version) !== null && (spec.type === 'version' ? version === spec.version : semver.satisfies(version, spec.range, { loose: true }))
  })
}

/** `1.0.0(peer@2)` → `1.0.0`; `name@1.0.0` (an alias) → `1.0.0`; links and files → undefined. */
export function lockedVersionOf (ref: string): string | undefined {
  const bare = withoutPeersSuffix(ref)
  if (bare.includes(':')) return undefined
  return splitNameAt(bare).rest ?? bare
}
