/** A package variant in the final graph: what `dedupePeerDependents` compares. */
export interface VariantNode {
  pkgId: string
  /** alias → dependency path: the package's dependencies and its own resolved peers. */
  children: Map<string, string>
  /** Names of every peer in the variant's suffix (its own and its descendants'). */
  peerNames: ReadonlySet<string>
}

/**
 * pnpm's `dedupePeerDependents`: variants of one package (the same package id, different peer
 * suffixes) collapse into a variant that has the same children and resolves a superset of their
 * peers, its children compatible in turn. The variant with the most dependencies survives.
 * Rounds repeat while something collapses, since rewritten edges make more variants alike.
 * `groups` lists the variants per package id, in the order pnpm met them. Edges in `graph` are
 * rewritten in place; returns collapsed dependency path → surviving one.
 */
export function dedupePeerDependents (graph: Map<string, VariantNode>, groups: ReadonlyArray<ReadonlySet<string>>): Map<string, string> {
  const incoming = new Map<string, Array<[parent: string, alias: string]>>()
  for (const [depPath, node] of graph) {
    for (const [alias, child] of node.children) {
      const edges = incoming.get(child)
      if (edges === undefined) incoming.set(child, [[depPath, alias]])
      else edges.push([depPath, alias])
    }
  }
  const merged = new Map<string, string>()
  let remaining = groups.filter((group) => group.size > 1)
  for (;;) {
    const round = new Map<string, string>()
    const survivors: Array<Set<string>> = []
    for (const group of remaining) {
      const left = collapseGroup(graph, group, round)
      if (left.size > 1) survivors.push(left)
    }
    if (round.size === 0) return merged
    for (const [collapsed, target] of round) {
      const edges = incoming.get(collapsed) ?? []
      incoming.delete(collapsed)
      const targetEdges = incoming.get(target) ?? []
      for (const edge of edges) {
        graph.get(edge[0])!.children.set(edge[1], target)
        targetEdges.push(edge)
      }
      incoming.set(target, targetEdges)
    }
    for (const [collapsed, target] of merged) merged.set(collapsed, round.get(target) ?? target)
    for (const [collapsed, target] of round) merged.set(collapsed, target)
    remaining = survivors
  }
}

function depCount (node: VariantNode): number {
  return node.children.size + node.peerNames.size
}

/** One round over one package's variants: the richest absorbs those it is compatible with, then the next richest left. */
function collapseGroup (graph: Map<string, VariantNode>, group: ReadonlySet<string>, into: Map<string, string>): Set<string> {
  const byDepCount = (a: string, b: string): number => depCount(graph.get(a)!) - depCount(graph.get(b)!) || (a < b ? -1 : a > b ? 1 : 0)
  const surviving = new Set(group)
  let pending = [...group].sort(byDepCount)
  while (pending.length > 0) {
    const richest = pending.pop()!
    const next: string[] = []
    while (pending.length > 0) {
      const candidate = pending.pop()!
      if (canStandIn(graph.get(richest)!, graph.get(candidate)!)) {
        into.set(candidate, richest)
        surviving.delete(candidate)
      } else {
        next.push(candidate)
      }
    }
    pending = next.sort(byDepCount)
  }
  return surviving
}

/**
 * `rich` can stand in for `poor`: every child of `poor` is the same child of `rich`, and `rich` has
 * at least as many dependencies and every peer `poor` resolves. (pnpm compares differing children
 * recursively too, which only matters for its step that collapses cycles of variants.)
 */
export function canStandIn (rich: VariantNode, poor: VariantNode): boolean {
  if (depCount(rich) < depCount(poor)) return false
  for (const [alias, child] of poor.children) if (rich.children.get(alias) !== child) return false
  for (const name of poor.peerNames) if (!rich.peerNames.has(name)) return false
  return true
}
