import { parseDepPath, refToDepPath, withoutPeersSuffix } from '@lode/core.dep-path'

import { dependencyRefs } from './refs.js'
import type { Lockfile, ProjectSnapshot } from './types.js'

/** Per package (its dependency path), the aliases whose edge only satisfies an optional peer. */
export type PeerSatisfactionEdges = ReadonlyMap<string, ReadonlySet<string>>

const cache = new WeakMap<Lockfile, Map<boolean, PeerSatisfactionEdges>>()

/**
 * pnpm 11's peer satisfaction edges: a package's edge to an optional peer of its own that a
 * project provides, where the package would not reach that peer otherwise. pnpm's walks that
 * leave a dependency group out (`--prod`, `--dev`: list, why, licenses, audit, its install) do
 * not follow them: the peer is there because of the project that lists it, not because the
 * package needs it (lode's install still links them). An edge counts when
 * the package is not reached from the projects that do not list the peer (with
 * `resolvePeersFromWorkspaceRoot`, the root's dev dependencies provide for every project).
 */
export function peerSatisfactionEdges (lockfile: Lockfile, opts: { resolvePeersFromWorkspaceRoot: boolean }): PeerSatisfactionEdges {
  let byOption = cache.get(lockfile)
  if (byOption === undefined) cache.set(lockfile, byOption = new Map<boolean, PeerSatisfactionEdges>())
  const fromRoot = opts.resolvePeersFromWorkspaceRoot
  let edges = byOption.get(fromRoot)
  if (edges === undefined) byOption.set(fromRoot, edges = collectEdges(lockfile, fromRoot))
  return edges
}

/** The edges a walk that leaves a dependency group out does not follow; none when every group is in. */
export function peerSatisfactionEdgesToSkip (
  lockfile: Lockfile,
  include: Readonly<Record<'dependencies' | 'devDependencies' | 'optionalDependencies', boolean>>,
  opts: { resolvePeersFromWorkspaceRoot: boolean }
): PeerSatisfactionEdges | undefined {
  if (include.dependencies && include.devDependencies && include.optionalDependencies) return undefined
  const edges = peerSatisfactionEdges(lockfile, opts)
  return edges.size === 0 ? undefined : edges
}

/** The lockfile with `edges` taken out of its snapshots: a walk over it does not follow them. */
export function withoutPeerSatisfactionEdges (lockfile: Lockfile, edges: PeerSatisfactionEdges): Lockfile {
  const snapshots = { ...lockfile.snapshots }
  for (const [parent, aliases] of edges) {
    const snapshot = snapshots[parent]
    if (snapshot === undefined) continue
    const kept = { ...snapshot }
    for (const field of ['dependencies', 'optionalDependencies'] as const) {
      const deps = snapshot[field]
      if (deps !== undefined) kept[field] = Object.fromEntries(Object.entries(deps).filter(([alias]) => !aliases.has(alias)))
    }
    snapshots[parent] = kept
  }
  return { ...lockfile, snapshots }
}

/** Whether the edge from `parent` under `alias` is one of `edges`. */
export function isPeerSatisfactionEdge (edges: PeerSatisfactionEdges | undefined, parent: string, alias: string): boolean {
  return edges?.get(parent)?.has(alias) === true
}

interface OptionalPeerEntry { parent: string, alias: string, target: string }

function collectEdges (lockfile: Lockfile, resolvePeersFromWorkspaceRoot: boolean): PeerSatisfactionEdges {
  const edges = new Map<string, Set<string>>()
  const entries = optionalPeerEntries(lockfile)
  if (entries.length === 0) return edges
  const importers = Object.values(lockfile.importers)
  const directByImporter = importers.map((importer) => new Set(directDepPaths(importer)))
  const root = lockfile.importers['.']
  const rootDev = resolvePeersFromWorkspaceRoot && root !== undefined
    ? new Set(depPathsOf(dependencyRefs(root.devDependencies)))
    : undefined
  // The entries grouped by the projects that do not list their peer; each group walks once from those projects.
  const groups = new Map<string, { nonListing: number[], entries: OptionalPeerEntry[] }>()
  const nonListingOf = new Map<string, number[]>()
  for (const entry of entries) {
    let nonListing = nonListingOf.get(entry.target)
    if (nonListing === undefined) {
      nonListing = rootDev?.has(entry.target) === true
        ? []
        : directByImporter.flatMap((direct, index) => direct.has(entry.target) ? [] : [index])
      nonListingOf.set(entry.target, nonListing)
    }
    const key = nonListing.join(',')
    let group = groups.get(key)
    if (group === undefined) groups.set(key, group = { nonListing, entries: [] })
    group.entries.push(entry)
  }
  for (const { nonListing, entries: grouped } of groups.values()) {
    const reached = reachableDepPaths(lockfile, nonListing.flatMap((index) => directDepPaths(importers[index]!)))
    for (const { parent, alias } of grouped) {
      if (reached.has(parent)) continue
      let aliases = edges.get(parent)
      if (aliases === undefined) edges.set(parent, aliases = new Set())
      aliases.add(alias)
    }
  }
  return edges
}

/** Each package's resolved optional peers (its edges under an optional peer's alias) that its peer suffix names as provided. */
function optionalPeerEntries (lockfile: Lockfile): OptionalPeerEntry[] {
  const entries: OptionalPeerEntry[] = []
  for (const [parent, snapshot] of Object.entries(lockfile.snapshots ?? {})) {
    const info = lockfile.packages?.[withoutPeersSuffix(parent)]
    if (info?.peerDependencies === undefined || info.peerDependenciesMeta === undefined) continue
    const providers = boundPeerProviders(parent)
    if (providers === null) continue
    for (const deps of [snapshot.dependencies, snapshot.optionalDependencies]) {
      for (const [alias, ref] of Object.entries(deps ?? {})) {
        const optionalPeer = Object.hasOwn(info.peerDependencies, alias) && info.peerDependenciesMeta[alias]?.optional === true
        if (!optionalPeer || ref.startsWith('link:')) continue
        const target = refToDepPath(alias, ref)
        if (providers === undefined || providers.has(withoutPeersSuffix(target))) entries.push({ parent, alias, target })
      }
    }
  }
  return entries
}

/**
 * The peers a dependency path's suffix names (`a@1.0.0(b@2.0.0)(c@3.0.0)` → b@2.0.0, c@3.0.0);
 * undefined when the suffix is a hash (any provider), null when there is no suffix.
 */
function boundPeerProviders (depPath: string): Set<string> | undefined | null {
  const { peersSuffix } = parseDepPath(depPath)
  if (peersSuffix === '') return null
  const segments = topLevelSegments(peersSuffix)
  if (segments === undefined) return null
  const providers = segments.filter((segment) => !segment.startsWith('patch_hash='))
  if (providers.length === 1 && /^[0-9a-f]{32}$/.test(providers[0]!)) return undefined
  return new Set(providers.filter((segment) => /^@?[^@]+@./.test(segment)).map(withoutPeersSuffix))
}

/** `(a@1)(b@2(c@3))` → `a@1`, `b@2(c@3)`; undefined when unbalanced. */
function topLevelSegments (suffix: string): string[] | undefined {
  const segments: string[] = []
  let depth = 0
  let start = -1
  for (let i = 0; i < suffix.length; i++) {
    const char = suffix[i]
    if (char === '(') {
      if (depth++ === 0) start = i + 1
    } else if (char === ')') {
      if (--depth < 0) return undefined
      if (depth === 0) segments.push(suffix.slice(start, i))
    } else if (depth === 0) {
      return undefined
    }
  }
  return depth === 0 ? segments : undefined
}

function directDepPaths (importer: ProjectSnapshot): string[] {
  const groups = [importer.dependencies, importer.devDependencies, importer.optionalDependencies]
  return groups.flatMap((group) => depPathsOf(dependencyRefs(group)))
}

function depPathsOf (refs: Readonly<Record<string, string>>): string[] {
  return Object.entries(refs).flatMap(([alias, ref]) => ref.startsWith('link:') ? [] : [refToDepPath(alias, ref)])
}

/** Every dependency path reachable from `roots` through the snapshots' dependencies (and optional ones, `withOptional`). */
export function reachableDepPaths (lockfile: Lockfile, roots: readonly string[], withOptional = true): Set<string> {
  const seen = new Set<string>()
  const stack = [...roots]
  while (stack.length > 0) {
    const depPath = stack.pop()!
    if (seen.has(depPath)) continue
    seen.add(depPath)
    const snapshot = lockfile.snapshots?.[depPath]
    if (snapshot === undefined) continue
    stack.push(...depPathsOf({ ...snapshot.dependencies, ...withOptional ? snapshot.optionalDependencies : {} }))
  }
  return seen
}
