import fs from 'node:fs'
import path from 'node:path'
import { isDeepStrictEqual } from 'node:util'

import type { DependencyGroup } from '@lode/core.constants'
import { DEPENDENCY_GROUPS, LOCKFILE_VERSION } from '@lode/core.constants'
import { nameOf, refToDepPath, splitNameAt, withoutPeersSuffix } from '@lode/core.dep-path'
import { LodeError, hasErrno } from '@lode/core.error'
import { own } from '@lode/core.safe-name'
import { parsePackageJson } from '@lode/fs.package-json'
import type { Lockfile, PackageInfo, ProjectSnapshot, SnapshotInfo } from '@lode/pkg-manager.lockfile'
import { parseOverrides } from '@lode/pkg-manager.read-package-hook'
import type { ManifestHook, Override } from '@lode/pkg-manager.read-package-hook'
import { DIRECT_DEP_WEIGHT, EXISTING_VERSION_WEIGHT, IMPORTED_VERSION_WEIGHT, parseWantedSpec } from '@lode/resolving.npm-resolver'
import type { NpmResolver, RegistrySpec, ReleaseAgeViolation, WantedSpec } from '@lode/resolving.npm-resolver'
import semver from 'semver'

import { catalogName, catalogSpecifier } from './catalogs.js'
import type { Catalogs } from './catalogs.js'
import { dedupeInjectedDeps } from './dedupe-injected-deps.js'
import { dedupePeerDependents } from './dedupe-peer-dependents.js'
import type { VariantNode } from './dedupe-peer-dependents.js'
import { hoistedPeersOf } from './hoisted-peers.js'
import type { HoistedPeer, HoistedPeerCandidate } from './hoisted-peers.js'
import { dependenciesMetaOf, importerDependencies } from './importer-dependencies.js'
import { lockedVersionOf } from './lockfile-pins.js'
import { checkPeerSpecs } from './peer-specs.js'
import { intersectRanges } from './range-intersection.js'
import { peerVersionRange, resolutionPeerViews } from './resolution-peers.js'
import type { UnresolvedPeer } from './resolution-peers.js'
import { PeerResolver, occurrenceOf } from './resolve-peers.js'
import type { MissingPeer, PeerIssue, PeerNode, PeerProvider } from './resolve-peers.js'
import { Scope, TreeResolver } from './resolve-tree.js'
import type { GitAccess, WantedDependency } from './resolve-tree.js'
import { stalePeerPins } from './stale-peer-pins.js'
import type { Edge, Importer, ResolvedPackage } from './types.js'
import { linkableFromWorkspace } from './workspace-match.js'
import type { WorkspaceProjectVersion } from './workspace-match.js'

export type { Importer, ProjectManifest, ResolvedPackage } from './types.js'
export type { PeerIssue } from './resolve-peers.js'
export type { HoistedPeer } from './hoisted-peers.js'
export type { GitAccess } from './resolve-tree.js'
export { catalogSpecifier } from './catalogs.js'
export type { Catalogs } from './catalogs.js'
export { dependenciesMetaOf, importerDependencies } from './importer-dependencies.js'
export { publishConfigOf }
export type { ImporterDependency } from './importer-dependencies.js'
export { linkableFromWorkspace } from './workspace-match.js'
export type { WorkspaceProjectVersion } from './workspace-match.js'

export interface ResolveDependenciesOptions {
  importers: readonly Importer[]
  resolver: NpmResolver
  /** The current lockfile: its versions are kept where they still satisfy. */
  lockfile: Lockfile | undefined
  /** Names being updated (`lode update`): the lockfile's versions of them are neither preferred nor kept, at any depth. */
  updating?: readonly string[] | 'all' | undefined
  /**
   * The importers `updating` is confined to (an update inside some projects of a workspace), by id:
   * the others keep what the lockfile gives them, as pnpm's update requests only the packages below
   * the projects it updates. Every importer when not given.
   */
  updatingImporters?: ReadonlySet<string> | undefined
  /**
   * `lode import`: the versions another package manager's lockfile installs, by name. As pnpm's
   * `preferredVersions`, they replace the importers' own preferences, and outweigh all else.
   */
  importedVersions?: ReadonlyMap<string, ReadonlySet<string>> | undefined
  autoInstallPeers: boolean
  /** pnpm's `dedupePeerDependents` (default true): peer variants of a package merge where one can stand in for another. */
  dedupePeerDependents: boolean
  /** pnpm's `dedupeInjectedDeps` (default true): a copy of a workspace project that would see what the project sees is linked instead. */
  dedupeInjectedDeps?: boolean
  /** pnpm's `resolvePeersFromWorkspaceRoot` (default true): the root project's dependencies provide peers to the other projects' dependencies. */
  resolvePeersFromWorkspaceRoot?: boolean
  /** pnpm's `dedupePeers` (default false): peer suffixes name peers by `name@version` only; recorded in the lockfile's settings. */
  dedupePeers?: boolean
  peersSuffixMaxLength: number
  /** Changes a dependency's manifest before its dependencies are read (compatibility database, packageExtensions, overrides). */
  readPackageHook?: ManifestHook | undefined
  /** Recorded in the lockfile; when they differ from the current lockfile's, nothing in it is reused as is. */
  lockfileSettings: {
    overrides?: Record<string, string> | undefined
    packageExtensionsChecksum?: string | undefined
    ignoredOptionalDependencies?: readonly string[] | undefined
    /** `patchedDependencies` key → patch hash, as the lockfile records them. */
    patchedDependencies?: Record<string, string> | undefined
  }
  /** The hash of the patch for a package's `name@version` (its manifest's version): its dependency path gets `(patch_hash=…)`. */
  patchHashOf?: ((nameAndVersion: string) => string | undefined) | undefined
  /** pnpm's catalogs (`catalog` is `default`): catalog → package → specifier, for `catalog:` specifiers. */
  catalogs?: Catalogs
  /** The lockfile's directory (absolute): local paths in the lockfile are relative to it. */
  lockfileDir: string
  /** pnpm 11's `blockExoticSubdeps` (default true). */
  blockExoticSubdeps: boolean
  /** pnpm's `linkWorkspacePackages`: link a workspace project that satisfies a plain range, directly (`true`) or at any depth (`deep`). */
  linkWorkspacePackages?: boolean | 'deep' | undefined
  /** pnpm's `preferWorkspacePackages`: with `linkWorkspacePackages`, a workspace project the range takes wins over a newer registry version. */
  preferWorkspacePackages?: boolean | undefined
  /** pnpm's `injectWorkspacePackages`: every workspace dependency is a copy of the project (a `file:` package), not a link; recorded in the lockfile's settings. */
  injectWorkspacePackages?: boolean | undefined
  /** Downloads a tarball, for tarball-URL dependencies. */
  fetchBytes: (url: string) => Promise<Buffer>
  /** Git dependencies: reaching repositories and fetching git packages for their manifests. */
  git?: GitAccess | undefined
  onInfo: (message: string) => void
  onWarning: (message: string) => void
  /** Called once per package as it is resolved (for progress, traces, and fetching early). */
  onPackageResolved?: ((pkg: ResolvedPackage) => void) | undefined
}

export interface ResolveDependenciesResult {
  lockfile: Lockfile
  peerIssues: PeerIssue[]
  /** Deprecated packages resolved, split as pnpm reports them. */
  deprecated: { direct: string[], subdependencies: string[] }
  /** Versions picked although younger than `minimumReleaseAge`, one per `name@version`, sorted. */
  immature: ReleaseAgeViolation[]
  /** The direct dependencies picked from the registry below its `latest` tag: package id → that tag (pnpm's "(x is available)"). */
  latest: Record<string, string>
  /** By importer id, the peers hoisted to it, which pnpm links and hoists from though the lockfile does not list them (`hoisted-peers.ts`). */
  hoistedPeers: Record<string, HoistedPeer[]>
}

/** The wanted dependency graph of every importer, as a `pnpm-lock.yaml` v9 document. */
export async function resolveDependencies (opts: ResolveDependenciesOptions): Promise<ResolveDependenciesResult> {
  for (const importer of opts.importers) checkPeerSpecs(importer.manifest, importer.dir)
  // A missing required peer keeps the version the lockfile gave it only while that package keeps
  // its dependency path (pnpm pins a locked peer provider that is stable): when it gets peers of its
  // own now, the peer is hoisted anew, from the versions this resolution reached.
  const said: Array<() => void> = []
  const quiet = {
    ...opts,
    onInfo: (message: string) => { said.push(() => { opts.onInfo(message) }) },
    onWarning: (message: string) => { said.push(() => { opts.onWarning(message) }) },
  }
  let result = await resolveGraph(quiet, new Set())
  const unstable = new Set(result.lockedPeers.filter((peerKey) => result.lockfile.snapshots?.[peerKey] === undefined).map(nameOf))
  if (unstable.size > 0) {
    said.length = 0
    result = await resolveGraph(quiet, unstable)
  }
  for (const say of said) say()
  const { lockedPeers: _, ...resolved } = result
  return resolved
}

async function resolveGraph (
  opts: ResolveDependenciesOptions,
  unpinned: ReadonlySet<string>
): Promise<ResolveDependenciesResult & { lockedPeers: string[] }> {
  const deprecated = { direct: [] as string[], subdependencies: [] as string[] }
  const immature = new Map<string, ReleaseAgeViolation>()
  const lockfilePins = new Map<string, Set<string>>()
  const { tree, staleNames, isUpdating } = createTreeResolver(opts, {
    onDeprecated: (pkg, direct) => { (direct ? deprecated.direct : deprecated.subdependencies).push(pkg.id) },
    onImmature: (violation) => { immature.set(`${violation.name}@${violation.version}`, violation) },
    lockfilePins,
  })
  // An update confined to some importers keeps the pins: its picks take them off (resolve-tree.ts).
  const unpinnedEverywhere = (name: string): boolean => opts.updatingImporters === undefined && isUpdating(name, 0)
  const importerScope = importerPreferences(opts, staleNames, unpinnedEverywhere, lockfilePins)
  const direct = directDependencies(opts, importerScope, staleNames, isUpdating)
  await tree.resolve(direct)
  const { providers, pinnedPeers } = await hoistPeers(opts, tree, direct, unpinned)
  const rootIndex = opts.resolvePeersFromWorkspaceRoot === false ? -1 : opts.importers.findIndex((importer) => importer.id === '.')
  const peers = new PeerResolver({
    packages: tree.packages,
    children: tree.children,
    peersSuffixMaxLength: opts.peersSuffixMaxLength,
    dedupePeers: opts.dedupePeers === true,
    ownerOf: (pkgId) => tree.ownerOf(pkgId),
    ...(opts.patchHashOf === undefined ? {} : { patchHashOf: opts.patchHashOf }),
  })
  const roots = resolveImporterPeers(peers, direct.map((importer) => [...importer.edges, ...importer.hidden]), rootIndex, providers)

  // Required peers still missing (autoInstallPeers off, or ranges no version meets) are issues, as in pnpm.
  const missingIssues = direct.flatMap((importer, i) => missingAtTop(roots[i]!, importer.hidden).flatMap(([peer, missing]) =>
    [...missing.wantedBy].flatMap(([range, wantedBy]) => wantedBy.map((by): PeerIssue => ({ kind: 'missing', peer, range, wantedBy: by })))))
  const { lockfile, hoistedPeers } = toLockfile({
    importers: opts.importers,
    direct,
    providers,
    roots,
    peers,
    packages: tree.packages,
    lockfile: opts.lockfile,
    autoInstallPeers: opts.autoInstallPeers,
    peersSuffixMaxLength: opts.peersSuffixMaxLength,
    settings: opts.lockfileSettings,
    dedupePeerDependents: opts.dedupePeerDependents,
    dedupeInjectedDeps: opts.dedupeInjectedDeps !== false,
    dedupePeers: opts.dedupePeers === true,
    injectWorkspacePackages: opts.injectWorkspacePackages === true,
  })
  const sortedImmature = [...immature].sort((a, b) => a[0] < b[0] ? -1 : 1).map(([, violation]) => violation)
  const latest: Record<string, string> = {}
  for (const edge of direct.flatMap((importer) => importer.edges)) {
    const pkg = tree.packages.get(edge.pkgId)
    if (pkg?.latest !== undefined && semver.valid(pkg.latest) !== null && semver.lt(pkg.version, pkg.latest)) latest[pkg.id] = pkg.latest
  }
  const peerIssues = [...peers.issues, ...missingIssues]
  return { lockfile, peerIssues, deprecated, immature: sortedImmature, latest, hoistedPeers, lockedPeers: [...pinnedPeers] }
}

/**
 * The tree resolver of one resolution pass, with what decides which locked versions it keeps:
 * changed overrides (and extensions, ignored optional dependencies) can change any package's
 * manifest, so every package is read again (pnpm's full resolution), locked versions still kept
 * where they satisfy, except for the targets of removed overrides (`staleNames`) and the packages
 * updated.
 */
function createTreeResolver (
  opts: ResolveDependenciesOptions,
  report: {
    onDeprecated: (pkg: ResolvedPackage, direct: boolean) => void
    onImmature: (violation: ReleaseAgeViolation) => void
    /** The lockfile's versions preferred by name (filled by `importerPreferences`). */
    lockfilePins: ReadonlyMap<string, ReadonlySet<string>>
  }
): { tree: TreeResolver, staleNames: Set<string>, isUpdating: (name: string, importerIndex: number) => boolean } {
  const settingsChanged = opts.lockfile !== undefined && (
    !isDeepStrictEqual(opts.lockfile.overrides ?? {}, opts.lockfileSettings.overrides ?? {}) ||
    opts.lockfile.packageExtensionsChecksum !== opts.lockfileSettings.packageExtensionsChecksum ||
    !isDeepStrictEqual(
      [...opts.lockfile.ignoredOptionalDependencies ?? []].sort(),
      [...opts.lockfileSettings.ignoredOptionalDependencies ?? []].sort()
    )
  )
  const staleNames = settingsChanged ? staleOverrideTargets(opts.lockfile?.overrides, opts.lockfileSettings.overrides) : new Set<string>()
  const updating = new Set(opts.updating === 'all' ? [] : opts.updating)
  const scope = opts.updatingImporters
  const isUpdating = (name: string, importerIndex: number): boolean => (opts.updating === 'all' || updating.has(name))
    && (scope === undefined || scope.has(opts.importers[importerIndex]!.id))
  const tree = new TreeResolver({
    resolver: opts.resolver,
    lockfile: opts.lockfile,
    reuseLockedManifests: !settingsChanged,
    staleNames,
    isUpdating,
    lockfilePins: report.lockfilePins,
    readPackageHook: opts.readPackageHook ?? ((manifest) => manifest),
    autoInstallPeers: opts.autoInstallPeers,
    onDeprecated: report.onDeprecated,
    onResolved: opts.onPackageResolved ?? (() => {}),
    onImmature: report.onImmature,
    // pnpm's reporter prints it as an info-level log line.
    onOptionalSkipped: (message) => { opts.onInfo(`info: ${message}`) },
    lockfileDir: opts.lockfileDir,
    importerDirs: opts.importers.map((importer) => importer.dir),
    injectedAliasesOf: injectedAliasesByDir(opts.importers),
    workspaceProjects: workspaceProjectsOf(opts),
    blockExoticSubdeps: opts.blockExoticSubdeps,
    linkWorkspacePackages: opts.linkWorkspacePackages ?? false,
    preferWorkspacePackages: opts.preferWorkspacePackages,
    injectWorkspacePackages: opts.injectWorkspacePackages === true,
    fetchBytes: opts.fetchBytes,
    git: opts.git,
    catalogs: opts.catalogs,
    onWarning: opts.onWarning,
  })
  return { tree, staleNames, isUpdating }
}

/**
 * The versions the importers prefer, as pnpm weighs them: what package.json asks for directly
 * (a plain version, range or tag, not an npm: alias), or the versions `lode import` read instead;
 * then the versions the lockfile has.
 */
function importerPreferences (
  opts: ResolveDependenciesOptions,
  staleNames: ReadonlySet<string>,
  unpinned: (name: string) => boolean,
  pins: Map<string, Set<string>>
): Scope {
  const importerScope = new Scope()
  if (opts.importedVersions !== undefined) {
    for (const [name, versions] of opts.importedVersions) {
      for (const version of versions) importerScope.set(name, version, 'version', IMPORTED_VERSION_WEIGHT)
    }
  }
  const prefer = (alias: string, written: string): void => {
    const specifier = catalogSpecifier(alias, written, opts.catalogs)?.specifier ?? written
    const spec = safeSpec(alias, specifier)
    // pnpm takes only a plain version, range or tag as a preference (not an npm: alias).
    if (spec?.kind === 'registry' && !spec.aliased) {
      const selector = spec.type === 'version' ? spec.version : spec.type === 'range' ? spec.range : spec.tag
      importerScope.set(spec.name, selector, spec.type, DIRECT_DEP_WEIGHT)
    }
  }
  for (const importer of opts.importedVersions === undefined ? opts.importers : []) {
    for (const group of DEPENDENCY_GROUPS) {
      for (const [alias, written] of Object.entries(importer.manifest[group] ?? {})) prefer(alias, written)
    }
    for (const [alias, written] of Object.entries(importer.replacedSpecs ?? {})) prefer(alias, written)
  }
  for (const pkgId of Object.keys(opts.lockfile?.packages ?? {})) {
    const { name, rest: version = '' } = splitNameAt(pkgId)
    if (semver.valid(version) === null || staleNames.has(name) || unpinned(name)) continue
    importerScope.add(name, version, 'version', EXISTING_VERSION_WEIGHT)
    const versions = pins.get(name)
    if (versions === undefined) pins.set(name, new Set([version]))
    else versions.add(version)
  }

  return importerScope
}

/** Each importer's direct dependencies as the tree resolver takes them, with the versions locked for them where package.json still asks for them. */
function directDependencies (
  opts: ResolveDependenciesOptions,
  importerScope: Scope,
  staleNames: ReadonlySet<string>,
  isUpdating: (name: string, importerIndex: number) => boolean
): DirectDependencies[] {
  const stale = opts.autoInstallPeers
    ? stalePeerPins(opts.importers.map((importer) => ({ ...importer, locked: opts.lockfile?.importers[importer.id] })), opts.catalogs)
    : undefined
  return opts.importers.map((importer, importerIndex) => {
    const wanted: WantedDependency[] = []
    const groups: DependencyGroup[] = []
    const locked = opts.lockfile?.importers[importer.id]
    for (const [alias, { group, specifier }] of importerDependencies(importer.manifest, opts.autoInstallPeers)) {
      const lockedDep = own(locked?.[group], alias)
      // `catalog:` resolves through the catalog; the lockfile keeps what package.json says.
      const catalog = catalogSpecifier(alias, specifier, opts.catalogs)
      const entry: WantedDependency = { alias, bareSpecifier: catalog?.specifier ?? specifier, optional: group === 'optionalDependencies' }
      if (catalog !== undefined) entry.written = specifier
      if (own(dependenciesMetaOf(importer.manifest), alias)?.injected === true) entry.injected = true
      const over = own(importer.latestOver, alias)
      const overSpec = over === undefined ? undefined : safeSpec(alias, over)
      if (overSpec?.kind === 'registry') entry.latestOver = registryPart(overSpec)
      const catalogUnchanged = catalog === undefined
        || own(own(opts.lockfile?.catalogs, catalog.name), alias)?.specifier === catalog.specifier
      // With linkWorkspacePackages, a registry version locked for what a workspace project now satisfies goes (pnpm links it).
      const relinks = opts.linkWorkspacePackages !== undefined && opts.linkWorkspacePackages !== false && lockedDep !== undefined &&
        linkableFromWorkspace(alias, catalog?.specifier ?? specifier, lockedDep.version, workspaceProjectsOf(opts))
      const releasedPins = stale?.[importerIndex]!.get(alias)
      if (releasedPins !== undefined) {
        entry.releasedPins = releasedPins
      } else if (lockedDep !== undefined && lockedDep.specifier === specifier && catalogUnchanged && !staleNames.has(alias) && !relinks) {
        const version = lockedVersionOf(lockedDep.version)
        if (version !== undefined) {
          entry.lockedVersion = version
          entry.lockedKey = refToDepPath(alias, lockedDep.version)
        } else {
          entry.lockedRef = lockedDep.version
        }
      } else if (catalog !== undefined && catalogUnchanged && !staleNames.has(alias) && !isUpdating(alias, importerIndex)) {
        // A new user of a catalog entry gets the version the lockfile's catalogs hold for it, as pnpm's.
        const inCatalog = own(own(opts.lockfile?.catalogs, catalog.name), alias)?.version
        const version = inCatalog === undefined ? undefined : lockedVersionOf(inCatalog)
        if (version !== undefined) entry.lockedVersion = version
      }
      wanted.push(entry)
      groups.push(group)
    }
    return { importerIndex, wanted, groups, scope: importerScope, edges: [] as Edge[], hidden: [] as Edge[] }
  })
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
 * whole (about 100 lines) so that a round reads top to bottom.
 */
async function hoistPeers (
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

/** An importer's direct dependencies, and the edges the tree resolver gives them. */
interface DirectDependencies {
  importerIndex: number
  wanted: WantedDependency[]
  groups: DependencyGroup[]
  scope: Scope
  edges: Edge[]
  /** Hoisted peers (auto-installed), resolved as direct dependencies pnpm does not list. */
  hidden: Edge[]
}

/** The aliases each project's `dependenciesMeta` marks `injected`, by the project's directory (none for another directory). */
function injectedAliasesByDir (importers: readonly Importer[]): (dir: string) => ReadonlySet<string> {
  const byDir = new Map(importers.map((importer) => [importer.dir, new Set(Object.entries(dependenciesMetaOf(importer.manifest) ?? {})
    .filter(([, meta]) => meta['injected'] === true).map(([alias]) => alias))]))
  return (dir) => byDir.get(dir) ?? new Set()
}

/** A project's `publishConfig.directory` and `publishConfig.linkDirectory`, when they are set. */
function publishConfigOf (manifest: object): { directory?: string, linkDirectory?: boolean } {
  const config = (manifest as { publishConfig?: unknown }).publishConfig
  if (typeof config !== 'object' || config === null) return {}
  const { directory, linkDirectory } = config as { directory?: unknown, linkDirectory?: unknown }
  return { ...typeof directory === 'string' ? { directory } : {}, ...typeof linkDirectory === 'boolean' ? { linkDirectory } : {} }
}

/** Where the workspace links a project: its published directory unless linkDirectory is false. */
function linkedDirOf (importer: Importer): string {
  const publish = publishConfigOf(importer.manifest)
  return publish.directory !== undefined && publish.linkDirectory !== false ? path.join(importer.dir, publish.directory) : importer.dir
}

/**
 * Every importer's peer nodes, its hoisted providers among them. The workspace root's dependencies
 * (`rootIndex`, -1 for none) also provide peers to the other projects' dependencies, after their own.
 */
function resolveImporterPeers (
  peers: PeerResolver,
  edges: Edge[][],
  rootIndex: number,
  providers: PeerProvider[][]
): Array<Map<string, PeerNode>> {
  if (rootIndex === -1 || edges.length === 1) return edges.map((list, i) => peers.resolveImporter(list, [], providers[i], i))
  const root = peers.resolveImporter(edges[rootIndex]!, [], providers[rootIndex], rootIndex)
  const inherited = [
    ...edges[rootIndex]!.map((edge) => ({ edge, node: root.get(edge.alias)! })),
    ...providers[rootIndex]!.map(({ alias, pkgId }) => ({ edge: { alias, pkgId, optional: true }, node: root.get(alias)! })),
  ]
  return edges.map((list, i) => i === rootIndex ? root : peers.resolveImporter(list, inherited, providers[i], i))
}

/** Names whose global, rangeless override was removed: their locked versions are dropped, as pnpm does. */
function staleOverrideTargets (
  locked: Readonly<Record<string, string>> | undefined,
  current: Readonly<Record<string, string>> | undefined
): Set<string> {
  const names = new Set<string>()
  for (const selector of Object.keys(locked ?? {})) {
    if (current?.[selector] !== undefined) continue
    const [override] = tryParseOverrides({ [selector]: '' })
    if (override !== undefined && override.parentPkg === undefined && override.targetPkg.range === undefined) {
      names.add(override.targetPkg.name)
    }
  }
  return names
}

/** A selector the lockfile kept that no longer parses marks nothing stale (pnpm skips it too). */
function tryParseOverrides (overrides: Record<string, string>): Override[] {
  try {
    return parseOverrides(overrides)
  } catch (err) {
    if (err instanceof LodeError) return []
    throw err
  }
}

/**
 * The workspace's projects as dependencies link to them: one published from a directory of its own
 * (publishConfig.directory) at that directory, as pnpm links it.
 */
export function workspaceProjectsOf (opts: Pick<ResolveDependenciesOptions, 'importers'>): WorkspaceProjectVersion[] {
  return opts.importers.map((importer) => ({
    name: importer.manifest.name,
    version: importer.manifest.version,
    dir: linkedDirOf(importer),
  }))
}

function safeSpec (alias: string, specifier: string): ReturnType<typeof parseWantedSpec> | undefined {
  try {
    return parseWantedSpec(alias, specifier, 'package.json')
  } catch {
    return undefined
  }
}

/** The registry spec of a classified one (its version, range or tag). */
function registryPart (spec: Extract<WantedSpec, { kind: 'registry' }>): RegistrySpec {
  if (spec.type === 'version') return { type: 'version', name: spec.name, version: spec.version }
  return spec.type === 'range' ? { type: 'range', name: spec.name, range: spec.range } : { type: 'tag', name: spec.name, tag: spec.tag }
}

/**
 * Versions a hoisted peer may take, as pnpm's preferred versions: those resolved in this graph
 * first, then those only the lockfile has.
 */
interface PeerCandidates { resolved: Map<string, string[]>, lockfileOnly: Map<string, string[]> }

function peerCandidates (packages: ReadonlyMap<string, ResolvedPackage>, lockfile: Lockfile | undefined): PeerCandidates {
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
function peersLockedBy (lockfile: Lockfile | undefined, importerId: string): Map<string, Set<string>> {
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
function missingAtTop (roots: Map<string, PeerNode>, hidden: readonly Edge[]): Array<[string, MissingPeer]> {
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
function missingRequired (
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
function missingOptional (missing: ReadonlyMap<string, readonly string[]>, choice: OptionalPeerChoice): WantedDependency[] {
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

interface ToLockfileInput {
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

function toLockfile (input: ToLockfileInput): { lockfile: Lockfile, hoistedPeers: ResolveDependenciesResult['hoistedPeers'] } {
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
