import { canStandIn } from './dedupe-peer-dependents.js'
import type { VariantNode } from './dedupe-peer-dependents.js'

export interface DedupeInjectedDepsInput {
  /** The resolved graph, before `dedupePeerDependents`. */
  graph: ReadonlyMap<string, VariantNode>
  /** The importers, by index: their ids (`packages/a`) and directories. */
  importers: ReadonlyArray<{ id: string, dir: string }>
  /** Each importer's direct dependencies (hidden ones too), alias → dependency path. */
  edges: ReadonlyArray<ReadonlyMap<string, string>>
  /** A directory package's directory from the lockfile's (its `file:` path), else undefined. */
  directoryOf: (pkgId: string) => string | undefined
}

/**
 * pnpm's `dedupeInjectedDeps` (on by default): an importer's direct dependency on a copy of a
 * workspace project (a `file:` package whose directory is a project: injected, or written as
 * `file:../a`) is linked to the project instead when the copy would see nothing the project does
 * not: each of its dependencies and resolved peers is the project's own dependency of that name, or
 * a variant of the same package that can stand in for it (a link the project has is no such
 * dependency: pnpm compares its packages only). Every decision is taken on the graph as resolved.
 * Returns, per importer, alias → the directory of the project linked instead.
 */
export function dedupeInjectedDeps (input: DedupeInjectedDepsInput): Array<Map<string, string>> {
  const byId = new Map(input.importers.map((importer, index) => [importer.id, index]))
  return input.importers.map((_, index) => {
    const linked = new Map<string, string>()
    for (const [alias, depPath] of input.edges[index]!) {
      const node = input.graph.get(depPath)
      const target = node === undefined ? undefined : byId.get(input.directoryOf(node.pkgId) ?? '')
      if (node === undefined || target === undefined) continue
      const projectDeps = input.edges[target]!
      const covered = [...node.children].every(([childAlias, child]) => {
        // The project's own links (other projects, link: directories) are none of pnpm's packages to compare with.
        const own = projectDeps.get(childAlias)
        const ownNode = own === undefined ? undefined : input.graph.get(own)
        if (ownNode === undefined) return false
        if (own === child) return true
        const childNode = input.graph.get(child)
        return childNode !== undefined && ownNode.pkgId === childNode.pkgId && canStandIn(ownNode, childNode)
      })
      if (covered) linked.set(alias, input.importers[target]!.dir)
    }
    return linked
  })
}
