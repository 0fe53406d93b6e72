import fs from 'node:fs/promises'
import path from 'node:path'

import { CURRENT_LOCKFILE } from '@lode/core.constants'
import { hasRealParents, joinModulesDir } from '@lode/core.safe-name'

import type { HoistedDependency } from './hoist.js'
import { hoistedPath } from './hoist.js'
import type { Layout } from './layout.js'
import type { ModulesManifest } from './modules-manifest.js'

export interface PruneInput {
  modulesDir: string
  /** What the last install laid out (from its `.pnpm/lock.yaml`), and what it hoisted (its `.modules.yaml`). */
  previous: Layout
  previousHoisted: ModulesManifest['hoistedDependencies']
  next: Layout
  nextHoisted: readonly HoistedDependency[]
  /**
   * Remove every package directory in `.pnpm` that this layout does not use. pnpm keeps such
   * orphans for `modulesCacheMaxAge` after the last pruning, so switching back is cheap.
   */
  pruneVirtualStore: boolean
  /**
   * The packages are in slots of pnpm's global virtual store, which no install changes once made
   * (`lode store prune` removes those no project uses): only the project's links are pruned.
   */
  globalVirtualStore?: boolean
  /**
   * Packages still in the lockfile that this install skips and the last one laid out (a narrowed
   * supportedArchitectures, installed as the lockfile is): as with pnpm, the links to them stay.
   */
  keepLinksTo?: ReadonlySet<string>
  /** The `node_modules` of importers a filtered install leaves as they are: their `.bin` stays (it is not written again). */
  untouchedModulesDirs?: ReadonlySet<string>
}

/**
 * Removes what the last install put in `node_modules` and this one no longer wants: direct
 * dependency links, hoisted links, links beside a package to dependencies it lost (its
 * dependencies can change under the same path, after an override), and (when due) orphaned
 * package directories in `.pnpm`. The importer's `.bin` directories are written whole by each
 * install, so they are emptied here. Planned first, removed later: `changed` holds the dependency
 * paths of packages whose dependencies changed (their links and `.bin` need writing again), and
 * nothing is removed until `remove()` (the links and `.bin` directories), which an install calls
 * once its new packages are all in place, and `removeStaleDirs()` (the orphaned package
 * directories), once its builds have passed: an install that fails before can still put
 * node_modules back as it was.
 */
export async function planPrune (
  input: PruneInput
): Promise<{ changed: string[], remove: () => Promise<void>, removeStaleDirs: () => Promise<void> }> {
  const { modulesDir } = input
  // Direct dependency links each importer no longer has.
  const nextDirect = new Set(input.next.importers.flatMap((importer) =>
    importer.direct.map((dep) => path.join(importer.modulesDir, dep.alias))))
  const removedDirect = input.previous.importers
    .flatMap((importer) => importer.direct.map((dep) => ({ modulesDir: importer.modulesDir, alias: dep.alias })))
    .filter((link) => !nextDirect.has(path.join(link.modulesDir, link.alias)))
  const before = new Map(input.previous.packages.map((pkg) => [pkg.depPath, pkg]))
  const kept = (depPath: string | undefined): boolean => depPath !== undefined && input.keepLinksTo?.has(depPath) === true
  const changed: string[] = []
  const droppedLinks: string[] = []
  for (const pkg of input.globalVirtualStore === true ? [] : input.next.packages) {
    const old = before.get(pkg.depPath)
    if (old === undefined) continue
    const now = new Map(pkg.deps.map((dep) => [dep.alias, dep.dir]))
    if (old.deps.length === now.size && old.deps.every((dep) => now.get(dep.alias) === dep.dir)) continue
    changed.push(pkg.depPath)
    for (const dep of old.deps) {
      if (!now.has(dep.alias) && !kept(dep.depPath)) droppedLinks.push(path.join(pkg.siblingsDir, dep.alias))
    }
  }
  const { virtualStoreDir } = input.next
  // `.pnpm/<dir name>`: two levels above `node_modules/<name>` (three for a scoped name).
  const used = new Set(input.next.packages.map((pkg) => path.basename(path.dirname(pkg.siblingsDir))))
  // Only in a virtual store that is a directory: one that is a symlink (a repository can carry it) leads elsewhere.
  const storeIsDir = (await fs.lstat(virtualStoreDir).catch(() => undefined))?.isDirectory() === true
  const staleDirs = input.pruneVirtualStore && input.globalVirtualStore !== true && storeIsDir
    ? (await fs.readdir(virtualStoreDir).catch(() => [] as string[])).filter((entry) => entry !== 'node_modules' && entry !== CURRENT_LOCKFILE && !used.has(entry)).map((entry) => path.join(virtualStoreDir, entry))
    : []
  const dirs = { modulesDir, virtualStoreDir }
  const nextHoisted = new Set(input.nextHoisted.map((dep) => hoistedPath(dirs, dep)))
  const staleHoisted = Object.entries(input.previousHoisted)
    .filter(([depPath]) => !kept(depPath))
    .flatMap(([depPath, aliases]) => Object.entries(aliases).map(([alias, type]) => hoistedPath(dirs, { alias, depPath, dir: '', type })))
    .filter((link) => !nextHoisted.has(link))
  // The links and .bin directories go first; the stale packages' directories last, once nothing can
  // fail (the links could still be put back from them).
  const removeStaleDirs = async (): Promise<void> => {
    await Promise.all(staleDirs.map(async (dir) => { await fs.rm(dir, { recursive: true, force: true }) }))
  }
  // The hoisted links and those beside packages are under the virtual store's parent (node_modules, by default).
  const storeRoot = path.dirname(virtualStoreDir)
  const remove = async (): Promise<void> => {
    await Promise.all([
      ...removedDirect.map(async (link) => { await removeLink(link.modulesDir, link.alias) }),
      ...staleHoisted.map(async (link) => { await removeSymlink(storeRoot, link) }),
      ...droppedLinks.map(async (link) => { await removeSymlink(storeRoot, link) }),
      ...input.next.importers
        .filter((importer) => input.untouchedModulesDirs?.has(importer.modulesDir) !== true)
        .map(async (importer) => { await fs.rm(path.join(importer.modulesDir, '.bin'), { recursive: true, force: true }) }),
      fs.rm(path.join(virtualStoreDir, 'node_modules', '.bin'), { recursive: true, force: true }),
    ])
  }
  return { changed, remove, removeStaleDirs }
}

/**
 * Removes the symlink `link`, when it is one and no directory on its way from `root` is a symlink:
 * the links to remove are named by `.modules.yaml` and `.pnpm/lock.yaml`, which a repository can
 * carry with a committed `.pnpm/node_modules` that leads elsewhere. Anything else there is not a
 * link this layout made, and stays.
 */
async function removeSymlink (root: string, link: string): Promise<void> {
  if (!hasRealParents(root, link)) return
  if ((await fs.lstat(link).catch(() => undefined))?.isSymbolicLink() === true) await fs.rm(link, { force: true })
}

/** Removes `node_modules/<alias>` (not through a symlinked scope directory), and its scope directory when that is left empty. */
async function removeLink (modulesDir: string, alias: string): Promise<void> {
  const link = joinModulesDir(modulesDir, alias)
  if (!hasRealParents(modulesDir, link)) return
  await fs.rm(link, { recursive: true, force: true })
  if (alias.startsWith('@')) await fs.rmdir(path.join(modulesDir, alias.split('/')[0]!)).catch(() => {})
}
