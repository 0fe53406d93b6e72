import { createHash } from 'node:crypto'

import semver from 'semver'

import type { Edge, ResolvedPackage } from './types.js'

/** One occurrence of a package with the peers it sees; equal contexts share one node. */
export interface PeerNode {
  pkgId: string
  /** alias → node, the package's own dependencies. */
  children: Map<string, { node: PeerNode, optional: boolean }>
  /** The package's own peers, resolved: peer name → provider. */
  ownPeers: Map<string, PeerNode>
  /** Every peer this node's dependency path depends on (its own and its descendants' resolved from above it). */
  allPeers: Map<string, PeerNode>
  /** Peer names missing below this node (its own included): name → wanted ranges. */
  missing: Map<string, MissingPeer>
  transitivePeerDependencies: string[]
  depPath?: string
  computing?: boolean
  /**
   * Set when this occurrence and a sibling resolve each other as peers (a cycle): other
   * packages then name it in their suffixes without its own suffix, as pnpm breaks such cycles.
   */
  cycleBroken?: boolean
  /** A provider hoisted to its importer: the occurrence below it that it stands for. */
  providerOf?: PeerNode
  /** Which importer's resolution filled it first (1, 2, …): peers of the workspace root are settled for later ones. */
  filledIn?: number
}

/**
 * A peer some package below an importer resolved from a dependency of one of its ancestors,
 * hoisted to the importer as a provider for the importer's whole tree (pnpm's resolved peer
 * providers, autoInstallPeers). `path` leads from the importer to that occurrence by aliases.
 */
export interface PeerProvider {
  alias: string
  pkgId: string
  path: readonly string[]
}

export interface MissingPeer {
  name: string
  optional: boolean
  /** range → packages (ids) that want it */
  wantedBy: Map<string, string[]>
}

/** A peer found in a version its range does not take (`unmet`), or not found (`missing`, required peers only). */
export type PeerIssue =
  | { kind: 'unmet', peer: string, range: string, installed: string, wantedBy: string }
  | { kind: 'missing', peer: string, range: string, wantedBy: string }

export interface ResolvePeersOptions {
  packages: ReadonlyMap<string, ResolvedPackage>
  children: ReadonlyMap<string, readonly Edge[]>
  /** pnpm's `peersSuffixMaxLength`: a longer peer suffix is replaced by its hash. */
  peersSuffixMaxLength: number
  /** The hash of the patch for a package id (`patchedDependencies`), which its dependency path carries. */
  patchHashOf?: (pkgId: string) => string | undefined
  /** pnpm's `dedupePeers`: a suffix names each peer by `name@version` alone, not by its own dependency path. */
  dedupePeers?: boolean
}

type Context = ReadonlyMap<string, PeerNode>

/**
 * Phase two: peer dependencies resolved the way pnpm does. Each package occurrence sees as
 * providers its own dependencies, its siblings and the siblings of every ancestor, up to the
 * importer's direct dependencies; the nearest wins. A package's dependency path gets a suffix of
 * the dependency paths of every peer it (or a descendant, from above it) resolved:
 * `name@1.0.0(peer@2.0.0)`.
 */
export class PeerResolver {
  readonly issues: PeerIssue[] = []
  private readonly peerNames = new Set<string>()
  private readonly peersBelow = new Map<string, ReadonlySet<string>>()
  private readonly cache = new Map<string, PeerNode>()
  private readonly ids = new WeakMap<PeerNode, number>()
  /** The providers each occurrence was filled with (pnpm's parentPkgsOfNode). */
  private readonly contextOf = new WeakMap<PeerNode, Context>()
  /**
   * The workspace root's dependencies as other projects see them: pnpm has their paths by then, so
   * they are named whole even where they break a cycle among the root's dependencies.
   */
  private readonly settled = new WeakSet<PeerNode>()
  private importerSeq = 0
  private nextId = 0

  constructor (private readonly opts: ResolvePeersOptions) {
    for (const pkg of opts.packages.values()) for (const peer of Object.keys(pkg.peerDependencies)) this.peerNames.add(peer)
    this.computePeersBelow()
  }

  /**
   * Nodes for an importer's direct dependencies; the importer's dependencies provide peers to all
   * below, and before them `inherited` providers (the workspace root's dependencies, pnpm's
   * `resolvePeersFromWorkspaceRoot`).
   */
  resolveImporter (
    edges: readonly Edge[],
    inherited: ReadonlyArray<{ edge: Edge, node: PeerNode }> = [],
    providers: readonly PeerProvider[] = []
  ): Map<string, PeerNode> {
    this.importerSeq++
    const context = new Map<string, PeerNode>()
    for (const { edge, node } of inherited) {
      this.provide(context, edge, node)
      this.settled.add(node)
    }
    const nodes = edges.map((edge) => ({ edge, node: this.shell(edge.pkgId) }))
    for (const { edge, node } of nodes) this.provide(context, edge, node)
    const provided = providers.map((provider) => ({ provider, node: this.shell(provider.pkgId) }))
    for (const { provider, node } of provided) this.provide(context, { alias: provider.alias, pkgId: provider.pkgId, optional: true }, node)
    const out = new Map<string, PeerNode>()
    for (const { edge, node } of nodes) out.set(edge.alias, this.fill(node, context, []))
    markPeerCycles(nodes.map(({ edge, node }) => ({ alias: edge.alias, name: this.opts.packages.get(edge.pkgId)!.name, node })))
    // A provider is the very occurrence it was found as below the importer (pnpm hoists that node),
    // so it shares that occurrence's content; filled here only when the tree no longer has it.
    for (const { provider, node } of provided) {
      let found: PeerNode | undefined = out.get(provider.path[0]!)
      for (const alias of provider.path.slice(1)) found = found?.children.get(alias)?.node
      if (found?.pkgId === provider.pkgId) {
        Object.assign(node, {
          children: found.children,
          ownPeers: found.ownPeers,
          allPeers: found.allPeers,
          missing: found.missing,
          transitivePeerDependencies: found.transitivePeerDependencies,
        })
        node.providerOf = found
        if (found.cycleBroken === true) node.cycleBroken = true
      } else {
        this.fill(node, context, [])
      }
      out.set(provider.alias, node)
    }
    return out
  }

  private shell (pkgId: string): PeerNode {
    const node: PeerNode = {
      pkgId,
      children: new Map(),
      ownPeers: new Map(),
      allPeers: new Map(),
      missing: new Map(),
      transitivePeerDependencies: [],
    }
    this.ids.set(node, this.nextId++)
    return node
  }

  /**
   * Registers a provider under its alias and its real name; an alias never displaces an exact-name
   * entry. A package's dependency leaves a provider from above of the same package and version in
   * place (pnpm keeps the inherited one), unless that would break a peer diamond below.
   */
  private provide (
    context: Map<string, PeerNode>,
    edge: Edge,
    node: PeerNode,
    from?: { inherited: Context, siblings: readonly Edge[] }
  ): void {
    const pkg = this.opts.packages.get(edge.pkgId)!
    const keepsInherited = (key: string): boolean => {
      if (from === undefined) return false
      const current = from.inherited.get(key)
      if (current === undefined || current === node) return false
      const inherited = this.opts.packages.get(current.pkgId)!
      return inherited.name === pkg.name
        && inherited.version === pkg.version
        && !this.breaksPeerDiamond(current, pkg, context, from.siblings)
    }
    if (this.peerNames.has(edge.alias) && !keepsInherited(edge.alias)) context.set(edge.alias, node)
    if (pkg.name !== edge.alias && this.peerNames.has(pkg.name)) {
      const current = context.get(pkg.name)
      if ((current === undefined || this.opts.packages.get(current.pkgId)!.name !== pkg.name) && !keepsInherited(pkg.name)) {
        context.set(pkg.name, node)
      }
    }
  }

  /**
   * pnpm's peer diamond: the inherited provider saw other versions of the package's own peers than
   * are in scope here, and a package below here takes both the package and one of those peers as
   * peers, so it must get the package that sees the same peers as it does.
   */
  private breaksPeerDiamond (inherited: PeerNode, pkg: ResolvedPackage, context: Context, siblings: readonly Edge[]): boolean {
    const inheritedContext = this.contextOf.get(inherited)
    if (inheritedContext === undefined) return false
    const conflicting = Object.keys(pkg.peerDependencies).filter((peer) => {
      if (!this.peerNames.has(peer)) return false
      const before = inheritedContext.get(peer)
      const now = context.get(peer)
      return before !== undefined && now !== undefined && before.pkgId !== now.pkgId
    })
    if (conflicting.length === 0) return false
    const visited = new Set<string>()
    const pending = siblings.map((edge) => edge.pkgId)
    for (let pkgId = pending.pop(); pkgId !== undefined; pkgId = pending.pop()) {
      if (visited.has(pkgId)) continue
      const child = this.opts.packages.get(pkgId)
      if (child === undefined) continue
      if (Object.hasOwn(child.peerDependencies, pkg.name) && conflicting.some((peer) => Object.hasOwn(child.peerDependencies, peer))) {
        return true
      }
      const grandchildren = this.opts.children.get(pkgId) ?? []
      if (grandchildren.some((edge) => edge.alias === pkg.name || this.opts.packages.get(edge.pkgId)?.name === pkg.name)) continue
      visited.add(pkgId)
      pending.push(...grandchildren.map((edge) => edge.pkgId))
    }
    return false
  }

  /**
   * Fills `node` (a fresh shell) for this context. Occurrences that see the same providers for
   * every peer name below them share their content, so a package is walked once per distinct
   * set of providers, not once per path.
   */
  private fill (node: PeerNode, context: Context, path: readonly string[]): PeerNode {
    const pkgId = node.pkgId
    this.contextOf.set(node, context)
    node.filledIn = this.importerSeq
    const needed = this.peersBelow.get(pkgId)!
    // An occurrence reached through a cycle has fewer children (see below): it neither uses nor fills the cache.
    const throughCycle = path.includes(pkgId)
    const key = throughCycle ? undefined : needed.size === 0 ? pkgId : `${pkgId}\0${[...needed].sort().map((name) => { const p = context.get(name); return p === undefined ? '' : String(this.ids.get(p)) }).join('\0')}`
    const cached = key === undefined ? undefined : this.cache.get(key)
    if (cached !== undefined) {
      // Shared maps: a node still being filled (a cycle) completes them later.
      node.children = cached.children
      node.ownPeers = cached.ownPeers
      node.allPeers = cached.allPeers
      node.missing = cached.missing
      if (cached.filledIn !== undefined) node.filledIn = cached.filledIn
      node.transitivePeerDependencies = cached.transitivePeerDependencies
      return node
    }
    if (key !== undefined) this.cache.set(key, node)
    const pkg = this.opts.packages.get(pkgId)!
    // pnpm unrolls a dependency cycle once: an edge is dropped only when the path already went
    // from this package to that child (or a package depends on itself).
    const innerPath = [...path, pkgId]
    const edges = (this.opts.children.get(pkgId) ?? [])
      .filter((edge) => edge.pkgId !== pkgId && !containsStep(innerPath, pkgId, edge.pkgId))
    const childContext = new Map(context)
    const shells = edges.map((edge) => ({ edge, child: this.shell(edge.pkgId) }))
    for (const { edge, child } of shells) this.provide(childContext, edge, child, { inherited: context, siblings: edges })
    // pnpm walks the children already visible as providers first, then the rest.
    const ordered = [...shells.filter(({ edge }) => context.has(edge.alias)), ...shells.filter(({ edge }) => !context.has(edge.alias))]
    for (const { child } of ordered) this.fill(child, childContext, innerPath)
    markPeerCycles(shells.map(({ edge, child }) => ({ alias: edge.alias, name: this.opts.packages.get(edge.pkgId)!.name, node: child })))
    const ownAliases = new Set(edges.map((edge) => edge.alias))
    for (const { edge, child } of shells) {
      node.children.set(edge.alias, { node: child, optional: edge.optional })
      for (const [peer, provider] of child.allPeers) if (!ownAliases.has(peer)) node.allPeers.set(peer, provider)
      for (const [peer, missing] of child.missing) if (!ownAliases.has(peer)) mergeMissing(node.missing, missing)
    }
    for (const [peer, range] of Object.entries(pkg.peerDependencies)) {
      const optional = Object.hasOwn(pkg.peerDependenciesMeta, peer) && pkg.peerDependenciesMeta[peer]!.optional === true
      const provider = childContext.get(peer)
      if (provider === undefined) {
        mergeMissing(node.missing, { name: peer, optional, wantedBy: new Map([[range, [pkgId]]]) })
        continue
      }
      node.ownPeers.set(peer, provider)
      node.allPeers.set(peer, provider)
      const installed = this.opts.packages.get(provider.pkgId)!.version
      const wanted = peerRange(range)
      if (wanted !== '*' && !semver.satisfies(installed, wanted, { loose: true, includePrerelease: true })) {
        this.issues.push({ kind: 'unmet', peer, range, installed, wantedBy: pkgId })
      }
    }
    node.allPeers.delete(pkg.name)
    const own = new Set(Object.keys(pkg.peerDependencies))
    node.transitivePeerDependencies.push(...[...new Set([...node.allPeers.keys(), ...node.missing.keys()])]
      .filter((peer) => !own.has(peer))
      .sort())
    return node
  }

  /** The node's dependency path, its peer suffix built from its peers' own dependency paths. */
  depPath (node: PeerNode): string {
    if (node.depPath !== undefined) return node.depPath
    if (node.providerOf !== undefined) {
      // The occurrence's own path; not kept while that is still being computed (a cycle names it bare).
      const depPath = this.depPath(node.providerOf)
      if (node.providerOf.depPath !== undefined) node.depPath = depPath
      return depPath
    }
    if (node.allPeers.size === 0) return (node.depPath = this.withPatch(node.pkgId))
    // Peers that wait on each other (a cycle) are named without their own suffixes.
    if (node.computing === true) return this.withPatch(node.pkgId)
    node.computing = true
    const ids = [...node.allPeers].map(([name, peer]) => this.opts.packages.get(peer.pkgId)!.link === true
      // A linked project as a peer: its name and its path from the lockfile's directory (pnpm's `@scope/a@packages+a`).
      ? `${name}@${peer.pkgId.slice('link:'.length).replaceAll('/', '+')}`
      : this.opts.dedupePeers === true ? `${name}@${this.opts.packages.get(peer.pkgId)!.version}`
        : peer.cycleBroken === true && !(this.settled.has(peer) && (node.filledIn ?? 0) > (peer.filledIn ?? 0))
          ? this.withPatch(peer.pkgId)
          : this.depPath(peer)).sort()
    node.computing = false
    let suffix = ids.join(')(')
    if (suffix.length > this.opts.peersSuffixMaxLength) suffix = createHash('sha256').update(suffix).digest('hex').slice(0, 32)
    return (node.depPath = `${this.withPatch(node.pkgId)}(${suffix})`)
  }

  /** `name@1.0.0(patch_hash=…)` for a patched package (pnpm's id with patch hash), else the id. */
  private withPatch (pkgId: string): string {
    const hash = this.opts.patchHashOf?.(pkgId)
    return hash === undefined ? pkgId : `${pkgId}(patch_hash=${hash})`
  }

  private computePeersBelow (): void {
    for (const [pkgId, pkg] of this.opts.packages) this.peersBelow.set(pkgId, new Set(Object.keys(pkg.peerDependencies)))
    // Propagate to parents until nothing changes (the graph can have cycles).
    let changed = true
    while (changed) {
      changed = false
      for (const [pkgId, edges] of this.opts.children) {
        const set = this.peersBelow.get(pkgId) as Set<string>
        for (const edge of edges) {
          for (const peer of this.peersBelow.get(edge.pkgId) ?? []) {
            if (!set.has(peer)) { set.add(peer); changed = true }
          }
        }
      }
    }
  }
}

/**
 * The range a peer's version is checked against: a `workspace:` range (an override may put one
 * there) as the workspace protocol reads it, `*`, `^` and `~` taking any version.
 */
function peerRange (range: string): string {
  if (!range.startsWith('workspace:')) return range
  const bare = range.slice('workspace:'.length)
  return bare === '*' || bare === '^' || bare === '~' ? '*' : bare
}

/** pnpm's parentIdsContainSequence: `from` (the last id of `path`) occurs earlier, and `to` after that. */
function containsStep (path: readonly string[], from: string, to: string): boolean {
  const fromIndex = path.indexOf(from)
  if (fromIndex === -1 || fromIndex === path.length - 1) return false
  const toIndex = path.lastIndexOf(to)
  return fromIndex < toIndex && toIndex !== path.length - 1
}

/**
 * Marks siblings that resolve each other as peers, directly or through other siblings: pnpm's
 * graph of sibling alias → aliases of the peers it resolved from above, and its cycles.
 */
function markPeerCycles (siblings: Array<{ alias: string, name: string, node: PeerNode }>): void {
  const edges = new Map<string, string[]>()
  const nodesByKey = new Map<string, PeerNode[]>()
  for (const { alias, name, node } of siblings) {
    if (node.allPeers.size === 0) continue
    for (const key of alias === name ? [alias] : [alias, name]) {
      const list = edges.get(key)
      if (list === undefined) edges.set(key, [...node.allPeers.keys()])
      else list.push(...node.allPeers.keys())
      nodesByKey.set(key, [...nodesByKey.get(key) ?? [], node])
    }
  }
  if (edges.size < 2) return
  for (const start of edges.keys()) {
    // Does `start` reach itself?
    const seen = new Set<string>()
    const stack = [...edges.get(start)!]
    while (stack.length > 0) {
      const key = stack.pop()!
      if (key === start) {
        for (const node of nodesByKey.get(start)!) node.cycleBroken = true
        break
      }
      if (seen.has(key)) continue
      seen.add(key)
      stack.push(...edges.get(key) ?? [])
    }
  }
}

function mergeMissing (into: Map<string, MissingPeer>, missing: MissingPeer): void {
  const current = into.get(missing.name)
  if (current === undefined) {
    into.set(missing.name, {
      name: missing.name,
      optional: missing.optional,
      wantedBy: new Map([...missing.wantedBy].map(([range, by]) => [range, [...by]])),
    })
    return
  }
  current.optional &&= missing.optional
  for (const [range, by] of missing.wantedBy) current.wantedBy.set(range, [...new Set([...(current.wantedBy.get(range) ?? []), ...by])])
}
