import path from 'node:path'

import type { DependencyGroup, Lockfile, Resolution } from '@lode/pkg-manager.lockfile'

import { depPathToFilename } from './dep-path-to-filename.js'

/** A package of the isolated layout: where its files go in `node_modules/.pnpm`. */
export interface LaidOutPackage {
  depPath: string
  /** `name@version` (the dependency path without its peer suffix): the lockfile's `packages` key. */
  pkgId: string
  name: string
  /** `<modules>/.pnpm/<dir name>/node_modules/<name>`, absolute. */
  dir: string
  resolution: Resolution
}

export interface Symlink {
  /** Absolute path of the link. */
  path: string
  /** Absolute path it points to (written relative). */
  target: string
}

export interface Layout {
  packages: LaidOutPackage[]
  /** Each package's dependencies beside it, and the importer's direct dependencies in `node_modules/`. */
  symlinks: Symlink[]
  /** The importer's direct dependencies: alias → dependency path (or `link:` target). */
  direct: Map<string, string>
}

export interface LayoutOptions {
  lockfileDir: string
  importerId: string
  /** The importer's directory; its `node_modules` is the modules directory. */
  importerDir: string
  /** Which of the importer's dependency groups to install (`--prod`, `--dev`, `--no-optional`). */
  include: Readonly<Record<DependencyGroup, boolean>>
  virtualStoreDirMaxLength: number
}

/**
 * pnpm's isolated layout for one importer, from the lockfile: every package reached from the
 * included dependency groups gets `node_modules/.pnpm/<dir>/node_modules/<name>`, its
 * dependencies as symlinks beside it, and the direct dependencies are symlinked into
 * `node_modules/`. Nothing is written here.
 */
export function planLayout (lockfile: Lockfile, opts: LayoutOptions): Layout {
  const modulesDir = path.join(opts.importerDir, 'node_modules')
  const virtualStoreDir = path.join(modulesDir, '.pnpm')
  // `<modules>/.pnpm/<dir name>/node_modules`: the package and its dependencies side by side.
  const siblingsDirOf = (depPath: string): string => path.join(virtualStoreDir, depPathToFilename(depPath, opts.virtualStoreDirMaxLength), 'node_modules')
  const dirOf = (depPath: string): string => path.join(siblingsDirOf(depPath), nameOf(depPath))
  const packages = new Map<string, LaidOutPackage>()
  const symlinks: Symlink[] = []
  const pending: string[] = []
  const reach = (depPath: string): string => {
    if (!packages.has(depPath)) {
      const pkgId = pkgIdOf(depPath)
      const info = lockfile.packages?.[pkgId]
      if (info === undefined) throw new Error(`The lockfile has no packages entry for ${pkgId}`)
      packages.set(depPath, { depPath, pkgId, name: nameOf(depPath), dir: dirOf(depPath), resolution: info.resolution })
      pending.push(depPath)
    }
    return packages.get(depPath)!.dir
  }
  const direct = new Map<string, string>()
  const importer = lockfile.importers[opts.importerId] ?? {}
  for (const group of ['optionalDependencies', 'dependencies', 'devDependencies'] as const) {
    if (!opts.include[group]) continue
    for (const [alias, { version }] of Object.entries(importer[group] ?? {})) {
      const link = version.startsWith('link:') ? path.resolve(opts.importerDir, version.slice(5)) : undefined
      direct.set(alias, link ?? refToDepPath(alias, version))
      symlinks.push({ path: path.join(modulesDir, alias), target: link ?? reach(refToDepPath(alias, version)) })
    }
  }
  while (pending.length > 0) {
    const depPath = pending.pop()!
    const snapshot = lockfile.snapshots?.[depPath] ?? {}
    const parentModules = siblingsDirOf(depPath)
    for (const deps of [snapshot.dependencies, opts.include.optionalDependencies ? snapshot.optionalDependencies : undefined]) {
      for (const [alias, ref] of Object.entries(deps ?? {})) {
        const target = ref.startsWith('link:') ? path.resolve(opts.lockfileDir, ref.slice(5)) : reach(refToDepPath(alias, ref))
        symlinks.push({ path: path.join(parentModules, alias), target })
      }
    }
  }
  return { packages: [...packages.values()], symlinks, direct }
}

/** A lockfile reference to a dependency path: `1.0.0(peer@2.0.0)` under its alias, or a full `name@version` (aliases, `file:`, URLs). */
export function refToDepPath (alias: string, ref: string): string {
  const paren = ref.indexOf('(')
  const head = paren === -1 ? ref : ref.slice(0, paren)
  return head.includes('@') && !head.startsWith('file:') ? ref : `${alias}@${ref}`
}

function pkgIdOf (depPath: string): string {
  const paren = depPath.indexOf('(', depPath.indexOf('@', 1))
  return paren === -1 ? depPath : depPath.slice(0, paren)
}

export function nameOf (depPath: string): string {
  return depPath.slice(0, depPath.indexOf('@', 1))
}
