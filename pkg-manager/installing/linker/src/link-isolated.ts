import fs from 'node:fs'
import fsp from 'node:fs/promises'
import path from 'node:path'

import { CURRENT_LOCKFILE, DEPENDENCY_GROUPS, INSTALLING_MARKER, LODE_STATE_FILE, MODULES_DIR, NEEDS_BUILD_MARKER, VIRTUAL_STORE_DIR } from '@lode/core.constants'
import { LodeError } from '@lode/core.error'
import { hasRealParents, isInsideDir, own } from '@lode/core.safe-name'
import { prepareFileAtomic } from '@lode/fs.write-file-atomic'
import type { PreparedFile } from '@lode/fs.write-file-atomic'
import { createAllowBuild } from '@lode/pkg-manager.building.lifecycle'
import { isLocalSource } from '@lode/pkg-manager.lockfile.format'
import type { Lockfile } from '@lode/pkg-manager.lockfile.format'
import type { LinkToWrite } from '@lode/worker.link'
import { writeSymlinks } from '@lode/worker.link/symlinks'

import { hideAlienModules, restoreAlienModules } from './alien-modules.js'
import { removeExtraneous } from './extraneous.js'
import { removeFailedOptionalPackages } from './failed-optional.js'
import { recordLayout, removeInstallingMarker, removeInterruptedWrites, virtualStorePruning } from './finish-linking.js'
import { hoistedPath, planHoisting, planWorkspaceHoisting, stillHoisted } from './hoist.js'
import type { HoistedDependency } from './hoist.js'
import { importPackages } from './import-packages.js'
import type { ImportedPackages } from './import-packages.js'
import { injectedCopiesOf } from './injected-copies.js'
import type { LaidOutPackage, Layout } from './layout.js'
import type { DirectDependencyChange, LinkedPackages, LinkPackagesOptions } from './link-types.js'
import { hoistedDependenciesRecord, injectedDepsRecord } from './modules-manifest.js'
import type { PreviousInstall } from './previous-install.js'
import { planPrune } from './prune.js'
import { writeBins, writeBinsOfBuilt } from './write-bins.js'


export interface IsolatedInstall {
  /** What node_modules holds after it (see `LinkedPackages`). */
  lockfile: Lockfile
  layout: Layout
  /** The packages are in slots of pnpm 11's global virtual store: complete slots are never written to. */
  globalVirtualStore: boolean
  skipped: ReadonlySet<string>
  previous: PreviousInstall | undefined
  /** `.pnpm/lock.yaml` as it will be written. */
  installedText: () => string
  changes: DirectDependencyChange[]
}

/**
 * pnpm's isolated layout, in two phases. First the packages not there yet are imported (see
 * `importPackages`: fetched into the store when it lacks them, imported by the link pool with their
 * dependencies' symlinks beside them, in directories of their own) while `.pnpm/lock.yaml` is
 * written beside its place: a failed download, extraction or import (or the lockfile's check,
 * `verified`, running beside) removes those new directories again and changes nothing else. Then,
 * with every package in place: what the last install left and this one does not want is pruned, and the other symlinks and the bins are written. Until
 * `done`, a marker in node_modules tells the next install that this one did not finish. Kept in
 * one piece: the handle it returns closes over what each phase made.
 */
export async function linkIsolated (opts: LinkPackagesOptions, install: IsolatedInstall): Promise<LinkedPackages> {
  const { config } = opts
  const { layout, previous } = install
  const modulesDir = path.join(config.dir, MODULES_DIR)
  // A marker for the time node_modules is being changed: when an install was killed, the next one
  // redoes what it cannot see as done (each package's .bin).
  const marker = path.join(modulesDir, INSTALLING_MARKER)
  const interrupted = fs.existsSync(marker)
  // What the killed install's atomic writes left behind.
  if (interrupted) await removeInterruptedWrites(config.dir, modulesDir)
  const gvs = install.globalVirtualStore
  const allowBuild = createAllowBuild(config.allowBuilds)
  const allowed = (pkg: LaidOutPackage): boolean => allowBuild(pkg.pkgId) === true
  const { missing, usurped, storeUsurped } = packagesToImport(layout, gvs, allowed)
  const nextIds = new Set(layout.packages.map((pkg) => pkg.depPath))
  // A resolving install keeps what the last one hoisted (pnpm merges its new hoisting into the old).
  const planHoisted = hoistingPlanner(opts, layout, opts.resolved ? previous?.hoisted : undefined)
  const { due: pruneVirtualStore, prunedAt } = virtualStorePruning(previous?.prunedAt, config.modulesCacheMaxAge, opts.now())
  // A filtered install (`add` in one project) leaves the other projects' node_modules as the last
  // install wrote them (pnpm's): their links and bins are neither removed nor written again.
  const untouched = untouchedImporters(layout, opts.selectedImporters, interrupted ? undefined : previous)
  const prune = previous === undefined ? undefined : await planPrune({
    modulesDir,
    previous: previous.layout,
    previousHoisted: previous.hoisted,
    next: layout,
    nextHoisted: planHoisted(),
    pruneVirtualStore,
    globalVirtualStore: gvs,
    // Installing the lockfile as it is, pnpm leaves the links to what it now skips.
    ...opts.resolved ? {} : { keepLinksTo: install.skipped },
    untouchedModulesDirs: new Set(layout.importers.filter((importer) => untouched.has(importer.id)).map((importer) => importer.modulesDir)),
  })
  // Their hoisted links stay on record too.
  const keptHoisted = opts.resolved
    ? {}
    : Object.fromEntries(Object.entries(previous?.hoisted ?? {}).filter(([depPath]) => install.skipped.has(depPath)))
  const changed = new Set(prune?.changed)
  // The package directories this install creates: removed again if it fails before they are all in place.
  const created = missing.length === layout.packages.length
    ? missing
    : missing.filter((pkg) => usurped.has(pkg) || !fs.existsSync(path.dirname(pkg.siblingsDir)))
  // Everything is planned (a name that fails the rule has failed by now): node_modules starts changing.
  // The directories a failed build's rollback removes again if this install makes them (the install
  // lock made the root's node_modules, and removes it if it is left empty).
  // `.pnpm` (where lock.yaml is prepared) is made here, before the link threads import into it: a
  // thread removes the directories it made when a package fails, and must not take this one.
  const lockDir = path.join(modulesDir, VIRTUAL_STORE_DIR)
  const madeDirs = [...new Set([
    ...opts.importers.flatMap((importer) => [path.join(importer.dir, MODULES_DIR), path.join(importer.dir, MODULES_DIR, '.bin')]),
    layout.virtualStoreDir,
    lockDir,
  ])]
  const existed = new Map(madeDirs.map((dir) => [dir, fs.existsSync(dir)]))
  // What the last install left is removed below (usurped directories) only once the lockfile's check has passed.
  if (storeUsurped === true || usurped.size > 0) await opts.verified
  await fsp.mkdir(lockDir, { recursive: true })
  await fsp.writeFile(marker, '')
  if (storeUsurped === true) await fsp.rm(layout.virtualStoreDir, { force: true })
  await Promise.all([...usurped].map(async (pkg) => { await fsp.rm(path.dirname(pkg.siblingsDir), { recursive: true, force: true }) }))
  // What another package manager installed where a direct dependency's link goes is moved aside, not lost.
  const alien = await hideAlienModules(layout.importers.filter((importer) => !untouched.has(importer.id)), opts.onWarning)
  const { imported, preparedLock } = await importNewPackages(missing, created, {
    opts,
    modulesDir,
    // Outside the global virtual store, `missing` is what is not there (a slot may be there, to be built).
    absent: !gvs,
    installedText: install.installedText,
    links: () => otherLinks(layout, planHoisted(), modulesDir, {
      importing: new Set(missing),
      previous: interrupted ? undefined : previous,
      changed,
      gvs,
      untouched,
    }),
  }).catch(async (err: unknown) => {
    // A package that could not be put in place (a patch that does not apply): the links written
    // meanwhile go too, and node_modules is as the last install left it.
    const { resolved: ownBins, ignoreScripts } = opts
    await restoreLastInstall({ layout, hoisted: planHoisted(), modulesDir, previous, changed, created, existed, ownBins, ignoreScripts })
    await restoreAlienModules(alien)
    throw err
  })
  const { wantBuild, counts } = imported
  // Builds in a slot of the global virtual store are not done yet: refused in place of the builds,
  // so that the install is rolled back (the slots it made go: none is left unbuilt).
  const toBuildInSlots = gvs && !opts.ignoreScripts ? wantBuild.filter(allowed) : []
  const refusedBuilds = toBuildInSlots.length === 0
    ? undefined
    : new LodeError('GVS_BUILD_UNSUPPORTED', `${toBuildInSlots.map((pkg) => pkg.pkgId).join(', ')} ${toBuildInSlots.length === 1 ? 'has' : 'have'} to be built in the global virtual store (enableGlobalVirtualStore), which lode does not do yet.`, {
      hint: 'Install once with pnpm 11 (it builds the package in the shared slot, which lode then reuses), or turn enableGlobalVirtualStore off for this project. Nothing in the project was changed.',
    })
  // Every package is in place: the links change now. The last install's record goes first, so a
  // cut-short install never looks done (it is put back if a build fails).
  const stateFile = path.join(modulesDir, LODE_STATE_FILE)
  const lastState = fs.existsSync(stateFile) ? await fsp.readFile(stateFile) : undefined
  await fsp.rm(stateFile, { force: true })
  await prune?.remove()
  opts.linkThreads.release()
  const hoisted = planHoisted()
  // pnpm's build step runs when scripts do, and under --ignore-scripts when patches are configured
  // (it applies them there): it links the own bins of each new package it would build (one that
  // wants a build, or a patched one), allowed or not, and records the ignored builds.
  const patched = (pkg: LaidOutPackage): boolean => pkg.depPath.includes('(patch_hash=')
  const buildStep = !opts.ignoreScripts || opts.patches.length > 0
  const ownBinsOf = new Set(buildStep ? [...wantBuild, ...missing.filter(patched)].map((pkg) => pkg.depPath) : [])
  await writeBins(
    layout,
    // A slot of the global virtual store gets its bins with its files, once.
    gvs ? missing : interrupted ? layout.packages : [...missing, ...layout.packages.filter((pkg) => changed.has(pkg.depPath))],
    hoisted,
    modulesDir,
    { ownBins: opts.resolved, ownBinsOf, fresh: new Set(missing), importersThroughLinks: !opts.ignoreScripts, untouched }
  )
  // Builds: packages linked now that want one, and those an earlier install ignored (allowBuilds may allow them now).
  const byDepPath = new Map(layout.packages.map((pkg) => [pkg.depPath, pkg]))
  // In the global virtual store, only what is not allowed: an allowed build is in a slot of its own (its hash has the engine).
  const ignoredBefore = (previous?.ignoredBuilds ?? []).flatMap((depPath) => byDepPath.get(depPath) ?? [])
  const buildCandidates = [...wantBuild, ...ignoredBefore.filter((pkg) => !gvs || !allowed(pkg))]
  return {
    counts: {
      ...counts,
      downloaded: opts.fetcher.downloaded,
      removed: previous?.layout.packages.filter((pkg) => !nextIds.has(pkg.depPath)).length ?? 0,
      changes: install.changes,
    },
    lockfile: install.lockfile,
    buildCandidates,
    injectedCopies: injectedCopiesOf(layout.packages),
    refusedBuilds,
    rollBack: async () => {
      await restoreLastInstall({
        layout, hoisted, modulesDir, previous, changed, created, existed, ownBins: opts.resolved, ignoreScripts: opts.ignoreScripts,
      })
      await restoreAlienModules(alien)
      if (lastState !== undefined) await fsp.writeFile(stateFile, lastState)
      await preparedLock.discard()
      await removeInstallingMarker(modulesDir)
    },
    // From here node_modules changes for good.
    complete: async (builds) => {
      await preparedLock.commit()
      await prune?.removeStaleDirs()
      await removeFailedOptionalPackages(
        builds.failed.flatMap((depPath) => byDepPath.get(depPath)?.dir ?? []),
        [...opts.importers.map((importer) => path.join(importer.dir, MODULES_DIR)), path.join(layout.virtualStoreDir, MODULES_DIR)]
      )
      if (opts.pruneDirectDependencies === true) {
        const dirs = { modulesDir, virtualStoreDir: layout.virtualStoreDir }
        const keep = new Set([...layout.directLinks.map((link) => link.path), ...hoisted.filter((dep) => dep.type === 'public').map((dep) => hoistedPath(dirs, dep))])
        await removeExtraneous(opts.importers.map((importer) => path.join(importer.dir, MODULES_DIR)), keep)
      }
      await writeBinsOfBuilt(layout, builds.built, hoisted, modulesDir, { ownBins: opts.resolved, ownBinsOf })
      await recordLayout(opts, {
        hoistedDependencies: { ...hoistedDependenciesRecord(hoisted), ...keptHoisted },
        injectedDeps: injectedDepsRecord(layout.packages, config.dir),
        nodeLinker: 'isolated',
        builds,
        buildStepRan: (buildStep && (buildCandidates.length > 0 || layout.packages.some(patched))) || builds.ignored.length > 0,
        prunedAt,
        skipped: install.skipped,
        virtualStoreDir: gvs ? config.virtualStoreDir : layout.virtualStoreDir,
      })
    },
    done: async () => { await removeInstallingMarker(modulesDir) },
  }
}

/**
 * The packages to import: those not in place. Into a node_modules without `.pnpm`, every package
 * goes (one check instead of one per package). A slot of the global virtual store is complete when
 * its package is there without pnpm's marker of a build to do (only an allowed build leaves one);
 * another project's install may have made it. In `.pnpm`, a package is in place when its directory
 * is one, reached through directories: a symlink or a file there (which a repository can carry) is
 * not lode's, and is never written or made executable through. `usurped` are those whose directory
 * in `.pnpm` holds such a thing, `storeUsurped` a `.pnpm` that is one: it goes before the import.
 * A package from a local source (a `file:` tarball or directory, an injected project) is imported
 * again each time, as pnpm does: its source can change with no input of the install changing.
 */
function packagesToImport (
  layout: Layout,
  gvs: boolean,
  allowed: (pkg: LaidOutPackage) => boolean
): { missing: LaidOutPackage[], usurped: Set<LaidOutPackage>, storeUsurped?: boolean } {
  if (gvs) {
    const complete = (pkg: LaidOutPackage): boolean =>
      fs.existsSync(pkg.dir) && !(allowed(pkg) && fs.existsSync(path.join(pkg.dir, NEEDS_BUILD_MARKER)))
    return { missing: layout.packages.filter((pkg) => !complete(pkg)), usurped: new Set() }
  }
  const store = fs.lstatSync(layout.virtualStoreDir, { throwIfNoEntry: false })
  if (store === undefined) return { missing: layout.packages, usurped: new Set() }
  // A virtual store that is a symlink or a file goes whole, and every package is laid out anew.
  if (!store.isDirectory()) return { missing: layout.packages, usurped: new Set(), storeUsurped: true }
  const missing: LaidOutPackage[] = []
  const usurped = new Set<LaidOutPackage>()
  for (const pkg of layout.packages) {
    const stats = fs.lstatSync(pkg.dir, { throwIfNoEntry: false })
    const realParents = hasRealParents(layout.virtualStoreDir, pkg.dir)
    // A package from a local source (a `file:` tarball or directory, an injected project) is put in
    // place again, over what is there: its source may have changed.
    if (stats?.isDirectory() === true && realParents && isLocalSource(pkg.resolution)) {
      missing.push(pkg)
      continue
    }
    if (stats?.isDirectory() === true && realParents) continue
    missing.push(pkg)
    const slot = fs.lstatSync(path.dirname(pkg.siblingsDir), { throwIfNoEntry: false })
    if (slot !== undefined && (!slot.isDirectory() || !realParents || stats !== undefined)) usurped.add(pkg)
  }
  return { missing, usurped }
}

/**
 * The hoisting of the layout (the workspace's projects first, then pnpm's hoisting by pattern), planned
 * when first asked for: in a fresh node_modules, once the first packages are on their way.
 */
function hoistingPlanner (
  opts: LinkPackagesOptions,
  layout: Layout,
  previous?: Readonly<Record<string, Readonly<Record<string, string>>>>
): () => HoistedDependency[] {
  let plan: HoistedDependency[] | undefined
  return () => {
    if (plan !== undefined) return plan
    const { hoistPattern, publicHoistPattern } = opts.config
    const hoistOptions = { hoistPattern, publicHoistPattern, startImporters: opts.hoistFrom }
    const takenElsewhere = registryAliasesOf(opts.lockfile, opts.selectedImporters)
    const hoistedProjects = opts.config.hoistWorkspacePackages
      ? planWorkspaceHoisting(opts.importers, layout, { ...hoistOptions, takenElsewhere })
      : []
    plan = [...planHoisting(layout, { ...hoistOptions, reserved: hoistedProjects.map((dep) => dep.alias) }), ...hoistedProjects]
    plan = [...plan, ...stillHoisted(previous, plan, layout)]
    return plan
  }
}

/** The direct dependencies (not links) of the importers a filtered install leaves out, by alias. */
function registryAliasesOf (lockfile: Lockfile, selected: ReadonlySet<string> | undefined): string[] {
  if (selected === undefined) return []
  return Object.entries(lockfile.importers).flatMap(([id, snapshot]) => selected.has(id)
    ? []
    : DEPENDENCY_GROUPS.flatMap((group) => Object.entries(snapshot[group] ?? {}).flatMap(([alias, { version }]) => version.startsWith('link:') ? [] : [alias])))
}

/**
 * The link pool imports the packages (each with its dependencies' links) and writes the other
 * links, while this thread writes `.pnpm/lock.yaml` beside its place. A download, an extraction or
 * an import that fails takes node_modules back to what it was: the directories `created` go, and
 * the marker.
 */
async function importNewPackages (
  missing: readonly LaidOutPackage[],
  created: readonly LaidOutPackage[],
  ctx: { opts: LinkPackagesOptions, modulesDir: string, absent: boolean, installedText: () => string, links: () => LinkToWrite[] }
): Promise<{ imported: ImportedPackages, preparedLock: PreparedFile }> {
  const { opts, modulesDir } = ctx
  const importing = importPackages(missing, {
    config: opts.config,
    modulesDir,
    absent: ctx.absent,
    fetcher: opts.fetcher,
    linkThreads: opts.linkThreads,
    patches: opts.patches,
    trace: opts.trace,
    signal: opts.signal,
    onWarning: opts.onWarning,
    onProgress: (counts) => { opts.onProgress?.({ added: counts.added, reused: counts.reused, downloaded: opts.fetcher.downloaded }) },
    links: ctx.links,
  })
  // Awaited below; a failure meanwhile is not an unhandled rejection.
  importing.catch(() => {})
  let preparedLock: PreparedFile | undefined
  try {
    // Written beside its place while the packages are imported; put in place once they all are.
    preparedLock = await prepareFileAtomic(path.join(modulesDir, VIRTUAL_STORE_DIR, CURRENT_LOCKFILE), ctx.installedText())
    // The lockfile's check, running beside: its failure takes the new directories back as a failed import does.
    const [imported] = await Promise.all([importing, opts.verified])
    return { imported, preparedLock }
  } catch (err) {
    // A failed import removes the directories it made, maybe under the lockfile being prepared
    // beside them: its error, when it has one, is the one to tell.
    const importError: unknown = await importing.then(() => undefined, (failure: unknown) => failure)
    await preparedLock?.discard()
    await Promise.all(created.map(async (pkg) => { await fsp.rm(path.dirname(pkg.siblingsDir), { recursive: true, force: true }) }))
    await removeInstallingMarker(modulesDir)
    throw importError ?? err
  }
}

interface RestoreInput {
  layout: Layout
  hoisted: readonly HoistedDependency[]
  modulesDir: string
  previous: PreviousInstall | undefined
  changed: ReadonlySet<string>
  created: readonly LaidOutPackage[]
  existed: ReadonlyMap<string, boolean>
  ownBins: boolean
  ignoreScripts: boolean
}

/**
 * After a failed import or build: the package directories this install created go, and the links and `.bin`
 * shims it changed are written as the last install left them; with no last install, the
 * node_modules directories it created go whole, else the links it made.
 */
async function restoreLastInstall (input: RestoreInput): Promise<void> {
  const { layout, hoisted, modulesDir, previous } = input
  await Promise.all(input.created.map(async (pkg) => { await fsp.rm(path.dirname(pkg.siblingsDir), { recursive: true, force: true }) }))
  if (previous === undefined) {
    for (const [dir, existed] of [...input.existed].reverse()) if (!existed) await fsp.rm(dir, { recursive: true, force: true })
    const dirs = { modulesDir, virtualStoreDir: layout.virtualStoreDir }
    await Promise.all([...layout.directLinks.map((link) => link.path), ...hoisted.map((dep) => hoistedPath(dirs, dep))]
      .map(async (link) => { await fsp.rm(link, { force: true }) }))
    return
  }
  const byDepPath = new Map(previous.layout.packages.map((pkg) => [pkg.depPath, pkg]))
  const previousHoisted = Object.entries(previous.hoisted).flatMap(([depPath, aliases]) => {
    const pkg = byDepPath.get(depPath)
    return pkg === undefined
      ? []
      : Object.entries(aliases).map(([alias, type]): HoistedDependency => ({ alias, depPath, dir: pkg.dir, type }))
  })
  // This install's links that the last one did not have go (pruning in the other direction), then the last one's are written.
  const undo = await planPrune({
    modulesDir,
    previous: layout,
    previousHoisted: hoistedDependenciesRecord(hoisted),
    next: previous.layout,
    nextHoisted: previousHoisted,
    pruneVirtualStore: false,
  })
  await undo.remove()
  const changedBack = previous.layout.packages.filter((pkg) => input.changed.has(pkg.depPath))
  writeSymlinks([
    ...previous.layout.directLinks.map((link): LinkToWrite => [link.path, link.target]),
    ...previousHoisted.map((dep): LinkToWrite => [
      hoistedPath({ modulesDir, virtualStoreDir: previous.layout.virtualStoreDir }, dep),
      dep.dir,
    ]),
    ...changedBack.flatMap((pkg) => pkg.links.map((link): LinkToWrite => [link.path, link.target])),
  ])
  await writeBins(previous.layout, changedBack, previousHoisted, modulesDir, {
    ownBins: input.ownBins,
    importersThroughLinks: !input.ignoreScripts,
  })
}

/**
 * Something at a hoisted link's place that no install made: not a link to the package, nor into the
 * project's virtual store (under the global virtual store, any link is taken as an install's).
 */
function isUsersOwn (file: string, dep: HoistedDependency, virtualStoreDir: string | undefined): boolean {
  const stats = fs.lstatSync(file, { throwIfNoEntry: false })
  if (stats === undefined) return false
  if (!stats.isSymbolicLink()) return true
  const target = path.resolve(path.dirname(file), fs.readlinkSync(file))
  return virtualStoreDir !== undefined && target !== dep.dir && !isInsideDir(virtualStoreDir, target)
}

/**
 * The symlinks besides those of the packages imported now: the importers' direct dependencies, the
 * hoisted packages, and the dependencies of the packages already there. Without an interrupted
 * install before, those the last install wrote as they are now are left alone (the pruning removed
 * what changed).
 */
function otherLinks (
  layout: Layout,
  hoisted: readonly HoistedDependency[],
  modulesDir: string,
  { importing, previous, changed, gvs: globalVirtualStore, untouched }: {
    importing: ReadonlySet<LaidOutPackage>
    previous: PreviousInstall | undefined
    changed: ReadonlySet<string>
    gvs: boolean
    untouched: ReadonlySet<string>
  }
): LinkToWrite[] {
  const before = new Set(previous?.layout.packages.map((pkg) => pkg.depPath))
  const untouchedModules = new Set(layout.importers.filter((importer) => untouched.has(importer.id)).map((importer) => importer.modulesDir))
  const links: LinkToWrite[] = layout.directLinks
    .filter((link) => untouchedModules.size === 0 || !untouchedModules.has(modulesDirOfLink(link.path)))
    .map((link) => [link.path, link.target])
  for (const dep of hoisted) {
    if (own(previous?.hoisted[dep.depPath], dep.alias) === dep.type) continue
    const link = hoistedPath({ modulesDir, virtualStoreDir: layout.virtualStoreDir }, dep)
    // As pnpm: a name in node_modules the user put there (a directory, a link of their own) is left
    // alone (recorded as hoisted all the same); a link into the virtual store is an install's.
    if (dep.type === 'public' && isUsersOwn(link, dep, globalVirtualStore ? undefined : layout.virtualStoreDir)) continue
    links.push([link, dep.dir])
  }
  // A slot of the global virtual store is written once, by the install that makes it.
  for (const pkg of globalVirtualStore ? [] : layout.packages) {
    if (importing.has(pkg) || (before.has(pkg.depPath) && !changed.has(pkg.depPath))) continue
    for (const link of pkg.links) links.push([link.path, link.target])
  }
  return links
}

/**
 * The importers a filtered install leaves as the last one wrote them: those not selected, when that
 * install is known (and was not cut short). An importer's links there are its snapshot's, unchanged.
 */
function untouchedImporters (
  layout: Layout,
  selected: ReadonlySet<string> | undefined,
  previous: PreviousInstall | undefined
): ReadonlySet<string> {
  if (selected === undefined || previous === undefined) return new Set()
  const before = new Set(previous.layout.importers.map((importer) => importer.id))
  const ids = layout.importers.map((importer) => importer.id)
  return new Set(ids.filter((id) => !selected.has(id) && before.has(id)))
}

/** The `node_modules` a direct dependency's link is in (`node_modules/a`, `node_modules/@scope/a`). */
function modulesDirOfLink (link: string): string {
  const parent = path.dirname(link)
  return path.basename(parent).startsWith('@') ? path.dirname(parent) : parent
}

/**
 * A directory package (a `file:` dependency, an injected workspace project) goes to a slot pnpm
 * re-imports on every install; lode does not do that yet, so it refuses rather than leave one stale.
 */
export function refuseDirectoryPackages (layout: Layout): void {
  const directories = layout.packages.filter((pkg) => 'directory' in pkg.resolution)
  if (directories.length === 0) return
  throw new LodeError('GVS_DIRECTORY_DEPENDENCY_UNSUPPORTED', `${directories.map((pkg) => pkg.pkgId).join(', ')} ${directories.length === 1 ? 'is a directory dependency' : 'are directory dependencies'} (file: or injected), which lode does not put in the global virtual store (enableGlobalVirtualStore) yet.`, {
    hint: 'Use a link: (or plain workspace:) dependency instead, turn enableGlobalVirtualStore off for this project, or use pnpm 11 for it.',
  })
}
