import fs from 'node:fs'
import fsp from 'node:fs/promises'
import path from 'node:path'

import type { DependencyGroup } from '@lode/core.constants'
import { CURRENT_LOCKFILE, DEPENDENCY_GROUPS, INSTALLING_MARKER, LODE_STATE_FILE, MODULES_DIR, VIRTUAL_STORE_DIR } from '@lode/core.constants'
import { parseDepPath } from '@lode/core.dep-path'
import { hasRealParents, joinModulesDir, joinRecorded, parseModulesLocation } from '@lode/core.safe-name'
import { writeFileAtomic } from '@lode/fs.write-file-atomic'
import type { Lockfile } from '@lode/pkg-manager.lockfile.format'
import { patchOf } from '@lode/pkg-manager.patching.patches'
import type { LinkToWrite, PackageToImport } from '@lode/worker.link'
import { writeSymlinks } from '@lode/worker.link/symlinks'
import type { LinkPool } from '@lode/worker.pools'

import { linkModulesDirBins } from './bins.js'
import { removeFailedOptionalPackages } from './failed-optional.js'
import { fetchAll } from './fetch-all.js'
import { recordLayout, removeInstallingMarker, removeInterruptedWrites, virtualStorePruning } from './finish-linking.js'
import type { HoistedDependency } from './hoist.js'
import { planHoistedLayout } from './hoisted-layout.js'
import type { HoistedLayout, HoistedPackage } from './hoisted-layout.js'
import { includesImporterGroup } from './importer-groups.js'
import { injectedCopiesOf } from './injected-copies.js'
import type { DirectDependencyChange, LinkedPackages, LinkPackagesOptions, PackageInStore } from './link-types.js'
import { readModulesManifest } from './modules-manifest.js'
import type { ModulesManifest } from './modules-manifest.js'
import { unfetchableOptionalPackages } from './unfetchable-optional.js'

// Packages per link task (a task never splits a package from those nested in it).
const LINK_BATCH = 16

export interface HoistedInstall {
  /** The lockfile to lay out (for a filtered install, the selected importers' part merged with what the others had). */
  lockfile: Lockfile
  /** Optional packages not installed on this platform, and what only they need. */
  skipped: ReadonlySet<string>
  /** `.pnpm/lock.yaml` as it will be written. */
  installedText: string
  changes: DirectDependencyChange[]
  /** What the last install put on disk (its `.pnpm/lock.yaml`): the `link:` dependencies it linked and this one drops are unlinked. */
  installed: Lockfile | undefined
}

/**
 * pnpm's `nodeLinker: hoisted`: node_modules as npm lays it out, planned by `planHoistedLayout`,
 * from the same store and lockfile as the isolated layout. First every package not already in
 * its place (as `.modules.yaml`'s `hoistedLocations` and its package.json say) is got into the
 * store, so that a failed download changes nothing; then the places the plan no longer has are
 * removed, the packages imported (a place holding another version is replaced, the packages
 * nested in it kept), the `link:` dependencies and the workspace projects linked, and each
 * `node_modules/.bin` written. The builds run where the packages are (not rolled back when one
 * fails, unlike the isolated layout's).
 */
export async function linkHoisted (opts: LinkPackagesOptions, install: HoistedInstall): Promise<LinkedPackages> {
  const { config } = opts
  const { lockfile } = install
  const modulesDir = path.join(config.dir, MODULES_DIR)
  const manifest = await readModulesManifest(modulesDir)
  // A purge (or an isolated node_modules) left no record of places: nothing is known to be in place.
  const previous = manifest?.nodeLinker === 'hoisted' ? manifest : undefined
  const planWithout = (skipped: ReadonlySet<string>): ReturnType<typeof planHoistedLayout> => planHoistedLayout(lockfile, {
    lockfileDir: config.dir,
    importers: opts.importers,
    include: opts.include,
    skipped,
    autoInstallPeers: config.autoInstallPeers,
    hoist: { hoistPattern: config.hoistPattern, publicHoistPattern: config.publicHoistPattern },
    hoistWorkspacePackages: config.hoistWorkspacePackages,
  })
  const planned = planWithout(install.skipped)
  let plan = planned
  const marker = path.join(modulesDir, INSTALLING_MARKER)
  if (fs.existsSync(marker)) await removeInterruptedWrites(config.dir, modulesDir)
  const notInPlace = (): HoistedPackage[] =>
    plan.packages.filter((pkg) => !isInPlace(pkg, previous?.hoistedLocations, lockfile, config.dir))
  let toImport = notInPlace()
  // Installing the lockfile as it is, an optional package that cannot be fetched is left out (not recorded as skipped).
  const unfetchable = opts.resolved ? new Set<string>() : await unfetchableOptionalPackages(lockfile, toImport, opts)
  if (unfetchable.size > 0) {
    plan = planWithout(new Set([...install.skipped, ...unfetchable]))
    toImport = notInPlace()
  }
  const counts = { added: 0, reused: 0, downloaded: 0 }
  // Into the store first: nothing in node_modules changes before every package is there.
  const rows = await fetchAll(opts.fetcher, uniqueByDepPath(toImport), (reused) => {
    counts.reused = reused
    opts.onProgress?.({ added: 0, reused, downloaded: opts.fetcher.downloaded })
  })
  opts.signal?.throwIfAborted()
  // From here node_modules changes for good.
  await fsp.mkdir(modulesDir, { recursive: true })
  await fsp.writeFile(marker, '')
  await fsp.rm(path.join(modulesDir, LODE_STATE_FILE), { force: true })
  const previousLinks = install.installed === undefined ? undefined : linkedDependencies(install.installed, opts.importers, opts.include)
  await removeStale(plan, previous, previousLinks, config.dir, modulesDir)
  counts.added = await importInPlace(toImport, rows, { opts, linkPool: opts.linkThreads.pool() })
  opts.linkThreads.release()
  counts.downloaded = opts.fetcher.downloaded
  opts.onProgress?.(counts)
  writeSymlinks(linksOf(plan, modulesDir))
  await writeFileAtomic(path.join(modulesDir, VIRTUAL_STORE_DIR, CURRENT_LOCKFILE), install.installedText)
  // The .bin of a node_modules that lost its packages goes too.
  const emptied = [...new Set(previousPlaces(previous, config.dir).map((place) => place.modulesDir))]
    .filter((dir) => !plan.modulesDirs.includes(dir))
  await writeAllBins(plan, lockfile, emptied)
  // Builds: the packages imported now that want one (each where it is first put; its other places
  // get the built files), and those an earlier install ignored.
  const firstPlace = new Map<string, HoistedPackage>()
  for (const pkg of plan.packages) if (!firstPlace.has(pkg.depPath)) firstPlace.set(pkg.depPath, pkg)
  const wantBuild = [...new Set(toImport.filter((pkg) => rows.get(pkg.depPath)?.requiresBuild === true).map((pkg) => pkg.depPath))]
  const buildCandidates = [...wantBuild, ...(manifest?.ignoredBuilds ?? [])].flatMap((depPath) => firstPlace.get(depPath) ?? [])
  const reusedBefore = Object.keys(previous?.hoistedLocations ?? {})
  return {
    counts: {
      ...counts,
      removed: reusedBefore.filter((depPath) => plan.hoistedLocations[depPath] === undefined).length,
      changes: install.changes,
    },
    lockfile,
    buildCandidates,
    injectedCopies: injectedCopiesOf(plan.packages),
    // Nothing to go back to: the marker stays, and the next install finishes this one's work.
    rollBack: async () => {},
    complete: async (builds) => {
      // An optional package whose build failed goes from each of its places (the workspace's links to it too).
      const failed = new Set(builds.failed)
      await removeFailedOptionalPackages(
        plan.packages.filter((pkg) => failed.has(pkg.depPath)).map((pkg) => pkg.dir),
        opts.importers.map((importer) => path.join(importer.dir, MODULES_DIR))
      )
      if (builds.built.length > 0) {
        const imported = new Set(toImport)
        for (const depPath of builds.built) {
          const built = firstPlace.get(depPath)!
          await copyBuiltFiles(
            built.dir,
            plan.packages.filter((pkg) => pkg.depPath === depPath && pkg !== built && imported.has(pkg)).map((pkg) => pkg.dir)
          )
        }
        // A build can write the file a command points at.
        await writeAllBins(plan, lockfile, [])
      }
      const { prunedAt } = virtualStorePruning(previous?.prunedAt, config.modulesCacheMaxAge, opts.now())
      await recordLayout(opts, {
        hoistedDependencies: Object.fromEntries(plan.workspaceLinks.map((link) => [link.depPath, { [link.alias]: link.type }])),
        nodeLinker: 'hoisted',
        // pnpm's record has the places of what could not be fetched too.
        hoistedLocations: planned.hoistedLocations,
        builds,
        buildStepRan: (!opts.ignoreScripts && buildCandidates.length > 0) || builds.ignored.length > 0,
        prunedAt,
        skipped: install.skipped,
        virtualStoreDir: config.virtualStoreDir,
      })
    },
    done: async () => { await removeInstallingMarker(modulesDir) },
  }
}

/** The symlinks of the importers' `link:` dependencies of `lockfile` (the last install's, to unlink those dropped). */
function linkedDependencies (
  lockfile: Lockfile,
  importers: ReadonlyArray<{ id: string, dir: string }>,
  include: Readonly<Record<DependencyGroup, boolean>>
): string[] {
  return importers.flatMap(({ id, dir }) => DEPENDENCY_GROUPS.filter((group) => includesImporterGroup(include, group)).flatMap((group) =>
    Object.entries(lockfile.importers[id]?.[group] ?? {}).flatMap(([alias, { version }]) => version.startsWith('link:') ? [joinModulesDir(path.join(dir, 'node_modules'), alias)] : [])))
}

/** A place the last install filled with this very package (pnpm checks the version in its package.json). */
function isInPlace (pkg: HoistedPackage, locations: ModulesManifest['hoistedLocations'], lockfile: Lockfile, lockfileDir: string): boolean {
  if (locations?.[pkg.depPath]?.includes(pkg.location) !== true) return false
  // A symlink there (or on the way) is not a place this layout made: it is replaced, never written through.
  if (fs.lstatSync(pkg.dir, { throwIfNoEntry: false })?.isDirectory() !== true || !hasRealParents(lockfileDir, pkg.dir)) return false
  const version = lockfile.packages?.[pkg.pkgId]?.version ?? parseDepPath(pkg.pkgId).version
  try {
    return (JSON.parse(fs.readFileSync(path.join(pkg.dir, 'package.json'), 'utf8')) as { version?: unknown }).version === version
  } catch {
    return false
  }
}

/** A place of the hoisted layout, as `.modules.yaml` records it, with its directory and the `node_modules` it is in. */
export interface RecordedPlace {
  location: string
  dir: string
  modulesDir: string
}

/**
 * The places `.modules.yaml` records (checked by its reader to be under a `node_modules` inside the
 * workspace) that are there as their names say: a place reached through a symlink is left out, as
 * it is not this layout's to remove or write, whatever its name says.
 */
export function recordedPlaces (locations: Iterable<string>, lockfileDir: string): RecordedPlace[] {
  const places = []
  for (const location of new Set(locations)) {
    const name = parseModulesLocation(location)?.names.at(-1)
    const dir = joinRecorded(lockfileDir, location)
    if (name === undefined || dir === undefined || !hasRealParents(lockfileDir, dir)) continue
    places.push({ location, dir, modulesDir: name.startsWith('@') ? path.dirname(path.dirname(dir)) : path.dirname(dir) })
  }
  return places
}

function previousPlaces (previous: ModulesManifest | undefined, lockfileDir: string): RecordedPlace[] {
  return recordedPlaces(Object.values(previous?.hoistedLocations ?? {}).flat(), lockfileDir)
}

function uniqueByDepPath (packages: readonly HoistedPackage[]): HoistedPackage[] {
  return [...new Map(packages.map((pkg) => [pkg.depPath, pkg])).values()]
}

/**
 * Removes what the last install put in node_modules and this one does not want: packages at
 * places the plan no longer has, `link:` dependencies dropped, and workspace projects no longer
 * linked into the root's node_modules. A place the plan keeps for another package is replaced on
 * import instead.
 */
async function removeStale (
  plan: HoistedLayout,
  previous: ModulesManifest | undefined,
  previousLinks: readonly string[] | undefined,
  lockfileDir: string,
  modulesDir: string
): Promise<void> {
  if (previous === undefined) return
  const places = new Set(plan.packages.map((pkg) => pkg.location))
  const stale = previousPlaces(previous, lockfileDir).filter((place) => !places.has(place.location))
  const nextLinks = new Set(linksOf(plan, modulesDir).map(([link]) => link))
  const staleLinks = [
    ...Object.values(previous.hoistedDependencies)
      .flatMap((aliases) => Object.keys(aliases).map((alias) => joinModulesDir(modulesDir, alias))),
    ...(previousLinks ?? []),
  ].filter((link) => !nextLinks.has(link))
  await Promise.all([
    ...stale.map(async (place) => { await fsp.rm(place.dir, { recursive: true, force: true }) }),
    ...staleLinks.map(async (link) => { await unlinkIfSymlink(link) }),
  ])
}

async function unlinkIfSymlink (file: string): Promise<void> {
  if ((await fsp.lstat(file).catch(() => undefined))?.isSymbolicLink() === true) await fsp.unlink(file)
}

/** The importers' `link:` dependencies and the workspace projects linked into the root's node_modules. */
function linksOf (plan: HoistedLayout, modulesDir: string): LinkToWrite[] {
  return [
    ...plan.importers.flatMap((importer) => importer.links.map((link): LinkToWrite => [link.path, link.target])),
    // Public and private hoisting both go to the root's node_modules in this layout.
    ...plan.workspaceLinks.map((link: HoistedDependency): LinkToWrite => [joinModulesDir(modulesDir, link.alias), link.dir]),
  ]
}

/**
 * Imports the packages into their places with the link pool, replacing what is there. A package
 * and the packages nested in it go in one task, in order, so no thread writes into a directory
 * another is replacing. Returns how many were imported.
 */
async function importInPlace (
  packages: readonly HoistedPackage[],
  rows: ReadonlyMap<string, PackageInStore>,
  ctx: { opts: LinkPackagesOptions, linkPool: LinkPool }
): Promise<number> {
  const { opts, linkPool } = ctx
  const { config } = opts
  // Grouped by the package each is in at the top of its importer's node_modules (`node_modules/a`
  // holds `node_modules/a/node_modules/b`, `packages/p/node_modules/@s/c` holds what is nested in it).
  const groups = new Map<string, PackageToImport[]>()
  for (const pkg of packages) {
    const parts = pkg.location.split('/')
    const modules = parts.indexOf('node_modules')
    const top = parts.slice(0, modules + (parts[modules + 1]?.startsWith('@') === true ? 3 : 2)).join('/')
    const patch = patchOf(pkg.depPath, opts.patches)
    const group = groups.get(top) ?? []
    group.push({
      dir: pkg.dir,
      files: rows.get(pkg.depPath)!.files,
      replace: true,
      ...(rows.get(pkg.depPath)!.requiresBuild ? { builds: true } : {}),
      ...(patch === undefined ? {} : { patch: { file: patch.file, label: pkg.pkgId } }),
    })
    groups.set(top, group)
  }
  const tasks: Array<Promise<void>> = []
  let added = 0
  let batch: PackageToImport[] = []
  let warnedCrossDevice = false
  const flush = (): void => {
    if (batch.length === 0) return
    const packagesOfTask = batch
    batch = []
    tasks.push(linkPool.link({
      storeDir: config.storeDir,
      method: config.packageImportMethod,
      packages: packagesOfTask,
    }).then((outcome) => {
      if (outcome.crossDevice && !warnedCrossDevice) {
        warnedCrossDevice = true
        opts.onWarning?.(`The store ${config.storeDir} is on another file system than ${config.dir}: files are cloned or copied instead of hardlinked. Set store-dir to a directory on the same file system to save space and time.`)
      }
      added += packagesOfTask.length
      opts.trace?.count('linked', packagesOfTask.length)
      opts.onProgress?.({ added, reused: 0, downloaded: opts.fetcher.downloaded })
    }))
  }
  for (const group of groups.values()) {
    batch.push(...group)
    if (batch.length >= LINK_BATCH) flush()
  }
  flush()
  const settled = await Promise.allSettled(tasks)
  const failure = settled.find((outcome): outcome is PromiseRejectedResult => outcome.status === 'rejected')
  if (failure !== undefined) throw failure.reason
  return added
}

/** Every `.bin` of the layout: each importer's (its own dependencies' commands first) and each package's `node_modules`. */
async function writeAllBins (plan: HoistedLayout, lockfile: Lockfile, otherModulesDirs: readonly string[]): Promise<void> {
  const manifests = new Map<string, Promise<Record<string, unknown>>>()
  const withoutBins = new Set(plan.packages.filter((pkg) => lockfile.packages?.[pkg.pkgId]?.hasBin !== true).map((pkg) => pkg.dir))
  const importers = new Map(plan.importers.map((importer) => [importer.modulesDir, importer]))
  for (const modulesDir of [...plan.modulesDirs, ...otherModulesDirs]) {
    const directAliases = importers.get(modulesDir)?.directAliases
    await linkModulesDirBins(modulesDir, {
      manifests,
      withoutBins,
      ...(directAliases === undefined ? {} : { directAliases: new Set(directAliases) }),
    })
  }
}

/**
 * After builds in the hoisted layout (`lode rebuild`): each built package's files go to its other
 * places, and the `.bin` of every `node_modules` holding one of them is written again.
 */
export async function spreadHoistedBuilds (
  built: readonly string[],
  hoistedLocations: Readonly<Record<string, readonly string[]>>,
  lockfileDir: string
): Promise<void> {
  const modulesDirs = new Set<string>()
  for (const depPath of built) {
    const places = recordedPlaces(hoistedLocations[depPath] ?? [], lockfileDir)
    if (places.length === 0) continue
    await copyBuiltFiles(places[0]!.dir, places.slice(1).map((place) => place.dir))
    for (const place of places) modulesDirs.add(place.modulesDir)
  }
  for (const modulesDir of modulesDirs) await linkModulesDirBins(modulesDir)
}

/** A built package's files (its node_modules aside) hardlinked into its other places, as pnpm copies a build to them. */
async function copyBuiltFiles (from: string, to: readonly string[]): Promise<void> {
  if (to.length === 0) return
  const files = (await fsp.readdir(from, { recursive: true, withFileTypes: true }))
    .filter((entry) => entry.isFile())
    .map((entry) => path.relative(from, path.join(entry.parentPath, entry.name)))
    .filter((rel) => rel.split(path.sep)[0] !== 'node_modules')
  for (const dir of to) {
    for (const rel of files) {
      const target = path.join(dir, rel)
      await fsp.mkdir(path.dirname(target), { recursive: true })
      await fsp.rm(target, { force: true })
      await fsp.link(path.join(from, rel), target)
    }
  }
}
