import { createHash } from 'node:crypto'

import { parseDepPath } from '@lode/core.dep-path'
import type { Lockfile } from '@lode/pkg-manager.lockfile.format'
import semver from 'semver'

import { nameAndVersion } from './dependency-graph.js'
import type { GraphNode } from './dependency-graph.js'

/** One package that depends on the package asked about, or a project (with the group that names it). */
export interface DependentNode {
  name: string
  version: string
  /** A project: the dependency group of the project that has the package. */
  depField?: 'dependencies' | 'devDependencies' | 'optionalDependencies'
  /** Short hash telling peer variants of one `name@version` apart. */
  peersSuffixHash?: string
  dependents?: DependentNode[]
  /** Already on the path from the package asked about (a dependency cycle). */
  circular?: true
  /** Expanded higher up in the same tree. */
  deduped?: true
}

/** A package matching the query, with every path from it up to the projects. */
export interface DependentsTree {
  name: string
  version: string
  path: string
  peersSuffixHash?: string | undefined
  dependents: DependentNode[]
}

interface Context {
  graph: ReadonlyMap<string, GraphNode>
  lockfile: Lockfile
  /** child → the edges that reach it. */
  parents: ReadonlyMap<string, ReadonlyArray<{ parent: string, alias: string }>>
  projects: ReadonlyMap<string, { name: string, version: string }>
  /** On the current path (cycles). */
  visited: Set<string>
  /** Expanded in the current tree (later occurrences are deduped). */
  expanded: Set<string>
}

/**
 * pnpm 11's `why` trees: for each package of the graph that a query matches (by its name or by an
 * alias it is installed under), a tree of its dependents up to the projects, one tree per
 * dependency path (peer variants apart), sorted by name, version and peer hash. Dependents are
 * sorted by name, a package is expanded once per tree, and projects are the leaves.
 */
export function dependentsTrees (
  graph: ReadonlyMap<string, GraphNode>,
  lockfile: Lockfile,
  opts: {
    matches: (pkg: { alias: string, name: string, version: string }) => boolean
    projects: ReadonlyMap<string, { name: string, version: string }>
    pathOf: (depPath: string, name: string) => string
  }
): DependentsTree[] {
  const parents = new Map<string, Array<{ parent: string, alias: string }>>()
  for (const [parent, node] of graph) {
    for (const { alias, target } of node.edges) {
      if (target === undefined) continue
      const list = parents.get(target) ?? []
      list.push({ parent, alias })
      parents.set(target, list)
    }
  }
  const ctx: Context = { graph, lockfile, parents, projects: opts.projects, visited: new Set(), expanded: new Set() }
  const trees: DependentsTree[] = []
  for (const [key, node] of graph) {
    if (node.id.type !== 'package' || lockfile.snapshots?.[node.id.depPath] === undefined) continue
    const { depPath } = node.id
    const { name, version } = nameAndVersion(lockfile, depPath)
    const aliases = [name, ...(parents.get(key) ?? []).map((edge) => edge.alias).filter((alias) => alias !== name)]
    if (!aliases.some((alias) => opts.matches({ alias, name, version }))) continue
    ctx.visited = new Set([key])
    ctx.expanded = new Set()
    trees.push({ name, version, path: opts.pathOf(depPath, name), peersSuffixHash: peersSuffixHash(depPath), dependents: walkUp(key, ctx) })
  }
  return trees.sort((a, b) => lexCompare(a.name, b.name) || compareVersions(a.version, b.version) || lexCompare(a.peersSuffixHash ?? '', b.peersSuffixHash ?? ''))
}

function compareVersions (a: string, b: string): number {
  return semver.valid(a) !== null && semver.valid(b) !== null ? semver.compare(a, b) : lexCompare(a, b)
}

/**
 * The dependents of `start` up to the projects, depth first in name order (a package is expanded
 * once per tree, `ctx.expanded`; one on the path is circular, `ctx.visited`). On an explicit stack:
 * a chain is as deep as a registry makes it. A frame waits on the walk above the dependent it is
 * expanding (`expanding`), then takes it as that dependent's dependents.
 */
function walkUp (start: string, ctx: Context): DependentNode[] {
  interface Frame {
    edges: ReadonlyArray<{ parent: string, alias: string }>
    next: number
    dependents: DependentNode[]
    expanding: { key: string, node: DependentNode } | undefined
  }
  const frameOf = (key: string): Frame => ({
    edges: [...ctx.parents.get(key) ?? []]
      .sort((a, b) => lexCompare(parentName(a.parent, ctx), parentName(b.parent, ctx)) || lexCompare(a.parent, b.parent)),
    next: 0,
    dependents: [],
    expanding: undefined,
  })
  const frames = [frameOf(start)]
  for (;;) {
    const frame = frames.at(-1)!
    const edge = frame.edges[frame.next++]
    if (edge === undefined) {
      frames.pop()
      const below = frames.at(-1)
      if (below === undefined) return frame.dependents
      const { key, node } = below.expanding!
      below.expanding = undefined
      ctx.visited.delete(key)
      below.dependents.push(frame.dependents.length === 0 ? node : { ...node, dependents: frame.dependents })
      continue
    }
    const { parent, alias } = edge
    const { dependents } = frame
    const id = ctx.graph.get(parent)!.id
    if (id.type === 'importer') {
      const project = projectInfo(id.importerId, ctx)
      if (ctx.visited.has(parent)) {
        dependents.push({ ...project, circular: true })
        continue
      }
      const importer = ctx.lockfile.importers[id.importerId]
      const depField = (['devDependencies', 'optionalDependencies', 'dependencies'] as const).find((group) => importer?.[group]?.[alias] !== undefined)
      dependents.push({ ...project, ...depField === undefined ? {} : { depField } })
      continue
    }
    if (ctx.lockfile.snapshots?.[id.depPath] === undefined) continue
    const { name, version } = nameAndVersion(ctx.lockfile, id.depPath)
    if (ctx.visited.has(parent)) {
      dependents.push({ name, version, circular: true })
      continue
    }
    const hash = peersSuffixHash(id.depPath)
    if (ctx.expanded.has(parent)) {
      dependents.push({ name, version, ...hash === undefined ? {} : { peersSuffixHash: hash }, deduped: true })
      continue
    }
    ctx.visited.add(parent)
    ctx.expanded.add(parent)
    frame.expanding = { key: parent, node: { name, version, ...hash === undefined ? {} : { peersSuffixHash: hash } } }
    frames.push(frameOf(parent))
  }
}

function projectInfo (importerId: string, ctx: Context): { name: string, version: string } {
  return ctx.projects.get(importerId) ?? { name: importerId, version: '' }
}

function parentName (key: string, ctx: Context): string {
  const id = ctx.graph.get(key)?.id
  if (id === undefined) return ''
  if (id.type === 'importer') return projectInfo(id.importerId, ctx).name
  return ctx.lockfile.snapshots?.[id.depPath] === undefined ? '' : nameAndVersion(ctx.lockfile, id.depPath).name
}

/** pnpm's peer hash: the first 4 hex digits of the SHA-256 of the dependency path's suffix; none without one. */
export function peersSuffixHash (depPath: string): string | undefined {
  const { peersSuffix } = parseDepPath(depPath)
  return peersSuffix === '' ? undefined : createHash('sha256').update(peersSuffix).digest('hex').slice(0, 4)
}

/** Compares by UTF-16 code units, as pnpm's `lexCompare` (not the locale's order). */
export function lexCompare (a: string, b: string): number {
  return a > b ? 1 : a < b ? -1 : 0
}
