import { isDeepStrictEqual } from 'node:util'

import type { DependencyGroup } from '@lode/core.constants'
import { DEPENDENCY_GROUPS } from '@lode/core.constants'
import { nameOf, refToDepPath, splitNameAt } from '@lode/core.dep-path'
import { LodeError } from '@lode/core.error'
import { own } from '@lode/core.safe-name'
import { parseOverrides } from '@lode/pkg-manager.deps.read-package-hook'
import type { Override } from '@lode/pkg-manager.deps.read-package-hook'
import { DIRECT_DEP_WEIGHT, EXISTING_VERSION_WEIGHT, IMPORTED_VERSION_WEIGHT } from '@lode/resolving.npm-resolver'
import type { RegistrySpec, ReleaseAgeViolation, WantedSpec } from '@lode/resolving.npm-resolver'
import semver from 'semver'

import { catalogSpecifier } from './catalogs.js'
import type { DirectDependencies } from './hoist-peers.js'
import { hoistPeers, missingAtTop } from './hoist-peers.js'
import { dependenciesMetaOf, importerDependencies } from './importer-dependencies.js'
import { toLockfile } from './lockfile-output.js'
import { lockedVersionOf } from './lockfile-pins.js'
import type { ResolveDependenciesOptions, ResolveDependenciesResult } from './options.js'
import { checkPeerSpecs } from './peer-specs.js'
import { linkedDirOf } from './publish-config.js'
import { PeerResolver } from './resolve-peers.js'
import type { PeerIssue, PeerNode, PeerProvider } from './resolve-peers.js'
import type { WantedDependency } from './resolve-tree.js'
import { Scope, TreeResolver } from './resolve-tree.js'
import { safeSpec } from './safe-spec.js'
import { stalePeerPins } from './stale-peer-pins.js'
import type { Edge, Importer, ResolvedPackage } from './types.js'
import { linkableFromWorkspace } from './workspace-match.js'
import type { WorkspaceProjectVersion } from './workspace-match.js'

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

/** The aliases each project's `dependenciesMeta` marks `injected`, by the project's directory (none for another directory). */
function injectedAliasesByDir (importers: readonly Importer[]): (dir: string) => ReadonlySet<string> {
  const byDir = new Map(importers.map((importer) => [importer.dir, new Set(Object.entries(dependenciesMetaOf(importer.manifest) ?? {})
    .filter(([, meta]) => meta['injected'] === true).map(([alias]) => alias))]))
  return (dir) => byDir.get(dir) ?? new Set()
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

/** The registry spec of a classified one (its version, range or tag). */
function registryPart (spec: Extract<WantedSpec, { kind: 'registry' }>): RegistrySpec {
  if (spec.type === 'version') return { type: 'version', name: spec.name, version: spec.version }
  return spec.type === 'range' ? { type: 'range', name: spec.name, range: spec.range } : { type: 'tag', name: spec.name, tag: spec.tag }
}
