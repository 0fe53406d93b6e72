import { workspaceDependencies } from './graph.js'
import type { WorkspaceProject } from './types.js'


/**
 * The cycles among workspace projects (pnpm warns of them on install): each group of projects that
 * depend on each other, directly or through others of the group (a strongly connected component
 * of two or more), its projects in the order given. Tarjan's walk, with a stack of its own.
 */
export function workspaceCycles<T extends WorkspaceProject> (projects: readonly T[], edges = workspaceDependencies(projects)): T[][] {
  const order = new Map(projects.map((project, i) => [project.id, i]))
  const index = new Map<string, number>()
  const low = new Map<string, number>()
  const onStack = new Set<string>()
  const stack: string[] = []
  const components: T[][] = []
  let next = 0
  for (const start of projects) {
    if (index.has(start.id)) continue
    const walk = [{ id: start.id, edge: 0 }]
    index.set(start.id, next); low.set(start.id, next++); stack.push(start.id); onStack.add(start.id)
    while (walk.length > 0) {
      const top = walk.at(-1)!
      const targets = (edges.get(top.id) ?? []).filter((id) => order.has(id))
      if (top.edge < targets.length) {
        const target = targets[top.edge++]!
        if (!index.has(target)) {
          index.set(target, next); low.set(target, next++); stack.push(target); onStack.add(target)
          walk.push({ id: target, edge: 0 })
        } else if (onStack.has(target)) {
          low.set(top.id, Math.min(low.get(top.id)!, index.get(target)!))
        }
        continue
      }
      walk.pop()
      const parent = walk.at(-1)
      if (parent !== undefined) low.set(parent.id, Math.min(low.get(parent.id)!, low.get(top.id)!))
      if (low.get(top.id) !== index.get(top.id)) continue
      const component: string[] = []
      let id: string
      do {
        id = stack.pop()!
        onStack.delete(id)
        component.push(id)
      } while (id !== top.id)
      if (component.length > 1) {
        components.push(component.sort((a, b) => order.get(a)! - order.get(b)!).map((member) => projects[order.get(member)!]!))
      }
    }
  }
  return components
}
