import fs from 'node:fs'
import path from 'node:path'

import pLimit from 'p-limit'

import { linkBins } from './bins.js'
import type { BinProvider } from './bins.js'
import type { HoistedDependency } from './hoist.js'
import type { Dependency, LaidOutPackage, Layout } from './layout.js'

export interface WriteBinsOptions {
  /** After a resolution, pnpm also links each package's own bins into its `node_modules/.bin`. */
  ownBins: boolean
  /** Packages that get their own bins anyway (pnpm links them for a package that wants to build, allowed or not). */
  ownBinsOf?: ReadonlySet<string>
  /** Packages this install imported into directories that did not exist (no earlier .bin to drop). */
  fresh?: ReadonlySet<LaidOutPackage>
  /**
   * Whether an importer's shims name their targets through its `node_modules` links (pnpm 11 does
   * when it runs scripts; with --ignore-scripts, they name the packages' real directories).
   */
  importersThroughLinks: boolean
  /** Importers whose `.bin` is left as it is (a filtered install's other projects). */
  untouched?: ReadonlySet<string>
}

/**
 * Executables: each importer's direct dependencies' in its `node_modules/.bin`, and for each package linked now,
 * its dependencies' (and, after a resolution, its own) in its `node_modules/.bin`, where its
 * scripts find them.
 */
export async function writeBins (
  layout: Layout,
  linkedNow: readonly LaidOutPackage[],
  hoisted: readonly HoistedDependency[],
  modulesDir: string,
  opts: WriteBinsOptions
): Promise<void> {
  const { ownBins, ownBinsOf, fresh = new Set(), importersThroughLinks, untouched = new Set() } = opts
  const byDepPath = new Map(layout.packages.map((pkg) => [pkg.depPath, pkg]))
  const hoistedModules = path.join(layout.virtualStoreDir, 'node_modules')
  const provider = (pkg: LaidOutPackage): BinProvider => ({ dir: pkg.dir, nodePath: [path.join(pkg.dir, 'node_modules'), pkg.siblingsDir, hoistedModules] })
  const withBins = (deps: readonly Dependency[]): BinProvider[] => deps.flatMap((dep) => {
    const pkg = dep.depPath === undefined ? undefined : byDepPath.get(dep.depPath)
    return pkg?.hasBin === true ? [provider(pkg)] : []
  })
  // A linked project's bins, through its link or at its own directory; NODE_PATH follows where each target really is.
  const linkedProvider = (modules: string, alias: string, dir: string, throughLink: boolean): BinProvider =>
    ({ dir: throughLink ? path.join(modules, alias) : dir, nodePath: [], nodePathFrom: hoistedModules, linked: true, target: dir })
  // The packages of a node_modules the .bin sits in (an importer's, the hoisted ones): as pnpm,
  // the shims name their targets through the package's link there.
  const throughLinks = (
    modules: string,
    deps: ReadonlyArray<{ alias: string, depPath?: string | undefined, dir?: string | undefined }>,
    projects = false
  ): BinProvider[] => deps.flatMap((dep) => {
    const pkg = dep.depPath === undefined ? undefined : byDepPath.get(dep.depPath)
    // A publicly hoisted workspace project (its id is no package's): its bins through its link, as a linked project's.
    if (pkg === undefined) return !projects || dep.dir === undefined ? [] : [linkedProvider(modules, dep.alias, dep.dir, true)]
    return pkg.hasBin ? [{ ...provider(pkg), dir: path.join(modules, dep.alias), target: pkg.dir }] : []
  })
  // A linked project's bins, with only the hoisted packages on NODE_PATH, as pnpm writes them: through
  // its link, or (with --ignore-scripts) at its own directory.
  const linkedWithBins = (modules: string, deps: readonly Dependency[], throughLink: boolean): BinProvider[] => deps.flatMap((dep) =>
    dep.depPath === undefined
      ? [linkedProvider(modules, dep.alias, dep.dir, throughLink)]
      : throughLink ? throughLinks(modules, [dep]) : withBins([dep]))
  const manifests = new Map<string, Promise<Record<string, unknown>>>()
  const heads = new Map<string, string | null>()
  // A few directories at a time: thousands of concurrent reads and writes would run out of file
  // handles, and one at a time leaves a workspace of a hundred projects waiting on each in turn.
  const limit = pLimit(16)
  const importers = layout.importers.filter((importer) => !untouched.has(importer.id)).map(async (importer) => await limit(async () => {
    // The root's node_modules also gets the publicly hoisted packages' bins.
    const publicHoisted = importer.modulesDir === modulesDir ? hoisted.filter((dep) => dep.type === 'public') : []
    // pnpm links the root's bins again, through its links, once it has hoisted packages into it.
    const throughLink = importersThroughLinks || publicHoisted.length > 0
    const binDir = path.join(importer.modulesDir, '.bin')
    const directBins = await linkBins(binDir, linkedWithBins(importer.modulesDir, importer.direct, throughLink), { manifests, heads })
    // A publicly hoisted package's command never replaces a direct dependency's of the same name (pnpm's).
    const hoistedProviders = throughLinks(modulesDir, publicHoisted, true)
    const hoistedBins = await linkBins(binDir, hoistedProviders, { exclude: new Set(directBins), manifests, heads })
    const importerBins = [...directBins, ...hoistedBins]
    // pnpm also links the bins of the direct dependencies' required peers (auto-installed peers),
    // through the peer's link beside the dependent, never over a direct dependency's.
    const peers = importer.direct.flatMap((dep) => {
      const pkg = dep.depPath === undefined ? undefined : byDepPath.get(dep.depPath)
      if (pkg === undefined) return []
      return pkg.requiredPeers.flatMap((peer) => withBins(pkg.deps.filter((child) => child.alias === peer))
        .map((found) => ({ ...found, dir: path.join(pkg.siblingsDir, peer) })))
    }).sort((a, b) => a.dir < b.dir ? -1 : a.dir > b.dir ? 1 : 0)
    await linkBins(path.join(importer.modulesDir, '.bin'), peers, { exclude: new Set(importerBins), manifests, heads })
  }))
  const privateHoisted = limit(async () => await linkBins(path.join(hoistedModules, '.bin'), throughLinks(hoistedModules, hoisted.filter((dep) => dep.type === 'private')), { manifests, heads }))
  const packages = linkedNow.map(async (pkg) => {
    const own = (ownBins || ownBinsOf?.has(pkg.depPath) === true) && pkg.hasBin
    // Installing a lockfile as it is (pnpm's headless install), a package one of whose dependencies is
    // a workspace project (no package of the graph) gets the bins of everything beside it (its
    // dependencies and the project), through the links there, as pnpm reads that directory.
    const throughSiblings = !ownBins && pkg.deps.some((dep) => dep.depPath === undefined)
    const providers = throughSiblings
      ? throughLinks(pkg.siblingsDir, pkg.deps, true)
      : [...(own ? [{ ...provider(pkg), own: true }] : []), ...withBins(pkg.deps), ...bundledProviders(pkg, hoistedModules)]
    const binDir = path.join(pkg.dir, 'node_modules', '.bin')
    // A package imported just now has no .bin of an earlier install to drop. Otherwise synchronously,
    // and only where there is a .bin (few packages): a round trip through libuv's threads, or an
    // ENOENT error object, per package adds up over a thousand packages.
    if (!fresh.has(pkg) && fs.lstatSync(binDir, { throwIfNoEntry: false }) !== undefined) {
      fs.rmSync(binDir, { recursive: true, force: true })
    }
    if (providers.length > 0) await limit(async () => await linkBins(binDir, providers, { manifests, heads }))
  })
  await Promise.all([...importers, privateHoisted, ...packages])
}


/**
 * A build can replace a bin (esbuild puts its native executable in place of a JS launcher): the
 * shims of the packages depending on the built ones are written again, as pnpm does, and after a
 * resolution the built packages' own (a bin the build made is linked then; installing a lockfile
 * as it is, pnpm links a package's own bins before its build only).
 */
export async function writeBinsOfBuilt (
  layout: Layout,
  built: readonly string[],
  hoisted: readonly HoistedDependency[],
  modulesDir: string,
  opts: Pick<WriteBinsOptions, 'ownBins' | 'ownBinsOf'>
): Promise<void> {
  if (built.length === 0) return
  const builtPaths = new Set(built)
  const dependents = layout.packages.filter((pkg) =>
    (opts.ownBins && builtPaths.has(pkg.depPath)) || pkg.deps.some((dep) => dep.depPath !== undefined && builtPaths.has(dep.depPath)))
  await writeBins(layout, dependents, hoisted, modulesDir, { ...opts, importersThroughLinks: true })
}

/** The packages a package bundles (in its own `node_modules`): pnpm links their bins in its `node_modules/.bin`. */
function bundledProviders (pkg: LaidOutPackage, hoistedModules: string): BinProvider[] {
  if (pkg.bundles !== true) return []
  const modules = path.join(pkg.dir, 'node_modules')
  const entries = (dir: string): string[] => {
    try {
      return fs.readdirSync(dir).filter((name) => !name.startsWith('.'))
    } catch {
      return []
    }
  }
  const names = entries(modules).flatMap((name) => name.startsWith('@') ? entries(path.join(modules, name)).map((inner) => `${name}/${inner}`) : [name])
  // NODE_PATH as pnpm writes it for them: their own node_modules, the one they are in, the hoisted packages.
  return names.map((name) => ({ dir: path.join(modules, name), nodePath: [path.join(modules, name, 'node_modules'), modules, hoistedModules] }))
}
