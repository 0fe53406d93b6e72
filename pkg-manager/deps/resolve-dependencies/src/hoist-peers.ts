import fs from 'node:fs'
import path from 'node:path'

import type { DependencyGroup } from '@lode/core.constants'
import { DEPENDENCY_GROUPS } from '@lode/core.constants'
import { splitNameAt } from '@lode/core.dep-path'
import { hasErrno } from '@lode/core.error'
import { parsePackageJson } from '@lode/fs.package-json'
import type { Lockfile } from '@lode/pkg-manager.lockfile.format'
import semver from 'semver'

import type { ResolveDependenciesOptions } from './options.js'
import { peerVersionRange } from './peer-range.js'
import { intersectRanges } from './range-intersection.js'
import { resolutionPeerViews } from './resolution-peers.js'
import type { UnresolvedPeer } from './resolution-peers.js'
import type { MissingPeer, PeerNode, PeerProvider } from './resolve-peers.js'
import type { Scope, TreeResolver, WantedDependency } from './resolve-tree.js'
import { safeSpec } from './safe-spec.js'
import type { Edge, ResolvedPackage } from './types.js'

/** An importer's direct dependencies, and the edges the tree resolver gives them. */
export interface DirectDependencies {
  importerIndex: number
  wanted: WantedDependency[]
  groups: DependencyGroup[]
  scope: Scope
  edges: Edge[]
  /** Hoisted peers (auto-installed), resolved as direct dependencies pnpm does not list. */
  hidden: Edge[]
}

/**
 * Peers hoisted to the importers, as pnpm does, from what it knew of peers while it resolved
 * (resolution-peers.ts), round by round over what the last round added: missing required peers
 * are resolved as hidden direct dependencies (autoInstallPeers), and a peer a package below found
 * among an ancestor's dependencies becomes a provider for the importer's whole tree; once no
 * required peer is missing, the optional peers found missing meanwhile get the highest version
 * already in the graph as hidden optional dependencies. A hoisted dependency whose name is taken
 * already is resolved (its subtree is looked at) but not used: pnpm keeps the first of an alias.
 * Adds to each importer's `hidden`; returns the providers, and the `name@version` of each required
 * peer hoisted at the version the lockfile gave it. One loop over shared per-importer state, kept
 * whole so that a round reads top to bottom.
 */
export async function hoistPeers (
  opts: ResolveDependenciesOptions,
  tree: TreeResolver,
  direct: DirectDependencies[],
  unpinned: ReadonlySet<string>
): Promise<{ providers: PeerProvider[][], pinnedPeers: Set<string> }> {
  const lockedPeers = opts.importers.map((importer) => peersLockedBy(opts.lockfile, importer.id))
  /** `name@version` of each required peer hoisted at the version the lockfile gave it. */
  const pinnedPeers = new Set<string>()
  const providers: PeerProvider[][] = direct.map(() => [])
  // pnpm hoists peers only with autoInstallPeers or dedupePeerDependents (its hoistPeers).
  if (!opts.autoInstallPeers && !opts.dedupePeerDependents) return { providers, pinnedPeers }
  const shadowed: Edge[][] = direct.map(() => [])
  const missingOptionalPeers = direct.map(() => new Map<string, string[]>())
  let pending: Edge[][] = direct.map((importer) => importer.edges)
  // What the importer had when the pending dependencies were resolved: peers missing below them are
  // checked against that (pnpm marks a round's additions and providers after it resolved them).
  let known: Array<Set<string>> = direct.map((importer) => new Set(importer.edges.map((edge) => edge.alias)))
  const workspaceRoot = opts.importers.findIndex((importer) => importer.id === '.')
  const rootDeps = workspaceRoot === -1 ? [] : rootPeerProviders(direct[workspaceRoot]!.wanted, opts.importers[workspaceRoot]!.dir)
  for (let round = 0; round <= 20; round++) {
    const topAliases = direct.map((importer, i) => new Set([...importer.edges, ...importer.hidden, ...shadowed[i]!, ...providers[i]!]
      .map((edge) => edge.alias)))
    const knownNext = topAliases.map((aliases) => new Set(aliases))
    const views = resolutionPeerViews({
      importerIds: opts.importers.map((importer) => importer.id),
      edges: direct.map((importer, i) => round === 0 ? importer.edges : [...importer.edges, ...importer.hidden, ...shadowed[i]!]),
      pending,
      topAliases,
      ...round === 0 ? {} : { knownAliases: known },
      children: tree.children,
      packages: tree.packages,
    })
    const candidates = peerCandidates(tree.packages, opts.lockfile)
    let extra: WantedDependency[][] = direct.map(() => [])
    direct.forEach((_, i) => {
      const atTop = topAliases[i]!
      const required = [...views[i]!.missing].filter(([name, peer]) => !peer.optional && !known[i]!.has(name))
      for (const [name] of required) knownNext[i]!.add(name)
      for (const [name, peer] of views[i]!.missing) {
        if (!peer.optional || known[i]!.has(name)) continue
        const ranges = missingOptionalPeers[i]!.get(name)
        if (ranges === undefined) missingOptionalPeers[i]!.set(name, [...peer.ranges])
        else for (const range of peer.ranges) if (!ranges.includes(range)) ranges.push(range)
      }
      // Without autoInstallPeers, a missing required peer is hoisted only at a version this resolution reached.
      if (!opts.autoInstallPeers) {
        extra[i] = missingRequiredFromGraph(required, candidates, rootDeps)
        return
      }
      for (const [name, provider] of views[i]!.resolved) {
        if (atTop.has(name) || required.some(([peer]) => peer === name)) continue
        providers[i]!.push(provider)
        atTop.add(name)
      }
      extra[i] = missingRequired(required, candidates, lockedPeers[i]!, rootDeps, unpinned, pinnedPeers)
    })
    if (extra.every((list) => list.length === 0)) {
      // The workspace root's first; the others then see the root's direct dependencies as provided too.
      const versionsOf = (i: number): Map<string, string> => directVersions(
        [...direct[i]!.edges, ...direct[i]!.hidden, ...providers[i]!],
        tree.packages
      )
      const pick = (i: number, provided: ReadonlyMap<string, string>): WantedDependency[] => missingOptional(missingOptionalPeers[i]!, {
        candidates,
        locked: lockedPeers[i]!,
        rootDeps,
        accepts: (name, version) => peersAccept(tree.packages.get(`${name}@${version}`)?.peerDependencies, provided),
      })
      extra = direct.map(() => [])
      let rootVersions = new Map<string, string>()
      if (workspaceRoot !== -1) {
        extra[workspaceRoot] = pick(workspaceRoot, versionsOf(workspaceRoot))
        rootVersions = versionsOf(workspaceRoot)
        for (const wanted of extra[workspaceRoot]) if (!rootVersions.has(wanted.alias)) rootVersions.set(wanted.alias, wanted.bareSpecifier)
      }
      direct.forEach((_, i) => { if (i !== workspaceRoot) extra[i] = pick(i, new Map([...rootVersions, ...versionsOf(i)])) })
      for (const list of missingOptionalPeers) list.clear()
    }
    if (extra.every((list) => list.length === 0)) break
    const fresh = direct.map((importer, i) => ({
      importerIndex: importer.importerIndex,
      wanted: extra[i]!,
      scope: importer.scope,
      edges: [] as Edge[],
      known: knownNext[i]!,
    }))
    await tree.resolve(fresh)
    known = knownNext
    pending = fresh.map((entry, i) => {
      for (const edge of entry.edges) (topAliases[i]!.has(edge.alias) ? shadowed[i]! : direct[i]!.hidden).push(edge)
      return entry.edges
    })
  }
  return { providers, pinnedPeers }
}

/**
 * Versions a hoisted peer may take, as pnpm's preferred versions: those resolved in this graph
 * first, then those only the lockfile has.
 */
export interface PeerCandidates { resolved: Map<string, string[]>, lockfileOnly: Map<string, string[]> }

export function peerCandidates (packages: ReadonlyMap<string, ResolvedPackage>, lockfile: Lockfile | undefined): PeerCandidates {
  const add = (into: Map<string, string[]>, name: string, version: string): void => {
    const versions = into.get(name)
    if (versions === undefined) into.set(name, [version])
    else if (!versions.includes(version)) versions.push(version)
  }
  const resolved = new Map<string, string[]>()
  for (const pkg of packages.values()) if (semver.valid(pkg.version) !== null) add(resolved, pkg.name, pkg.version)
  const lockfileOnly = new Map<string, string[]>()
  for (const pkgId of Object.keys(lockfile?.packages ?? {})) {
    const { name, rest: version = '' } = splitNameAt(pkgId)
    if (semver.valid(version) !== null && resolved.get(name)?.includes(version) !== true) add(lockfileOnly, name, version)
  }
  return { resolved, lockfileOnly }
}

/**
 * Peer versions the importer's locked dependencies were resolved with (`1.0.0(peer@2.0.0)`, nested
 * ones too), by name, in the order met; every package's for an importer the lockfile does not list.
 */
export function peersLockedBy (lockfile: Lockfile | undefined, importerId: string): Map<string, Set<string>> {
  const locked = new Map<string, Set<string>>()
  const importer = lockfile?.importers[importerId]
  const keys = importer === undefined
    ? Object.keys(lockfile?.snapshots ?? {})
    : DEPENDENCY_GROUPS.flatMap((group) => Object.values(importer[group] ?? {}).map(({ version }) => version))
  for (const key of keys) {
    for (const [, name, peerVersion] of key.matchAll(/\(((?:@[^()/@]+\/)?[^()@]+)@([^()]+)\)/g)) {
      if (semver.valid(peerVersion) === null) continue
      let versions = locked.get(name!)
      if (versions === undefined) locked.set(name!, versions = new Set())
      versions.add(peerVersion!)
    }
  }
  return locked
}

/**
 * The highest version that `qualifies`, as pnpm picks a hoisted peer's: an optional peer's from the
 * versions the lockfile gave the importer that this resolution reached, then from those it
 * reached, then from the locked ones; a required peer's from those reached; then from all known.
 */
function pickCandidate (
  candidates: PeerCandidates,
  name: string,
  qualifies: (version: string) => boolean,
  locked?: ReadonlySet<string>
): string | undefined {
  const highest = (versions: Iterable<string>): string | undefined => [...versions].filter(qualifies).sort(semver.rcompare)[0]
  const resolved = candidates.resolved.get(name) ?? []
  const tiers = locked === undefined ? [resolved] : [resolved.filter((version) => locked.has(version)), resolved, locked]
  for (const tier of tiers) {
    const picked = highest(tier)
    if (picked !== undefined) return picked
  }
  return highest([...resolved, ...candidates.lockfileOnly.get(name) ?? []])
}

/** Missing required peers at an importer's top (not provided, not hoisted), by name, in name order: the issues pnpm reports. */
export function missingAtTop (roots: Map<string, PeerNode>, hidden: readonly Edge[]): Array<[string, MissingPeer]> {
  const missing = new Map<string, MissingPeer>()
  for (const node of roots.values()) {
    // A hoisted provider's own missing peers are its occurrence's below, counted there.
    if (node.providerOf !== undefined) continue
    for (const [name, peer] of node.missing) {
      if (peer.optional || roots.has(name) || hidden.some((edge) => edge.alias === name)) continue
      const current = missing.get(name)
      if (current === undefined) missing.set(name, { ...peer, wantedBy: new Map(peer.wantedBy) })
      else for (const [range, by] of peer.wantedBy) current.wantedBy.set(range, [...(current.wantedBy.get(range) ?? []), ...by])
    }
  }
  return [...missing].sort((a, b) => a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0)
}

/**
 * Missing required peers as wanted dependencies: what the workspace root's package.json asks for
 * the name, else a version already known that satisfies every range, else the ranges.
 */
export function missingRequired (
  missing: ReadonlyArray<[string, UnresolvedPeer]>,
  candidates: PeerCandidates,
  lockedPeers: ReadonlyMap<string, ReadonlySet<string>>,
  rootDeps: readonly WantedDependency[],
  unpinned: ReadonlySet<string>,
  pinned: Set<string>
): WantedDependency[] {
  const wanted: WantedDependency[] = []
  for (const [name, { ranges }] of [...missing].sort((a, b) => a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0)) {
    const rootDep = rootDepOf(rootDeps, name)
    if (rootDep !== undefined) {
      const locked = lockedPeers.get(name)?.values().next().value
      wanted.push({
        alias: name,
        bareSpecifier: rootDep.bareSpecifier,
        optional: false,
        hoisted: true,
        ...locked === undefined ? {} : { lockedVersion: locked },
      })
      continue
    }
    const qualifies = (version: string): boolean => ranges.every((range) =>
      semver.satisfies(version, range, { loose: true, includePrerelease: true }))
    const locked = unpinned.has(name)
      ? undefined
      : [...lockedPeers.get(name) ?? []].find((version) => qualifies(version) && candidates.resolved.get(name)?.includes(version) === true)
    if (locked !== undefined) pinned.add(`${name}@${locked}`)
    const existing = locked ?? pickCandidate(candidates, name, qualifies)
    if (existing !== undefined) {
      wanted.push({ alias: name, bareSpecifier: existing, optional: false, lockedVersion: existing, hoisted: true })
      continue
    }
    // As pnpm: the ranges' intersection, and no peer hoisted when they have none in common.
    const range = ranges.length === 1 ? ranges[0]! : intersectRanges(ranges)
    if (range === undefined || semver.validRange(range, { loose: true }) === null) continue
    wanted.push({ alias: name, bareSpecifier: range, optional: false, hoisted: true })
  }
  return wanted
}

/**
 * Missing required peers as pnpm hoists them without autoInstallPeers (dedupePeerDependents on):
 * the workspace root's dependency on it, else the highest version the resolution reached that every
 * range takes; none, and the peer stays missing.
 */
function missingRequiredFromGraph (
  missing: ReadonlyArray<[string, UnresolvedPeer]>,
  candidates: PeerCandidates,
  rootDeps: readonly WantedDependency[]
): WantedDependency[] {
  return [...missing].sort((a, b) => a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0).flatMap(([name, { ranges }]): WantedDependency[] => {
    const rootDep = rootDepOf(rootDeps, name)
    if (rootDep !== undefined) return [{ alias: name, bareSpecifier: rootDep.bareSpecifier, optional: false, hoisted: true }]
    const version = (candidates.resolved.get(name) ?? [])
      .filter((v) => ranges.every((range) => semver.satisfies(v, range, { loose: true, includePrerelease: true })))
      .sort(semver.rcompare)[0]
    return version === undefined ? [] : [{ alias: name, bareSpecifier: version, optional: false, lockedVersion: version, hoisted: true }]
  })
}

interface OptionalPeerChoice {
  candidates: PeerCandidates
  locked: ReadonlyMap<string, ReadonlySet<string>>
  /** The workspace root's dependencies as wanted: a peer the root depends on keeps to the root's range. */
  rootDeps: readonly WantedDependency[]
  /** Whether a candidate's own peers accept the versions the importer already has (pnpm's peersAcceptProvidedVersions). */
  accepts: (name: string, version: string) => boolean
}

/** Optional peers found missing that a version already in the graph (or lockfile) satisfies, as hidden optional dependencies. */
export function missingOptional (missing: ReadonlyMap<string, readonly string[]>, choice: OptionalPeerChoice): WantedDependency[] {
  const wanted: WantedDependency[] = []
  for (const [name, ranges] of [...missing].sort((a, b) => a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0)) {
    const rootRange = rootRangeOf(choice.rootDeps, name, ranges)
    const qualifies = (v: string): boolean => (rootRange === undefined || semver.satisfies(v, rootRange))
      && ranges.every((range) => semver.satisfies(v, range))
      && choice.accepts(name, v)
    const version = pickCandidate(choice.candidates, name, qualifies, choice.locked.get(name))
    if (version !== undefined) wanted.push({ alias: name, bareSpecifier: version, optional: true, lockedVersion: version, hoisted: true })
  }
  return wanted
}

/**
 * The range of the workspace root's dependency on `name` (by alias, else by the package an alias
 * names, the lowest alias), when it is a range that meets every wanted range: pnpm's getRootRange.
 */
function rootRangeOf (rootDeps: readonly WantedDependency[], name: string, ranges: readonly string[]): string | undefined {
  const dep = rootDepOf(rootDeps, name)
  if (dep === undefined) return undefined
  const range = semver.validRange(peerVersionRange(dep.bareSpecifier))
  if (range === null) return undefined
  return ranges.every((wanted) => semver.validRange(wanted) !== null && semver.intersects(range, wanted)) ? range : undefined
}

/**
 * The workspace root's dependencies as they provide peers to the other projects, as pnpm's: a
 * `link:` one by the version its package.json gives (resolved from the registry where a project
 * needs it), left out when it gives none (the peer is then found as any other).
 */
function rootPeerProviders (wanted: readonly WantedDependency[], rootDir: string): WantedDependency[] {
  return wanted.flatMap((dep) => {
    if (!dep.bareSpecifier.startsWith('link:')) return [dep]
    const file = path.join(path.resolve(rootDir, dep.bareSpecifier.slice('link:'.length)), 'package.json')
    let text: string
    try {
      text = fs.readFileSync(file, 'utf8')
    } catch (err) {
      if (hasErrno(err, 'ENOENT') || hasErrno(err, 'ENOTDIR')) return []
      throw err
    }
    const version = parsePackageJson(text, file)['version']
    return typeof version === 'string' && semver.valid(version) !== null ? [{ ...dep, bareSpecifier: version }] : []
  })
}

/** The workspace root's dependency on `name`: by alias, else the lowest alias of that package (pnpm's findWorkspaceRootDep). */
function rootDepOf (rootDeps: readonly WantedDependency[], name: string): WantedDependency | undefined {
  const aliased = (dep: WantedDependency): string | undefined => {
    const spec = dep.bareSpecifier.startsWith('npm:') ? safeSpec(dep.alias, dep.bareSpecifier) : undefined
    return spec?.kind === 'registry' ? spec.name : undefined
  }
  return rootDeps.find((candidate) => candidate.alias === name) ??
    rootDeps.filter((candidate) => aliased(candidate) === name).sort((a, b) => a.alias < b.alias ? -1 : a.alias > b.alias ? 1 : 0)[0]
}

/** Each direct dependency's version by alias (the first of an alias), then by the package's own name. */
function directVersions (
  edges: ReadonlyArray<{ alias: string, pkgId: string }>,
  packages: ReadonlyMap<string, ResolvedPackage>
): Map<string, string> {
  const versions = new Map<string, string>()
  for (const edge of edges) {
    const version = packages.get(edge.pkgId)?.version
    if (version !== undefined && !versions.has(edge.alias)) versions.set(edge.alias, version)
  }
  for (const edge of edges) {
    const pkg = packages.get(edge.pkgId)
    if (pkg !== undefined && pkg.name !== edge.alias && !versions.has(pkg.name)) versions.set(pkg.name, pkg.version)
  }
  return versions
}

/** A candidate's own peer ranges take every version the importer already provides for them. */
function peersAccept (peerDependencies: Readonly<Record<string, string>> | undefined, provided: ReadonlyMap<string, string>): boolean {
  for (const [peer, range] of Object.entries(peerDependencies ?? {})) {
    const version = provided.get(peer)
    if (version !== undefined && !semver.satisfies(version, peerVersionRange(range), { includePrerelease: true, loose: true })) return false
  }
  return true
}
