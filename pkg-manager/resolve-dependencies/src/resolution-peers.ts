import semver from 'semver'

import type { PeerProvider } from './resolve-peers.js'
import type { Edge, ResolvedPackage } from './types.js'

/** A peer no dependency in scope provided while pnpm resolved: the ranges wanted (all intersecting) and whether every wanter marks it optional. */
export interface UnresolvedPeer { ranges: string[], optional: boolean }

/**
 * What pnpm knows of an importer's peers while it resolves the dependency tree, before its peer
 * pass: the peers missing at the importer (which it hoists there), and the peers packages below
 * found among an ancestor's dependencies (which it makes providers for the whole importer).
 */
export interface ImporterPeerView {
  missing: Map<string, UnresolvedPeer>
  resolved: Map<string, PeerProvider>
}

interface Level { missing: Map<string, UnresolvedPeer>, resolved: Map<string, PeerProvider> }

/** The dependencies visible at one level of the tree by alias, nearest first: `true` for the importer's own. */
interface AliasScope { aliases: Map<string, PeerProvider | true>, parent?: AliasScope }

interface Owner { importer: number, depth: number, parentIds: string[], aliasPath: string[], scope: AliasScope }

export interface ResolutionPeersInput {
  importerIds: readonly string[]
  /** Each importer's dependencies so far (its own, then the peers hoisted to it): who owns which package's dependencies. */
  edges: ReadonlyArray<readonly Edge[]>
  /** The dependencies whose subtrees pnpm looks at now: the importer's own first, then those hoisted in the last round. */
  pending: ReadonlyArray<readonly Edge[]>
  /** Every alias at each importer's top (its dependencies, hoisted peers and providers). */
  topAliases: ReadonlyArray<ReadonlySet<string>>
  /**
   * The aliases each importer had before the pending dependencies were added, when they are peers
   * hoisted in a later round: what pnpm checks the peers their subtrees pass up against when the
   * subtree is owned elsewhere (the pending ones themselves are not among them yet).
   */
  knownAliases?: ReadonlyArray<ReadonlySet<string>>
  children: ReadonlyMap<string, readonly Edge[]>
  packages: ReadonlyMap<string, ResolvedPackage>
}

/**
 * pnpm resolves each package's dependencies once, under one occurrence (its owner: the
 * shallowest, then the earliest importer's, then the one with the lowest parent ids), and passes
 * peers up as it goes: an owner passes up what its subtree resolved and what it still misses; any
 * other occurrence passes up only what its owner's subtree misses, found among its ancestors'
 * dependencies (not its siblings'), and nothing when the owner is shallower. Peers hoisted to an
 * importer are resolved after the tree, round by round: each round looks at what the last added.
 * One walk with its memo tables in scope (about 100 lines), kept whole so the passing-up reads as one rule.
 */
export function resolutionPeerViews (input: ResolutionPeersInput): ImporterPeerView[] {
  const tops = input.topAliases.map((aliases): AliasScope => ({ aliases: new Map([...aliases].map((alias) => [alias, true as const])) }))
  const owners = new Map<string, Owner>()
  let level = input.edges.flatMap((list, importer) => list.map((edge) => ({
    edge,
    importer,
    depth: 0,
    parentIds: [input.importerIds[importer]!],
    aliasPath: [] as string[],
    scope: tops[importer]!,
  })))
  while (level.length > 0) {
    const best = new Map<string, typeof level[number]>()
    for (const occurrence of level) {
      if (owners.has(occurrence.edge.pkgId)) continue
      const current = best.get(occurrence.edge.pkgId)
      if (current === undefined || compareOccurrences(occurrence, current) < 0) best.set(occurrence.edge.pkgId, occurrence)
    }
    const next: typeof level = []
    for (const [pkgId, occurrence] of best) {
      owners.set(pkgId, {
        importer: occurrence.importer,
        depth: occurrence.depth,
        parentIds: occurrence.parentIds,
        aliasPath: [...occurrence.aliasPath, occurrence.edge.alias],
        scope: occurrence.scope,
      })
      if (input.packages.get(pkgId)?.link === true) continue
      const parentIds = [...occurrence.parentIds, pkgId]
      const aliasPath = [...occurrence.aliasPath, occurrence.edge.alias]
      const scope = childScope(input.children.get(pkgId) ?? [], aliasPath, occurrence.scope)
      for (const edge of input.children.get(pkgId) ?? []) {
        if (!parentIds.includes(edge.pkgId)) {
          next.push({ edge, importer: occurrence.importer, depth: occurrence.depth + 1, parentIds, aliasPath, scope })
        }
      }
    }
    level = next
  }

  // What an owner's dependencies pass up, in the owner's own place in the tree.
  const inner = new Map<string, Level>()
  const ownerLevel = (pkgId: string): Level => {
    const cached = inner.get(pkgId)
    if (cached !== undefined) return cached
    const empty: Level = { missing: new Map(), resolved: new Map() }
    // A package reached again inside its own subtree passes nothing up (pnpm would wait on itself).
    inner.set(pkgId, empty)
    const owner = owners.get(pkgId)!
    const children = (input.children.get(pkgId) ?? []).filter((edge) => !owner.parentIds.includes(edge.pkgId) && edge.pkgId !== pkgId)
    const scope = childScope(children, owner.aliasPath, owner.scope)
    const level = levelOf(children, {
      importer: owner.importer,
      depth: owner.depth + 1,
      parentIds: [...owner.parentIds, pkgId],
      current: scope,
      above: owner.scope,
    })
    inner.set(pkgId, level)
    return level
  }

  const levelOf = (
    edges: readonly Edge[],
    at: { importer: number, depth: number, parentIds: string[], current: AliasScope, above: AliasScope }
  ): Level => {
    const parentKey = at.parentIds.join('\0')
    const fromOwners: Level[] = []
    const fromOthers: Level[] = []
    for (const edge of edges) {
      if (input.packages.get(edge.pkgId)?.link === true) continue
      const owner = owners.get(edge.pkgId)
      if (owner === undefined) continue
      if (owner.importer === at.importer && owner.parentIds.join('\0') === parentKey) {
        fromOwners.push(filterMissing(ownerLevel(edge.pkgId), at.current, true))
      } else if (owner.depth >= at.depth && !at.parentIds.includes(edge.pkgId)) {
        fromOthers.push(filterMissing({ missing: ownerLevel(edge.pkgId).missing, resolved: new Map() }, at.above, false))
      }
    }
    const resolved = new Map<string, PeerProvider>()
    for (const level of [...fromOwners, ...fromOthers]) for (const [name, provider] of level.resolved) resolved.set(name, provider)
    const own: Array<Map<string, UnresolvedPeer>> = []
    for (const edge of edges) {
      const pkg = input.packages.get(edge.pkgId)
      if (pkg === undefined || pkg.link === true) continue
      const missing = new Map<string, UnresolvedPeer>()
      // A package's own peers are looked up among its siblings only; its parent passes the rest up.
      for (const [peer, range] of Object.entries(pkg.peerDependencies)) {
        const provider = at.current.aliases.get(peer)
        if (provider === undefined) missing.set(peer, { ranges: [range], optional: pkg.peerDependenciesMeta[peer]?.optional === true })
        else if (provider !== true) resolved.set(peer, provider)
      }
      own.push(missing)
    }
    return {
      missing: mergeUnresolved([...own, ...fromOwners.map((level) => level.missing), ...fromOthers.map((level) => level.missing)]),
      resolved,
    }
  }

  return input.importerIds.map((id, importer) => {
    const top = tops[importer]!
    const known = input.knownAliases?.[importer]
    const above: AliasScope = known === undefined ? top : { aliases: new Map([...known].map((alias) => [alias, true as const])) }
    return levelOf(input.pending[importer]!, { importer, depth: 0, parentIds: [id], current: top, above })
  })
}

/** The scope of a package's dependencies: each a provider at its place in the tree, before the ancestors' scope. */
function childScope (edges: readonly Edge[], aliasPath: readonly string[], parent: AliasScope): AliasScope {
  const aliases = new Map<string, PeerProvider | true>()
  for (const edge of edges) {
    if (!aliases.has(edge.alias)) aliases.set(edge.alias, { alias: edge.alias, pkgId: edge.pkgId, path: [...aliasPath, edge.alias] })
  }
  return { aliases, parent }
}

function lookup (scope: AliasScope | undefined, name: string): PeerProvider | true | undefined {
  for (let at = scope; at !== undefined; at = at.parent) {
    const found = at.aliases.get(name)
    if (found !== undefined) return found
  }
  return undefined
}

/** pnpm's filterMissingPeers: peers now in scope leave the missing ones; a provider below the importer is recorded (`record`). */
function filterMissing (level: Level, scope: AliasScope, record: boolean): Level {
  const missing = new Map<string, UnresolvedPeer>()
  const resolved = record ? new Map(level.resolved) : new Map<string, PeerProvider>()
  for (const [name, peer] of level.missing) {
    const provider = lookup(scope, name)
    if (provider === undefined) missing.set(name, peer)
    else if (provider !== true) resolved.set(name, { ...provider, alias: name })
  }
  return { missing, resolved }
}

/** pnpm's mergePkgsDeps: ranges of one peer must intersect, or the peer is dropped; optional only if optional everywhere. */
function mergeUnresolved (lists: ReadonlyArray<ReadonlyMap<string, UnresolvedPeer>>): Map<string, UnresolvedPeer> {
  const merged = new Map<string, UnresolvedPeer>()
  for (const list of lists) {
    for (const [name, peer] of list) {
      const current = merged.get(name)
      if (current === undefined) merged.set(name, { ranges: [...peer.ranges], optional: peer.optional })
      else {
        for (const range of peer.ranges) if (!current.ranges.includes(range)) current.ranges.push(range)
        current.optional &&= peer.optional
      }
    }
  }
  for (const [name, peer] of merged) if (!rangesIntersect(peer.ranges)) merged.delete(name)
  return merged
}

function rangesIntersect (ranges: readonly string[]): boolean {
  for (let i = 0; i < ranges.length; i++) {
    for (let j = i + 1; j < ranges.length; j++) {
      try {
        if (!semver.intersects(ranges[i]!, ranges[j]!, { includePrerelease: true })) return false
      } catch {
        return false
      }
    }
  }
  return true
}

function compareOccurrences (
  a: { importer: number, depth: number, parentIds: readonly string[] },
  b: { importer: number, depth: number, parentIds: readonly string[] }
): number {
  if (a.importer !== b.importer) return a.importer - b.importer
  for (let i = 0; i < Math.min(a.parentIds.length, b.parentIds.length); i++) {
    if (a.parentIds[i] !== b.parentIds[i]) return a.parentIds[i]! < b.parentIds[i]! ? -1 : 1
  }
  return a.parentIds.length - b.parentIds.length
}

/**
 * The semver range a peer range means: `workspace:` ranges as the workspace protocol reads them
 * (`*`, `^`, `~` take any version), `npm:name@range` and other schemes by their range, each part
 * of an `||` alone; what is no range, any version (pnpm's getPeerVersionRange).
 */
export function peerVersionRange (range: string): string {
  if (range.includes('||')) return range.split('||').map((part) => peerVersionRange(part.trim())).join(' || ')
  if (semver.validRange(range) !== null) return range
  if (range.startsWith('workspace:')) {
    const bare = range.slice('workspace:'.length)
    return bare !== '' && semver.validRange(bare) !== null ? bare : '*'
  }
  const colon = range.indexOf(':')
  if (colon > 0) {
    const body = range.slice(colon + 1)
    if (semver.validRange(body) !== null) return body
    const at = body.lastIndexOf('@')
    if (at > 0 && semver.validRange(body.slice(at + 1)) !== null) return body.slice(at + 1)
  }
  return '*'
}
