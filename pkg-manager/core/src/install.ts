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

/** Installs with `installFull`, forgetting the recorded state first and recording the new one after. */
export async function installAndRecord (opts: InstallOptions): Promise<InstallResult> {
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
