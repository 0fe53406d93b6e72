// What linking takes and returns: the contract between the install and the steps that lay out node_modules.
import type { DependencyGroup } from '@lode/core.constants'
import type { Config } from '@lode/pkg-manager.config'
import type { Lockfile } from '@lode/pkg-manager.lockfile'
import type { PackageFetcher, PipelineTrace } from '@lode/pkg-manager.package-requester'
import type { LinkPool } from '@lode/worker.pools'

import type { Patch } from './patches.js'

export interface LinkPackagesOptions {
  /** The clock, in ms since the epoch (`.modules.yaml#prunedAt`). */
  now: () => number
  config: Config
  lockfile: Lockfile
  /** Gets packages into the store (it may have started during resolution). */
  fetcher: PackageFetcher
  /** `lode@<version>`, recorded in `.modules.yaml`. */
  packageManager: string
  /** The importers to install (`.`, and every project of a workspace), with their directories and names. */
  importers: ReadonlyArray<{ id: string, dir: string, name?: string | undefined, version?: string | undefined }>
  /** Importers with install scripts of their own, in the importers' order: pending builds under --ignore-scripts. */
  importersWithInstallScripts?: readonly string[] | undefined
  /** The importers' dependency groups to install. */
  include: Readonly<Record<DependencyGroup, boolean>>
  onWarning?: (message: string) => void
  onInfo?: ((message: string) => void) | undefined
  /** Called as packages are fetched and linked. */
  onProgress?: (counts: { added: number, reused: number, downloaded: number }) => void
  trace?: PipelineTrace | undefined
  /** Stops fetching and linking new packages (those under way finish, whole). */
  signal?: AbortSignal | undefined
  /** Run no build scripts: they are recorded as pending in `.modules.yaml`. */
  ignoreScripts: boolean
  /** Patches (`patchedDependencies`): a package whose dependency path has `patch_hash=` gets its patch applied when imported. */
  patches: readonly Patch[]
  /**
   * The lockfile was resolved by this install (not installed as it was). pnpm then also links each
   * package's own bins into its `node_modules/.bin`; installing a lockfile as it is, it does not.
   */
  resolved: boolean
  /**
   * pnpm's filtered install (`install --filter`): only these importers are installed; the others
   * keep what the last install gave them, and nothing of theirs is pruned.
   */
  selectedImporters?: ReadonlySet<string> | undefined
  /** `.pnpm/lock.yaml` when the caller has read it already (it is read here otherwise). */
  installedLockfile?: Lockfile | undefined
  /** The lockfile's text when it is installed exactly as read: `.pnpm/lock.yaml` gets it as it is. */
  lockfileText?: string | undefined
  /**
   * A link pool started early by the caller (its threads boot while the lockfile is read); one is
   * started here otherwise. Once the packages are imported, its closing starts here (its threads
   * end while the bins are written); the caller awaits `close()` as it would anyway.
   */
  linkPool?: LinkPool | undefined
  /**
   * Writes what the install changes outside node_modules (pnpm-lock.yaml, and package.json for an
   * edit), called once node_modules is complete: an install that fails before changes neither.
   * Resolves with whether it wrote the lockfile.
   */
  commit?: (() => Promise<boolean>) | undefined
}

export interface LinkPackagesResult {
  /** Packages newly imported into `node_modules/.pnpm`. */
  added: number
  /** Of those, packages the store already had. */
  reused: number
  downloaded: number
  /** Packages the last install had and this one does not. */
  removed: number
  /** Direct dependencies added or removed (a changed version is both), by group, sorted by alias. */
  changes: DirectDependencyChange[]
  /** What `commit` resolved with: the lockfile was written. */
  committed: boolean
}

export interface DirectDependencyChange {
  group: DependencyGroup
  change: '+' | '-'
  alias: string
  /** The package's name when the alias differs (`npm:` aliases). */
  name?: string
  /** The version (or `link:` / other reference). */
  version: string
  /** For a workspace project: its path from the workspace root. */
  linkedFrom?: string
}
