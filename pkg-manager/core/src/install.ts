import fs from 'node:fs'
import path from 'node:path'

import { LODE_STATE_FILE } from '@lode/core.constants'
import { fileSystemError, LodeError } from '@lode/core.error'
import { adoptPnpmState, lockProject, installInputs, upToDateState, writeInstallState } from '@lode/pkg-manager.installing.install-state'
import type { InstallLock } from '@lode/pkg-manager.installing.install-state'
import { readOrNull } from '@lode/pkg-manager.installing.install-state/quick-check'
import type { InstallOptions, InstallResult } from '@lode/pkg-manager.installing.installer'

import { writeWantedLockfile } from './lockfile-commit.js'

/**
 * Installs the project in `config.dir` (see `installFull`). When nothing it depends on changed
 * since the last install (settings, options, package.json, pnpm-lock.yaml, node_modules' own
 * record), it reports "up to date" without loading the resolver, the pools or the store index:
 * those modules are imported only when there is work.
 */
export async function install (opts: InstallOptions): Promise<InstallResult> {
  const started = performance.now()
  opts.signal?.throwIfAborted()
  return await withInstallLock(opts, async () => await installLocked(opts, started))
}

/**
 * One install of a project at a time (`lockProject`): a second one waits, then starts from what
 * the first left. `--lockfile-only` writes one file atomically and takes no lock.
 */
async function withInstallLock (opts: InstallOptions, run: () => Promise<InstallResult>): Promise<InstallResult> {
  let lock: InstallLock | undefined
  let failed = true
  if (opts.timeline !== undefined) checkTimelineFile(opts.timeline)
  try {
    if (opts.lockfileOnly !== true) lock = await lockProject(path.join(opts.config.dir, 'node_modules'), { onWait: (message) => opts.onEvent?.({ type: 'info', message }), signal: opts.signal })
    const result = await run()
    failed = false
    return result
  } catch (err) {
    // Permissions, a full disk, a directory where a file belongs: a coded error naming the path.
    throw fileSystemError(err) ?? err
  } finally {
    await lock?.release({ failed })
  }
}

/** The timeline page is written when the install ends: a directory in its place is refused before anything is installed. */
function checkTimelineFile (file: string): void {
  if (fs.statSync(file, { throwIfNoEntry: false })?.isDirectory() === true) {
    throw new LodeError('TIMELINE_IS_DIRECTORY', `The timeline page cannot be written to ${file}: it is a directory.`, {
      hint: 'Give --timeline the name of a file, for example --timeline timeline.html.',
    })
  }
}

async function installLocked (opts: InstallOptions, started: number): Promise<InstallResult> {
  const linking = opts.lockfileOnly !== true
  // pnpm's optimisticRepeatInstall off: no record is trusted, node_modules is gone through every time.
  if (!opts.config.optimisticRepeatInstall) return await recordInstall(opts)
  // No record of a finished install: there is work, and no reason to read the inputs before it,
  // unless pnpm 11 installed node_modules and its record says nothing changed since.
  if (linking && !fs.existsSync(path.join(opts.config.dir, 'node_modules', LODE_STATE_FILE))) return await vouchedByPnpm(opts, started) ?? await recordInstall(opts)
  // `prune` looks at node_modules itself, whatever the record says.
  const before = linking && opts.pruneDirectDependencies !== true ? await installInputs(opts) : undefined
  const state = before === undefined ? undefined : await upToDateState(opts.config.dir, before.digest)
  if (state !== undefined) {
    // pnpm-lock.yaml deleted over an intact node_modules: node_modules' lockfile is written back, as the full path would.
    const standIn = before!.lockfileStandIn
    const lockfileChanged = standIn !== undefined && await writeWantedLockfile(opts.config.dir, { text: standIn.toString('utf8') })
    // Up to date, but the CLI's quick check did not know it (new settings key, or an API install before): record it for next time.
    if (opts.quickKey !== undefined && state.quick?.key !== opts.quickKey) await writeInstallState(opts, before!, state.packages)
    opts.onEvent?.({ type: 'up-to-date' })
    return upToDateResult(state.packages, lockfileChanged, started)
  }
  return await recordInstall(opts)
}

/**
 * "Up to date" when pnpm 11's record of node_modules vouches for these very inputs (see
 * `adoptPnpmState`): lode records them as its own, and the tree stays as pnpm left it.
 */
async function vouchedByPnpm (opts: InstallOptions, started: number): Promise<InstallResult | undefined> {
  const packages = await adoptPnpmState(opts)
  if (packages === undefined) return undefined
  opts.onEvent?.({ type: 'up-to-date' })
  return upToDateResult(packages, false, started)
}

/** Installs with `installFull` (holding the project's install lock) and records the new state after. */
export async function installAndRecord (opts: InstallOptions): Promise<InstallResult> {
  return await withInstallLock(opts, async () => await recordInstall(opts))
}

async function recordInstall (opts: InstallOptions): Promise<InstallResult> {
  const linking = opts.lockfileOnly !== true
  const { installFull } = await import('./full-install.js')
  const settingsFile = path.join(opts.config.dir, 'pnpm-workspace.yaml')
  const settingsBefore = readOrNull(settingsFile)
  // The last install's record stays until node_modules starts changing for good (linkPackages
  // removes it then): an install that fails before leaves everything, the record too, as it was.
  const result = await installFull(opts)
  // No record to trust next time: with optimisticRepeatInstall off, or local sources that change unseen,
  // or settings this install rewrote (a catalog entry, an exclude): they are not those it read.
  const settingsAfter = readOrNull(settingsFile)
  const settingsKept = settingsBefore === null || settingsAfter === null
    ? settingsBefore === settingsAfter
    : settingsBefore.equals(settingsAfter)
  if (linking && result.readsLocalSources !== true && opts.config.optimisticRepeatInstall && settingsKept) {
    // An install that selected every project (an edit of a lone project) is recorded as a full one: `add`, then `install` is up to date.
    const recorded = result.filtered === true ? opts : { ...opts, projects: undefined }
    const after = await installInputs(recorded)
    if (after !== undefined) await writeInstallState(recorded, after, result.packages)
  }
  return result
}

/** What an install that found nothing to do returns. */
function upToDateResult (packages: number, lockfileChanged: boolean, started: number): InstallResult {
  return {
    lockfileChanged,
    packages,
    added: 0,
    reused: 0,
    downloaded: 0,
    removed: 0,
    changes: [],
    upToDate: true,
    timings: { resolveMs: 0, linkMs: 0, totalMs: Math.round(performance.now() - started) },
  }
}
