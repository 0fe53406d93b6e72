// What linking takes and returns: the contract between the install and the steps that lay out
// node_modules, and the small interfaces the linker needs of the steps before it.
import type { DependencyGroup } from '@lode/core.constants'
import type { BuildCandidate, Builds } from '@lode/pkg-manager.building.lifecycle'
import type { Config } from '@lode/pkg-manager.config.settings'
import type { Lockfile, Resolution } from '@lode/pkg-manager.lockfile.format'
import type { Patch } from '@lode/pkg-manager.patching.patches'
import type { LinkPool } from '@lode/worker.pools'

import type { HoistedPeer } from './layout.js'


/** A package's files in the store, as a link task carries them, and whether it wants a build. */
export interface PackageInStore {
  files: string
  requiresBuild: boolean
}

/**
 * What the linker needs of the package requester: each package's files in the store, fetched
 * when the store lacks them (the requester's `PackageFetcher` is one).
 */
export interface PackageSource {
  /** Packages downloaded so far (for progress). */
  readonly downloaded: number
  /** The rows of `packages`, in order: a row at hand, or the promise of one being fetched; `reused` counts those at hand. */
  rows: (packages: ReadonlyArray<{ pkgId: string, resolution: Resolution }>) => {
    rows: Array<PackageInStore | Promise<PackageInStore>>
    reused: number
  }
  /** Told when every package is in the store and the last link tasks are out: the main thread waits for them meanwhile. */
  settled?: () => void
  /** The packages fetched again whatever the store's index says (files of theirs went missing from the store). */
  refetch?: (packages: ReadonlyArray<{ pkgId: string, resolution: Resolution }>) => Array<Promise<PackageInStore>>
}

/** Where the linker reports its work (the requester's `PipelineTrace` is one). */
export interface LinkTrace {
  count: (stage: 'linked', n: number) => void
}

export interface LinkPackagesOptions {
  /** The clock, in ms since the epoch (`.modules.yaml#prunedAt`). */
  now: () => number
  config: Config
  lockfile: Lockfile
  /** Gets packages into the store (it may have started during resolution). */
  fetcher: PackageSource
  /** `lode@<version>`, recorded in `.modules.yaml`. */
  packageManager: string
  /** The importers to install (`.`, and every project of a workspace), with their directories and names. */
  importers: ReadonlyArray<{ id: string, dir: string, name?: string | undefined, version?: string | undefined }>
  /** Importers with install scripts of their own, in the importers' order: pending builds under --ignore-scripts. */
  importersWithInstallScripts?: readonly string[] | undefined
  /** The importers' dependency groups to install. */
  include: Readonly<Record<DependencyGroup, boolean>>
  onWarning?: ((message: string) => void) | undefined
  onInfo?: ((message: string) => void) | undefined
  /** Called as packages are fetched and linked. */
  onProgress?: ((counts: { added: number, reused: number, downloaded: number }) => void) | undefined
  trace?: LinkTrace | undefined
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
   * `add`, `remove` or `update` (pnpm's named installation): node_modules laid out with other
   * settings is refused with pnpm's code for the change, not laid out anew.
   */
  edits?: boolean
  /**
   * pnpm's filtered install (`install --filter`): only these importers are installed; the others
   * keep what the last install gave them, and nothing of theirs is pruned.
   */
  selectedImporters?: ReadonlySet<string> | undefined
  /**
   * By importer id, the peers this install's resolution hoisted to it, which the lockfile does not
   * list: pnpm links a directory (`dir`, absolute) into the importer's node_modules, and starts
   * its hoisting from a package (`depPath`) after the importer's own dependencies.
   */
  hoistedPeers?: Readonly<Record<string, readonly HoistedPeer[]>> | undefined
  /** `.pnpm/lock.yaml` when the caller has read it already (it is read here otherwise). */
  installedLockfile?: Lockfile | undefined
  /**
   * pnpm-lock.yaml as the install read it (its text and what it parsed to): a `.pnpm/lock.yaml` of
   * the very same text (the last install wrote it so) is that lockfile, not parsed again.
   */
  lockfileAsRead?: { readonly text: string, readonly lockfile: Lockfile } | undefined
  /**
   * The lockfile's text, when the caller has it (installed exactly as read) or will need it too (a
   * resolved lockfile, for pnpm-lock.yaml): `.pnpm/lock.yaml` of a whole install gets it as it is.
   */
  lockfileText?: (() => string) | undefined
  /** The link pool, lent by its owner (the install's `Installer`). */
  linkThreads: LinkThreads
  /**
   * The lockfile's supply-chain check, running beside the install (pnpm 11 checks while it
   * downloads): packages are fetched and imported into new directories meanwhile, but nothing the
   * last install left is changed, and no build runs, before it has passed; its failure takes the
   * import back as a failed download does. Undefined: nothing to wait for.
   */
  verified?: Promise<void> | undefined
  /** The importers (ids) an `add`, `update` or `remove` is confined to, when not all: hoisting starts from their dependencies only, as pnpm's. */
  hoistFrom?: ReadonlySet<string> | undefined
  /** `lode prune`: every package in the projects' node_modules that is no direct dependency (nor publicly hoisted) goes, as pnpm's prune removes it. */
  pruneDirectDependencies?: boolean | undefined
  /** False for pnpm's `remove`, which reports no ignored builds (strictDepBuilds does not fail it); true by default. */
  reportsIgnoredBuilds?: boolean | undefined
}

/** What linking did, for the install's summary. */
export interface LinkCounts {
  /** Packages newly imported into `node_modules/.pnpm` (or their places, hoisted). */
  added: number
  /** Of those, packages the store already had. */
  reused: number
  downloaded: number
  /** Packages the last install had and this one does not. */
  removed: number
  /** Direct dependencies added or removed (a changed version is both), by group, sorted by alias. */
  changes: DirectDependencyChange[]
}

/**
 * node_modules with every package in place and every link written, but not yet final: the
 * caller runs the builds, then `complete`s it (or `rollBack`s it when a build fails), writes what
 * changes outside node_modules, and calls `done`. Until `done`, a marker in node_modules tells the
 * next install that this one did not finish.
 */
export interface LinkedPackages {
  counts: LinkCounts
  /** What node_modules holds now, as `.pnpm/lock.yaml` records it (for a filtered install, the selected importers merged with what the others had, and only the packages they reach). */
  lockfile: Lockfile
  /** The packages to build where they are: new ones that want a build, and those an earlier install ignored. */
  buildCandidates: readonly BuildCandidate[]
  /** The workspace projects' injected copies (refreshed once a project's own scripts ran: `refreshInjectedCopies`). */
  injectedCopies: readonly InjectedCopy[]
  /**
   * Builds lode cannot run (allowed builds in slots of pnpm's global virtual store): the caller
   * throws it in place of running the builds, and rolls the install back.
   */
  refusedBuilds?: Error | undefined
  /** A build failed: node_modules goes back to what the last install left (isolated layout). */
  rollBack: () => Promise<void>
  /** The builds are done: what they change is linked again, the last removals are made, `.modules.yaml` is written. */
  complete: (builds: Builds) => Promise<void>
  /** The install is over: the marker of an install under way goes. */
  done: () => Promise<void>
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
  /** A newer `latest` in the registry (pnpm's "(x is available)"), when the install read it. */
  latest?: string
}

/** A copy of a workspace project in node_modules (an injected dependency, `<name>@file:<project>`). */
export interface InjectedCopy {
  /** The project's id (its directory from the workspace root). */
  projectId: string
  pkgId: string
  resolution: Resolution
  /** Where the copy is. */
  dir: string
}

/**
 * The link pool as its owner lends it: started by the owner, or when first asked for, and closed
 * only by the owner. The linker says when its imports are over, so the threads can end (their
 * memory back) while the bins are written and the builds run; asked for again after that (the
 * injected copies a build refreshes), a pool starts anew.
 */
export interface LinkThreads {
  /** The pool when it has started already (its threads booted while the lockfile was read). */
  readonly started: LinkPool | undefined
  pool: () => LinkPool
  /** The imports are over: the owner ends the threads without waiting for them. */
  release: () => void
}
