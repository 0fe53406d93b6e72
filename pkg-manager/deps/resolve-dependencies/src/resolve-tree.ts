import path from 'node:path'

import { refToDepPath, splitNameAt, withoutPeersSuffix } from '@lode/core.dep-path'
import { LodeError, printable } from '@lode/core.error'
import { own } from '@lode/core.safe-name'
import type { ManifestHook } from '@lode/pkg-manager.deps.read-package-hook'
import type { Lockfile } from '@lode/pkg-manager.lockfile.format'
import { isGitResolution, resolveGit } from '@lode/resolving.git-resolver'
import type { GitResolution } from '@lode/resolving.git-resolver'
import { resolveLocal, resolveTarballUrl } from '@lode/resolving.local-resolver'
import { DIRECT_DEP_WEIGHT, RESOLVED_VERSION_WEIGHT, parseWantedSpec, satisfiesLoose, trimManifest } from '@lode/resolving.npm-resolver'
import type { NpmResolver, PreferredVersions, RegistrySpec, ReleaseAgeViolation, WantedSpec } from '@lode/resolving.npm-resolver'
import semver from 'semver'

import { catalogSpecifier } from './catalogs.js'
import type { Catalogs } from './catalogs.js'
import { lockedPackage, snapshotOf } from './from-lockfile.js'
import { comparePaths, extendPath, pathIds, pathStartsWith } from './id-path.js'
import type { IdPath } from './id-path.js'
import { lockfileHasVersionIn, withoutPins } from './lockfile-pins.js'
import { fromMeta, fromRegistry } from './resolved-package.js'
import type { ChildrenOwner, Edge, ResolvedPackage } from './types.js'
import { workspaceMatch } from './workspace-match.js'


type Selectors = Map<string, { type: 'version' | 'range' | 'tag', weight: number }>

/** Preferred versions in scope: an importer's, plus the versions resolved beside each ancestor. */
export class Scope {
  private readonly own = new Map<string, Selectors>()
  private readonly depth: number
  private readonly root: Scope
  /**
   * The tree's record (kept by its root, shared): the least depth below the root at which each
   * name has selectors. A pick walks up only that far, then takes the root's: in a chain as deep as
   * a registry makes it, each name is met below where it is picked, and a pick reads two scopes.
   */
  private readonly shallowest: Map<string, number>

  constructor (private readonly parent?: Scope) {
    this.depth = parent === undefined ? 0 : parent.depth + 1
    this.root = parent?.root ?? this
    this.shallowest = parent?.shallowest ?? new Map<string, number>()
  }

  /** A selector with this weight, whatever it had (pnpm's preferences from package.json files: one per specifier, however many ask for it). */
  set (name: string, selector: string, type: 'version' | 'range' | 'tag', weight: number): void {
    this.selectorsOf(name).set(selector, { type, weight })
  }

  add (name: string, selector: string, type: 'version' | 'range' | 'tag', weight: number): void {
    const selectors = this.selectorsOf(name)
    const current = selectors.get(selector)
    selectors.set(selector, { type, weight: (current?.weight ?? 0) + weight })
  }

  preferred (name: string): PreferredVersions {
    const out: Record<string, { type: 'version' | 'range' | 'tag', weight: number }> = {}
    // Read from the root down.
    for (const selectors of Scope.chainOf(this, name).reverse()) {
      for (const [selector, value] of selectors) {
        out[selector] = { type: value.type, weight: (out[selector]?.weight ?? 0) + value.weight }
      }
    }
    return out
  }

  private selectorsOf (name: string): Selectors {
    let selectors = this.own.get(name)
    if (selectors === undefined) {
      this.own.set(name, selectors = new Map() as Selectors)
      if (this.depth > 0 && !(this.depth >= (this.shallowest.get(name) ?? Infinity))) this.shallowest.set(name, this.depth)
    }
    return selectors
  }

  /** The selectors for the name from `scope` up to its root, nearest first. */
  private static chainOf (scope: Scope, name: string): Selectors[] {
    const chain: Selectors[] = []
    const shallowest = scope.shallowest.get(name) ?? Infinity
    let at: Scope | undefined = scope
    for (; at !== undefined && at.depth >= shallowest; at = at.parent) {
      const selectors = at.own.get(name)
      if (selectors !== undefined) chain.push(selectors)
    }
    // Between there and the root, no scope has any.
    const selectors = at === undefined ? undefined : at.root.own.get(name)
    if (selectors !== undefined) chain.push(selectors)
    return chain
  }
}

export interface WantedDependency {
  alias: string
  /** What is resolved (a `catalog:` specifier replaced by its catalog entry). */
  bareSpecifier: string
  /** What package.json says, when it differs (`catalog:`): the lockfile records it. */
  written?: string
  optional: boolean
  /** A version the lockfile pins for this edge; kept when it still satisfies the specifier. */
  lockedVersion?: string
  /** The snapshot the lockfile names for this edge (`a@1.0.0(b@2.0.0)`): its dependencies are the locked ones. */
  lockedKey?: string
  /** The lockfile's reference for this edge (`1.0.0`, `name@<url>`, `file:x`), for non-registry specs. */
  lockedRef?: string
  /** The directory of the package that declares it, when that is a directory (`file:` resolves from there). */
  baseDir?: string
  /** `dependenciesMeta.<alias>.injected` of the project that declares it: a workspace project is copied, not linked. */
  injected?: boolean
  /** A peer hoisted to an importer: its locked version is kept, but read from the registry (pnpm has no lockfile entry for the edge). */
  hoisted?: true
  /** `update --latest`: the spec package.json had; the higher of its pick and `latest`'s is taken (see `Importer.latestOver`). */
  latestOver?: RegistrySpec
  /** A project's own peer whose lock went stale (`stale-peer-pins.ts`): versions whose lockfile weight its pick leaves out. */
  releasedPins?: ReadonlySet<string>
}

/** Aliases in scope where a package is resolved: its ancestors' dependencies and the importer's, nearest level first. */
interface AliasChain { aliases: ReadonlySet<string>, parent?: AliasChain }

function inChain (chain: AliasChain | undefined, alias: string): boolean {
  for (let at = chain; at !== undefined; at = at.parent) if (at.aliases.has(alias)) return true
  return false
}

/** One place a package is wanted: who wants it (the path of package ids from the importer) and with which preferences. */
interface Occurrence {
  importerIndex: number
  /** The ids of the packages above it (the importer's own dependencies: none). */
  parentPath: IdPath | undefined
  wanted: WantedDependency
  scope: Scope
  /** What is in scope above it (pnpm's parentPkgAliases): an optional peer found there is no dependency of it. */
  aliases: AliasChain
  /** Where to record the resolved edge. */
  edges: Edge[]
  /** The position in `edges`, so concurrent resolution keeps manifest order. */
  slot: number
}

export interface ResolveTreeOptions {
  resolver: NpmResolver
  lockfile: Lockfile | undefined
  /** False when settings that shape manifests changed: locked versions are kept, but manifests are read anew. */
  reuseLockedManifests: boolean
  /** Names whose locked versions must not be reused (targets of removed overrides). */
  staleNames: ReadonlySet<string>
  /** Names being updated (`lode update`) below an importer (by index): there, the versions the lockfile pins are dropped. */
  isUpdating: (name: string, importerIndex: number) => boolean
  /**
   * The lockfile's versions the preferences hold, by name (pnpm's pins): a pick being updated
   * (an update confined to some importers) takes them off.
   */
  lockfilePins: ReadonlyMap<string, ReadonlySet<string>>
  onDeprecated: (pkg: ResolvedPackage, direct: boolean) => void
  /** A package seen for the first time. */
  onResolved: (pkg: ResolvedPackage) => void
  /** A version picked although younger than `minimumReleaseAge` (none fitting was old enough). */
  onImmature: (violation: ReleaseAgeViolation) => void
  onOptionalSkipped: (message: string) => void
  readPackageHook: ManifestHook
  /** The lockfile's directory: local paths in the lockfile are relative to it. */
  lockfileDir: string
  /** Each importer's directory, by importer index. */
  importerDirs: readonly string[]
  /** The aliases a workspace project's `dependenciesMeta` injects (by the project's directory): in its injected copies too. */
  injectedAliasesOf: (dir: string) => ReadonlySet<string>
  /** The workspace's projects, for `workspace:` specifiers. */
  workspaceProjects: ReadonlyArray<{ name: string | undefined, version: string | undefined, dir: string }>
  /** pnpm 11's `blockExoticSubdeps`: packages from the registry may not depend on tarball URLs or git. */
  blockExoticSubdeps: boolean
  /** pnpm's `linkWorkspacePackages`: a plain range that a workspace project satisfies links it (direct dependencies, or any depth with `deep`). */
  linkWorkspacePackages: boolean | 'deep'
  /** pnpm's `preferWorkspacePackages`: with `linkWorkspacePackages`, such a project is linked even when the registry has a newer version. */
  preferWorkspacePackages?: boolean | undefined
  /** pnpm's `injectWorkspacePackages`: a workspace project is copied (a `file:` package) wherever it is a dependency, not linked. */
  injectWorkspacePackages?: boolean | undefined
  /** Downloads a tarball (for tarball-URL dependencies). */
  fetchBytes: (url: string) => Promise<Buffer>
  onWarning: (message: string) => void
  /** pnpm's `autoInstallPeers`: a required peer also listed as a dependency stays a peer. */
  autoInstallPeers: boolean
  /** Git dependencies; without it they are `ERR_LODE_UNSUPPORTED_SPEC`. */
  git?: GitAccess | undefined
  /** pnpm's catalogs, for the `catalog:` dependencies of injected workspace projects (the importers' are replaced before). */
  catalogs?: Catalogs | undefined
}

/** What resolving git dependencies needs from the install. */
export interface GitAccess {
  /** Whether a hosted repository's page is public (pnpm: an HTTP HEAD answering 2xx): its archive is then downloaded instead of cloning it. */
  isPublic: (url: string) => Promise<boolean>
  /** Fetches a git package (into the store) for its manifest; an archive's integrity comes with it. */
  fetch: (
    source: { id: string, resolution: GitResolution, subject: string }
  ) => Promise<{ manifest: Record<string, unknown>, integrity?: string }>
  signal?: AbortSignal | undefined
}

/**
 * Phase one of resolution: every wanted dependency to a package id, level by level (breadth
 * first, as pnpm's depth barrier does), each package's children chosen once, by its owner: the
 * occurrence with the smallest depth, then the lowest importer index, then the lowest parent path.
 * Requests go out concurrently; every decision is taken in that fixed order, so the result never
 * depends on which response came first.
 */
export class TreeResolver {
  readonly packages = new Map<string, ResolvedPackage>()
  readonly children = new Map<string, Edge[]>()
  /** Where each package's dependencies were chosen: a better place found later (a peer hoisted to an importer) chooses them again. */
  private readonly owners = new Map<string, Occurrence>()
  /** The lists of ids above each package's dependencies, one per owner it had: whether a package is above an occurrence is read from them. */
  private readonly paths = new Map<string, IdPath[]>()
  /**
   * Names of direct dependencies that resolved to something other than the lockfile had (changed
   * or new): everywhere below, a dependency on such a name is resolved again instead of taking its
   * locked version, so it can meet the new direct version (pnpm's `updatedSet`).
   */
  private readonly updatedNames = new Set<string>()
  private readonly pending = new Map<string, Promise<ResolvedPackage | undefined>>()

  constructor (private readonly opts: ResolveTreeOptions) {}

  /**
   * The occurrence that chose a package's dependencies: its importer, the ids above it, and the
   * list its dependencies were resolved under (the same object their own owners have above them,
   * when the resolution reached them there).
   */
  ownerOf (pkgId: string): ChildrenOwner | undefined {
    const owner = this.owners.get(pkgId)
    if (owner === undefined) return undefined
    return { importerIndex: owner.importerIndex, parentPath: owner.parentPath, childPath: this.paths.get(pkgId)!.at(-1)! }
  }

  /**
   * Resolves `direct` (one list per importer, with each importer's scope) and everything below it.
   * `known` is what the importer already has (its dependencies' aliases, by default those wanted).
   */
  async resolve (
    direct: Array<{ importerIndex: number, wanted: WantedDependency[], scope: Scope, edges: Edge[], known?: ReadonlySet<string> }>
  ): Promise<void> {
    let level: Occurrence[] = []
    for (const importer of direct) {
      const aliases: AliasChain = { aliases: importer.known ?? new Set(importer.wanted.map((wanted) => wanted.alias)) }
      importer.wanted.forEach((wanted, slot) => {
        level.push({
          importerIndex: importer.importerIndex,
          parentPath: undefined,
          wanted,
          scope: importer.scope,
          aliases,
          edges: importer.edges,
          slot,
        })
      })
    }
    for (let depth = 0; level.length > 0; depth++) {
      const resolved = await Promise.all(level.map(async (occurrence) => await this.resolveOne(occurrence, depth)))
      const next: Occurrence[] = []
      // Record edges in manifest order; drop optional dependencies that could not be resolved.
      const bySiblings = new Map<Edge[], Array<{ occurrence: Occurrence, pkg: ResolvedPackage }>>()
      level.forEach((occurrence, i) => {
        const pkg = resolved[i]
        if (pkg === undefined) return
        if (depth === 0 && occurrence.wanted.lockedVersion !== pkg.version && occurrence.wanted.lockedRef === undefined) {
          this.updatedNames.add(pkg.name)
        }
        occurrence.edges[occurrence.slot] = { alias: occurrence.wanted.alias, pkgId: pkg.id, optional: occurrence.wanted.optional }
        let siblings = bySiblings.get(occurrence.edges)
        if (siblings === undefined) bySiblings.set(occurrence.edges, siblings = [])
        siblings.push({ occurrence, pkg })
      })
      const owners = new Map<string, { occurrence: Occurrence, pkg: ResolvedPackage, childScope: Scope, childAliases: AliasChain }>()
      for (const siblings of bySiblings.values()) {
        const childScope = new Scope(siblings[0]!.occurrence.scope)
        for (const { pkg } of siblings) childScope.add(pkg.name, pkg.version, 'version', depth === 0 ? DIRECT_DEP_WEIGHT : RESOLVED_VERSION_WEIGHT)
        const childAliases: AliasChain = {
          aliases: new Set(siblings.map(({ occurrence }) => occurrence.wanted.alias)),
          parent: siblings[0]!.occurrence.aliases,
        }
        for (const { occurrence, pkg } of siblings) {
          if (this.paths.get(pkg.id)?.some((own) => pathStartsWith(occurrence.parentPath, own)) === true) continue
          const chosen = this.owners.get(pkg.id)
          if (chosen !== undefined && !isBetterOwner(occurrence, chosen)) continue
          const current = owners.get(pkg.id)
          if (current === undefined || isBetterOwner(occurrence, current.occurrence)) {
            owners.set(pkg.id, { occurrence, pkg, childScope, childAliases })
          }
        }
      }
      const ordered = [...owners].sort((a, b) => compareOccurrences(a[1].occurrence, b[1].occurrence))
      // A package taken from the lockfile knows only its locked versions; when one of its
      // dependencies is a direct dependency that changed, its real ranges are needed to resolve it again.
      await Promise.all(ordered.map(async ([, owner]) => {
        if (owner.pkg.fromLockfile === true
          && Object.keys({ ...owner.pkg.dependencies, ...owner.pkg.optionalDependencies }).some((alias) => this.updatedNames.has(alias))) {
          owner.pkg = await this.withManifestRanges(owner.pkg)
        }
      }))
      for (const [pkgId, { occurrence, pkg, childScope, childAliases }] of ordered) {
        const parentPath = extendPath(occurrence.parentPath, pkgId)
        const paths = this.paths.get(pkgId)
        if (paths === undefined) this.paths.set(pkgId, [parentPath])
        else paths.push(parentPath)
        const edges: Edge[] = []
        this.children.set(pkgId, edges)
        this.owners.set(pkgId, occurrence)
        const owned = this.shadowPeers(pkg, occurrence.aliases)
        const wanted = childrenOf(
          owned,
          this.opts.lockfile,
          occurrence.wanted.lockedKey,
          (name) => this.opts.staleNames.has(name) || this.opts.isUpdating(name, occurrence.importerIndex)
        )
        if (pkg.dir !== undefined) for (const child of wanted) child.baseDir = pkg.dir
        if (pkg.injectedProject === true) {
          // A copy of a workspace project takes its dependencies as the project declares them: catalogs, injected projects.
          const injected = this.opts.injectedAliasesOf(pkg.dir!)
          for (const child of wanted) {
            this.throughCatalog(child)
            if (injected.has(child.alias)) child.injected = true
          }
        }
        wanted.forEach((child, slot) => {
          next.push({
            importerIndex: occurrence.importerIndex,
            parentPath,
            wanted: child,
            scope: childScope,
            aliases: childAliases,
            edges,
            slot,
          })
        })
      }
      level = next
    }
    // Unresolved optional edges leave holes.
    for (const edges of this.children.values()) compact(edges)
    for (const importer of direct) compact(importer.edges)
  }

  /**
   * pnpm drops a dependency that the package also takes as an optional peer when a package of
   * that name is in scope where its owner resolves it: the peer is then found there. The package
   * as its owner sees it is what the peers phase reads.
   */
  private shadowPeers (read: ResolvedPackage, aliases: AliasChain): ResolvedPackage {
    // The owner's reading decides the peers; the rest of the lockfile entry stays as first read.
    const first = this.packages.get(read.id)
    const pkg: ResolvedPackage = first === undefined || first === read ? read : {
      ...read,
      lockfileFields: { ...withoutPeers(first.lockfileFields), ...onlyPeers(read.lockfileFields) },
      ...first.deprecated === undefined ? {} : { deprecated: first.deprecated },
    }
    const shadowable = pkg.peerShadowable
    const shadowed = shadowable === undefined ? [] : Object.keys(shadowable).filter((alias) => inChain(aliases, alias))
    const owned: ResolvedPackage = shadowed.length === 0 ? pkg : {
      ...pkg,
      dependencies: Object.fromEntries(Object.entries(pkg.dependencies).filter(([alias]) => !shadowed.includes(alias))),
      peerDependencies: { ...pkg.peerDependencies, ...Object.fromEntries(shadowed.map((alias) => [alias, shadowable![alias]!])) },
    }
    this.packages.set(pkg.id, owned)
    return owned
  }

  private async resolveOne (occurrence: Occurrence, depth: number): Promise<ResolvedPackage | undefined> {
    const { wanted } = occurrence
    const parent = occurrence.parentPath?.id
    let spec = parseWantedSpec(wanted.alias, wanted.bareSpecifier, parent ?? 'package.json')
    if (spec.kind === 'tarball') spec = this.asRegistryTarball(spec) ?? spec
    if (spec.kind !== 'registry' && parent !== undefined && this.opts.blockExoticSubdeps) {
      const via = spec.kind === 'tarball' ? 'url' : spec.kind === 'git' ? 'git-repository' : undefined
      const parentPkg = this.packages.get(parent)!
      if (via !== undefined) {
        throw new LodeError('EXOTIC_SUBDEP', `Exotic dependency "${wanted.alias}" (resolved via ${via}) is not allowed in subdependencies when blockExoticSubdeps is enabled. It is a dependency of ${parentPkg.id}.`, {
          hint: 'Add the dependency to your own package.json, override it with a registry version (overrides in pnpm-workspace.yaml), or set blockExoticSubdeps: false.',
        })
      }
    }
    if (spec.kind === 'local') return this.remember(await this.resolveLocal(spec, wanted, occurrence), depth)
    if (spec.kind === 'workspace') return this.remember(await this.resolveWorkspace(spec.spec, wanted, occurrence), depth)
    if (spec.kind === 'tarball') return this.remember(await this.resolveUrl(spec.url, wanted), depth)
    if (spec.kind === 'git' && this.opts.git !== undefined) return this.remember(await this.resolveGitDependency(spec, wanted, this.opts.git), depth)
    if (spec.kind === 'unsupported') {
      // As pnpm says it, with the packages it was found under (pnpm's "pkgsStack").
      const under = pathIds(occurrence.parentPath)
      const chain = under.length === 0 ? '' : ` This error happened while installing the dependencies of ${under.map((id) => printable(id)).join(' > ')}.`
      throw new LodeError('SPEC_NOT_SUPPORTED_BY_ANY_RESOLVER', `"${printable(`${wanted.alias}@${wanted.bareSpecifier}`)}" isn't supported by any available resolver (the ${printable(spec.protocol)}: protocol).${chain}`, {
        hint: 'Use a registry version range, a git repository, a tarball URL, or a file: or link: path.',
      })
    }
    if (spec.kind !== 'registry') {
      throw new LodeError('UNSUPPORTED_SPEC', `${wanted.alias}@${wanted.bareSpecifier} is a ${spec.kind} dependency, which lode cannot resolve yet.`, {
        hint: 'Use a registry version range, a tarball URL or a file: path for now.',
      })
    }
    let wantedSpec: RegistrySpec = spec
    // A direct dependency moved to another version unpins the subdependencies of that name (not an
    // `npm:` alias, which is no plain range to pnpm's refresh).
    const relock = depth > 0 && !spec.aliased && this.updatedNames.has(spec.name)
    const lockedVersion = relock || wanted.lockedVersion === undefined || !satisfiesLockedRange(wanted.lockedVersion, spec)
      ? undefined
      : wanted.lockedVersion
    const keepsLocked = lockedVersion !== undefined
    // pnpm's linkWorkspacePackages: a version the lockfile pins stays; else a workspace project the
    // range takes is linked with preferWorkspacePackages, or else when the registry has nothing newer.
    // A hoisted peer's version is only pnpm's spec for it (the graph's version), which a project can meet.
    const linkable = (!keepsLocked || wanted.hoisted === true) && (this.opts.linkWorkspacePackages === 'deep' || (this.opts.linkWorkspacePackages && depth === 0))
    const local = linkable ? this.workspaceMatch(spec) : undefined
    const link = async (project: { dir: string, version: string }): Promise<ResolvedPackage> =>
      this.remember(await this.workspaceProject(project.dir, wanted, occurrence, project.version), depth)
    if (local !== undefined && this.opts.preferWorkspacePackages) return link(local)
    if (lockedVersion !== undefined) {
      const id = `${spec.name}@${lockedVersion}`
      if (wanted.hoisted !== true && this.opts.lockfile?.packages?.[id] !== undefined) {
        const key = `locked\t${id}`
        let pending = this.pending.get(key)
        // A packages entry without a snapshot is not a locked package; the lookup scans the snapshots, so it is memoized.
        if (pending === undefined && snapshotOf(this.opts.lockfile, id) !== undefined) {
          this.pending.set(key, pending = this.lockedAsManifestSays(id, spec.name, lockedVersion))
        }
        if (pending !== undefined) return this.remember((await pending)!, depth)
      }
      wantedSpec = { type: 'version', name: spec.name, version: lockedVersion }
    }
    const locked = this.opts.lockfilePins.get(spec.name)
    let preferred = locked !== undefined && this.opts.isUpdating(spec.name, occurrence.importerIndex)
      ? withoutPins(occurrence.scope.preferred(spec.name), locked)
      : occurrence.scope.preferred(spec.name)
    if (wanted.releasedPins !== undefined) preferred = withoutPins(preferred, wanted.releasedPins)
    if (wanted.latestOver !== undefined && lockedVersion === undefined) {
      wantedSpec = await this.higherPick(wantedSpec, wanted.latestOver, preferred)
    }
    const key = `${spec.name}\t${wantedSpec.type === 'version' ? wantedSpec.version : wantedSpec.type === 'range' ? wantedSpec.range : `tag:${wantedSpec.tag}`}\t${JSON.stringify(preferred)}`
    let pending = this.pending.get(key)
    if (pending === undefined) {
      pending = this.opts.resolver.resolve(wantedSpec, preferred).then((resolved) => {
        if (resolved.immature !== undefined) this.opts.onImmature(resolved.immature)
        return fromRegistry({ ...resolved, meta: this.opts.readPackageHook(resolved.meta) }, this.opts.autoInstallPeers)
      }, (err: unknown) => {
        if (!wanted.optional || !(err instanceof LodeError) || (err.code !== 'ERR_LODE_NOT_FOUND' && err.code !== 'ERR_LODE_NO_MATCHING_VERSION')) throw err
        // pnpm's rule: an optional dependency the lockfile has a version of is not dropped because
        // this registry lacks it (the lockfile would depend on the machine that ran the install).
        if (!lockfileHasVersionIn(this.opts.lockfile, spec.name, spec)) return undefined
        throw new LodeError(err.code.slice('ERR_LODE_'.length), err.message, { hint: LOCKED_OPTIONAL_HINT, cause: err })
      })
      this.pending.set(key, pending)
    }
    let pkg: ResolvedPackage | undefined
    try {
      pkg = await pending
    } catch (err) {
      if (local !== undefined && err instanceof LodeError && (err.code === 'ERR_LODE_NOT_FOUND' || err.code === 'ERR_LODE_NO_MATCHING_VERSION')) return link(local)
      throw err
    }
    if (pkg !== undefined && linkable) {
      const same = this.opts.workspaceProjects.find((candidate) => candidate.name === pkg.name && candidate.version === pkg.version)
      if (same !== undefined) return link({ dir: same.dir, version: pkg.version })
      if (local !== undefined && semver.valid(local.version) !== null && semver.gte(local.version, pkg.version)) return link(local)
    }
    if (pkg === undefined && local !== undefined) return link(local)
    if (pkg !== undefined) return this.remember(pkg, depth)
    // As pnpm, said of a project's own optional dependencies only (a deeper one goes quietly).
    if (depth === 0) this.opts.onOptionalSkipped(`${wanted.alias}@${wanted.bareSpecifier} is an optional dependency that could not be resolved. Excluding it from installation.`)
    return undefined
  }

  /** pnpm's pick under `update --latest`: the higher version of `latest`'s and the old spec's (none of its: `latest`'s). */
  private async higherPick (latest: RegistrySpec, old: RegistrySpec, preferred: PreferredVersions): Promise<RegistrySpec> {
    const [ofLatest, ofOld] = await Promise.all([
      this.opts.resolver.resolve(latest, preferred),
      this.opts.resolver.resolve({ ...old, name: latest.name }, preferred).catch(() => undefined),
    ])
    const higher = ofOld !== undefined && semver.gt(ofOld.version, ofLatest.version) ? ofOld : ofLatest
    return { type: 'version', name: latest.name, version: higher.version }
  }

  private workspaceMatch (spec: RegistrySpec): { dir: string, version: string } | undefined {
    return workspaceMatch(spec, this.opts.workspaceProjects)
  }

  /**
   * A registry package the lockfile pins, as pnpm reads it when it resolves again: the registry's
   * manifest (its dependency ranges; the locked versions are kept through the snapshot), with the
   * peers the lockfile recorded while its settings still hold (pnpm's keepLockedPeerDependencies),
   * and the lockfile's fields under the manifest's (applyLockedPackageSnapshot).
   */
  private async lockedAsManifestSays (id: string, name: string, version: string): Promise<ResolvedPackage> {
    const info = this.opts.lockfile!.packages![id]!
    let manifest
    try {
      manifest = await this.opts.resolver.lockedManifest(name, version)
    } catch (err) {
      // --offline without the packument cached: the lockfile's own record of it still serves.
      if (err instanceof LodeError && err.code === 'ERR_LODE_NO_OFFLINE_META') return lockedPackage(this.opts.lockfile, id)!
      throw err
    }
    const meta = { ...this.opts.readPackageHook(manifest) }
    if (this.opts.reuseLockedManifests) {
      delete meta.peerDependencies
      delete meta.peerDependenciesMeta
      if (info.peerDependencies !== undefined) meta.peerDependencies = { ...info.peerDependencies }
      if (info.peerDependenciesMeta !== undefined) meta.peerDependenciesMeta = structuredClone(info.peerDependenciesMeta)
    }
    const pkg = fromMeta(id, info.resolution, meta, this.opts.autoInstallPeers)
    const { resolution: _, ...recorded } = info
    if (info.peerDependencies === undefined) {
      pkg.lockfileFields = { ...recorded, ...pkg.lockfileFields }
      if (info.hasBin === true) pkg.lockfileFields.hasBin = true
      else delete pkg.lockfileFields.hasBin
    } else if (pkg.lockfileFields.deprecated === undefined && info.deprecated !== undefined) {
      pkg.lockfileFields.deprecated = info.deprecated
    }
    if (typeof pkg.lockfileFields.deprecated === 'string') pkg.deprecated = pkg.lockfileFields.deprecated
    return pkg
  }

  /** The package as its registry manifest describes it (dependency ranges), in place of its lockfile form. */
  private async withManifestRanges (pkg: ResolvedPackage): Promise<ResolvedPackage> {
    const resolved = await this.opts.resolver.resolve({ type: 'version', name: pkg.name, version: pkg.version })
    const fresh = fromRegistry({ ...resolved, meta: this.opts.readPackageHook(resolved.meta) }, this.opts.autoInstallPeers)
    this.packages.set(pkg.id, fresh)
    return fresh
  }

  /** A URL under a configured registry at its canonical tarball path is that registry's `name@version`, as pnpm reads it. */
  private asRegistryTarball (spec: WantedSpec & { kind: 'tarball' }): (RegistrySpec & { kind: 'registry', alias: string, aliased: boolean }) | undefined {
    for (const registry of this.opts.resolver.registries()) {
      if (!spec.url.startsWith(registry)) continue
      const match = /^((?:@[^/]+\/)?[^/]+)\/-\/[^/]+-(\d[^/]*)\.tgz$/.exec(decodeURIComponent(spec.url.slice(registry.length)))
      if (match === null || semver.valid(match[2]) === null) continue
      const name = match[1]!
      if (!match[0].includes(`/-/${name.replace(/^@[^/]+\//, '')}-`)) continue
      return { kind: 'registry', alias: spec.alias, aliased: name !== spec.alias, type: 'version', name, version: match[2]! }
    }
    return undefined
  }

  /**
   * `workspace:*`, `workspace:^`, `workspace:~`, `workspace:<range>`, `workspace:<name>@<range>` and
   * `workspace:<path>`: a project of the workspace, linked (`link:../b`, relative to the importer).
   */
  private async resolveWorkspace (specifier: string, wanted: WantedDependency, occurrence: Occurrence): Promise<ResolvedPackage> {
    const importerDir = this.opts.importerDirs[occurrence.importerIndex]!
    const body = specifier.slice('workspace:'.length)
    const where = occurrence.parentPath?.id ?? path.join(importerDir, 'package.json')
    let project
    if (body.startsWith('.') || body.startsWith('/')) {
      const dir = path.resolve(importerDir, body)
      project = this.opts.workspaceProjects.find((candidate) => candidate.dir === dir)
      if (project === undefined) {
        throw new LodeError('WORKSPACE_PKG_NOT_FOUND', `"${wanted.alias}@${specifier}" in ${where} points at ${dir}, which is not a project of the workspace.`, {
          hint: 'Fix the path, or add the directory to packages in pnpm-workspace.yaml.',
        })
      }
    } else {
      const split = splitNameAt(body)
      const named = split.rest !== undefined || (body.startsWith('@') && body.includes('/')) ? split.name : undefined
      const name = named ?? wanted.alias
      const range = named === undefined ? body : split.rest ?? '*'
      const candidates = this.opts.workspaceProjects.filter((candidate) => candidate.name === name)
      if (candidates.length === 0) {
        throw new LodeError('WORKSPACE_PKG_NOT_FOUND', `"${wanted.alias}@${specifier}" is in the dependencies of ${where}, but no package named "${name}" is present in the workspace.`, {
          hint: 'Check the name, or add its directory to packages in pnpm-workspace.yaml.',
        })
      }
      // The project the lockfile links for an unchanged spec stays, as pnpm keeps it, even if its
      // version moved out of the range; `update` takes the highest version whatever the range.
      const updating = this.opts.isUpdating(name, occurrence.importerIndex)
      const lockedDir = !updating && wanted.lockedRef?.startsWith('link:') === true ? path.resolve(importerDir, wanted.lockedRef.slice('link:'.length)) : undefined
      const anyVersion = range === '*' || range === '^' || range === '~' || range === '' || updating
      project = candidates.find((candidate) => candidate.dir === lockedDir) ?? candidates
        .filter((each) => anyVersion || (each.version !== undefined && semver.satisfies(each.version, range, { loose: true })))
        .sort((a, b) => semver.rcompare(semver.valid(a.version) ?? '0.0.0', semver.valid(b.version) ?? '0.0.0'))[0]
      if (project === undefined) {
        throw new LodeError('NO_MATCHING_VERSION_INSIDE_WORKSPACE', `"${wanted.alias}@${specifier}" in ${where} wants ${name}@${range}, but the workspace has ${candidates.map((candidate) => `${name}@${candidate.version ?? '(no version)'}`).join(', ')}.`, {
          hint: 'Change the range, or the version of the workspace project.',
        })
      }
    }
    return await this.workspaceProject(project.dir, wanted, occurrence, project.version ?? '0.0.0')
  }

  /**
   * A workspace project as a dependency: linked, or, when injected (pnpm's `injectWorkspacePackages`,
   * or the declaring project's `dependenciesMeta.<alias>.injected`), copied into the virtual store as
   * the directory package `name@file:<its path from the lockfile's directory>`, its peers resolved
   * where it is used and its own dependencies (not its devDependencies) installed beside it.
   */
  private async workspaceProject (
    dir: string,
    wanted: WantedDependency,
    occurrence: Occurrence,
    version: string
  ): Promise<ResolvedPackage> {
    if (this.opts.injectWorkspacePackages !== true && wanted.injected !== true) return this.linked(dir, wanted.alias, version)
    const key = `inject\t${dir}`
    let pending = this.pending.get(key)
    if (pending === undefined) {
      pending = resolveLocal(wanted.alias, { protocol: 'file', path: dir }, {
        baseDir: this.opts.lockfileDir,
        lockfileDir: this.opts.lockfileDir,
        wantedBy: occurrence.parentPath?.id ?? 'package.json',
        onWarning: this.opts.onWarning,
      }).then((local) => {
        if (local.kind !== 'package') throw new Error('unreachable')
        const pkg = fromMeta(local.id, local.resolution, this.opts.readPackageHook(local.meta), this.opts.autoInstallPeers)
        pkg.dir = dir
        pkg.injectedProject = true
        return pkg
      })
      this.pending.set(key, pending)
    }
    return (await pending)!
  }

  /**
   * pnpm's `catalog:` in an injected workspace project (a `file:` package, no importer where it is
   * copied): the catalog's entry is resolved, a version the lockfile's catalogs hold for it preferred.
   */
  private throughCatalog (child: WantedDependency): void {
    const catalog = catalogSpecifier(child.alias, child.bareSpecifier, this.opts.catalogs)
    if (catalog === undefined) return
    child.bareSpecifier = catalog.specifier
    if (child.lockedVersion !== undefined || child.lockedRef !== undefined) return
    const inCatalog = own(own(this.opts.lockfile?.catalogs, catalog.name), child.alias)?.version
    const version = inCatalog === undefined ? undefined : withoutPeersSuffix(inCatalog)
    if (version !== undefined && !version.includes(':')) child.lockedVersion = splitNameAt(version).rest ?? version
  }

  /**
   * A linked directory. Its id is its path from the lockfile's directory, so a project has one id
   * whichever importer links it; the lockfile writes it relative to each importer.
   */
  private linked (dir: string, alias: string, version: string): ResolvedPackage {
    const id = `link:${path.relative(this.opts.lockfileDir, dir).split(path.sep).join('/')}`
    return {
      id,
      name: alias,
      version,
      dir,
      resolution: {},
      dependencies: {},
      optionalDependencies: {},
      peerDependencies: {},
      peerDependenciesMeta: {},
      lockfileFields: {},
      link: true,
    }
  }

  private async resolveLocal (spec: WantedSpec & { kind: 'local' }, wanted: WantedDependency, occurrence: Occurrence): Promise<ResolvedPackage> {
    const direct = occurrence.parentPath === undefined
    const importerDir = this.opts.importerDirs[occurrence.importerIndex]!
    // pnpm: a direct dependency's path is the project's; a deeper `file:` one is its declaring
    // directory's; others the lockfile's. Whichever, the lockfile names it from its own directory
    // (`dep@file:packages/a/dep`), so that two projects' `file:./dep` stay two packages.
    const baseDir = direct ? importerDir : spec.protocol === 'file' ? wanted.baseDir ?? this.opts.lockfileDir : this.opts.lockfileDir
    const local = await resolveLocal(wanted.alias, spec, {
      baseDir,
      lockfileDir: this.opts.lockfileDir,
      wantedBy: occurrence.parentPath?.id ?? 'package.json',
      onWarning: this.opts.onWarning,
    })
    if (local.kind === 'link') return this.linked(path.resolve(this.opts.lockfileDir, local.ref.slice('link:'.length)), wanted.alias, '0.0.0')
    const pkg = fromMeta(local.id, local.resolution, this.opts.readPackageHook(local.meta), this.opts.autoInstallPeers)
    if (local.dir !== undefined) pkg.dir = local.dir
    return pkg
  }

  private async resolveUrl (url: string, wanted: WantedDependency): Promise<ResolvedPackage> {
    const normalized = new URL(url).toString()
    if (wanted.lockedRef !== undefined) {
      const id = wanted.lockedRef.startsWith('http') ? `${wanted.alias}@${wanted.lockedRef}` : wanted.lockedRef
      const info = this.opts.lockfile?.packages?.[id]
      const tarball = info !== undefined && 'tarball' in info.resolution ? info.resolution['tarball'] : undefined
      if (this.opts.reuseLockedManifests && tarball === normalized) {
        const locked = lockedPackage(this.opts.lockfile, id)
        if (locked !== undefined) return locked
      }
    }
    const key = `url\t${normalized}`
    let pending = this.pending.get(key)
    if (pending === undefined) {
      pending = resolveTarballUrl(normalized, this.opts.fetchBytes).then((local) => {
        if (local.kind !== 'package') throw new Error('unreachable')
        return fromMeta(local.id, local.resolution, this.opts.readPackageHook(local.meta), this.opts.autoInstallPeers)
      })
      this.pending.set(key, pending)
    }
    return (await pending)!
  }

  /**
   * A git dependency: the commit the lockfile pins, while the specifier is unchanged (pnpm asks the
   * repository nothing then), else the commit the ref resolves to now. Its manifest comes from
   * the package fetched into the store, unless the lockfile's entry can be reused as it is.
   */
  private async resolveGitDependency (spec: WantedSpec & { kind: 'git' }, wanted: WantedDependency, git: GitAccess): Promise<ResolvedPackage> {
    const subject = `${wanted.alias}@${wanted.bareSpecifier}`
    const lockedId = wanted.lockedRef === undefined ? undefined : refToDepPath(wanted.alias, wanted.lockedRef)
    const locked = lockedId === undefined ? undefined : this.opts.lockfile?.packages?.[lockedId]
    if (lockedId !== undefined && locked !== undefined && isGitResolution(locked.resolution)) {
      if (this.opts.reuseLockedManifests) {
        const pkg = lockedPackage(this.opts.lockfile, lockedId)
        if (pkg !== undefined) return pkg
      }
      const id = splitNameAt(lockedId).rest ?? lockedId
      return await this.gitPackage(`locked\t${lockedId}`, wanted.alias, git, () => Promise.resolve({ id, resolution: locked.resolution as GitResolution }), subject)
    }
    return await this.gitPackage(`git\t${spec.spec}`, wanted.alias, git, async () => await resolveGit(spec.git, { subject, isPublic: git.isPublic, signal: git.signal }), subject)
  }

  private async gitPackage (
    key: string,
    alias: string,
    git: GitAccess,
    resolve: () => Promise<{ id: string, resolution: GitResolution }>,
    subject: string
  ): Promise<ResolvedPackage> {
    let pending = this.pending.get(key)
    if (pending === undefined) {
      pending = resolve().then(async ({ id, resolution }) => {
        const { manifest, integrity } = await git.fetch({ id, resolution, subject })
        const name = typeof manifest['name'] === 'string' ? manifest['name'] : alias
        const version = typeof manifest['version'] === 'string' ? manifest['version'] : '0.0.0'
        const resolved = integrity !== undefined && 'tarball' in resolution ? { ...resolution, integrity } : resolution
        const meta = trimManifest(name, version, manifest, { tarball: '', integrity: '' })
        return fromMeta(`${name}@${id}`, resolved, this.opts.readPackageHook(meta), this.opts.autoInstallPeers)
      })
      this.pending.set(key, pending)
    }
    return (await pending)!
  }

  /**
   * Records a package the first time it is seen, and returns it as this occurrence read it (from
   * the lockfile or the registry): the occurrence that owns its dependencies decides which reading
   * the package keeps (pnpm's installOwnerPeerDependencies).
   */
  private remember (pkg: ResolvedPackage, depth: number): ResolvedPackage {
    if (this.packages.has(pkg.id)) return pkg
    this.packages.set(pkg.id, pkg)
    this.opts.onResolved(pkg)
    if (pkg.deprecated !== undefined) this.opts.onDeprecated(pkg, depth === 0)
    return pkg
  }
}

/**
 * The lockfile key a reference names (pnpm's `refToRelative`): `name@<id>` as it is, else the
 * alias's own package (`git+https://…#<commit>` is `<alias>@git+https://…#<commit>`).
 */
function withoutPeers ({ peerDependencies: _, peerDependenciesMeta: __, ...rest }: ResolvedPackage['lockfileFields']): ResolvedPackage['lockfileFields'] {
  return rest
}

function onlyPeers ({ peerDependencies, peerDependenciesMeta }: ResolvedPackage['lockfileFields']): ResolvedPackage['lockfileFields'] {
  return {
    ...peerDependencies === undefined ? {} : { peerDependencies },
    ...peerDependenciesMeta === undefined ? {} : { peerDependenciesMeta },
  }
}

const LOCKED_OPTIONAL_HINT = 'This optional dependency is not skipped, because the lockfile contains a resolution for it: skipping it would remove ' +
  'the locked entries, and the lockfile would depend on which machine ran the install. If the version was removed from the registry on purpose, ' +
  'update the package that depends on it, or remove its entries from pnpm-lock.yaml.'

function compact (edges: Edge[]): void {
  const kept = edges.filter((edge) => edge !== undefined)
  edges.length = 0
  edges.push(...kept)
}

function satisfiesLockedRange (version: string, spec: { type: string, version?: string, range?: string }): boolean {
  if (spec.type === 'version') return spec.version === version
  if (spec.type === 'range') return spec.range === '*' || satisfiesLoose(version, spec.range!)
  return false
}

function compareOccurrences (a: Occurrence, b: Occurrence): number {
  const depth = (a.parentPath?.length ?? 0) - (b.parentPath?.length ?? 0)
  if (depth !== 0) return depth
  if (a.importerIndex !== b.importerIndex) return a.importerIndex - b.importerIndex
  return comparePaths(a.parentPath, b.parentPath) || a.slot - b.slot
}

function isBetterOwner (candidate: Occurrence, current: Occurrence): boolean {
  return compareOccurrences(candidate, current) < 0
}

/** The dependencies a package asks for: from its manifest, or pinned by the lockfile's snapshot. */
function childrenOf (
  pkg: ResolvedPackage,
  lockfile: Lockfile | undefined,
  lockedKey: string | undefined,
  unlocked: (name: string) => boolean
): WantedDependency[] {
  const locked = lockedChildren(lockfile, pkg.id, lockedKey)
  for (const name of locked.keys()) if (unlocked(name)) locked.delete(name)
  const wanted: WantedDependency[] = []
  const add = (deps: Record<string, string>, optional: boolean): void => {
    for (const [alias, bareSpecifier] of Object.entries(deps)) {
      const lockedRef = locked.get(alias)
      const entry: WantedDependency = { alias, bareSpecifier, optional }
      if (lockedRef !== undefined) {
        const bare = withoutPeersSuffix(lockedRef)
        if (bare.includes(':')) {
          entry.lockedRef = bare
        } else {
          entry.lockedVersion = splitNameAt(bare).rest ?? bare
          entry.lockedKey = refToDepPath(alias, lockedRef)
        }
      }
      wanted.push(entry)
    }
  }
  add(pkg.dependencies, false)
  add(pkg.optionalDependencies, true)
  return wanted
}

/**
 * alias → locked reference of a package's children in the lockfile (from the snapshot the edge
 * names, else any of its variants). A peer under `dependencies` was resolved from above: it is no locked child (pnpm
 * leaves those under `optionalDependencies`).
 */
function lockedChildren (lockfile: Lockfile | undefined, pkgId: string, lockedKey: string | undefined): Map<string, string> {
  const out = new Map<string, string>()
  const named = lockedKey !== undefined && (lockedKey === pkgId || lockedKey.startsWith(`${pkgId}(`)) ? lockfile?.snapshots?.[lockedKey] : undefined
  const snapshot = named ?? snapshotOf(lockfile, pkgId)
  if (snapshot === undefined) return out
  const peers = lockfile?.packages?.[pkgId]?.peerDependencies ?? {}
  for (const [alias, ref] of Object.entries(snapshot.dependencies ?? {})) if (own(peers, alias) === undefined) out.set(alias, ref)
  for (const [alias, ref] of Object.entries(snapshot.optionalDependencies ?? {})) out.set(alias, ref)
  return out
}
