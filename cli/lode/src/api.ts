// The `lode` package's programmatic API (its `exports` entry): install, add, remove and update as
// `lode install/add/remove/update` run them, for other Node tools. Nothing is loaded until a call:
// each one first checks the Node.js it runs on, so an unsupported one gets a LodeError
// (ERR_LODE_UNSUPPORTED_NODE) instead of whatever the first newer API it meets would throw.
import { LodeError } from '@lode/core.error'
import type * as Core from '@lode/pkg-manager.core'
import type { AddOptions, Config, ConfigOverrides, InstallOptions, InstallResult, RemoveOptions, UpdateOptions } from '@lode/pkg-manager.core'

import { unsupportedNode } from './node-version.js'

export { LodeError, isLodeError } from '@lode/core.error'
export type { AddOptions, Config, ConfigOverrides, InstallEvent, InstallOptions, InstallResult, RemoveOptions, UpdateOptions } from '@lode/pkg-manager.core'

/** The clock is optional in the API: it defaults to `Date.now`. */
type WithClock<T extends { now: () => number }> = Omit<T, 'now'> & { now?: () => number }

export interface GetConfigOptions {
  /** The project (or workspace root) directory; default `process.cwd()`. */
  dir?: string
  /** Where `npm_config_*`, `HOME`, `XDG_*` and `CI` are read; default `process.env`. */
  env?: Readonly<Record<string, string | undefined>>
  /** What the command line would set (`--registry`, `--store-dir`, …), over every file. */
  overrides?: ConfigOverrides
}

/**
 * The settings an install of `dir` runs with, read where pnpm 11 reads them (`.npmrc`,
 * `pnpm-workspace.yaml`, the global `config.yaml`, `npm_config_*` variables). A setting lode
 * cannot honour rejects with `ERR_LODE_UNSUPPORTED_SETTING`.
 */
export async function getConfig (opts: GetConfigOptions = {}): Promise<Config> {
  const [core, { VERSION }] = await Promise.all([loadCore(), import('./version.js')])
  return core.getConfig({
    dir: opts.dir ?? process.cwd(), env: opts.env ?? process.env, overrides: opts.overrides ?? {}, lodeVersion: VERSION,
  })
}

/** `lode install`: resolves what the lockfile lacks, writes it, fills the store and links node_modules. */
export async function install (opts: WithClock<InstallOptions>): Promise<InstallResult> {
  return await (await loadCore()).install({ ...opts, now: opts.now ?? Date.now })
}

/** `lode add`: adds dependencies to a project's package.json, then installs. */
export async function add (opts: WithClock<AddOptions>): Promise<InstallResult> {
  return await (await loadCore()).add({ ...opts, now: opts.now ?? Date.now })
}

/** `lode remove`: removes dependencies from package.json, then installs. */
export async function remove (opts: WithClock<RemoveOptions>): Promise<InstallResult> {
  return await (await loadCore()).remove({ ...opts, now: opts.now ?? Date.now })
}

/** `lode update`: moves dependencies to the newest versions their ranges (or `latest`) allow, then installs. */
export async function update (opts: WithClock<UpdateOptions>): Promise<InstallResult> {
  return await (await loadCore()).update({ ...opts, now: opts.now ?? Date.now })
}

let core: Promise<typeof Core> | undefined

async function loadCore (): Promise<typeof Core> {
  const unsupported = unsupportedNode(process.versions.node)
  if (unsupported !== undefined) throw new LodeError('UNSUPPORTED_NODE', unsupported.message, { hint: unsupported.hint })
  return await (core ??= import('@lode/pkg-manager.core'))
}
