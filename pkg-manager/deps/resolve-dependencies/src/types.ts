import type { DependencyGroup } from '@lode/core.constants'
import type { HookedManifest } from '@lode/pkg-manager.deps.read-package-hook'
import type { PackageInfo, Resolution } from '@lode/pkg-manager.lockfile.format'

import type { IdPath } from './id-path.js'

/** The fields of a project's package.json that resolution reads (the same the manifest hooks change). */
export type ProjectManifest = HookedManifest

export interface Importer {
  /** The importer id in the lockfile: the project's directory relative to the lockfile's, `.` for the root. */
  id: string
  /** The project's directory (absolute). */
  dir: string
  manifest: ProjectManifest
  /** The specs package.json had for the dependencies a command changes (`add dep@1` over `~1.0.0`): pnpm still prefers the versions they take. */
  replacedSpecs?: Readonly<Record<string, string>> | undefined
  /** The dependencies a command adds (package.json did not list them): pnpm resolves them, but its projects' specs are still the old ones. */
  addedAliases?: readonly string[] | undefined
  /**
   * `update --latest`: the registry specs package.json had for the dependencies moved to `latest`;
   * each takes the higher of `latest` and what its old spec picks (pnpm keeps an exact prerelease
   * newer than `latest`).
   */
  latestOver?: Readonly<Record<string, string>> | undefined
}

/** One resolved package (`name@version`), whatever it was resolved from. */
export interface ResolvedPackage {
  id: string
  name: string
  version: string
  resolution: Resolution
  dependencies: Record<string, string>
  optionalDependencies: Record<string, string>
  peerDependencies: Record<string, string>
  peerDependenciesMeta: Record<string, { optional?: boolean }>
  /** The package's entry under `packages:` in the lockfile, minus `resolution`. */
  lockfileFields: Omit<PackageInfo, 'resolution'>
  deprecated?: string
  /** The registry's `latest` tag when it was read (a registry pick, not a lockfile reading). */
  latest?: string
  /** A directory package (`file:dir`): its own `file:` dependencies resolve from here. A link: its target. */
  dir?: string
  /** A workspace project injected (copied as a `file:` package): its `catalog:` dependencies resolve through the catalogs. */
  injectedProject?: true
  /** A `link:` dependency: a symlink, with no entry in the lockfile's packages. */
  link?: true
  /** Built from the lockfile alone: its dependencies are the locked versions, not the manifest's ranges. */
  fromLockfile?: true
  /** Dependencies it also takes as optional peers (alias → peer range): peers instead where its owner has one in scope. */
  peerShadowable?: Record<string, string>
}

/** A dependency edge from a package or an importer to a resolved package. */
export interface Edge {
  alias: string
  pkgId: string
  optional: boolean
}

export interface DirectDependency extends Edge {
  group: DependencyGroup
  specifier: string
}

/**
 * The occurrence where a package's dependencies were chosen (pnpm resolves them there only): its
 * importer, the ids above it (`parentPath`), and the list its dependencies were resolved under
 * (`childPath`, the very `parentPath` of each dependency it owns in turn).
 */
export interface ChildrenOwner {
  importerIndex: number
  parentPath: IdPath | undefined
  childPath: IdPath
}
