import { stronglyConnected } from './strongly-connected.js'

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
    let survivors: Array<Set<string>> = []
    for (const group of remaining) {
      const left = collapseGroup(graph, group, round)
      if (left.size > 1) survivors.push(left)
    }
    if (round.size === 0) {
      // Variants that only differ through a cycle among variant groups: one pair per cycle a round.
      for (const [collapsed, target] of collapseCycles(graph, remaining)) round.set(collapsed, target)
      if (round.size === 0) return merged
      survivors = remaining.map((group) => new Set([...group].filter((depPath) => !round.has(depPath)))).filter((group) => group.size > 1)
    }
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
 * at least as many dependencies and every peer `poor` resolves.
 */
export function canStandIn (rich: VariantNode, poor: VariantNode): boolean {
  if (depCount(rich) < depCount(poor)) return false
  for (const [alias, child] of poor.children) if (rich.children.get(alias) !== child) return false
  for (const name of poor.peerNames) if (!rich.peerNames.has(name)) return false
  return true
}

/**
 * pnpm's looser test for variants in a cycle: `rich` can stand in for `poor` when each child
 * `poor` has is the same in `rich` or a variant of the same package that can stand in for it in
 * turn, as deep as the children differ.
 */
function canStandInThroughChildren (graph: ReadonlyMap<string, VariantNode>, rich: string, poor: string): boolean {
  const queued = new Set<string>()
  const pending: Array<[string, string]> = []
  const push = (a: string, b: string): void => {
    if (a === b || queued.has(`${a}\0${b}`)) return
    queued.add(`${a}\0${b}`)
    pending.push([a, b])
  }
  push(rich, poor)
  for (let cursor = 0; cursor < pending.length; cursor++) {
    const superset = graph.get(pending[cursor]![0])
    const subset = graph.get(pending[cursor]![1])
    if (superset === undefined || subset === undefined || depCount(superset) < depCount(subset)) return false
    for (const name of subset.peerNames) if (!superset.peerNames.has(name)) return false
    for (const [alias, child] of subset.children) {
      const other = superset.children.get(alias)
      if (other === undefined) return false
      if (other === child) continue
      if (graph.get(other)?.pkgId !== graph.get(child)?.pkgId || graph.get(other) === undefined) return false
      push(other, child)
    }
  }
  return true
}

/**
 * pnpm's collapseCycles: the variant groups, ordered by package id, form a graph through their
 * variants' children; in each cycle of it (strongly connected, dependencies first) whose
 * dependencies did not change this round, the richest variant that can stand in for another
 * (through differing children) absorbs it.
 */
function collapseCycles (graph: ReadonlyMap<string, VariantNode>, groups: ReadonlyArray<ReadonlySet<string>>): Map<string, string> {
  const sorted = groups.filter((group) => group.size > 1).map((group) => [...group]).sort((a, b) => {
    const left = graph.get(a[0]!)!.pkgId
    const right = graph.get(b[0]!)!.pkgId
    return left < right ? -1 : left > right ? 1 : 0
  })
  const indexOf = new Map(sorted.map((group, i) => [graph.get(group[0]!)!.pkgId, i]))
  const adjacency = sorted.map((group) => {
    const out = new Set<number>()
    for (const variant of group) {
      for (const child of graph.get(variant)!.children.values()) {
        const node = graph.get(child)
        const index = node === undefined ? undefined : indexOf.get(node.pkgId)
        if (index !== undefined) out.add(index)
      }
    }
    return [...out].sort((a, b) => a - b)
  })
  const { componentOf, count } = stronglyConnected(adjacency)
  const components = Array.from({ length: count }, () => ({
    groups: [] as string[][],
    dependencies: new Set<number>(),
    cyclic: false,
    size: 0,
  }))
  sorted.forEach((group, i) => {
    const component = components[componentOf[i]!]!
    component.groups.push(group)
    component.size++
    if (adjacency[i]!.includes(i)) component.cyclic = true
    for (const child of adjacency[i]!) if (componentOf[child] !== componentOf[i]) component.dependencies.add(componentOf[child]!)
  })
  const changed = components.map(() => false)
  const replacements = new Map<string, string>()
  components.forEach((component, index) => {
    if ([...component.dependencies].some((dependency) => changed[dependency])) {
      changed[index] = true
      return
    }
    if (!component.cyclic && component.size < 2) return
    for (const group of component.groups) {
      const paths = [...group].sort((a, b) => depCount(graph.get(a)!) - depCount(graph.get(b)!) || (a < b ? -1 : a > b ? 1 : 0))
      while (paths.length > 0) {
        const largest = paths.pop()!
        const candidate = [...paths].reverse().find((path) => canStandInThroughChildren(graph, largest, path))
        if (candidate !== undefined) {
          replacements.set(candidate, largest)
          changed[index] = true
          return
        }
      }
    }
  })
  return replacements
}
