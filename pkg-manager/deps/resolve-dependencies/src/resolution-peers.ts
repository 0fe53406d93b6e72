import semver from 'semver'

import { comparePaths, extendPath, pathIds, pathStartsWith } from './id-path.js'
import type { IdPath } from './id-path.js'
import { MAX_PEERS_KEPT, peerGraphTooLarge } from './resolve-peers.js'
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

/** A provider as the walk keeps it: its path of aliases shares the path above it. */
interface Provider { alias: string, pkgId: string, path: IdPath }

interface Level { missing: Map<string, UnresolvedPeer>, resolved: Map<string, Provider> }

/**
 * The dependencies visible at one level of the tree by alias, nearest first: `true` for the
 * importer's own. `found` remembers what names looked up through it found above (`null`: nothing).
 */
interface AliasScope { aliases: Map<string, Provider | true>, parent?: AliasScope, found?: Map<string, Provider | true | null> }

/**
 * Where a package's dependencies are resolved: the ids above it (from the importer's id down), the
 * same with its own (`childIds`, the ids above its dependencies), the aliases down to it.
 */
interface Owner { importer: number, depth: number, parentIds: IdPath, childIds: IdPath, aliasPath: IdPath, scope: AliasScope }

/** Where a level is looked at: the importer, the depth, the ids above, the aliases in scope there and above. */
interface LevelAt { importer: number, depth: number, parentIds: IdPath, current: AliasScope, above: AliasScope }

/** One owner's level (or an importer's) being computed: see `levelOf`. */
interface LevelFrame { pkgId: string | undefined, next: () => string | undefined, level: () => Level }

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
  /** `MAX_PEERS_KEPT` unless set (tests). */
  maxPeersKept?: number
}

/**
 * pnpm resolves each package's dependencies once, under one occurrence (its owner: the
 * shallowest, then the earliest importer's, then the one with the lowest parent ids), and passes
 * peers up as it goes: an owner passes up what its subtree resolved and what it still misses; any
 * other occurrence passes up only what its owner's subtree misses, found among its ancestors'
 * dependencies (not its siblings'), and nothing when the owner is shallower. Peers hoisted to an
 * importer are resolved after the tree, round by round: each round looks at what the last added.
 * One walk with its memo tables in scope, kept whole so the passing-up reads as one rule.
 */
export function resolutionPeerViews (input: ResolutionPeersInput): ImporterPeerView[] {
  const tops = input.topAliases.map((aliases): AliasScope => ({ aliases: new Map([...aliases].map((alias) => [alias, true as const])) }))
  const owners = new Map<string, Owner>()
  // Whether the package is among the ids of `path`: every id there but the importer's ends its owner's `childIds`.
  const isAbove = (pkgId: string, path: IdPath): boolean => {
    const own = owners.get(pkgId)?.childIds
    return own !== undefined && pathStartsWith(path, own)
  }
  const importerPaths = input.importerIds.map((id) => extendPath(undefined, id))
  let level = input.edges.flatMap((list, importer) => list.map((edge) => ({
    edge,
    importer,
    depth: 0,
    parentIds: importerPaths[importer]!,
    aliasPath: undefined as IdPath | undefined,
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
      const childIds = extendPath(occurrence.parentIds, pkgId)
      const aliasPath = extendPath(occurrence.aliasPath, occurrence.edge.alias)
      owners.set(pkgId, {
        importer: occurrence.importer,
        depth: occurrence.depth,
        parentIds: occurrence.parentIds,
        childIds,
        aliasPath,
        scope: occurrence.scope,
      })
      if (input.packages.get(pkgId)?.link === true) continue
      const scope = childScope(input.children.get(pkgId) ?? [], aliasPath, occurrence.scope)
      for (const edge of input.children.get(pkgId) ?? []) {
        if (!isAbove(edge.pkgId, childIds)) {
          next.push({ edge, importer: occurrence.importer, depth: occurrence.depth + 1, parentIds: childIds, aliasPath, scope })
        }
      }
    }
    level = next
  }

  // What an owner's dependencies pass up, in the owner's own place in the tree; how many peers those levels keep.
  const inner = new Map<string, Level>()
  let kept = 0
  const ownerFrame = (pkgId: string): LevelFrame => {
    const owner = owners.get(pkgId)!
    const children = (input.children.get(pkgId) ?? []).filter((edge) => !isAbove(edge.pkgId, owner.parentIds) && edge.pkgId !== pkgId)
    const scope = childScope(children, owner.aliasPath, owner.scope)
    return levelFrame(children, {
      importer: owner.importer,
      depth: owner.depth + 1,
      parentIds: owner.childIds,
      current: scope,
      above: owner.scope,
    }, pkgId)
  }

  /**
   * What the dependencies `edges` pass up at `at`. Each owner's level below is computed once, depth
   * first, on an explicit stack (a chain is as deep as a registry makes it): a frame stops at an
   * edge whose owner's level is not known yet and takes it up again once that level is done.
   */
  const levelOf = (edges: readonly Edge[], at: LevelAt): Level => {
    const stack = [levelFrame(edges, at, undefined)]
    for (;;) {
      const frame = stack.at(-1)!
      const below = frame.next()
      if (below !== undefined) {
        // A package reached again inside its own subtree passes nothing up (pnpm would wait on itself).
        inner.set(below, { missing: new Map(), resolved: new Map() })
        stack.push(ownerFrame(below))
        continue
      }
      const level = frame.level()
      stack.pop()
      kept += level.missing.size + level.resolved.size
      if (kept > (input.maxPeersKept ?? MAX_PEERS_KEPT)) {
        throw peerGraphTooLarge([...stack, frame].flatMap(({ pkgId }) => pkgId ?? []), input.maxPeersKept ?? MAX_PEERS_KEPT)
      }
      if (frame.pkgId !== undefined) inner.set(frame.pkgId, level)
      if (stack.length === 0) return level
    }
  }

  /** One call of the walk: `next` takes the edges in order, and names an owner whose level it needs first. */
  const levelFrame = (edges: readonly Edge[], at: LevelAt, pkgId: string | undefined): LevelFrame => {
    const fromOwners: Level[] = []
    const fromOthers: Level[] = []
    let index = 0
    const next = (): string | undefined => {
      for (; index < edges.length; index++) {
        const edge = edges[index]!
        if (input.packages.get(edge.pkgId)?.link === true) continue
        const owner = owners.get(edge.pkgId)
        if (owner === undefined) continue
        // The owner is here when the ids above it are these (each owner's `childIds` is the one list its dependencies share).
        const isOwner = owner.importer === at.importer && owner.parentIds === at.parentIds
        if (!isOwner && !(owner.depth >= at.depth && !isAbove(edge.pkgId, at.parentIds))) continue
        const below = inner.get(edge.pkgId)
        if (below === undefined) return edge.pkgId
        if (isOwner) fromOwners.push(filterMissing(below, at.current, true))
        else fromOthers.push(filterMissing({ missing: below.missing, resolved: new Map() }, at.above, false))
      }
      return undefined
    }
    const level = (): Level => {
      const resolved = new Map<string, Provider>()
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
    return { pkgId, next, level }
  }

  return input.importerIds.map((_, importer) => {
    const top = tops[importer]!
    const known = input.knownAliases?.[importer]
    const above: AliasScope = known === undefined ? top : { aliases: new Map([...known].map((alias) => [alias, true as const])) }
    const { missing, resolved } = levelOf(input.pending[importer]!, {
      importer,
      depth: 0,
      parentIds: importerPaths[importer]!,
      current: top,
      above,
    })
    return { missing, resolved: new Map([...resolved].map(([name, provider]) => [name, { ...provider, path: pathIds(provider.path) }])) }
  })
}

/** The scope of a package's dependencies: each a provider at its place in the tree, before the ancestors' scope. */
function childScope (edges: readonly Edge[], aliasPath: IdPath, parent: AliasScope): AliasScope {
  const aliases = new Map<string, Provider | true>()
  for (const edge of edges) {
    if (!aliases.has(edge.alias)) aliases.set(edge.alias, { alias: edge.alias, pkgId: edge.pkgId, path: extendPath(aliasPath, edge.alias) })
  }
  return { aliases, parent }
}

/** The nearest provider of `name` in scope; each scope walked past remembers it, so a peer missing deep in a chain is not looked for up the whole chain at every level. */
function lookup (scope: AliasScope | undefined, name: string): Provider | true | undefined {
  const walked: AliasScope[] = []
  let found: Provider | true | null = null
  for (let at = scope; at !== undefined; at = at.parent) {
    const here = at.aliases.get(name) ?? at.found?.get(name)
    if (here !== undefined) {
      found = here
      break
    }
    walked.push(at)
  }
  for (const at of walked) (at.found ??= new Map()).set(name, found)
  return found ?? undefined
}

/** pnpm's filterMissingPeers: peers now in scope leave the missing ones; a provider below the importer is recorded (`record`). */
function filterMissing (level: Level, scope: AliasScope, record: boolean): Level {
  const missing = new Map<string, UnresolvedPeer>()
  const resolved = record ? new Map(level.resolved) : new Map<string, Provider>()
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

function compareOccurrences (a: { importer: number, parentIds: IdPath }, b: { importer: number, parentIds: IdPath }): number {
  if (a.importer !== b.importer) return a.importer - b.importer
  return comparePaths(a.parentIds, b.parentIds)
}

