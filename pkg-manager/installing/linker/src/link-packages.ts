import fs from 'node:fs'
import fsp from 'node:fs/promises'
import path from 'node:path'

import { DEPENDENCY_GROUPS, INSTALLING_MARKER, LODE_STATE_FILE, MODULES_DIR, VIRTUAL_STORE_DIR } from '@lode/core.constants'
import { pkgIdOf } from '@lode/core.dep-path'
import { assertOwnModulesDir } from '@lode/core.safe-name'
import { createAllowBuild } from '@lode/pkg-manager.building.lifecycle'
import { createSlotResolver } from '@lode/pkg-manager.installing.graph-hash'
import { packagesCheck, skippedPackages } from '@lode/pkg-manager.installing.package-is-installable'
import { stringifyLockfile } from '@lode/pkg-manager.lockfile.format'
import type { Lockfile } from '@lode/pkg-manager.lockfile.format'

import { directChanges } from './direct-changes.js'
import { fetchAll } from './fetch-all.js'
import { includesImporterGroup } from './importer-groups.js'
import { holdsTheSame, installedLockfile, reachedOnly, withGroups } from './installed-lockfile.js'
import { assertCanPurge, layoutChange, purgeModulesDir, recordedVirtualStoreDir } from './layout-change.js'
import { planLayout, reachableDepPaths } from './layout.js'
import type { Layout, LayoutOptions } from './layout.js'
import { linkHoisted } from './link-hoisted.js'
import { linkIsolated, refuseDirectoryPackages } from './link-isolated.js'
import type { LinkedPackages, LinkPackagesOptions } from './link-types.js'
import { readModulesManifest } from './modules-manifest.js'
import { readInstalledLockfile, readPreviousInstall } from './previous-install.js'
import { unfetchableOptionalPackages } from './unfetchable-optional.js'


/**
 * Puts the lockfile's packages on disk in pnpm's layout (`nodeLinker`), up to the builds (see
 * `LinkedPackages`). node_modules laid out with other layout settings (nodeLinker,
 * virtualStoreDir, …) is laid out anew, as with pnpm.
 */
export async function linkPackages (opts: LinkPackagesOptions): Promise<LinkedPackages> {
  const { config } = opts
  const modulesDir = path.join(config.dir, MODULES_DIR)
  // Each project's node_modules is written into: none may lead elsewhere (a repository can carry it as a symlink).
  for (const importer of opts.importers) assertOwnModulesDir(path.join(importer.dir, MODULES_DIR))
  let installed = opts.installedLockfile ?? await readInstalledLockfile(modulesDir, opts.lockfileAsRead)
  const lockfile = opts.selectedImporters === undefined
    ? opts.lockfile
    : installedLockfile(opts.lockfile, installed, opts.selectedImporters)
  const modules = await readModulesManifest(modulesDir)
  const change = layoutChange(config, modules, modulesDir)
  const planned = planIsolatedLayout(lockfile, opts)
  const { layoutOptions } = planned
  // Installing the lockfile as it is, an optional package that cannot be fetched is left out (not recorded as skipped).
  const unfetchable = config.nodeLinker === 'hoisted' || opts.resolved
    ? new Set<string>()
    // Only optional packages are looked for on disk (one stat each; a lockfile of thousands of packages has few).
    : await unfetchableOptionalPackages(
      lockfile,
      planned.layout.packages.filter((pkg) => isOptional(lockfile, pkg.depPath) && !fs.existsSync(pkg.dir)),
      opts
    )
  const leftOut = unfetchable.size === 0 ? layoutOptions.skipped : new Set([...layoutOptions.skipped, ...unfetchable])
  const layout = unfetchable.size === 0 ? planned.layout : planLayout(lockfile, { ...layoutOptions, skipped: leftOut })
  if (modules !== undefined && change !== undefined) {
    assertCanPurge(change, { config, modulesDir, filtered: opts.selectedImporters !== undefined || opts.edits === true })
    // Every package in the store first: a failed download leaves node_modules as it was.
    // Into the global virtual store, only what its slots lack.
    const toFetch = layoutOptions.slotDirOf === undefined ? layout.packages : layout.packages.filter((pkg) => !fs.existsSync(pkg.dir))
    await fetchAll(opts.fetcher, toFetch)
    await opts.verified
    opts.onInfo?.(`Recreating ${modulesDir}`)
    await fsp.mkdir(modulesDir, { recursive: true })
    await fsp.writeFile(path.join(modulesDir, INSTALLING_MARKER), '')
    await fsp.rm(path.join(modulesDir, LODE_STATE_FILE), { force: true })
    // Every project's, not only the root's (pnpm's purge of the root alone leaves the projects' links into the old layout dangling).
    const virtualStoreDirs = [config.virtualStoreDir, recordedVirtualStoreDir(modules, modulesDir)]
    await Promise.all(opts.importers.map(async (importer) => {
      await purgeModulesDir(path.join(importer.dir, MODULES_DIR), virtualStoreDirs)
    }))
    installed = undefined
  }
  // What node_modules holds after this install, as pnpm records it: for a filtered one or one of some
  // dependency groups (--prod, --dev), the importers' groups installed and the packages they reach.
  const whole = opts.selectedImporters === undefined && DEPENDENCY_GROUPS.every((group) => includesImporterGroup(opts.include, group))
  const onDisk = whole ? lockfile : reachedOnly(withGroups(lockfile, opts.include), layout, leftOut)
  // A filtered install over projects left as the lockfile wants them writes the lockfile's own text.
  const asWanted = whole || holdsTheSame(onDisk, opts.lockfile)
  const installedText = (): string => asWanted ? opts.lockfileText?.() ?? stringifyLockfile(onDisk) : stringifyLockfile(onDisk)
  const linkedVersion = (ref: string): string | undefined =>
    opts.importers.find((importer) => importer.dir === path.resolve(config.dir, ref.slice('link:'.length)))?.version
  if (config.nodeLinker === 'hoisted') {
    // The hoisted layout changes node_modules as it goes: it starts once the lockfile passed.
    await opts.verified
    const linked = await linkHoisted(opts, {
      lockfile,
      skipped: layoutOptions.skipped,
      installedText: installedText(),
      changes: directChanges(installed, lockfile, opts.include, linkedVersion, layoutOptions.skipped),
      installed,
    })
    return { ...linked, lockfile: onDisk }
  }
  // The last install's layout is planned as this one was before leaving out what could not be fetched: links to those go.
  const previous = readPreviousInstall(modules, layoutOptions, installed, { lockfile, layout: planned.layout })
  if (layoutOptions.slotDirOf !== undefined) refuseDirectoryPackages(layout)
  return await linkIsolated(opts, {
    lockfile: onDisk,
    layout,
    globalVirtualStore: layoutOptions.slotDirOf !== undefined,
    skipped: layoutOptions.skipped,
    previous,
    installedText,
    changes: directChanges(previous?.lockfile, lockfile, opts.include, linkedVersion, leftOut),
  })
}

/** The isolated layout of `lockfile`, and the options it was planned with (their `skipped` complete). */
function planIsolatedLayout (
  lockfile: Lockfile,
  opts: LinkPackagesOptions
): { layout: Layout, layoutOptions: LayoutOptions & { skipped: Set<string> } } {
  const { config } = opts
  const layoutOptions = {
    skipped: skippedPackages(lockfile, packagesCheck(config, config.engineStrict)),
    lockfileDir: config.dir,
    importers: opts.importers.filter((importer) => lockfile.importers[importer.id] !== undefined),
    include: opts.include,
    ...config.enableGlobalVirtualStore && config.nodeLinker === 'isolated'
      ? { virtualStoreDir: path.join(config.dir, MODULES_DIR, VIRTUAL_STORE_DIR), slotDirOf: globalSlots(lockfile, config) }
      : { virtualStoreDir: config.virtualStoreDir },
    virtualStoreDirMaxLength: config.virtualStoreDirMaxLength,
    hoistedPeers: opts.hoistedPeers,
  }
  const layout = planLayout(lockfile, layoutOptions)
  // What only skipped packages needed is skipped too (pnpm lists it so). Nothing, when nothing is skipped.
  if (layoutOptions.skipped.size > 0) {
    const laidOut = new Set(layout.packages.map((pkg) => pkg.depPath))
    for (const depPath of reachableDepPaths(lockfile, layoutOptions)) {
      if (!laidOut.has(depPath)) layoutOptions.skipped.add(depPath)
    }
  }
  return { layout, layoutOptions }
}

/**
 * pnpm 11's global virtual store: each package's slot in `virtualStoreDir` (`<store>/v11/links` by
 * default), from its dependency graph and, for packages allowBuilds lets build and what depends on
 * them, the running platform and Node.js major.
 */
function globalSlots (lockfile: Lockfile, config: LinkPackagesOptions['config']): (depPath: string) => string {
  const allowBuild = createAllowBuild(config.allowBuilds)
  const slotOf = createSlotResolver(lockfile, {
    lockfileDir: config.dir,
    allowBuild: (depPath) => allowBuild(pkgIdOf(depPath)),
    nodeVersion: process.version,
    platform: process.platform,
    arch: process.arch,
  })
  const linksDir = config.virtualStoreDir
  return (depPath) => path.join(linksDir, ...slotOf(depPath).path.split('/'))
}

function isOptional (lockfile: Lockfile, depPath: string): boolean {
  return lockfile.snapshots?.[depPath]?.optional === true
}
