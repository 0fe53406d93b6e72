import fsp from 'node:fs/promises'
import path from 'node:path'

import { CURRENT_LOCKFILE, INSTALLING_MARKER, MODULES_DIR, LODE_STATE_FILE, MODULES_MANIFEST_FILE, VIRTUAL_STORE_DIR, WANTED_LOCKFILE } from '@lode/core.constants'
import { removeAtomicTemps } from '@lode/fs.write-file-atomic'
import type { Builds } from '@lode/pkg-manager.building.lifecycle'
import { storePath } from '@lode/store.cafs'

import type { LinkPackagesOptions } from './link-types.js'
import { LAYOUT_VERSION, writeModulesManifest } from './modules-manifest.js'
import type { ModulesManifest } from './modules-manifest.js'

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
  /** Whether pnpm's build step would have run over something to build or patch (it then records ignoredBuilds). */
  buildStepRan: boolean
  prunedAt: string
  skipped: Iterable<string>
  virtualStoreDir: string
}

/** The record of a complete node_modules, either layout: `.modules.yaml` as pnpm 11 writes it. */
export async function recordLayout (opts: LinkPackagesOptions, state: LinkedState): Promise<void> {
  const { config } = opts
  const modulesDir = path.join(config.dir, MODULES_DIR)
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
    // pnpm's global virtual store defaults allowBuilds to `{}`, and records it so.
    ...(Object.keys(config.allowBuilds).length > 0 || config.enableGlobalVirtualStore ? { allowBuilds: { ...config.allowBuilds } } : {}),
  })
}

/** The marker of an install under way (see `linkPackages`) goes: the install is over. */
export async function removeInstallingMarker (modulesDir: string): Promise<void> {
  await fsp.rm(path.join(modulesDir, INSTALLING_MARKER), { force: true })
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
