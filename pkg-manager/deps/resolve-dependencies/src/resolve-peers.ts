import { createHash } from 'node:crypto'

import { LodeError } from '@lode/core.error'
import semver from 'semver'

import type { IdPath } from './id-path.js'
import { IdStack } from './id-stack.js'
import { stronglyConnected } from './strongly-connected.js'
import type { ChildrenOwner, Edge, ResolvedPackage } from './types.js'

/** One occurrence of a package with the peers it sees; occurrences that see the same peers share their content. */
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
  /** When the walk finished this occurrence: until then, pnpm does not have its path. */
  leftAt?: number
  /** A provider hoisted to its importer: the occurrence below it that it stands for. */
  providerOf?: PeerNode
  /** Which importer's resolution filled it first (1, 2, …): peers of the workspace root are settled for later ones. */
  filledIn?: number
  /**
   * Reached through a cycle: the occurrences of its package above it, nearest first. pnpm's lockfile
   * lists their dependencies too (those the cycle cut here among them).
   */
  cycleOf?: PeerNode[]
  /** How many packages are above it, up to its importer. */
  depth?: number
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

/** The occurrence below an importer (its nodes by alias) that a provider was found as, if the tree still has it. */
export function occurrenceOf (top: ReadonlyMap<string, PeerNode>, provider: PeerProvider): PeerNode | undefined {
  let found = top.get(provider.path[0]!)
  for (const alias of provider.path.slice(1)) found = found?.children.get(alias)?.node
  return found?.pkgId === provider.pkgId ? found : undefined
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
  /** The hash of the patch for a package's `name@version` (`patchedDependencies`), which its dependency path carries. */
  patchHashOf?: (nameAndVersion: string) => string | undefined
  /** pnpm's `dedupePeers`: a suffix names each peer by `name@version` alone, not by its own dependency path. */
  dedupePeers?: boolean
  /** `MAX_PEERS_KEPT` unless set (tests). */
  maxPeersKept?: number
  /**
   * Where the resolution chose each package's dependencies (`TreeResolver.ownerOf`). Without it,
   * every occurrence is walked as one the resolution did not reach.
   */
  ownerOf?: (pkgId: string) => ChildrenOwner | undefined
}

type Context = ReadonlyMap<string, PeerNode>

/**
 * An occurrence whose package's dependencies the resolution chose right there: the list they were
 * resolved under. Its dependencies are occurrences the resolution reached too (pnpm's tree nodes
 * from the resolution, not rebuilt from another occurrence's children).
 */
interface ResolvedHere { childPath: IdPath | undefined }

/**
 * The peers the resolution keeps for the packages it walks (each one's own and those it passes up
 * from below), at most. A chain of n packages, each wanting a peer its top provides, passes up
 * n²/2 of them, and pnpm-lock.yaml lists them all (transitivePeerDependencies): 3,000,000 is a
 * chain of some 2,400 (about 1 GB; pnpm 11 runs out of stack at 2,000), where 10,000 ran out of
 * memory; a chain of 1,000 keeps 500,000.
 */
export const MAX_PEERS_KEPT = 3_000_000

/** `ERR_LODE_PEER_GRAPH_TOO_LARGE`, naming the chain (package ids from the top) down to where the peers kept went past `MAX_PEERS_KEPT`. */
export function peerGraphTooLarge (chain: readonly string[], limit: number): LodeError {
  const shown = chain.length <= 6 ? chain : [...chain.slice(0, 3), '…', ...chain.slice(-2)]
  return new LodeError('PEER_GRAPH_TOO_LARGE', `Resolving peer dependencies keeps more than ${limit} peers for the packages down to ${shown.join(' > ')} (${chain.length} levels): each package passes the peers below it up to its parents, and pnpm-lock.yaml would list every one for every package.`, {
    hint: 'Have the packages that want these peers get them nearer (as dependencies of the packages that depend on them), or shorten the chain.',
  })
}

/** A node being filled (`PeerResolver.fill`): its children's shells, and the next of them to fill. */
interface FillFrame {
  node: PeerNode
  edges: readonly Edge[]
  shells: Array<{ edge: Edge, child: PeerNode }>
  childContext: Context
  ordered: Array<{ edge: Edge, child: PeerNode }>
  next: number
  /** Not reached through a cycle (such an occurrence has fewer children): its content may serve others. */
  cacheable: boolean
  /** Set when the resolution chose the package's dependencies at this occurrence. */
  resolvedHere: ResolvedHere | undefined
  /** Whether the package is on the stack of ids the resolution has above its dependencies (`listed`). */
  listed: boolean
}

/** A node whose path waits on its peers' paths (`PeerResolver.depPath`): those it has so far, in order. */
interface PeersFrame { node: PeerNode, peers: Array<[string, PeerNode]>, ids: string[] }

/** A node whose path waits on others': its peers', or (`peers` undefined) a provider's on its occurrence's. */
type DepPathFrame = PeersFrame | { node: PeerNode, peers: undefined }

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
  /** Filled occurrences by package id (pnpm's peers cache), and the packages found without peers below them. */
  private readonly cache = new Map<string, PeerNode[]>()
  private readonly pure = new Map<string, PeerNode>()
  /** The occurrences filled (not from the cache) by package id, in the order they were finished. */
  private readonly filledOf = new Map<string, PeerNode[]>()
  /** The providers each occurrence was filled with (pnpm's parentPkgsOfNode). */
  private readonly contextOf = new WeakMap<PeerNode, Context>()
  /** The alias each occurrence is a dependency under (pnpm compares providers by it). */
  private readonly aliasOf = new WeakMap<PeerNode, string>()
  /**
   * The workspace root's dependencies as other projects see them: pnpm has their paths by then, so
   * they are named whole even where they break a cycle among the root's dependencies.
   */
  private readonly settled = new WeakSet<PeerNode>()
  /** Providers hoisted to an importer: each stands for an occurrence in the tree (pnpm: the same node). */
  private readonly hoistedProviders = new WeakSet<PeerNode>()
  private importerSeq = 0
  /** The importer being walked (its index among the resolution's importers). */
  private importerIndex = -1
  private leaveSeq = 0
  /** The peers the filled nodes keep (see `MAX_PEERS_KEPT`). */
  private kept = 0

  constructor (private readonly opts: ResolvePeersOptions) {
    for (const pkg of opts.packages.values()) for (const peer of Object.keys(pkg.peerDependencies)) this.peerNames.add(peer)
  }

  /**
   * Nodes for an importer's direct dependencies; the importer's dependencies provide peers to all
   * below, and before them `inherited` providers (the workspace root's dependencies, pnpm's
   * `resolvePeersFromWorkspaceRoot`).
   */
  resolveImporter (
    edges: readonly Edge[],
    inherited: ReadonlyArray<{ edge: Edge, node: PeerNode }> = [],
    providers: readonly PeerProvider[] = [],
    importerIndex = -1
  ): Map<string, PeerNode> {
    this.importerSeq++
    this.importerIndex = importerIndex
    const importerLevel: ResolvedHere | undefined = this.opts.ownerOf === undefined ? undefined : { childPath: undefined }
    const context = new Map<string, PeerNode>()
    for (const { edge, node } of inherited) {
      this.provide(context, edge, node)
      this.settled.add(node)
    }
    const nodes = edges.map((edge) => ({ edge, node: this.shell(edge.pkgId) }))
    const provided = providers.map((provider) => ({ provider, node: this.shell(provider.pkgId) }))
    for (const { node } of provided) this.hoistedProviders.add(node)
    // The project's own dependencies, and the providers hoisted to it (pnpm makes them its
    // dependencies), over the workspace root's: by alias always, by name over another package only.
    const own = new Map<string, PeerNode>()
    for (const { edge, node } of nodes) this.provide(own, edge, node)
    for (const { provider, node } of provided) this.provide(own, { alias: provider.alias, pkgId: provider.pkgId, optional: true }, node)
    for (const [key, node] of own) {
      const current = context.get(key)
      const byName = this.aliasOf.get(node) !== key
      const samePackage = current !== undefined && this.opts.packages.get(current.pkgId)!.name === this.opts.packages.get(node.pkgId)!.name
      if (!byName || !samePackage) context.set(key, node)
    }
    const out = new Map<string, PeerNode>()
    for (const { edge, node } of nodes) out.set(edge.alias, this.fill(node, context, importerLevel))
    this.breakPeerCycles(nodes)
    // A provider is the very occurrence it was found as below the importer (pnpm hoists that node),
    // so it shares that occurrence's content; filled here only when the tree no longer has it.
    for (const { provider, node } of provided) {
      const found = occurrenceOf(out, provider)
      if (found !== undefined) {
        Object.assign(node, {
          children: found.children,
          ownPeers: found.ownPeers,
          allPeers: found.allPeers,
          missing: found.missing,
          transitivePeerDependencies: found.transitivePeerDependencies,
        })
        node.providerOf = found
        if (found.leftAt !== undefined) node.leftAt = found.leftAt
        if (found.cycleBroken === true) node.cycleBroken = true
      } else {
        this.fill(node, context, importerLevel)
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
    return node
  }

  /**
   * Registers a provider at the importer's level under its alias and its real name (pnpm's
   * parent refs): an alias never displaces an exact-name entry, and of two aliases of one package
   * the higher version provides it.
   */
  private provide (context: Map<string, PeerNode>, edge: Edge, node: PeerNode): void {
    this.aliasOf.set(node, edge.alias)
    for (const key of this.providerKeys(edge)) {
      const current = context.get(key)
      if (current === undefined || this.takesOver(current, key, edge)) context.set(key, node)
    }
  }

  /**
   * A package's dependencies as providers for what is below it, over those inherited from above
   * (pnpm's addChildrenToParentPkgs): first among themselves as at the importer's level, then each
   * replaces the inherited provider of its name unless that is the same package and version under
   * the same alias (pnpm keeps the inherited one), and keeping it does not break a peer diamond below.
   */
  private provideLevel (context: Map<string, PeerNode>, shells: ReadonlyArray<{ edge: Edge, child: PeerNode }>, inherited: Context): void {
    const level = new Map<string, PeerNode>()
    for (const { edge, child } of shells) this.provide(level, edge, child)
    const siblings = shells.map(({ edge }) => edge)
    for (const [key, node] of level) {
      const current = inherited.get(key)
      if (current !== undefined && current !== node && this.sameProvider(current, node) &&
        !this.breaksPeerDiamond(current, this.opts.packages.get(node.pkgId)!, context, siblings)) continue
      context.set(key, node)
    }
  }

  /** The names a dependency provides under: its alias, and its package's name when that is another, each only if some package wants it as a peer. */
  private providerKeys (edge: Edge): string[] {
    const name = this.opts.packages.get(edge.pkgId)!.name
    return (name === edge.alias ? [edge.alias] : [edge.alias, name]).filter((key) => this.peerNames.has(key))
  }

  /** pnpm's updateParentRefs: a provider under `key` gives way unless it has that name exactly, or is an alias of a version at least as high. */
  private takesOver (current: PeerNode, key: string, edge: Edge): boolean {
    if (this.aliasOf.get(current) === key) return false
    if (edge.alias === key) return true
    const currentVersion = this.opts.packages.get(current.pkgId)!.version
    const version = this.opts.packages.get(edge.pkgId)!.version
    return semver.valid(currentVersion) === null || semver.valid(version) === null ? false : semver.lt(currentVersion, version)
  }

  /** pnpm's parentPkgsMatch: the same package and version, under the same alias. */
  private sameProvider (inherited: PeerNode, node: PeerNode): boolean {
    const before = this.opts.packages.get(inherited.pkgId)!
    const now = this.opts.packages.get(node.pkgId)!
    return this.aliasOf.get(inherited) === this.aliasOf.get(node) && before.version === now.version && before.name === now.name
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
   * Fills `node` (a fresh shell) for this context. An occurrence takes the content of one filled
   * before when the peers that one resolved and missed are provided and missing here alike
   * (`findHit`), so a package is walked once per distinct set of providers, not once per path.
   * Depth first, on an explicit stack: a registry makes a chain as deep as it likes. `path` holds
   * the package ids on the stack; `listed`, those pnpm's resolution has above each occurrence (its
   * parentIds: without the occurrences it reached whose packages' dependencies it chose elsewhere).
   */
  private fill (root: PeerNode, context: Context, under: ResolvedHere | undefined): PeerNode {
    const path = new IdStack()
    const listed = new IdStack()
    const stack: FillFrame[] = []
    const enter = (node: PeerNode, context: Context, under: ResolvedHere | undefined): void => {
      node.depth = stack.length
      const frame = this.enter(node, context, path, listed, under)
      if (frame === undefined) return
      if (!frame.cacheable) node.cycleOf = path.placesOf(node.pkgId).map((at) => stack[at]!.node).reverse()
      path.push(node.pkgId)
      stack.push(frame)
    }
    enter(root, context, under)
    while (stack.length > 0) {
      const frame = stack.at(-1)!
      const next = frame.ordered[frame.next++]
      if (next !== undefined) {
        enter(next.child, frame.childContext, frame.resolvedHere)
        continue
      }
      stack.pop()
      path.pop(frame.node.pkgId)
      if (frame.listed) listed.pop(frame.node.pkgId)
      this.leave(frame)
      this.kept += frame.node.allPeers.size + frame.node.missing.size
      const limit = this.opts.maxPeersKept ?? MAX_PEERS_KEPT
      if (this.kept > limit) throw peerGraphTooLarge([...stack.map(({ node }) => node.pkgId), frame.node.pkgId], limit)
    }
    return root
  }

  /**
   * The first half of filling a node: from the cache, or its children's shells in the order pnpm walks
   * them (then `leave`). `under` is the occurrence it is a dependency of, when the resolution chose
   * that one's dependencies there.
   */
  private enter (
    node: PeerNode,
    context: Context,
    path: IdStack,
    listed: IdStack,
    under: ResolvedHere | undefined
  ): FillFrame | undefined {
    const pkgId = node.pkgId
    this.contextOf.set(node, context)
    node.filledIn = this.importerSeq
    const throughCycle = path.has(pkgId)
    const cached = this.findHit(pkgId, context)
    if (cached !== undefined) {
      node.children = cached.children
      node.ownPeers = cached.ownPeers
      node.allPeers = cached.allPeers
      node.missing = cached.missing
      if (cached.filledIn !== undefined) node.filledIn = cached.filledIn
      node.transitivePeerDependencies = cached.transitivePeerDependencies
      node.leftAt = this.leaveSeq++
      return undefined
    }
    const owner = under === undefined ? undefined : this.opts.ownerOf?.(pkgId)
    const ownsHere = owner !== undefined && owner.importerIndex === this.importerIndex && owner.parentPath === under!.childPath
    // An occurrence the resolution reached whose package's dependencies were chosen elsewhere (pnpm's
    // pending node) builds its children from the ids above it without its own, and so does every
    // occurrence below it: the package is not on the list its cycles are read from.
    const pending = under !== undefined && !ownsHere
    if (!pending) listed.push(pkgId)
    // pnpm unrolls a dependency cycle once (parentIdsContainSequence): an edge is dropped only when
    // the list already went from this package to that child (or a package depends on itself).
    const edges = (this.opts.children.get(pkgId) ?? [])
      .filter((edge) => edge.pkgId !== pkgId && !listed.containsSequence(pkgId, edge.pkgId))
    const shells = edges.map((edge) => ({ edge, child: this.shell(edge.pkgId) }))
    // A package without dependencies sees what its parent sees (no copy: a project can have thousands of peers in scope).
    let childContext = context
    if (shells.length > 0) {
      const own = new Map(context)
      this.provideLevel(own, shells, context)
      childContext = own
    }
    // pnpm walks the children already visible as providers first, then the rest.
    const ordered = [...shells.filter(({ edge }) => context.has(edge.alias)), ...shells.filter(({ edge }) => !context.has(edge.alias))]
    const resolvedHere = ownsHere ? { childPath: owner.childPath } : undefined
    return { node, edges, shells, childContext, ordered, next: 0, cacheable: !throughCycle, resolvedHere, listed: !pending }
  }

  /** The second half of filling a node, once its children are filled: what it takes from them, its own peers. */
  private leave ({ node, edges, shells, childContext, cacheable }: FillFrame): void {
    const pkgId = node.pkgId
    const pkg = this.opts.packages.get(pkgId)!
    node.leftAt = this.leaveSeq++
    const filled = this.filledOf.get(pkgId)
    if (filled === undefined) this.filledOf.set(pkgId, [node])
    else filled.push(node)
    this.breakPeerCycles(shells.map(({ edge, child }) => ({ edge, node: child })))
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
    if (!cacheable) return
    if (node.allPeers.size === 0 && node.missing.size === 0) {
      if (!this.pure.has(pkgId)) this.pure.set(pkgId, node)
    } else {
      const entries = this.cache.get(pkgId)
      if (entries === undefined) this.cache.set(pkgId, [node])
      else entries.push(node)
    }
  }

  /**
   * pnpm's peers cache: an occurrence filled before (not through a cycle) whose content serves here,
   * because each peer it resolved has a matching provider here and each peer it missed is missing here
   * too. A package without peers anywhere below it serves everywhere.
   */
  private findHit (pkgId: string, context: Context): PeerNode | undefined {
    const pure = this.pure.get(pkgId)
    if (pure !== undefined) return pure
    return this.cache.get(pkgId)?.find((entry) =>
      [...entry.allPeers].every(([name, provider]) => this.providerMatches(context.get(name), provider)) &&
      [...entry.missing.keys()].every((name) => !context.has(name)))
  }

  /**
   * pnpm's cachedPeerMatches: the same occurrence, or the same package that has no peers, or the same
   * package filled with the same packages as providers (pnpm's parentPackagesMatch).
   */
  private providerMatches (here: PeerNode | undefined, cached: PeerNode): boolean {
    if (here === undefined) return false
    if (here === cached) return true
    if (here.pkgId !== cached.pkgId) return false
    if (this.pure.has(here.pkgId)) return true
    const a = this.contextOf.get(cached)
    const b = this.contextOf.get(here)
    if (a === undefined || b === undefined || a.size !== b.size) return false
    for (const [name, provider] of a) if (b.get(name)?.pkgId !== provider.pkgId) return false
    return true
  }

  /**
   * The node's dependency path, its peer suffix built from its peers' own dependency paths. A peer's
   * path can wait on its own peers' in turn, as deep as the graph goes: the nodes waiting are on an
   * explicit stack, each taking its peers' paths in order.
   */
  depPath (root: PeerNode): string {
    const stack: DepPathFrame[] = []
    let call: PeerNode | undefined = root
    // The path the last call returned; undefined while a frame has just been pushed.
    let value: string | undefined
    for (;;) {
      if (call !== undefined) {
        const node: PeerNode = call
        call = undefined
        value = this.knownDepPath(node)
        if (value === undefined && node.providerOf !== undefined) {
          stack.push({ node, peers: undefined })
          call = node.providerOf
          continue
        }
        if (value === undefined) {
          node.computing = true
          stack.push({ node, peers: [...node.allPeers], ids: [] })
        }
      }
      const frame = stack.at(-1)
      if (frame === undefined) return value!
      if (frame.peers === undefined) {
        // The occurrence's own path; not kept while that is still being computed (a cycle names it bare).
        if (frame.node.providerOf!.depPath !== undefined) frame.node.depPath = value!
        stack.pop()
        continue
      }
      if (value !== undefined) frame.ids.push(value)
      call = this.nextPeer(frame)
      if (call !== undefined) continue
      frame.node.computing = false
      let suffix = frame.ids.sort().join(')(')
      if (suffix.length > this.opts.peersSuffixMaxLength) suffix = createHash('sha256').update(suffix).digest('hex').slice(0, 32)
      value = frame.node.depPath = `${this.withPatch(frame.node.pkgId)}(${suffix})`
      stack.pop()
    }
  }

  /**
   * The occurrence whose dependencies the lockfile lists for `node`'s dependency path: of those
   * filled with that path, the one nearest its importer, then the first finished (pnpm keeps the
   * shallowest node's). They differ only where a cycle cut some dependencies.
   */
  variantSource (node: PeerNode, depPath: string): PeerNode {
    let best = node
    for (const other of this.filledOf.get(node.pkgId) ?? []) {
      if (other === node || other.allPeers.size !== node.allPeers.size) continue
      const nearer = (other.depth ?? 0) - (best.depth ?? 0)
      if (nearer > 0 || (nearer === 0 && (other.leftAt ?? 0) >= (best.leftAt ?? 0))) continue
      if (this.depPath(other) === depPath) best = other
    }
    return best
  }

  /** The node's dependency path when it needs no peer's path computed (undefined when it does, or it is a provider). */
  private knownDepPath (node: PeerNode): string | undefined {
    if (node.depPath !== undefined) return node.depPath
    if (node.providerOf !== undefined) return undefined
    if (node.allPeers.size === 0) return (node.depPath = this.withPatch(node.pkgId))
    // Peers that wait on each other (a cycle) are named without their own suffixes.
    if (node.computing === true) return this.withPatch(node.pkgId)
    return undefined
  }

  /** Takes the frame's peers in order, naming those that need no path computed; returns the next one whose path is needed. */
  private nextPeer (frame: PeersFrame): PeerNode | undefined {
    const node = frame.node
    while (frame.ids.length < frame.peers.length) {
      const [name, peer] = frame.peers[frame.ids.length]!
      // A linked project as a peer: its name and its path from the lockfile's directory (pnpm's `@scope/a@packages+a`).
      if (this.opts.packages.get(peer.pkgId)!.link === true) frame.ids.push(`${name}@${peer.pkgId.slice('link:'.length).replaceAll('/', '+')}`)
      else if (this.opts.dedupePeers === true) frame.ids.push(`${name}@${this.opts.packages.get(peer.pkgId)!.version}`)
      else if (peer.cycleBroken === true && !(this.settled.has(peer) && (node.filledIn ?? 0) > (peer.filledIn ?? 0))) {
        frame.ids.push(this.withPatch(peer.pkgId))
      } else return peer
    }
    return undefined
  }

  /**
   * Marks siblings in a cycle (`markPeerCycles`). A peer of a sibling under an alias in such a cycle
   * that the walk has not reached yet (a dependency of the importer walked after this tree) is named
   * bare here, and pnpm then has that bare name as its path for all still waiting on it.
   */
  private breakPeerCycles (siblings: ReadonlyArray<{ edge: Edge, node: PeerNode }>): void {
    const named = siblings.map(({ edge, node }) => ({ alias: edge.alias, name: this.opts.packages.get(edge.pkgId)!.name, node }))
    const cyclic = markPeerCycles(named)
    if (cyclic.size === 0) return
    for (const { node } of siblings) {
      for (const [alias, peer] of node.allPeers) {
        if (cyclic.has(alias) && peer.leftAt === undefined && !this.hoistedProviders.has(peer)) peer.cycleBroken = true
      }
    }
  }

  /** `name@1.0.0(patch_hash=…)` for a patched package (pnpm's id with patch hash), else the id. */
  private withPatch (pkgId: string): string {
    if (this.opts.patchHashOf === undefined) return pkgId
    // Patches are keyed by the manifest's version (a git package's id has its URL instead).
    const pkg = this.opts.packages.get(pkgId)
    const version = pkg === undefined ? undefined : typeof pkg.lockfileFields.version === 'string' ? pkg.lockfileFields.version : pkg.version
    const hash = this.opts.patchHashOf(pkg === undefined ? pkgId : `${pkg.name}@${version!}`)
    return hash === undefined ? pkgId : `${pkgId}(patch_hash=${hash})`
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

/**
 * Marks siblings that resolve each other as peers, directly or through other siblings: pnpm's
 * graph of sibling alias → aliases of the peers it resolved from above, and its cycles. Returns
 * the aliases in cycles.
 */
function markPeerCycles (siblings: Array<{ alias: string, name: string, node: PeerNode }>): ReadonlySet<string> {
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
  if (edges.size < 2) return new Set()
  // A sibling reaches itself when its component has others in it, or it names itself.
  const keys = [...edges.keys()]
  const indexOf = new Map(keys.map((key, index) => [key, index]))
  const adjacency = keys.map((key) => [...new Set(edges.get(key)!.flatMap((peer) => indexOf.get(peer) ?? []))])
  const { componentOf, count } = stronglyConnected(adjacency)
  const sizes = new Array<number>(count).fill(0)
  for (const component of componentOf) sizes[component]!++
  const cyclic = new Set<string>()
  keys.forEach((key, index) => {
    if (sizes[componentOf[index]!]! === 1 && !adjacency[index]!.includes(index)) return
    cyclic.add(key)
    for (const node of nodesByKey.get(key)!) node.cycleBroken = true
  })
  return cyclic
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
