import fsp from 'node:fs/promises'
import path from 'node:path'

import { MODULES_MANIFEST_FILE, VIRTUAL_STORE_DIR } from '@lode/core.constants'
import { LodeError, hasErrno } from '@lode/core.error'
import type { Config } from '@lode/pkg-manager.config.settings'
import { storePath } from '@lode/store.cafs'

import type { ModulesManifest } from './modules-manifest.js'

/** A layout setting that differs from the one node_modules was laid out with. */
export interface LayoutChange {
  /** pnpm's error code for it (`NODE_LINKER_DIFF`, …), after `ERR_LODE_`. */
  code: string
  /** The setting, as pnpm-workspace.yaml names it (`layoutVersion`: the layout of another pnpm version). */
  setting: string
}

/** pnpm's layout version: a `.modules.yaml` without it, or with another one, is an older pnpm's node_modules. */
const LAYOUT_VERSION = 5

/**
 * pnpm's check of node_modules against the settings (its `validateModules`), in its order: a
 * different `virtualStoreDirMaxLength`, `publicHoistPattern` (`shamefullyHoist`), `hoistPattern`,
 * `nodeLinker`, layout version (an older pnpm's node_modules), store or `virtualStoreDir` means
 * node_modules is laid out anew. Undefined when nothing of these changed (or there is no `.modules.yaml`).
 */
export function layoutChange (config: Config, manifest: ModulesManifest | undefined, modulesDir: string): LayoutChange | undefined {
  if (manifest === undefined) return undefined
  if ((manifest.virtualStoreDirMaxLength ?? 120) !== config.virtualStoreDirMaxLength) return { code: 'VIRTUAL_STORE_DIR_MAX_LENGTH_DIFF', setting: 'virtualStoreDirMaxLength' }
  if (!samePatterns(manifest.publicHoistPattern ?? [], config.publicHoistPattern)) {
    return { code: 'PUBLIC_HOIST_PATTERN_DIFF', setting: 'publicHoistPattern' }
  }
  if (!samePatterns(manifest.hoistPattern ?? [], config.hoistPattern)) return { code: 'HOIST_PATTERN_DIFF', setting: 'hoistPattern' }
  if ((manifest.nodeLinker ?? 'isolated') !== config.nodeLinker) return { code: 'NODE_LINKER_DIFF', setting: 'nodeLinker' }
  if (manifest.layoutVersion !== LAYOUT_VERSION) return { code: 'MODULES_BREAKING_CHANGE', setting: 'layoutVersion' }
  // Its packages are hard links into the store it names: another store would not have them.
  if (typeof manifest.storeDir !== 'string' || path.relative(manifest.storeDir, storePath(config.storeDir)) !== '') return { code: 'UNEXPECTED_STORE', setting: 'storeDir' }
  if (recordedVirtualStoreDir(manifest, modulesDir) !== config.virtualStoreDir) return { code: 'UNEXPECTED_VIRTUAL_STORE', setting: 'virtualStoreDir' }
  return undefined
}

function samePatterns (recorded: readonly string[], wanted: readonly string[]): boolean {
  return recorded.length === wanted.length && recorded.every((pattern, i) => pattern === wanted[i])
}

/** The virtual store `.modules.yaml` names (relative to node_modules), absolute. */
export function recordedVirtualStoreDir (manifest: ModulesManifest, modulesDir: string): string {
  return path.resolve(modulesDir, manifest.virtualStoreDir ?? VIRTUAL_STORE_DIR)
}

/**
 * Refuses a layout change as pnpm does where it cannot ask: `add`, `remove`, `update` and a
 * filtered install do not lay out the whole node_modules anew (pnpm's error for the change), and
 * removing node_modules needs `confirmModulesPurge: false` (or CI).
 */
export function assertCanPurge (change: LayoutChange, opts: { config: Config, modulesDir: string, filtered: boolean }): void {
  if (opts.filtered) {
    const what = change.setting === 'layoutVersion'
      ? `${opts.modulesDir} was laid out by another pnpm version, whose layout this one does not use`
      : `${opts.modulesDir} was laid out with a different ${change.setting}`
    throw new LodeError(change.code, `${what}: only a full install lays it out anew.`, {
      hint: 'Run lode install (in the workspace root, without --filter) to recreate node_modules, then run this command again.',
    })
  }
  if (opts.config.confirmModulesPurge) {
    const what = change.setting === 'layoutVersion' ? 'by another pnpm version' : `with a different ${change.setting}`
    throw new LodeError('ABORTED_REMOVE_MODULES_DIR', `${opts.modulesDir} was laid out ${what} and has to be removed and laid out anew, which lode does not do without asking.`, {
      hint: 'Remove node_modules yourself, or set confirmModulesPurge: false in pnpm-workspace.yaml (it is off in CI), and run lode install again.',
    })
  }
}

/**
 * Empties node_modules for a layout laid out anew, as pnpm's purge does: the packages and links
 * go, with `.bin`, `.modules.yaml` and the virtual store (the one recorded and the one wanted, when
 * inside it); other dot entries (lode's install lock and state) stay.
 */
export async function purgeModulesDir (modulesDir: string, virtualStoreDirs: readonly string[]): Promise<void> {
  let entries: string[]
  try {
    entries = await fsp.readdir(modulesDir)
  } catch (err) {
    if (hasErrno(err, 'ENOENT')) return
    throw err
  }
  const inside = new Set(virtualStoreDirs.filter((dir) => path.dirname(dir) === modulesDir).map((dir) => path.basename(dir)))
  await Promise.all(entries.map(async (entry) => {
    if (entry.startsWith('.') && entry !== '.bin' && entry !== MODULES_MANIFEST_FILE && !inside.has(entry)) return
    await fsp.rm(path.join(modulesDir, entry), { recursive: true, force: true })
  }))
}
