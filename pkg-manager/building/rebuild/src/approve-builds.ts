import path from 'node:path'

import { MODULES_DIR } from '@lode/core.constants'
import { LodeError } from '@lode/core.error'
import { allowBuildKeyOf } from '@lode/pkg-manager.building.lifecycle'
import type { LifecycleLog } from '@lode/pkg-manager.building.lifecycle'
import { readWorkspaceYaml } from '@lode/pkg-manager.config.settings'
import type { Config } from '@lode/pkg-manager.config.settings'
import { updateWorkspaceYaml } from '@lode/pkg-manager.config.settings/workspace-yaml'
import { readModulesManifest, writeModulesManifest } from '@lode/pkg-manager.installing.linker/modules-manifest'

import { rebuild } from './rebuild.js'

export interface ApproveBuildsOptions {
  config: Config
  /** The packages to approve (their `allowBuilds` keys: names for registry packages), `!name` to deny one; none with `all`. */
  names: readonly string[]
  /** Every build the last install left out. */
  all: boolean
  /**
   * The answer of the interactive form: these approved, every other build awaiting approval
   * denied (`names` and `all` are then not given).
   */
  chosen?: readonly string[] | undefined
  onWarning?: (message: string) => void
  onLifecycle?: (log: LifecycleLog) => void
}

/** The `allowBuilds` keys of the builds the last install left out, sorted: what `approve-builds` asks about. */
export async function buildsAwaitingApproval (config: Config): Promise<string[]> {
  const ignored = (await readModulesManifest(path.join(config.dir, MODULES_DIR)))?.ignoredBuilds ?? []
  return [...new Set(ignored.map(allowBuildKeyOf))].sort((a, b) => a < b ? -1 : a > b ? 1 : 0)
}

/**
 * pnpm's `approve-builds`: the packages named become `true` in pnpm-workspace.yaml's `allowBuilds`
 * (`!name`: `false`), or with `all` every build the last install left out, or with `chosen` the
 * packages picked (the others awaiting approval `false`); the approved builds awaiting approval run
 * now. A name not awaiting approval is written all the same, with a warning. `--all` with names,
 * a `!` without a name and a name both approved and denied are refused as pnpm refuses them.
 * Returns the keys approved, or undefined when nothing awaits approval and nothing was named
 * (nothing is written).
 */
export async function approveBuilds (opts: ApproveBuildsOptions): Promise<string[] | undefined> {
  const { config } = opts
  if (opts.all && opts.names.length > 0) throw new LodeError('APPROVE_BUILDS_ALL_WITH_ARGS', 'Cannot use --all with positional arguments')
  const selectors = opts.names.map((selector) => selector.startsWith('!') ? { name: selector.slice(1), allowed: false } : { name: selector, allowed: true })
  if (selectors.some(({ name }) => name === '')) {
    throw new LodeError('APPROVE_BUILDS_MISSING_PACKAGE', 'A package name is missing from the arguments. Please specify the package name(s) to approve (`<pkg>`) or deny (`!<pkg>`).')
  }
  const awaiting = await buildsAwaitingApproval(config)
  if (awaiting.length === 0 && selectors.length === 0) return undefined
  const approved = selectors.filter(({ allowed }) => allowed).map(({ name }) => name)
  const denied = selectors.filter(({ allowed }) => !allowed).map(({ name }) => name)
  const notAwaiting = selectors.map(({ name }) => name).filter((name) => !awaiting.includes(name))
  if (notAwaiting.length > 0) opts.onWarning?.(`The following packages are not awaiting approval: ${notAwaiting.join(', ')}`)
  const contradictions = approved.filter((name) => denied.includes(name))
  if (contradictions.length > 0) {
    throw new LodeError('APPROVE_BUILDS_CONTRADICTING_ARGS', `The following packages are both approved and denied: ${contradictions.join(', ')}`)
  }
  const chosen = opts.chosen
  const decisions: Array<[string, boolean]> = chosen !== undefined
    ? [...awaiting.filter((key) => !chosen.includes(key)).map(denial), ...chosen.map(approval)]
    : opts.all
      ? awaiting.map(approval)
      : [...approved.map(approval), ...denied.map(denial)]
  // pnpm writes the map sorted by key; builds still undecided there (pnpm's placeholder) stay so.
  const written = readWorkspaceYaml(config.dir)['allowBuilds']
  const merged = { ...typeof written === 'object' && written !== null ? written : {}, ...config.allowBuilds, ...Object.fromEntries(decisions) }
  const allowBuilds = Object.fromEntries(Object.entries(merged).sort(([a], [b]) => a < b ? -1 : a > b ? 1 : 0))
  await updateWorkspaceYaml(config.dir, { allowBuilds })
  // What is decided awaits approval no more (all of it, in the interactive form and with --all).
  const decidedNow = opts.chosen !== undefined || opts.all ? undefined : new Set(selectors.map(({ name }) => name))
  await recordDecisions(config.dir, decidedNow, allowBuilds)
  const building = [...new Set(decisions.filter(([, allowed]) => allowed).map(([key]) => key))]
  const toBuild = building.filter((key) => awaiting.includes(key))
  if (toBuild.length > 0) {
    const decided = { ...config.allowBuilds, ...Object.fromEntries(decisions) }
    await rebuild({ config: { ...config, allowBuilds: decided }, names: toBuild, onWarning: opts.onWarning, onLifecycle: opts.onLifecycle })
  }
  return building
}

const approval = (key: string): [string, boolean] => [key, true]
const denial = (key: string): [string, boolean] => [key, false]

/**
 * `.modules.yaml` after the decisions: the decided builds (all, when `decided` is undefined) await
 * approval no more, and `allowBuilds` is recorded as the install pnpm runs after them records it
 * (what a later install compares with, for approvals taken back).
 */
async function recordDecisions (
  dir: string,
  decided: ReadonlySet<string> | undefined,
  allowBuilds: Readonly<Record<string, unknown>>
): Promise<void> {
  const modulesDir = path.join(dir, MODULES_DIR)
  const modules = await readModulesManifest(modulesDir)
  if (modules === undefined) return
  const { ignoredBuilds: previous = [], allowBuilds: _recorded, ...rest } = modules
  const kept = decided === undefined ? [] : previous.filter((depPath) => !decided.has(allowBuildKeyOf(depPath)))
  const recorded = Object.fromEntries(Object.entries(allowBuilds).filter((entry): entry is [string, boolean] => typeof entry[1] === 'boolean'))
  await writeModulesManifest(modulesDir, {
    ...rest,
    ...kept.length > 0 ? { ignoredBuilds: kept } : {},
    ...Object.keys(recorded).length > 0 ? { allowBuilds: recorded } : {},
  })
}
