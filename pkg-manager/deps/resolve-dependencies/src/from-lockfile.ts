import { splitNameAt, withoutPeersSuffix } from '@lode/core.dep-path'
import { own } from '@lode/core.safe-name'
import type { Lockfile, SnapshotInfo } from '@lode/pkg-manager.lockfile.format'

import type { ResolvedPackage } from './types.js'

/**
 * A package as the lockfile records it, so an unchanged part of the graph needs no metadata:
 * its `packages` entry gives resolution and manifest fields, a snapshot gives its dependencies
 * (pinned to the locked versions, the peers it resolved taken out).
 */
export function lockedPackage (lockfile: Lockfile | undefined, pkgId: string): ResolvedPackage | undefined {
  const info = lockfile?.packages?.[pkgId]
  if (info === undefined) return undefined
  const depPath = snapshotKeyOf(lockfile, pkgId)
  if (depPath === undefined) return undefined
  const snapshot = lockfile!.snapshots![depPath]!
  const { name, rest: version = '' } = splitNameAt(pkgId)
  const { resolution, ...lockfileFields } = info
  const peerDependencies: Record<string, string> = { ...info.peerDependencies }
  const peerDependenciesMeta: Record<string, { optional?: boolean }> = { ...info.peerDependenciesMeta }
  for (const peer of Object.keys(peerDependenciesMeta)) if (own(peerDependencies, peer) === undefined) peerDependencies[peer] = '*'
  // A peer is resolved when the dependency path names it; otherwise a dependency of the same name
  // is the package's own (pnpm drops such a peer, as fromMeta does).
  const suffix = depPath.slice(pkgId.length).replace(/^\(patch_hash=[0-9a-f]+\)/, '')
  const hashed = suffix !== '' && !suffix.includes('@')
  // Such an own dependency that is an optional peer too is shadowable, as fromMeta reads it: a
  // peer where a package of that name comes into scope.
  const peerShadowable: Record<string, string> = {}
  for (const deps of [snapshot.dependencies, snapshot.optionalDependencies]) {
    for (const alias of Object.keys(deps ?? {})) {
      if (own(peerDependencies, alias) === undefined || hashed || suffix.includes(`(${alias}@`)) continue
      const optionalPeer = own(peerDependenciesMeta, alias)?.optional === true
      if (deps === snapshot.dependencies && optionalPeer) peerShadowable[alias] = peerDependencies[alias]!
      delete peerDependencies[alias]
    }
  }
  const pinned = (deps: Record<string, string> | undefined): Record<string, string> => {
    const out: Record<string, string> = {}
    for (const [alias, ref] of Object.entries(deps ?? {})) {
      if (own(peerDependencies, alias) !== undefined) continue
      const bare = withoutPeersSuffix(ref)
      out[alias] = specOfRef(bare)
    }
    return out
  }
  const pkg: ResolvedPackage = {
    id: pkgId,
    name,
    version,
    resolution,
    dependencies: pinned(snapshot.dependencies),
    optionalDependencies: pinned(snapshot.optionalDependencies),
    peerDependencies,
    peerDependenciesMeta,
    lockfileFields,
    fromLockfile: true,
  }
  if (typeof info.deprecated === 'string') pkg.deprecated = info.deprecated
  if (Object.keys(peerShadowable).length > 0) pkg.peerShadowable = peerShadowable
  return pkg
}

/** `1.0.0(peer@2.0.0)` → `1.0.0`. */
/** The specifier that reproduces a snapshot reference: `1.0.0`, `npm:name@1.0.0`, `file:x`, a URL, `link:x`. */
function specOfRef (ref: string): string {
  const named = /^(@?[^@:/]+(?:\/[^@:/]+)?)@(.*)$/.exec(ref)
  if (named === null) return ref
  return named[2]!.includes(':') ? named[2]! : `npm:${ref}`
}

/** A snapshot of `pkgId` (any of its peer variants: they share their own dependencies). */
export function snapshotOf (lockfile: Lockfile | undefined, pkgId: string): SnapshotInfo | undefined {
  const key = snapshotKeyOf(lockfile, pkgId)
  return key === undefined ? undefined : lockfile!.snapshots![key]
}

function snapshotKeyOf (lockfile: Lockfile | undefined, pkgId: string): string | undefined {
  const snapshots = lockfile?.snapshots
  if (snapshots === undefined) return undefined
  if (snapshots[pkgId] !== undefined) return pkgId
  return variantIndex(snapshots).get(pkgId)
}

const variantIndexes = new WeakMap<object, Map<string, string>>()

/**
 * For each text that ends just before a `(` of a snapshot key, the first key (in the lockfile's
 * order) that starts so: the first variant of a package id. Made once per lockfile: a scan of the
 * keys for each package made a re-resolution quadratic (13 s of 20 s for a 10,000-level chain
 * whose every package has a peer suffix).
 */
function variantIndex (snapshots: NonNullable<Lockfile['snapshots']>): Map<string, string> {
  let index = variantIndexes.get(snapshots)
  if (index !== undefined) return index
  index = new Map()
  for (const depPath of Object.keys(snapshots)) {
    for (let at = depPath.indexOf('('); at !== -1; at = depPath.indexOf('(', at + 1)) {
      const prefix = depPath.slice(0, at)
      if (!index.has(prefix)) index.set(prefix, depPath)
    }
  }
  variantIndexes.set(snapshots, index)
  return index
}
