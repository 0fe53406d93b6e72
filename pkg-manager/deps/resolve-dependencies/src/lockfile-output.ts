import path from 'node:path'

import type { DependencyGroup } from '@lode/core.constants'
import { LOCKFILE_VERSION } from '@lode/core.constants'
import { withoutPeersSuffix } from '@lode/core.dep-path'
import { own } from '@lode/core.safe-name'
import type { Lockfile, PackageInfo, ProjectSnapshot, SnapshotInfo } from '@lode/pkg-manager.lockfile.format'

import { catalogName } from './catalogs.js'
import { dedupeInjectedDeps } from './dedupe-injected-deps.js'
import { dedupePeerDependents } from './dedupe-peer-dependents.js'
import type { VariantNode } from './dedupe-peer-dependents.js'
import { hoistedPeersOf } from './hoisted-peers.js'
import type { HoistedPeer, HoistedPeerCandidate } from './hoisted-peers.js'
import { dependenciesMetaOf } from './importer-dependencies.js'
import { lockedVersionOf } from './lockfile-pins.js'
import type { ResolveDependenciesOptions, ResolveDependenciesResult } from './options.js'
import { publishConfigOf } from './publish-config.js'
import { occurrenceOf } from './resolve-peers.js'
import type { PeerNode, PeerProvider , PeerResolver} from './resolve-peers.js'
import type { WantedDependency } from './resolve-tree.js'
import type { Edge, Importer, ResolvedPackage } from './types.js'

export interface ToLockfileInput {
  importers: readonly Importer[]
  direct: Array<{ wanted: WantedDependency[], groups: DependencyGroup[], edges: Edge[], hidden: Edge[] }>
  /** Peers found above a package that are hoisted to each importer as providers. */
  providers: readonly PeerProvider[][]
  roots: Array<Map<string, PeerNode>>
  peers: PeerResolver
  packages: ReadonlyMap<string, ResolvedPackage>
  lockfile: Lockfile | undefined
  autoInstallPeers: boolean
  peersSuffixMaxLength: number
  settings: ResolveDependenciesOptions['lockfileSettings']
  dedupePeerDependents: boolean
  dedupeInjectedDeps: boolean
  dedupePeers: boolean
  injectWorkspacePackages: boolean
}

/** A variant in the lockfile graph: its dependencies and own peers (alias → dependency path, optional). */
interface Variant extends VariantNode {
  deps: Map<string, { depPath: string, optional: boolean }>
  peers: Map<string, { depPath: string, optional: boolean }>
  transitivePeerDependencies: string[]
}

/**
 * The lockfile pnpm writes for this resolution (importers, packages, snapshots, catalogs, settings),
 * and the peers hoisted to each importer that it does not list.
 */
export function toLockfile (input: ToLockfileInput): { lockfile: Lockfile, hoistedPeers: ResolveDependenciesResult['hoistedPeers'] } {
  const { packages } = input
  const { graph, variantsOf, importerEdges } = variantGraph(input)
  // Copies of workspace projects that would see what the project sees are linked instead (before peer variants merge, as pnpm).
  const injectedLinks = !input.dedupeInjectedDeps ? input.importers.map(() => new Map<string, string>()) : dedupeInjectedDeps({
    graph,
    importers: input.importers,
    edges: importerEdges.map(({ direct, hidden }) => new Map([...direct, ...hidden].map(({ edge, depPath }) => [edge.alias, depPath]))),
    directoryOf: (pkgId) => {
      const resolution = packages.get(pkgId)?.resolution
      return resolution !== undefined && 'directory' in resolution && typeof resolution.directory === 'string' && pkgId.includes('@file:') ? resolution.directory : undefined
    },
  })
  const collapsed = input.dedupePeerDependents ? dedupePeerDependents(graph, [...variantsOf.values()]) : new Map<string, string>()
  const final = (depPath: string): string => collapsed.get(depPath) ?? depPath
  // A link is written relative to the importer that depends on it, and to the lockfile's directory below.
  const ref = (alias: string, depPath: string, importerDir?: string): string => {
    const variant = graph.get(depPath)
    if (variant === undefined) {
      const linked = packages.get(depPath)
      return importerDir === undefined || linked?.link !== true || linked.dir === undefined ? depPath : `link:${path.relative(importerDir, linked.dir).split(path.sep).join('/')}`
    }
    const name = packages.get(variant.pkgId)!.name
    return name === alias ? depPath.slice(name.length + 1) : depPath
  }
  // What the importers reach after deduplication, as pnpm's lockfile pruner walks it: from the
  // dependencies each importer lists, through every variant's dependencies and resolved peers; a
  // variant reached only through optional ones (optional dependencies, optional peers) is optional.
  // What was hoisted to an importer unlisted counts only where something reaches it.
  // Depth first on an explicit stack (a chain is as deep as the registry makes it), in the order a recursive walk takes.
  const reached = new Map<string, boolean>()
  const visit = (from: string, fromOptional: boolean): void => {
    const stack: Array<{ edges: Iterator<{ depPath: string, optional: boolean }>, optional: boolean }> = []
    const enter = (depPath: string, optional: boolean): void => {
      const variant = graph.get(depPath)
      if (variant === undefined) return
      const nonOptional = reached.get(depPath)
      if (nonOptional !== undefined && (nonOptional || optional)) return
      reached.set(depPath, !optional)
      stack.push({ edges: [...variant.deps.values(), ...variant.peers.values()].values(), optional })
    }
    enter(from, fromOptional)
    while (stack.length > 0) {
      const frame = stack.at(-1)!
      const edge = frame.edges.next()
      if (edge.done === true) stack.pop()
      else enter(final(edge.value.depPath), frame.optional || edge.value.optional)
    }
  }
  const importers: Record<string, ProjectSnapshot> = {}
  const catalogs: NonNullable<Lockfile['catalogs']> = {}
  input.direct.forEach((importer, i) => {
    const project: ProjectSnapshot = {}
    for (const { edge, depPath } of importerEdges[i]!.direct) {
      const index = importer.wanted.findIndex((w) => w.alias === edge.alias)
      const group = importer.groups[index]!
      const wanted = importer.wanted[index]!
      const linkedTo = injectedLinks[i]!.get(edge.alias)
      const version = linkedTo === undefined ? ref(edge.alias, final(depPath), input.importers[i]!.dir) : `link:${path.relative(input.importers[i]!.dir, linkedTo).split(path.sep).join('/')}`
      ;(project[group] ??= {})[edge.alias] = { specifier: wanted.written ?? wanted.bareSpecifier, version }
      if (wanted.written !== undefined) {
        const catalog = catalogName(wanted.written)
        // The catalogs section names the version alone: without the importer's peer suffix, nor an `npm:` alias's name.
        const bare = lockedVersionOf(version) ?? withoutPeersSuffix(version)
        ;((catalogs[catalog] ??= {})[edge.alias] = { specifier: wanted.bareSpecifier, version: bare })
      }
      if (linkedTo === undefined) visit(final(depPath), edge.optional)
    }
    const meta = dependenciesMetaOf(input.importers[i]!.manifest)
    if (meta !== undefined && Object.keys(meta).length > 0) project.dependenciesMeta = meta
    const publish = publishConfigOf(input.importers[i]!.manifest)
    if (publish.linkDirectory === false) project['linkDirectory'] = false
    if (publish.directory !== undefined) project.publishDirectory = publish.directory
    importers[input.importers[i]!.id] = project
  })
  const packagesSection: Record<string, PackageInfo> = {}
  const snapshotsSection: Record<string, SnapshotInfo> = {}
  for (const [depPath, nonOptional] of reached) {
    const variant = graph.get(depPath)!
    const pkg = packages.get(variant.pkgId)!
    packagesSection[pkg.id] ??= packageEntry(pkg, depPath)
    const snapshot: SnapshotInfo = {}
    for (const [alias, edge] of [...variant.deps, ...variant.peers]) {
      ;(snapshot[edge.optional ? 'optionalDependencies' : 'dependencies'] ??= {})[alias] = ref(alias, final(edge.depPath))
    }
    if (variant.transitivePeerDependencies.length > 0) snapshot.transitivePeerDependencies = variant.transitivePeerDependencies
    if (!nonOptional) snapshot.optional = true
    snapshotsSection[depPath] = snapshot
  }
  const linkedDir = (pkgId: string): string | undefined => {
    const pkg = packages.get(pkgId)
    return pkg?.link === true ? pkg.dir : undefined
  }
  const inLockfile = (depPath: string | undefined): string | undefined => {
    const at = depPath === undefined ? undefined : final(depPath)
    return at !== undefined && snapshotsSection[at] !== undefined ? at : undefined
  }
  const hoistedPeers: Record<string, HoistedPeer[]> = {}
  input.direct.forEach((importer, i) => {
    const candidates: HoistedPeerCandidate[] = [
      ...importerEdges[i]!.hidden.map(({ edge, depPath }) => ({
        alias: edge.alias,
        dir: injectedLinks[i]!.get(edge.alias) ?? linkedDir(edge.pkgId),
        depPath: inLockfile(depPath),
      })),
      ...input.providers[i]!.map((provider) => {
        const node = occurrenceOf(input.roots[i]!, provider)
        const depPath = node === undefined ? undefined : inLockfile(input.peers.depPath(node))
        return { alias: provider.alias, dir: linkedDir(provider.pkgId), depPath }
      }),
    ]
    const peers = hoistedPeersOf(candidates, new Set(importer.edges.map((edge) => edge.alias)))
    if (peers.length > 0) hoistedPeers[input.importers[i]!.id] = peers
  })
  return { lockfile: lockfileWith(input, { importers, packages: packagesSection, snapshots: snapshotsSection }, catalogs), hoistedPeers }
}

/**
 * A package's entry under `packages:`, from the first of its dependency paths reached. pnpm records
 * `version` when that path says no plain version: a URL or `file:` in its key or in its peers'
 * suffix (a peer from GitHub), except for a directory.
 */
function packageEntry (pkg: ResolvedPackage, depPath: string): PackageInfo {
  const { version, ...fields } = pkg.lockfileFields
  if (!depPath.slice(1).includes(':') || 'directory' in pkg.resolution) return { resolution: pkg.resolution, ...fields }
  // A key with a URL has its manifest's version recorded already; a registry package's key names it.
  return { resolution: pkg.resolution, version: typeof version === 'string' ? version : pkg.version, ...fields }
}

/** The graph of package variants by dependency path, reached from the importers, and each importer's edges into it. */
function variantGraph (input: ToLockfileInput): {
  graph: Map<string, Variant>
  variantsOf: Map<string, Set<string>>
  importerEdges: Array<{ direct: Array<{ edge: Edge, depPath: string }>, hidden: Array<{ edge: Edge, depPath: string }> }>
} {
  const { peers, packages } = input
  const graph = new Map<string, Variant>()
  const variantsOf = new Map<string, Set<string>>()
  // Each node's variant, then its dependencies' and peers' in order, depth first on an explicit stack
  // (a chain is as deep as the registry makes it): the order variants are met is the order a recursive walk meets them.
  interface Frame { variant: Variant, edges: Iterator<{ into: Variant['deps'], alias: string, node: PeerNode, optional: boolean }> }
  const add = (root: PeerNode): string => {
    const stack: Frame[] = []
    const enter = (node: PeerNode): string => {
      const depPath = peers.depPath(node)
      const pkg = packages.get(node.pkgId)!
      if (pkg.link === true || graph.has(depPath)) return depPath
      const variant: Variant = {
        pkgId: node.pkgId,
        children: new Map(),
        peerNames: new Set(node.allPeers.keys()),
        deps: new Map(),
        peers: new Map(),
        transitivePeerDependencies: node.transitivePeerDependencies,
      }
      graph.set(depPath, variant)
      const siblings = variantsOf.get(node.pkgId)
      if (siblings === undefined) variantsOf.set(node.pkgId, new Set([depPath]))
      else siblings.add(depPath)
      const source = peers.variantSource(node, depPath)
      const edges = [
        ...[...dependenciesOf(source)].map(([alias, { node: child, optional }]) => ({ into: variant.deps, alias, node: child, optional })),
        ...[...source.ownPeers].map(([peer, provider]) => ({
          into: variant.peers,
          alias: peer,
          node: provider,
          optional: own(pkg.peerDependenciesMeta, peer)?.optional === true,
        })),
      ]
      stack.push({ variant, edges: edges.values() })
      return depPath
    }
    const depPath = enter(root)
    while (stack.length > 0) {
      const frame = stack.at(-1)!
      const edge = frame.edges.next()
      if (edge.done !== true) {
        const { into, alias, node, optional } = edge.value
        into.set(alias, { depPath: enter(node), optional })
        continue
      }
      stack.pop()
      const { variant } = frame
      for (const [alias, { depPath: child }] of [...variant.deps, ...variant.peers]) variant.children.set(alias, child)
    }
    return depPath
  }
  const importerEdges = input.direct.map((importer, i) => {
    const roots = input.roots[i]!
    return {
      direct: importer.edges.map((edge) => ({ edge, depPath: add(roots.get(edge.alias)!) })),
      hidden: importer.hidden.map((edge) => ({ edge, depPath: add(roots.get(edge.alias)!) })),
    }
  })
  return { graph, variantsOf, importerEdges }
}

/**
 * The dependencies the lockfile lists for an occurrence: reached through a cycle, those of the
 * occurrences of its package above it too (a farther one's over a nearer one's, its own over all), as pnpm lists them.
 */
function dependenciesOf (node: PeerNode): PeerNode['children'] {
  if (node.cycleOf === undefined) return node.children
  const merged: PeerNode['children'] = new Map()
  for (const above of node.cycleOf) for (const [alias, child] of above.children) merged.set(alias, child)
  for (const [alias, child] of node.children) merged.set(alias, child)
  return merged
}

/** The lockfile of these sections, with its settings and the sections recording what it was resolved with (in pnpm's order); those not in force go. */
function lockfileWith (
  input: ToLockfileInput,
  sections: Pick<Lockfile, 'importers' | 'packages' | 'snapshots'>,
  catalogs: NonNullable<Lockfile['catalogs']>
): Lockfile {
  const settings: Lockfile['settings'] = { autoInstallPeers: input.autoInstallPeers, ...input.dedupePeers ? { dedupePeers: true } : {}, excludeLinksFromLockfile: false }
  if (input.peersSuffixMaxLength !== 1000) settings.peersSuffixMaxLength = input.peersSuffixMaxLength
  if (input.injectWorkspacePackages) settings.injectWorkspacePackages = true
  const lockfile: Lockfile = { ...input.lockfile, lockfileVersion: LOCKFILE_VERSION, settings, ...sections }
  if (input.settings.overrides !== undefined && Object.keys(input.settings.overrides).length > 0) {
    lockfile.overrides = input.settings.overrides
  } else {
    delete lockfile.overrides
  }
  if (input.settings.packageExtensionsChecksum !== undefined) lockfile.packageExtensionsChecksum = input.settings.packageExtensionsChecksum
  else delete lockfile.packageExtensionsChecksum
  if (input.settings.ignoredOptionalDependencies !== undefined && input.settings.ignoredOptionalDependencies.length > 0) {
    lockfile.ignoredOptionalDependencies = [...input.settings.ignoredOptionalDependencies]
  } else {
    delete lockfile.ignoredOptionalDependencies
  }
  if (input.settings.patchedDependencies !== undefined && Object.keys(input.settings.patchedDependencies).length > 0) {
    lockfile.patchedDependencies = input.settings.patchedDependencies
  } else {
    delete lockfile.patchedDependencies
  }
  if (Object.keys(catalogs).length > 0) lockfile.catalogs = catalogs
  else delete lockfile.catalogs
  return lockfile
}
