// The install's contract with its callers (the CLI, the API): what it takes, what it reports while
// it runs, what it returns.
import type { DependencyGroup } from '@lode/core.constants'
import type { Config } from '@lode/pkg-manager.config.settings'
import type { DependencyEdit } from '@lode/pkg-manager.deps.manifest-edit'
import type { PeerIssue } from '@lode/pkg-manager.deps.resolve-dependencies'
import type { DirectDependencyChange } from '@lode/pkg-manager.installing.linker'
import type { Lockfile } from '@lode/pkg-manager.lockfile.format'
import type { LockfileVerificationEvent } from '@lode/pkg-manager.lockfile.verification'


/** What an install reports while it runs; a reporter (the CLI's, or a caller's) turns them into output. */
export type InstallEvent =
  | { type: 'warning', message: string }
  | { type: 'info', message: string }
  | { type: 'deprecated', direct: string[], subdependencies: string[] }
  | { type: 'peer-issues', issues: PeerIssue[] }
  | { type: 'progress', resolved: number, reused: number, downloaded: number, added: number, done: boolean }
  | { type: 'lockfile', written: boolean, file: string }
  | { type: 'up-to-date' }
  /** Output of one of the project's scripts, when `scriptsStdio` is `pipe`. */
  | { type: 'script-output', script: string, output: string }
  /** Packages added to and removed from node_modules, where the store is, and the virtual store (relative to the workspace root). */
  | { type: 'packages', added: number, removed: number, storeDir: string, virtualStoreDir: string }
  /** Direct dependencies added and removed, for pnpm's summary. */
  | { type: 'summary', changes: DirectDependencyChange[] }
  /** A dependency's build script: its start (`script`), a line of its output (`line`), its end (`exitCode`); `dir` relative to the lockfile's. */
  | { type: 'lifecycle', dir: string, stage: string, script?: string, line?: string, exitCode?: number }
  /** The lockfile's check against the supply-chain policies (see verify-lockfile.ts). */
  | LockfileVerificationEvent

export interface InstallOptions {
  config: Config
  /** Resolve and write `pnpm-lock.yaml` only; nothing is downloaded or linked. */
  lockfileOnly?: boolean
  /** Install the lockfile as it is, failing with `ERR_LODE_OUTDATED_LOCKFILE` when it does not match package.json (default: `config.frozenLockfile`, on in CI). */
  frozenLockfile?: boolean
  /** Install an up-to-date lockfile without resolving (default true). */
  preferFrozenLockfile?: boolean
  /** Dependency groups to put in node_modules (default: all); the lockfile always has all. */
  include?: Readonly<Record<DependencyGroup, boolean>>
  /** `prune`: packages in the projects' node_modules that are no direct dependency (links made by hand too) are removed. */
  pruneDirectDependencies?: boolean
  /** Run no scripts: the project's own are skipped, dependency builds are recorded as pending in `.modules.yaml`. */
  ignoreScripts?: boolean
  /**
   * pnpm 11 in an interactive terminal, not in CI: the dependencies whose builds were left out are
   * added to `allowBuilds` in pnpm-workspace.yaml as undecided ("set this to true or false").
   */
  recordIgnoredBuilds?: boolean
  /** The project's own scripts: `inherit` shows their output as they run (the CLI); `pipe` (default) reports it as `script-output` events. */
  scriptsStdio?: 'inherit' | 'pipe'
  /**
   * The CLI's `quickKey` for this install (see quick-check.ts): recorded with the install's state so
   * that the next `lode install` with the same key can answer "up to date" before loading anything.
   */
  quickKey?: string
  /** Write a per-100 ms trace of packages resolved, downloaded, extracted and linked to this file (JSON lines). */
  tracePipeline?: string
  /** `lode import`: the versions another package manager's lockfile installs (preferred above all; pnpm-lock.yaml is not reused). */
  importedVersions?: ReadonlyMap<string, ReadonlySet<string>>
  /** Write the install's timeline (phases, the slowest packages and requests) to this file, as a self-contained HTML page. */
  timeline?: string
  /**
   * Cancels the install: requests stop, no new package is fetched or linked, and the promise
   * rejects with the signal's reason. The store and node_modules stay consistent (every write
   * is atomic), and the next install completes what this one started.
   */
  signal?: AbortSignal
  /** The clock, in ms since the epoch (minimumReleaseAge, cache times). */
  now: () => number
  /** Dependencies to add to a project's package.json first (`add`); the lockfile is then never frozen. */
  edits?: readonly DependencyEdit[]
  /** `add` outside a workspace: a project without package.json gets one with what is added, as with pnpm. */
  createManifest?: boolean
  /**
   * pnpm's `install --filter`: the importer ids (`packages/a`) whose node_modules are installed (and
   * whose scripts run), the root's always with them; the other projects keep what they have. The
   * lockfile covers every project.
   */
  projects?: readonly string[]
  /** Print pnpm's "Scope: …" line in a workspace when several projects are selected (default true; pnpm's `add` prints none). */
  announceScope?: boolean
  onEvent?: (event: InstallEvent) => void
  /** pnpm's `dedupe`: every dependency resolved again, the lockfile's versions preferred (see dedupe.ts). */
  dedupe?: boolean
  /**
   * Called with the lockfile before and as resolved, before anything is written; the install then
   * stops there (`dedupe --check`). Give it with `lockfileOnly` and `ignoreScripts`: a project's
   * preinstall script runs before resolution otherwise.
   */
  lockfileCheck?: ((before: Lockfile | undefined, after: Lockfile) => void) | undefined
}

export interface InstallResult {
  lockfileChanged: boolean
  /** Packages in the lockfile. */
  packages: number
  /** Packages newly put in node_modules, how many of them the store already had, and how many were downloaded. */
  added: number
  reused: number
  downloaded: number
  /** Packages the last install had and this one does not. */
  removed: number
  /** Direct dependencies added and removed. */
  changes: DirectDependencyChange[]
  /** Nothing had changed since the last install: nothing was read beyond the inputs. */
  upToDate?: true
  /**
   * The lockfile has local sources (`file:` tarballs and directories, injected projects), which
   * change without any input file changing: no record says the next install is up to date.
   */
  readsLocalSources?: true
  /** A workspace project left out (`--filter`, an edit of some projects) has other dependencies in node_modules than the lockfile says: the next full install is no repeat of this one. */
  filtered?: true
  /** Milliseconds spent resolving (0 when the lockfile was used as it is), then fetching and linking, and in all. */
  timings: { resolveMs: number, linkMs: number, totalMs: number }
}
