import type { ManifestHook } from '@lode/pkg-manager.deps.read-package-hook'
import type { Lockfile } from '@lode/pkg-manager.lockfile.format'
import type { NpmResolver, ReleaseAgeViolation } from '@lode/resolving.npm-resolver'

import type { Catalogs } from './catalogs.js'
import type { HoistedPeer } from './hoisted-peers.js'
import type { PeerIssue } from './resolve-peers.js'
import type { GitAccess } from './resolve-tree.js'
import type { Importer, ResolvedPackage } from './types.js'

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
