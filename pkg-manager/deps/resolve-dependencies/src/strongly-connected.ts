/**
 * Tarjan's strongly connected components, numbered in the order they complete (dependencies first),
 * on an explicit stack: a graph from a registry is as deep as it makes it.
 */
export function stronglyConnected (adjacency: ReadonlyArray<readonly number[]>): { componentOf: number[], count: number } {
  const discovery = adjacency.map(() => -1)
  const lowLink = adjacency.map(() => 0)
  const onStack = adjacency.map(() => false)
  const componentOf = adjacency.map(() => -1)
  const stack: number[] = []
  let next = 0
  let count = 0
  const discover = (node: number, frames: Array<[number, number]>): void => {
    discovery[node] = lowLink[node] = next++
    stack.push(node)
    onStack[node] = true
    frames.push([node, 0])
  }
  for (let root = 0; root < adjacency.length; root++) {
    if (discovery[root] !== -1) continue
    const frames: Array<[number, number]> = []
    discover(root, frames)
    while (frames.length > 0) {
      const frame = frames[frames.length - 1]!
      const node = frame[0]
      const edge = frame[1]++
      if (edge < adjacency[node]!.length) {
        const to = adjacency[node]![edge]!
        if (discovery[to] === -1) discover(to, frames)
        else if (onStack[to]) lowLink[node] = Math.min(lowLink[node]!, discovery[to]!)
        continue
      }
      frames.pop()
      if (frames.length > 0) {
        const parent = frames[frames.length - 1]![0]
        lowLink[parent] = Math.min(lowLink[parent]!, lowLink[node]!)
      }
      if (lowLink[node] === discovery[node]) {
        for (;;) {
          const member = stack.pop()!
          onStack[member] = false
          componentOf[member] = count
          if (member === node) break
        }
        count++
      }
    }
  }
  return { componentOf, count }
}
