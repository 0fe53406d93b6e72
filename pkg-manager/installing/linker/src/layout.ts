import fs from 'node:fs'
import path from 'node:path'

import type { DependencyGroup } from '@lode/core.constants'
import { depPathToFilename, nameOf, pkgIdOf, refToDepPath } from '@lode/core.dep-path'
import { LodeError } from '@lode/core.error'
import { joinModulesDir, own } from '@lode/core.safe-name'
import type { Lockfile, Resolution } from '@lode/pkg-manager.lockfile.format'

import { includesImporterGroup } from './importer-groups.js'


/** A package of the isolated layout: where its files go in `node_modules/.pnpm`. */
export interface LaidOutPackage {
  depPath: string
  /** `name@version` (the dependency path without its peer suffix): the lockfile's `packages` key. */
  pkgId: string
  name: string
  /** `<modules>/.pnpm/<dir name>/node_modules/<name>`, absolute. */
  dir: string
  /** `<modules>/.pnpm/<dir name>/node_modules`: where its dependencies are linked, beside it. */
  siblingsDir: string
  resolution: Resolution
  /** The lockfile says the package has executables. */
  hasBin: boolean
  /** The lockfile says the package bundles dependencies (in its own `node_modules`, whose bins pnpm links there). */
  bundles?: true
  /** Its dependencies (and resolved peers), where they are. */
  deps: Dependency[]
  /** Its dependencies' links beside it, in `siblingsDir`. */
  links: Symlink[]
  /** Its required peers that the lockfile resolved (their bins go to the importer's `.bin` too, as pnpm links auto-installed peers). */
  requiredPeers: string[]
}

/** A dependency as its dependent sees it: the alias it is required by, where it is, and its dependency path (none for `link:`). */
export interface Dependency {
  alias: string
  dir: string
  depPath?: string
}

/** A peer a resolution hoisted to an importer (the lockfile does not list it): a directory (absolute) to link, or a package to hoist from. */
export type HoistedPeer = { alias: string, dir: string } | { alias: string, depPath: string }

export interface Symlink {
  /** Absolute path of the link. */
  path: string
  /** Absolute path it points to (written relative). */
  target: string
}

export interface Layout {
  /** Where the packages are (pnpm's `virtualStoreDir`), absolute. */
  virtualStoreDir: string
  packages: LaidOutPackage[]
  /** Each importer's direct dependencies in its `node_modules/` (each package's are in its `links`). */
  directLinks: Symlink[]
  /** The root importer's (`.`) direct dependencies. */
  direct: Dependency[]
  /** Every importer (the root first) with its `node_modules` and direct dependencies. */
  importers: ImporterLayout[]
}

export interface ImporterLayout {
  id: string
  dir: string
  modulesDir: string
  direct: Dependency[]
  /** Packages a resolution hoisted to the importer as peers (the lockfile does not list them): pnpm's hoisting starts from them too. */
  hoistedPeers: Dependency[]
}

export interface LayoutOptions {
  /** The workspace root (or the project): `.pnpm` is in its `node_modules`, below-`link:` paths start there. */
  lockfileDir: string
  /** The importers to lay out: `.` for a single project, every project of a workspace. */
  importers: ReadonlyArray<{ id: string, dir: string }>
  /** Which of the importer's dependency groups to install (`--prod`, `--dev`, `--no-optional`). */
  include: Readonly<Record<DependencyGroup, boolean>>
  /** pnpm's `virtualStoreDir`, absolute (`node_modules/.pnpm` of `lockfileDir` by default). */
  virtualStoreDir: string
  virtualStoreDirMaxLength: number
  /** Dependency paths not to install (optional packages that do not fit the platform); nothing is reached through them. */
  skipped?: ReadonlySet<string>
  /**
   * pnpm 11's global virtual store: each package's slot directory (absolute), where it and its
   * dependencies' links go instead of `<virtualStoreDir>/<dir name>`; `virtualStoreDir` is then the
   * project's `node_modules/.pnpm` (its hoisted packages and `lock.yaml`).
   */
  slotDirOf?: ((depPath: string) => string) | undefined
  /** By importer id, the peers a resolution hoisted to it under aliases its lockfile entry lacks: a directory is linked, a package hoisted from. */
  hoistedPeers?: Readonly<Record<string, readonly HoistedPeer[]>> | undefined
}

/**
 * pnpm's isolated layout from the lockfile: every package reached from the importers' included
 * dependency groups gets `<virtual store>/<dir>/node_modules/<name>` (`node_modules/.pnpm` by default), its
 * dependencies as symlinks beside it, and each importer's direct dependencies are symlinked into
 * its own `node_modules/`. Nothing is written here.
 */
export function planLayout (lockfile: Lockfile, opts: LayoutOptions): Layout {
  const { virtualStoreDir } = opts
  // `<modules>/.pnpm/<dir name>/node_modules`: the package and its dependencies side by side. Joined
  // by hand (path.join's normalizing is most of the planning's time): the file name has no separator.
  const { sep } = path
  const { slotDirOf } = opts
  const siblingsDirOf = slotDirOf === undefined
    ? (depPath: string): string => `${virtualStoreDir}${sep}${depPathToFilename(depPath, opts.virtualStoreDirMaxLength)}${sep}node_modules`
    : (depPath: string): string => `${slotDirOf(depPath)}${sep}node_modules`
  // Names and aliases read from the lockfile pass the one rule before they become paths (`joinModulesDir`).
  const dirOf = (depPath: string): string => joinModulesDir(siblingsDirOf(depPath), nameOf(depPath))
  const packages = new Map<string, LaidOutPackage>()
  const directLinks: Symlink[] = []
  const pending: string[] = []
  const reach = (depPath: string): string => {
    if (!packages.has(depPath)) {
      const pkgId = pkgIdOf(depPath)
      const info = own(lockfile.packages, pkgId)
      if (info === undefined) {
        throw new LodeError('LOCKFILE_MISSING_DEPENDENCY', `The lockfile has no packages entry for ${pkgId}.`, {
          hint: 'Install without --frozen-lockfile to update pnpm-lock.yaml, or restore its entry.',
        })
      }
      const snapshot = own(lockfile.snapshots, depPath) ?? {}
      const requiredPeers = Object.keys(info.peerDependencies ?? {}).filter((peer) =>
        own(info.peerDependenciesMeta, peer)?.optional !== true &&
        (own(snapshot.dependencies, peer) !== undefined || own(snapshot.optionalDependencies, peer) !== undefined))
      packages.set(depPath, {
        depPath,
        pkgId,
        name: nameOf(depPath),
        dir: dirOf(depPath),
        siblingsDir: siblingsDirOf(depPath),
        resolution: info.resolution,
        hasBin: info.hasBin === true,
        ...(info.bundledDependencies === undefined ? {} : { bundles: true as const }),
        deps: [],
        links: [],
        requiredPeers,
      })
      pending.push(depPath)
    }
    return packages.get(depPath)!.dir
  }
  // `link:` targets are relative to the importer for direct dependencies, to the lockfile's directory below.
  const dependency = (alias: string, ref: string, linkBase: string): Dependency | undefined => {
    if (ref.startsWith('link:')) return { alias, dir: path.resolve(linkBase, ref.slice(5)) }
    const depPath = refToDepPath(alias, ref)
    if (opts.skipped?.has(depPath) === true) return undefined
    return { alias, dir: reach(depPath), depPath }
  }
  const importers = opts.importers.map(({ id, dir }): ImporterLayout => {
    // A project linked in from elsewhere (a symlink in the workspace): its links are written where
    // it really is, relative to that, so that they resolve from there (as pnpm writes them).
    const modulesDir = path.join(realDir(dir), 'node_modules')
    const direct: Dependency[] = []
    const importer = lockfile.importers[id] ?? {}
    // pnpm's order (devDependencies, dependencies, optionalDependencies) decides which package is hoisted first.
    for (const group of ['devDependencies', 'dependencies', 'optionalDependencies'] as const) {
      if (!includesImporterGroup(opts.include, group)) continue
      for (const [alias, { version }] of Object.entries(importer[group] ?? {})) {
        const dep = dependency(alias, version, dir)
        if (dep === undefined) continue
        direct.push(dep)
        directLinks.push({ path: joinModulesDir(modulesDir, alias), target: dep.dir })
      }
    }
    for (const peer of own(opts.hoistedPeers, id) ?? []) {
      if ('dir' in peer && !direct.some((dep) => dep.alias === peer.alias)) directLinks.push({ path: joinModulesDir(modulesDir, peer.alias), target: peer.dir })
    }
    return { id, dir, modulesDir, direct, hoistedPeers: [] }
  })
  while (pending.length > 0) {
    const depPath = pending.pop()!
    const pkg = packages.get(depPath)!
    const snapshot = own(lockfile.snapshots, depPath) ?? {}
    for (const deps of [snapshot.dependencies, opts.include.optionalDependencies ? snapshot.optionalDependencies : undefined]) {
      for (const [alias, ref] of Object.entries(deps ?? {})) {
        const dep = dependency(alias, ref, opts.lockfileDir)
        if (dep === undefined) continue
        pkg.deps.push(dep)
        const link = joinModulesDir(pkg.siblingsDir, alias)
        if (link !== pkg.dir) {
          pkg.links.push({ path: link, target: dep.dir })
        } else if (dep.dir !== pkg.dir) {
          // Another version under the package's own name would take its place: as pnpm, it goes
          // into the package's own node_modules, where Node finds it first (itself, none).
          pkg.links.push({ path: joinModulesDir(path.join(pkg.dir, 'node_modules'), alias), target: dep.dir })
        }
      }
    }
  }
  // Hoisted peers are hoisted from only where the layout has them (a group left out may not reach them).
  for (const importer of importers) {
    for (const peer of own(opts.hoistedPeers, importer.id) ?? []) {
      const pkg = 'depPath' in peer ? packages.get(peer.depPath) : undefined
      if (pkg === undefined || importer.direct.some((dep) => dep.alias === peer.alias)) continue
      importer.hoistedPeers.push({ alias: peer.alias, dir: pkg.dir, depPath: pkg.depPath })
    }
  }
  return { virtualStoreDir, packages: [...packages.values()], directLinks, direct: importers.find((importer) => importer.id === '.')?.direct ?? [], importers }
}

/**
 * Every dependency path the importers' included groups reach, skipped packages and what is reached
 * through them too: what the layout lacks of these is skipped, as pnpm lists it.
 */
export function reachableDepPaths (lockfile: Lockfile, opts: Pick<LayoutOptions, 'importers' | 'include'>): Set<string> {
  const reached = new Set<string>()
  const pending: string[] = []
  const visit = (alias: string, ref: string): void => {
    if (ref.startsWith('link:')) return
    const depPath = refToDepPath(alias, ref)
    if (reached.has(depPath)) return
    reached.add(depPath)
    pending.push(depPath)
  }
  for (const { id } of opts.importers) {
    const importer = lockfile.importers[id] ?? {}
    for (const group of ['devDependencies', 'dependencies', 'optionalDependencies'] as const) {
      if (!includesImporterGroup(opts.include, group)) continue
      for (const [alias, { version }] of Object.entries(importer[group] ?? {})) visit(alias, version)
    }
  }
  while (pending.length > 0) {
    const snapshot = own(lockfile.snapshots, pending.pop()!) ?? {}
    for (const deps of [snapshot.dependencies, opts.include.optionalDependencies ? snapshot.optionalDependencies : undefined]) {
      for (const [alias, ref] of Object.entries(deps ?? {})) visit(alias, ref)
    }
  }
  return reached
}

/** A project directory that is itself a symlink: its real path; else the directory as it is named. */
function realDir (dir: string): string {
  return fs.lstatSync(dir, { throwIfNoEntry: false })?.isSymbolicLink() === true ? fs.realpathSync(dir) : dir
}
