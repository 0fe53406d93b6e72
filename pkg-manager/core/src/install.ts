import path from 'node:path'

import type { DependencyGroup } from '@lode/pkg-manager.lockfile'

import { parseAddSpec } from './dependency-edit.js'
import type { InstallOptions, InstallResult } from './full-install.js'
import { forgetInstallState, installInputs, upToDatePackages, writeInstallState } from './install-state.js'

/**
 * Installs the project in `config.dir` (see `installFull`). When nothing it depends on changed
 * since the last install (settings, options, package.json, pnpm-lock.yaml, node_modules' own
 * record), it reports "up to date" without loading the resolver, the pools or the store index:
 * those modules are imported only when there is work.
 */
export async function install (opts: InstallOptions): Promise<InstallResult> {
  const started = performance.now()
  opts.signal?.throwIfAborted()
  const linking = opts.lockfileOnly !== true
  const before = linking ? await installInputs(opts) : undefined
  const packages = before === undefined ? undefined : await upToDatePackages(opts.config.dir, before)
  if (packages !== undefined) {
    opts.onEvent?.({ type: 'up-to-date' })
    const totalMs = Math.round(performance.now() - started)
    return { lockfileChanged: false, packages, added: 0, reused: 0, downloaded: 0, removed: 0, changes: [], upToDate: true, timings: { resolveMs: 0, linkMs: 0, totalMs } }
  }
  return await installAndRecord(opts)
}

async function installAndRecord (opts: InstallOptions): Promise<InstallResult> {
  const linking = opts.lockfileOnly !== true
  const { installFull } = await import('./full-install.js')
  if (linking) await forgetInstallState(opts.config.dir)
  const result = await installFull(opts)
  if (linking) {
    const after = await installInputs(opts)
    if (after !== undefined) await writeInstallState(opts.config.dir, { inputs: after, packages: result.packages })
  }
  return result
}

export interface AddOptions extends Omit<InstallOptions, 'edit' | 'frozenLockfile' | 'preferFrozenLockfile'> {
  /** What to add, as on pnpm's command line: `name`, `name@range`, `name@tag`, `alias@npm:name@range`, `name@workspace:*`. */
  dependencies: readonly string[]
  /** The project to add to (a workspace project's directory); the root (`config.dir`) by default. */
  projectDir?: string
  /** `devDependencies` (`-D`), `optionalDependencies` (`-O`); without it, `dependencies` unless the package is already in another group. */
  group?: DependencyGroup
  /** Save the picked version without `savePrefix` (`-E`). */
  exact?: boolean
}

/**
 * pnpm's `add`: resolves each dependency, saves it in the project's package.json with pnpm's
 * specifier (`^1.2.3` for a picked version; a range or version as written), updates the
 * lockfile, and installs. Nothing is written when resolution fails.
 */
export async function add (opts: AddOptions): Promise<InstallResult> {
  const dependencies = opts.dependencies.map(parseAddSpec)
  const importerId = path.relative(opts.config.dir, path.resolve(opts.config.dir, opts.projectDir ?? '.')).split(path.sep).join('/') || '.'
  return await installAndRecord({
    ...opts,
    edit: { importerId, dependencies, group: opts.group, exact: opts.exact === true, savePrefix: opts.config.savePrefix },
  })
}
