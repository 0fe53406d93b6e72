import path from 'node:path'

import type { DependencyGroup } from '@lode/core.constants'
import { pkgIdOf, refToDepPath, splitNameAt } from '@lode/core.dep-path'
import type { Lockfile } from '@lode/pkg-manager.lockfile.format'
import { dependencyRefs, isPeerSatisfactionEdge, peerSatisfactionEdgesToSkip } from '@lode/pkg-manager.lockfile.format'
import semver from 'semver'

/** A node of the installed graph: a project of the lockfile (an importer) or a package (a dependency path). */
export type NodeId = { type: 'importer', importerId: string } | { type: 'package', depPath: string }

export interface GraphEdge {
  alias: string
  /** The lockfile's reference (`1.0.0(peer@2.0.0)`, `link:../p2`, `name@1.0.0` for an alias). */
  ref: string
  /** The node the alias names; none for a `link:` outside the workspace (or under a package). */
  target: string | undefined
}

export interface GraphNode {
  id: NodeId
  edges: GraphEdge[]
}

/**
 * The graph pnpm's `list` and `why` walk, keyed by `serializeNodeId`, in breadth-first order from
 * the roots: a project's edges are its dependency groups the command includes (its optional
 * dependencies only with its production ones, as pnpm 11), a package's its snapshot's
 * dependencies and optional dependencies (without the peer satisfaction edges when a group is
 * left out, as pnpm 11). A `link:` to another project of the lockfile is an edge to that project.
 */
export function buildDependencyGraph (
  lockfile: Lockfile,
  roots: readonly NodeId[],
  opts: {
    lockfileDir: string
    include: Readonly<Record<DependencyGroup, boolean>>
    resolvePeersFromWorkspaceRoot: boolean
    /** Follow the peer satisfaction edges whatever is included (what lode's install links). */
    followPeerSatisfactionEdges?: boolean
  }
): Map<string, GraphNode> {
  const graph = new Map<string, GraphNode>()
  const skippedEdges = opts.followPeerSatisfactionEdges === true ? undefined : peerSatisfactionEdgesToSkip(lockfile, opts.include, opts)
  const queue = [...roots]
  for (let next = 0; next < queue.length; next++) {
    const id = queue[next]!
    const key = serializeNodeId(id)
    if (graph.has(key)) continue
    const edges: GraphEdge[] = []
    for (const [alias, ref] of Object.entries(edgesOf(lockfile, id, opts.include))) {
      if (id.type === 'package' && isPeerSatisfactionEdge(skippedEdges, id.depPath, alias)) continue
      const child = childId(id, alias, ref, lockfile, opts.lockfileDir)
      edges.push({ alias, ref, target: child === undefined ? undefined : serializeNodeId(child) })
      if (child !== undefined && !graph.has(serializeNodeId(child))) queue.push(child)
    }
    graph.set(key, { id, edges })
  }
  return graph
}

/** pnpm's key for a node (its ties in sorting are broken on it, so its shape is pnpm's). */
export function serializeNodeId (id: NodeId): string {
  return JSON.stringify(id.type === 'importer' ? { type: 'importer', importerId: id.importerId } : { type: 'package', depPath: id.depPath })
}

function edgesOf (lockfile: Lockfile, id: NodeId, include: Readonly<Record<DependencyGroup, boolean>>): Record<string, string> {
  if (id.type === 'importer') {
    const importer = lockfile.importers[id.importerId]
    if (importer === undefined) return {}
    return {
      ...include.dependencies ? dependencyRefs(importer.dependencies) : {},
      ...include.devDependencies ? dependencyRefs(importer.devDependencies) : {},
      ...include.optionalDependencies && include.dependencies ? dependencyRefs(importer.optionalDependencies) : {},
    }
  }
  const snapshot = lockfile.snapshots?.[id.depPath]
  if (snapshot === undefined) return {}
  return { ...snapshot.dependencies, ...include.optionalDependencies ? snapshot.optionalDependencies : {} }
}


function childId (parent: NodeId, alias: string, ref: string, lockfile: Lockfile, lockfileDir: string): NodeId | undefined {
  if (!ref.startsWith('link:')) return { type: 'package', depPath: refToDepPath(alias, ref) }
  if (parent.type === 'package') return undefined
  const target = path.join(lockfileDir, parent.importerId, ref.slice('link:'.length))
  const importerId = path.relative(lockfileDir, target).split(path.sep).join('/') || '.'
  return lockfile.importers[importerId] === undefined ? undefined : { type: 'importer', importerId }
}

/**
 * A package's name and version as pnpm shows them: the lockfile's `version` (a non-registry
 * package's), else its id's when it is a semver version; '' for neither (a `file:` directory).
 */
export function nameAndVersion (lockfile: Lockfile, depPath: string): { name: string, version: string } {
  const pkgId = pkgIdOf(depPath)
  const { name, rest } = splitNameAt(pkgId)
  const recorded = lockfile.packages?.[pkgId]?.version
  return { name, version: typeof recorded === 'string' ? recorded : rest !== undefined && semver.valid(rest) !== null ? rest : '' }
}
