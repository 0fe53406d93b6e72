import path from 'node:path'

import { MODULES_DIR } from '@lode/core.constants'
import type { Config } from '@lode/pkg-manager.config'
import { updateWorkspaceYaml } from '@lode/pkg-manager.config/workspace-yaml'
import { allowBuildKeyOf } from '@lode/pkg-manager.lifecycle'
import type { LifecycleLog } from '@lode/pkg-manager.lifecycle'
import { readModulesManifest } from '@lode/pkg-manager.linker/modules-manifest'

import { rebuild } from './rebuild.js'

export interface ApproveBuildsOptions {
  config: Config
  /** The packages to approve (their `allowBuilds` keys: names for registry packages); ignored with `all`. */
  names: readonly string[]
  /** Every build the last install left out. */
  all: boolean
  onWarning?: (message: string) => void
  onLifecycle?: (log: LifecycleLog) => void
}

/**
 * pnpm's `approve-builds`, its non-interactive form: the packages named (or with `all`, every build
 * the last install left out) become `true` in pnpm-workspace.yaml's `allowBuilds`, and the builds
 * awaiting approval among them run now; a name not awaiting approval is allowed and warned about.
 * Returns the keys approved, or undefined when no build is awaiting approval (nothing is written).
 */
export async function approveBuilds (opts: ApproveBuildsOptions): Promise<string[] | undefined> {
  const { config } = opts
  const ignored = (await readModulesManifest(path.join(config.dir, MODULES_DIR)))?.ignoredBuilds ?? []
  const awaiting = [...new Set(ignored.map(allowBuildKeyOf))]
  if (awaiting.length === 0) return undefined
  const notAwaiting = opts.all ? [] : opts.names.filter((name) => !awaiting.includes(name))
  if (notAwaiting.length > 0) opts.onWarning?.(`The following packages are not awaiting approval: ${notAwaiting.join(', ')}`)
  // As pnpm: every name given is allowed from now on, awaiting or not; the awaiting ones build now.
  const approved = opts.all ? awaiting : [...new Set(opts.names)]
  // pnpm writes the map sorted by key.
  const merged = { ...config.allowBuilds, ...Object.fromEntries(approved.map((key) => [key, true])) }
  const allowBuilds = Object.fromEntries(Object.entries(merged).sort(([a], [b]) => a < b ? -1 : a > b ? 1 : 0))
  await updateWorkspaceYaml(config.dir, { allowBuilds })
  const toBuild = approved.filter((key) => awaiting.includes(key))
  if (toBuild.length > 0) {
    await rebuild({ config: { ...config, allowBuilds }, names: toBuild, onWarning: opts.onWarning, onLifecycle: opts.onLifecycle })
  }
  return approved
}
