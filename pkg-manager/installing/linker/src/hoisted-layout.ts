import path from 'node:path'

import { DEPENDENCY_GROUPS } from '@lode/core.constants'
import type { DependencyGroup } from '@lode/core.constants'
import { nameOf, parseDepPath, pkgIdOf, refToDepPath } from '@lode/core.dep-path'
import { LodeError } from '@lode/core.error'
import { joinModulesDir, own } from '@lode/core.safe-name'
import type { Lockfile, Resolution } from '@lode/pkg-manager.lockfile.format'
import { HoisterDependencyKind, hoist } from '@yarnpkg/nm/hoist'
import type { HoisterResult, HoisterTree } from '@yarnpkg/nm/hoist'
import validVersion from 'semver/functions/valid.js'

import { hoistTypeMatcher } from './hoist.js'
import type { HoistedDependency, HoistOptions } from './hoist.js'
import { includesImporterGroup } from './importer-groups.js'
import type { Symlink } from './layout.js'

/** A package of the hoisted layout: one of the places a dependency path is put. */
export interface HoistedPackage {
  depPath: string
  pkgId: string
  name: string
  /** `<parent>/node_modules/<alias>`, absolute. */
  dir: string
  /** `dir` relative to the workspace root, `/`-separated: what `.modules.yaml` records in `hoistedLocations`. */
  location: string
  resolution: Resolution
  hasBin: boolean
  /** Dependency paths of its dependencies (a build waits for theirs). */
  deps: string[]
}

export interface HoistedLayout {
  /** Every place of every package, parents before what is nested in them. */
  packages: HoistedPackage[]
  /** depPath → its locations (`.modules.yaml`'s `hoistedLocations`). */
  hoistedLocations: Record<string, string[]>
  /** Each importer's `node_modules` and its `link:` dependencies there (`symlinks`). */
  importers: HoistedImporter[]
  /** Workspace projects linked into the root's `node_modules` under their names (pnpm's `hoistWorkspacePackages`); `depPath` is the project's id. */
  workspaceLinks: HoistedDependency[]
  /** The `node_modules` directories the packages are in (each importer's among them): where `.bin` directories go. */
  modulesDirs: string[]
}

export interface HoistedImporter {
  id: string
  dir: string
  modulesDir: string
  /** Its `link:` dependencies of the included groups. */
  links: Symlink[]
  /** The aliases of its included dependencies: their commands win in its `.bin`. */
  directAliases: string[]
}

export interface HoistedLayoutOptions {
  /** The workspace root: locations are relative to it, `link:` of packages resolve from it. */
  lockfileDir: string
  /** The importers, the root (`.`) first, with their projects' names (a named project may be linked into the root's node_modules). */
  importers: ReadonlyArray<{ id: string, dir: string, name?: string | undefined }>
  include: Readonly<Record<DependencyGroup, boolean>>
  /** Dependency paths not to install (optional packages for another platform): they keep their names in the tree, as in pnpm, but are not put anywhere. */
  skipped: ReadonlySet<string>
  /** With `autoInstallPeers` (the default) the hoister is told of no peers, as pnpm does. */
  autoInstallPeers: boolean
  hoist: HoistOptions
  /** pnpm's `hoistWorkspacePackages` (default true): the workspace's projects linked into the root's node_modules by name. */
  hoistWorkspacePackages: boolean
}

/**
 * pnpm's `nodeLinker: hoisted` layout: the lockfile's graph, as pnpm builds it for the hoister
 * (`@yarnpkg/nm`'s, the one pnpm runs), is hoisted as far up as each package can go without
 * another version of its name in the way; a package that cannot go up is nested in its
 * dependent's `node_modules`. Each workspace project's dependencies start from its own
 * `node_modules`; what all share goes to the root's. Nothing is written here.
 */
export function planHoistedLayout (lockfile: Lockfile, opts: HoistedLayoutOptions): HoistedLayout {
  const importers = opts.importers.filter((importer) => lockfile.importers[importer.id] !== undefined)
  const directRefs = (id: string): Record<string, string> => {
    const snapshot = lockfile.importers[id] ?? {}
    const refs: Record<string, string> = {}
    // pnpm's merge order: dependencies, devDependencies, optionalDependencies.
    for (const group of DEPENDENCY_GROUPS) {
      if (!includesImporterGroup(opts.include, group)) continue
      for (const [alias, { version }] of Object.entries(snapshot[group] ?? {})) refs[alias] = version
    }
    return refs
  }
  const tree = hoisterTree(lockfile, opts, importers.map(({ id }) => ({ id, refs: directRefs(id) })))
  const hoisted = hoistTree(tree)
  const packages: HoistedPackage[] = []
  const hoistedLocations: Record<string, string[]> = {}
  const modulesDirs = new Set<string>()
  // Depth first in the hoister's order, with a stack of its own: a chain of nested places is as deep
  // as a registry makes it. A package that is its own ancestor (a cycle the hoister left nested) gets
  // no place below itself: Node finds it upward. Returns the names placed directly in `modulesDir`.
  const place = (deps: ReadonlySet<HoisterResult>, modulesDir: string): string[] => {
    const names: string[] = []
    const onPath = new Set<HoisterResult>()
    type Step = { dep: HoisterResult, modulesDir: string, top: boolean } | { leave: HoisterResult }
    const stack: Step[] = [...deps].reverse().map((dep) => ({ dep, modulesDir, top: true }))
    while (stack.length > 0) {
      const step = stack.pop()!
      if ('leave' in step) {
        onPath.delete(step.leave)
        continue
      }
      const { dep } = step
      if (onPath.has(dep)) continue
      const depPath = [...dep.references][0]!
      if (depPath.startsWith('workspace:') || depPath.startsWith('link:') || opts.skipped.has(depPath)) continue
      const pkgId = pkgIdOf(depPath)
      const info = own(lockfile.packages, pkgId)
      if (info === undefined) continue
      // Aliases come from the lockfile: they pass the one rule before they become paths.
      const dir = joinModulesDir(step.modulesDir, dep.name)
      const location = path.relative(opts.lockfileDir, dir).split(path.sep).join('/')
      const snapshot = own(lockfile.snapshots, depPath) ?? {}
      const children = { ...snapshot.dependencies, ...(opts.include.optionalDependencies ? snapshot.optionalDependencies : {}) }
      packages.push({
        depPath,
        pkgId,
        name: nameOf(depPath),
        dir,
        location,
        resolution: info.resolution,
        hasBin: info.hasBin === true,
        deps: Object.entries(children).flatMap(([alias, ref]) => ref.startsWith('link:') ? [] : [refToDepPath(alias, ref)]),
      })
      ;(hoistedLocations[depPath] ??= []).push(location)
      modulesDirs.add(step.modulesDir)
      if (step.top) names.push(dep.name)
      onPath.add(dep)
      stack.push({ leave: dep })
      const nested = path.join(dir, 'node_modules')
      for (const child of [...dep.dependencies].reverse()) stack.push({ dep: child, modulesDir: nested, top: false })
    }
    return names
  }
  const rootImporter = importers.find((importer) => importer.id === '.')
  const rootModulesDir = path.join(opts.lockfileDir, 'node_modules')
  const atRoot = place(hoisted.dependencies, rootModulesDir)
  for (const dep of hoisted.dependencies) {
    const reference = [...dep.references][0]!
    if (!reference.startsWith('workspace:')) continue
    const importer = importers.find(({ id }) => id === reference.slice('workspace:'.length))
    if (importer !== undefined) place(dep.dependencies, path.join(importer.dir, 'node_modules'))
  }
  const hoistedImporters = importers.map(({ id, dir }): HoistedImporter => {
    const modulesDir = path.join(dir, 'node_modules')
    modulesDirs.add(modulesDir)
    const refs = directRefs(id)
    const links = Object.entries(refs).flatMap(([alias, ref]) => ref.startsWith('link:') ? [{ path: joinModulesDir(modulesDir, alias), target: path.resolve(dir, ref.slice('link:'.length)) }] : [])
    return { id, dir, modulesDir, links, directAliases: Object.keys(refs) }
  })
  // pnpm's hoistWorkspacePackages, into the root's node_modules: a project's name is taken unless
  // the root depends on that name, a package of that name is at the root already, or a project has
  // a package (no link) under that alias (an injected copy: pnpm's importers' dependencies come first).
  const typeOf = hoistTypeMatcher(opts.hoist)
  const packageAliases = importers.flatMap(({ id }) => Object.entries(directRefs(id)).flatMap(([alias, ref]) => ref.startsWith('link:') ? [] : [alias]))
  const taken = new Set([...(rootImporter === undefined ? [] : Object.keys(directRefs('.'))), ...atRoot, ...packageAliases].map((alias) => alias.toLowerCase()))
  const workspaceLinks: HoistedDependency[] = []
  for (const project of opts.hoistWorkspacePackages ? importers : []) {
    if (project.id === '.' || project.name === undefined || taken.has(project.name.toLowerCase())) continue
    const type = typeOf(project.name)
    if (type === undefined) continue
    taken.add(project.name.toLowerCase())
    workspaceLinks.push({ alias: project.name, depPath: project.id, dir: project.dir, type })
  }
  return { packages, hoistedLocations, importers: hoistedImporters, workspaceLinks, modulesDirs: [...modulesDirs] }
}

/**
 * The graph as pnpm's `real-hoist` gives it to the hoister: a node per alias and dependency path
 * (shared wherever it occurs), whose reference is the first dependency path met for its
 * `name@version` (the peer variants of a package are one package to the hoister), and the
 * workspace projects as children of the root that nothing is hoisted past.
 */
function hoisterTree (
  lockfile: Lockfile,
  opts: HoistedLayoutOptions,
  importers: ReadonlyArray<{ id: string, refs: Record<string, string> }>
): HoisterTree {
  const nodes = new Map<string, HoisterTree>()
  const firstDepPath = new Map<string, string>()
  // Depth first in the order of each snapshot's dependencies (the first dependency path met for a
  // package is its reference), with a stack of its own: a chain is as deep as a registry makes it.
  const unfinished: Array<{ node: HoisterTree, entries: Array<[string, string]>, next: number }> = []
  const toTree = (deps: Record<string, string>): Set<HoisterTree> => {
    const tree = new Set<HoisterTree>()
    for (const [alias, ref] of Object.entries(deps)) {
      tree.add(nodeOf(alias, ref))
      while (unfinished.length > 0) {
        const frame = unfinished[unfinished.length - 1]!
        const entry = frame.entries[frame.next++]
        if (entry === undefined) unfinished.pop()
        else frame.node.dependencies.add(nodeOf(entry[0], entry[1]))
      }
    }
    return tree
  }
  // A node, made with its dependencies left to `toTree`'s stack.
  const nodeOf = (alias: string, ref: string): HoisterTree => {
    if (ref.startsWith('link:')) {
      // A linked directory is not put anywhere by the hoisted linker, but its name is taken where it ends up.
      const key = `${alias}:${ref}`
      let node = nodes.get(key)
      if (node === undefined) {
        node = {
          name: alias,
          identName: alias,
          reference: ref,
          dependencyKind: HoisterDependencyKind.REGULAR,
          dependencies: new Set(),
          peerNames: new Set(),
        }
        nodes.set(key, node)
      }
      return node
    }
    const depPath = refToDepPath(alias, ref)
    const key = `${alias}:${depPath}`
    let node = nodes.get(key)
    if (node !== undefined) return node
    const info = own(lockfile.packages, pkgIdOf(depPath))
    if (info === undefined) {
      throw new LodeError('LOCKFILE_MISSING_DEPENDENCY', `pnpm-lock.yaml has no packages entry for ${pkgIdOf(depPath)} (a dependency of the workspace).`, {
        hint: 'Install without --frozen-lockfile to update pnpm-lock.yaml, or restore its entry.',
      })
    }
    const snapshot = own(lockfile.snapshots, depPath) ?? {}
    const name = nameOf(depPath)
    const id = 'directory' in info.resolution ? depPath : `${name}@${info.version ?? versionOf(depPath)}`
    if (!firstDepPath.has(id)) firstDepPath.set(id, depPath)
    node = {
      name: alias,
      identName: name,
      reference: firstDepPath.get(id)!,
      dependencyKind: HoisterDependencyKind.REGULAR,
      dependencies: new Set(),
      peerNames: new Set(opts.autoInstallPeers
        ? []
        : [...Object.keys(info.peerDependencies ?? {}), ...(snapshot.transitivePeerDependencies ?? [])]),
    }
    nodes.set(key, node)
    const dependencies = { ...snapshot.dependencies, ...(opts.include.optionalDependencies ? snapshot.optionalDependencies : {}) }
    unfinished.push({ node, entries: Object.entries(dependencies), next: 0 })
    return node
  }
  const root: HoisterTree = { name: '.', identName: '.', reference: '', dependencyKind: HoisterDependencyKind.WORKSPACE, peerNames: new Set(), dependencies: new Set() }
  for (const { id, refs } of importers) {
    if (id === '.') {
      for (const node of toTree(refs)) root.dependencies.add(node)
      continue
    }
    root.dependencies.add({ name: encodeURIComponent(id), identName: encodeURIComponent(id), reference: `workspace:${id}`, dependencyKind: HoisterDependencyKind.WORKSPACE, peerNames: new Set(), dependencies: toTree(refs) })
  }
  return root
}

/**
 * The hoister's result. `@yarnpkg/nm` walks the tree by recursion: a chain of dependencies a few
 * thousand deep (which a registry can serve) exhausts the stack there, and is a coded error instead.
 */
function hoistTree (tree: HoisterTree): HoisterResult {
  try {
    return hoist(tree)
  } catch (err) {
    if (!(err instanceof RangeError) || !/call stack/i.test(err.message)) throw err
    throw new LodeError('DEPENDENCY_TREE_TOO_DEEP', 'The dependency graph is too deep for the hoisted node_modules layout (nodeLinker: hoisted): a chain of dependencies runs thousands of packages deep.', {
      hint: 'Use the isolated layout (remove nodeLinker: hoisted), which has no such limit, or find the package that depends on itself through a chain of versions and do not install it.',
    })
  }
}

/** The version a dependency path names (`1.0.0` of `a@1.0.0(b@2.0.0)` or `a@1.0.0(patch_hash=…)`), when it is a semver version. */
function versionOf (depPath: string): string | undefined {
  const { version } = parseDepPath(depPath)
  return validVersion(version) === null ? undefined : version
}
