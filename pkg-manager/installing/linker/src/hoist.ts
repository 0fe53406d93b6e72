import path from 'node:path'

import { createMatcher } from '@lode/core.matcher'
import { isInsideDir, joinModulesDir } from '@lode/core.safe-name'

import type { Dependency, ImporterLayout, Layout } from './layout.js'

export type HoistType = 'private' | 'public'

export interface HoistedDependency {
  alias: string
  depPath: string
  /** Where the package is. */
  dir: string
  type: HoistType
}

export interface HoistOptions {
  /** pnpm's `hoistPattern` (default `['*']`): into `node_modules/.pnpm/node_modules`. */
  hoistPattern: readonly string[]
  /** pnpm's `publicHoistPattern` (default `[]`): into `node_modules`. */
  publicHoistPattern: readonly string[]
  /** Names no package is hoisted under: the workspace projects hoisted under them (`planWorkspaceHoisting`). */
  reserved?: readonly string[] | undefined
  /**
   * The importers (ids) whose dependencies hoisting starts from, when not every importer's: pnpm's
   * `add`, `update` or `remove` inside some projects of a workspace hoists from those projects only.
   */
  startImporters?: ReadonlySet<string> | undefined
}

/**
 * pnpm's hoisting: packages are visited from the importer's direct dependencies, each once, with
 * the depth pnpm's graph walk gives it; sorted by that depth, then dependency path, each child
 * alias is hoisted the first time it is met, unless the importer already has that name. Public
 * patterns win over private ones. Returns what to link, in pnpm's order.
 */
export function planHoisting (layout: Layout, opts: HoistOptions): HoistedDependency[] {
  const byDepPath = new Map(layout.packages.map((pkg) => [pkg.depPath, pkg]))
  const typeOf = hoistTypeMatcher(opts)
  // A virtual store outside the project does not see the root's node_modules: as pnpm does, the
  // root's direct dependencies are hoisted into it too (privately, and only as themselves).
  const rootDir = layout.importers.find((importer) => importer.id === '.')?.dir
  const isPrivate = createMatcher(opts.hoistPattern)
  const privateRoot = rootDir === undefined || isInsideDir(rootDir, path.join(layout.virtualStoreDir, 'node_modules'))
    ? new Map<string, string>()
    : new Map(layout.direct.flatMap((dep) => dep.depPath !== undefined && isPrivate(dep.alias) ? [[dep.alias, dep.depPath] as const] : []))
  const taken = new Set([...layout.direct.filter((dep) => !privateRoot.has(dep.alias)).map((dep) => dep.alias), ...opts.reserved ?? []]
    .map((alias) => alias.toLowerCase()))
  // A `link:` dependency of the root is not in pnpm's graph: its name is hoisted privately all the same.
  const linkedOnly = new Set(layout.direct.filter((dep) => dep.depPath === undefined).map((dep) => dep.alias.toLowerCase()))
  for (const dep of layout.direct) if (dep.depPath !== undefined) linkedOnly.delete(dep.alias.toLowerCase())
  // pnpm's graph walk: each step takes the unvisited packages among the previous step's children;
  // a level's steps are made before going deeper, then each step's subtree is walked in turn.
  const visited = new Set<string>()
  const makeStep = (depPaths: readonly string[]): string[] => depPaths.filter((depPath) => {
    if (visited.has(depPath)) return false
    visited.add(depPath)
    return byDepPath.has(depPath)
  })
  const childrenOf = (depPath: string): string[] => byDepPath.get(depPath)!.deps
    .flatMap((dep) => dep.depPath === undefined ? [] : [dep.depPath])
  // Walked on a stack of steps, in the recursion's order (which decides each package's depth): a
  // chain is as deep as a registry makes it. The nodes are sorted afterwards, so they are collected
  // in any order.
  const nodes: Array<{ depPath: string, depth: number }> = []
  // pnpm's direct dependencies of an importer after a resolution include the peers hoisted to it
  // (not the root's: pnpm takes only those its lockfile entry lists there).
  const directOf = (importer: ImporterLayout): Dependency[] => importer.id === '.' ? importer.direct : [...importer.direct, ...importer.hoistedPeers]
  const { startImporters } = opts
  const starts = startImporters === undefined ? layout.importers : layout.importers.filter((importer) => startImporters.has(importer.id))
  const steps = [{ depth: 0, step: makeStep(starts.flatMap((importer) =>
    directOf(importer).flatMap((dep) => dep.depPath === undefined ? [] : [dep.depPath]))) }]
  while (steps.length > 0) {
    const { depth, step } = steps.pop()!
    const nextSteps = step.map((depPath) => makeStep(childrenOf(depPath)))
    for (const depPath of step) nodes.push({ depPath, depth })
    for (let i = nextSteps.length - 1; i >= 0; i--) steps.push({ depth: depth + 1, step: nextSteps[i]! })
  }
  nodes.sort((a, b) => a.depth - b.depth || (a.depPath < b.depPath ? -1 : a.depPath > b.depPath ? 1 : 0))
  // First, a root above all importers whose children are their direct dependencies (the first of
  // an alias wins; a link to a project is not in pnpm's graph and takes no alias, a link to another
  // directory takes it but is not hoisted): a workspace project's direct dependencies are hoisted
  // unless the root has the name.
  const projectDirs = new Set(layout.importers.map((importer) => path.resolve(importer.dir)))
  const rootChildren = new Map<string, Dependency>()
  for (const importer of starts) {
    for (const dep of directOf(importer)) {
      if (rootChildren.has(dep.alias) || (dep.depPath === undefined && projectDirs.has(path.resolve(dep.dir)))) continue
      rootChildren.set(dep.alias, dep)
    }
  }
  const hoisted: HoistedDependency[] = []
  for (const deps of [[...rootChildren.values()], ...nodes.map((node) => byDepPath.get(node.depPath)!.deps)]) {
    for (const child of deps) {
      const rootDepPath = privateRoot.get(child.alias)
      const type = rootDepPath === undefined ? typeOf(child.alias) : rootDepPath === child.depPath ? 'private' : undefined
      const name = child.alias.toLowerCase()
      if (type === undefined || child.depPath === undefined || (taken.has(name) && !(type === 'private' && linkedOnly.has(name)))) continue
      taken.add(name)
      linkedOnly.delete(name)
      hoisted.push({ alias: child.alias, depPath: child.depPath, dir: child.dir, type })
    }
  }
  return hoisted
}

/**
 * pnpm's `hoistWorkspacePackages`: the workspace's projects (not the root) are linked among the
 * hoisted packages under their names, unless an importer depends on a package of that name; a
 * package is then hoisted under such a name only when no project is (pass them as `reserved` to
 * `planHoisting`). `depPath` is the project's id (as `.modules.yaml` records it).
 */
export function planWorkspaceHoisting (
  projects: ReadonlyArray<{ id: string, dir: string, name?: string | undefined }>,
  layout: Layout,
  opts: HoistOptions & {
    /** Names the projects left out of a filtered install take with their packages (pnpm plans over the whole lockfile). */
    takenElsewhere?: readonly string[]
  }
): HoistedDependency[] {
  const typeOf = hoistTypeMatcher(opts)
  // The importers' links (to these same projects) do not take a name; their packages do.
  const taken = new Set([
    ...layout.importers.flatMap((importer) => importer.direct.filter((dep) => dep.depPath !== undefined).map((dep) => dep.alias)),
    ...opts.takenElsewhere ?? [],
  ].map((alias) => alias.toLowerCase()))
  const out: HoistedDependency[] = []
  for (const project of projects) {
    if (project.id === '.' || project.name === undefined) continue
    const type = typeOf(project.name)
    if (type === undefined || taken.has(project.name.toLowerCase())) continue
    taken.add(project.name.toLowerCase())
    out.push({ alias: project.name, depPath: project.id, dir: project.dir, type })
  }
  return out
}

/** Where a hoisted dependency is linked: `node_modules/<alias>` (public) or `<virtual store>/node_modules/<alias>`. */
export function hoistedPath (dirs: { modulesDir: string, virtualStoreDir: string }, dep: HoistedDependency): string {
  // A workspace project's name is hoisted too: the same rule as any dependency name.
  return joinModulesDir(dep.type === 'public' ? dirs.modulesDir : path.join(dirs.virtualStoreDir, 'node_modules'), dep.alias)
}


/** Whether a name is hoisted publicly, privately or not at all: public patterns win. */
export function hoistTypeMatcher (opts: HoistOptions): (alias: string) => HoistType | undefined {
  const isPublic = createMatcher(opts.publicHoistPattern)
  const isPrivate = createMatcher(opts.hoistPattern)
  return (alias) => isPublic(alias) ? 'public' : isPrivate(alias) ? 'private' : undefined
}

/**
 * pnpm's resolving install adds its hoisting to the last one's: a package hoisted before stays
 * hoisted under its alias while it is installed and the new hoisting gives the alias to no other
 * (publicly, not where a root dependency has the name).
 */
export function stillHoisted (
  previous: Readonly<Record<string, Readonly<Record<string, string>>>> | undefined,
  plan: readonly HoistedDependency[],
  layout: Layout
): HoistedDependency[] {
  if (previous === undefined) return []
  const claimed = new Set(plan.map((dep) => `${dep.type}\0${dep.alias.toLowerCase()}`))
  const rootNames = new Set(layout.direct.map((dep) => dep.alias.toLowerCase()))
  const byDepPath = new Map(layout.packages.map((pkg) => [pkg.depPath, pkg]))
  return Object.entries(previous).flatMap(([depPath, aliases]) => {
    const pkg = byDepPath.get(depPath)
    if (pkg === undefined) return []
    return Object.entries(aliases).flatMap(([alias, type]) => {
      if (type !== 'public' && type !== 'private') return []
      const name = alias.toLowerCase()
      if (claimed.has(`public\0${name}`) || claimed.has(`private\0${name}`) || (type === 'public' && rootNames.has(name))) return []
      claimed.add(`${type}\0${name}`)
      return [{ alias, depPath, dir: pkg.dir, type }]
    })
  })
}
