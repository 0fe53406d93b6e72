import fs from 'node:fs/promises'
import path from 'node:path'

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
}

/**
 * Removes what the last install put in `node_modules` and this one no longer wants: direct
 * dependency links and hoisted links, and (when due) orphaned package directories in `.pnpm`.
 * The `.bin` directories are written whole by each install, so they are emptied here. Returns
 * the direct aliases removed.
 */
export async function pruneModules (input: PruneInput): Promise<string[]> {
  const { modulesDir } = input
  const nextDirect = new Set(input.next.direct.map((dep) => dep.alias))
  const removedDirect = input.previous.direct.filter((dep) => !nextDirect.has(dep.alias)).map((dep) => dep.alias)
  const virtualStoreDir = path.join(modulesDir, '.pnpm')
  // `.pnpm/<dir name>`: two levels above `node_modules/<name>` (three for a scoped name).
  const packageRoot = (dir: string, name: string): string => path.resolve(dir, ...name.split('/').map(() => '..'), '..')
  const used = new Set(input.next.packages.map((pkg) => path.basename(packageRoot(pkg.dir, pkg.name))))
  const staleDirs = input.pruneVirtualStore
    ? (await fs.readdir(virtualStoreDir).catch(() => [] as string[])).filter((entry) => entry !== 'node_modules' && entry !== 'lock.yaml' && !used.has(entry)).map((entry) => path.join(virtualStoreDir, entry))
    : []
  const nextHoisted = new Set(input.nextHoisted.map((dep) => hoistedPath(modulesDir, dep)))
  const staleHoisted = Object.entries(input.previousHoisted).flatMap(([depPath, aliases]) => Object.entries(aliases)
    .map(([alias, type]) => hoistedPath(modulesDir, { alias, depPath, dir: '', type }))
    .filter((link) => !nextHoisted.has(link)))
  await Promise.all([
    ...removedDirect.map(async (alias) => { await removeLink(modulesDir, alias) }),
    ...staleDirs.map(async (dir) => { await fs.rm(dir, { recursive: true, force: true }) }),
    ...staleHoisted.map(async (link) => { await fs.rm(link, { force: true }) }),
    fs.rm(path.join(modulesDir, '.bin'), { recursive: true, force: true }),
    fs.rm(path.join(modulesDir, '.pnpm', 'node_modules', '.bin'), { recursive: true, force: true }),
  ])
  return removedDirect
}

/** Removes `node_modules/<alias>`, and its scope directory when that is left empty. */
async function removeLink (modulesDir: string, alias: string): Promise<void> {
  await fs.rm(path.join(modulesDir, alias), { recursive: true, force: true })
  if (alias.startsWith('@')) await fs.rmdir(path.join(modulesDir, alias.split('/')[0]!)).catch(() => {})
}
