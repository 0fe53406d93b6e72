import fsp from 'node:fs/promises'
import path from 'node:path'

import { CURRENT_LOCKFILE, VIRTUAL_STORE_DIR } from '@lode/core.constants'
import { LodeError } from '@lode/core.error'
import { joinRecorded } from '@lode/core.safe-name'
import { buildPackages, planBuilds, reportIgnoredBuilds } from '@lode/pkg-manager.building.lifecycle'
import type { LifecycleLog } from '@lode/pkg-manager.building.lifecycle'
import type { Config } from '@lode/pkg-manager.config.settings'
import { planHoisting, planLayout, readModulesManifest, recordedPlaces, spreadHoistedBuilds, writeBinsOfBuilt, writeModulesManifest } from '@lode/pkg-manager.installing.linker'
import { parseLockfile } from '@lode/pkg-manager.lockfile.format'
import { StoreIndex, storeIndexKey } from '@lode/store.index'

export interface RebuildOptions {
  config: Config
  /** Only these packages (by name); all by default. */
  names?: readonly string[]
  onWarning?: ((message: string) => void) | undefined
  /** Each build script's start, output lines and end. */
  onLifecycle?: ((log: LifecycleLog) => void) | undefined
  signal?: AbortSignal
}

/**
 * `lode rebuild`: runs again the build scripts of the installed packages that have them (the store
 * index's `requiresBuild`) and that `allowBuilds` allows, e.g. after `--ignore-scripts`; then the
 * pending builds `.modules.yaml` recorded are done. Returns the dependency paths built.
 */
export async function rebuild (opts: RebuildOptions): Promise<string[]> {
  const { config } = opts
  const modulesDir = path.join(config.dir, 'node_modules')
  const modules = await readModulesManifest(modulesDir)
  const currentFile = path.join(modulesDir, VIRTUAL_STORE_DIR, CURRENT_LOCKFILE)
  let text: string
  try {
    text = await fsp.readFile(currentFile, 'utf8')
  } catch {
    throw new LodeError('NOT_INSTALLED', `There is nothing to rebuild in ${config.dir}: it has no node_modules installed by lode or pnpm.`, { hint: 'Run lode install first.' })
  }
  const { lockfile } = parseLockfile(text, currentFile)
  const layout = planLayout(lockfile, {
    lockfileDir: config.dir,
    // `.pnpm/lock.yaml` is input: an importer whose id is not a directory inside the workspace is not one of its projects.
    importers: Object.keys(lockfile.importers).flatMap((id) => {
      const dir = id === '.' ? config.dir : joinRecorded(config.dir, id)
      return dir === undefined ? [] : [{ id, dir }]
    }),
    include: modules?.included ?? { dependencies: true, devDependencies: true, optionalDependencies: true },
    virtualStoreDir: config.virtualStoreDir,
    virtualStoreDirMaxLength: config.virtualStoreDirMaxLength,
    skipped: new Set(modules?.skipped ?? []),
  })
  // `nodeLinker: hoisted`: each package is built where it was put first (its other places get the built files).
  const hoistedLocations = modules?.nodeLinker === 'hoisted' ? modules.hoistedLocations ?? {} : undefined
  const installed = hoistedLocations === undefined
    ? layout.packages
    : layout.packages.flatMap((pkg) => {
      // Where the install put it first, when that is still a place of its (not reached through a symlink).
      const first = recordedPlaces(hoistedLocations[pkg.depPath]?.slice(0, 1) ?? [], config.dir)[0]
      return first === undefined ? [] : [{ ...pkg, dir: first.dir }]
    })
  const keyOf = (resolution: object): string | undefined => 'integrity' in resolution && typeof resolution.integrity === 'string' ? resolution.integrity : undefined
  const index = new StoreIndex(config.storeDir)
  let rows
  try {
    rows = index.getMany(installed.flatMap((pkg) => {
      const integrity = keyOf(pkg.resolution)
      return integrity === undefined ? [] : [storeIndexKey(integrity, pkg.pkgId)]
    }))
  } finally {
    index.close()
  }
  const wanted = new Set(opts.names ?? [])
  const candidates = installed.filter((pkg) => {
    if (wanted.size > 0 && !wanted.has(pkg.name)) return false
    const integrity = keyOf(pkg.resolution)
    return integrity !== undefined && rows.get(storeIndexKey(integrity, pkg.pkgId))?.requiresBuild === true
  })
  const { allowed, ignored } = planBuilds(config.allowBuilds, candidates)
  const isOptional = (depPath: string): boolean => lockfile.snapshots?.[depPath]?.optional === true
  const { onWarning, onLifecycle, signal } = opts
  const { built } = await buildPackages(allowed, { config, isOptional, onWarning, onLifecycle, signal })
  if (built.length > 0 && hoistedLocations !== undefined) {
    await spreadHoistedBuilds(built, hoistedLocations, config.dir)
  } else if (built.length > 0) {
    const hoisted = planHoisting(layout, { hoistPattern: config.hoistPattern, publicHoistPattern: config.publicHoistPattern })
    await writeBinsOfBuilt(layout, built, hoisted, modulesDir, { ownBins: true })
  }
  if (modules !== undefined) {
    const stillIgnored = [...new Set([
      ...(modules.ignoredBuilds ?? [])
        .filter((depPath) => !built.includes(depPath) && (wanted.size === 0 ? ignored.includes(depPath) : true)),
      ...ignored,
    ])].sort()
    const { ignoredBuilds: _previous, ...rest } = modules
    await writeModulesManifest(modulesDir, {
      ...rest,
      ...(stillIgnored.length > 0 ? { ignoredBuilds: stillIgnored } : {}),
      pendingBuilds: modules.pendingBuilds.filter((depPath) => !built.includes(depPath)),
    })
  }
  reportIgnoredBuilds(ignored, config.strictDepBuilds, opts.onWarning)
  return built
}
