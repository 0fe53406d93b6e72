import fsp from 'node:fs/promises'
import path from 'node:path'

import { CURRENT_LOCKFILE, INSTALLING_MARKER, LODE_STATE_FILE, MODULES_MANIFEST_FILE, VIRTUAL_STORE_DIR, WANTED_LOCKFILE } from '@lode/core.constants'
import { removeAtomicTemps } from '@lode/fs.write-file-atomic'
import { LAYOUT_VERSION, writeModulesManifest } from '@lode/pkg-manager.linker'
import type { ModulesManifest } from '@lode/pkg-manager.linker'
import { storePath } from '@lode/store.cafs'

import { reportIgnoredBuilds } from './dependency-builds.js'
import type { Builds } from './dependency-builds.js'
import type { LinkPackagesOptions } from './link-types.js'

/**
 * pnpm keeps orphaned packages in `.pnpm` until `modulesCacheMaxAge` minutes have passed since the
 * last pruning (`.modules.yaml#prunedAt`): whether this install prunes, and the time it records.
 */
export function virtualStorePruning (
  lastPrunedAt: string | undefined,
  maxAgeMinutes: number,
  now: number
): { due: boolean, prunedAt: string } {
  const last = lastPrunedAt === undefined ? NaN : Date.parse(lastPrunedAt)
  const due = Number.isNaN(last) || now - last > maxAgeMinutes * 60_000
  return { due, prunedAt: due || lastPrunedAt === undefined ? new Date(now).toUTCString() : lastPrunedAt }
}

export interface LinkedState {
  hoistedDependencies: ModulesManifest['hoistedDependencies']
  /** The directory packages and where they are installed (`injectedDepsRecord`). */
  injectedDeps?: ModulesManifest['injectedDeps']
  nodeLinker: ModulesManifest['nodeLinker']
  /** `nodeLinker: hoisted`: where each package is. */
  hoistedLocations?: ModulesManifest['hoistedLocations']
  builds: Builds
  /** How many packages wanted to build. */
  /** Whether pnpm's build step would have run over something to build or patch (it then records ignoredBuilds). */
  buildStepRan: boolean
  prunedAt: string
  skipped: Iterable<string>
  virtualStoreDir: string
}

/**
 * The end of an install, either layout, once node_modules is complete: `.modules.yaml` as pnpm 11
 * writes it, then `commit` (pnpm-lock.yaml, and package.json for an edit), then the marker of an
 * install under way goes, and ignored builds are reported (an error with `strictDepBuilds`).
 * Resolves with whether the lockfile was written.
 */
export async function finishLinking (opts: LinkPackagesOptions, state: LinkedState): Promise<boolean> {
  const { config } = opts
  const modulesDir = path.join(config.dir, 'node_modules')
  await writeModulesManifest(modulesDir, {
    hoistedDependencies: state.hoistedDependencies,
    hoistPattern: [...config.hoistPattern],
    included: { ...opts.include },
    injectedDeps: state.injectedDeps ?? {},
    // pnpm records the ignored builds (maybe none) whenever its build step ran over something to build or patch.
    ...(state.buildStepRan ? { ignoredBuilds: state.builds.ignored } : {}),
    layoutVersion: LAYOUT_VERSION,
    ...(state.hoistedLocations === undefined ? {} : { hoistedLocations: state.hoistedLocations }),
    nodeLinker: state.nodeLinker,
    packageManager: opts.packageManager,
    pendingBuilds: state.builds.pending,
    publicHoistPattern: [...config.publicHoistPattern],
    prunedAt: state.prunedAt,
    skipped: [...state.skipped],
    storeDir: storePath(config.storeDir),
    virtualStoreDir: path.relative(modulesDir, state.virtualStoreDir),
    virtualStoreDirMaxLength: config.virtualStoreDirMaxLength,
    ...(Object.keys(config.allowBuilds).length > 0 ? { allowBuilds: { ...config.allowBuilds } } : {}),
  })
  // pnpm-lock.yaml (and package.json, for add/remove/update) change only now that node_modules is complete.
  const committed = await opts.commit?.() ?? false
  await fsp.rm(path.join(modulesDir, INSTALLING_MARKER), { force: true })
  reportIgnoredBuilds(state.builds.ignored, config.strictDepBuilds, opts.onWarning)
  return committed
}

/** The temp files an install killed mid-write left beside the files it writes atomically. */
export async function removeInterruptedWrites (lockfileDir: string, modulesDir: string): Promise<void> {
  await Promise.all([
    path.join(lockfileDir, WANTED_LOCKFILE),
    path.join(modulesDir, VIRTUAL_STORE_DIR, CURRENT_LOCKFILE),
    path.join(modulesDir, MODULES_MANIFEST_FILE),
    path.join(modulesDir, LODE_STATE_FILE),
  ].map(removeAtomicTemps))
}
