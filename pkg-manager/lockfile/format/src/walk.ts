import { refToDepPath } from '@lode/core.dep-path'

import { isPeerSatisfactionEdge } from './peer-edges.js'
import type { PeerSatisfactionEdges } from './peer-edges.js'

/**
 * Walks the lockfile's graph depth first from `refs` (alias → reference), in the order a recursive
 * walk takes, on a stack of its own: a chain is as deep as a registry makes it. `link:` references
 * and the edges in `skip` (a package's edges to optional peers it has for a project's sake) are not
 * followed. `visit` gets each dependency path reached (and the one it was reached from, none from
 * `refs`) and returns the references below it to follow
 * (none: do not go below), so it decides what was seen and which groups count.
 */
export function walkDependencies (
  refs: Readonly<Record<string, string>>,
  opts: {
    skip?: PeerSatisfactionEdges | undefined
    visit: (depPath: string, parent: string | undefined) => Readonly<Record<string, string>> | undefined
  }
): void {
  const stack: Array<{ edges: Iterator<[string, string]>, parent: string | undefined }> = []
  stack.push({ edges: Object.entries(refs).values(), parent: undefined })
  while (stack.length > 0) {
    const frame = stack.at(-1)!
    const edge = frame.edges.next()
    if (edge.done === true) {
      stack.pop()
      continue
    }
    const [alias, ref] = edge.value
    if (ref.startsWith('link:') || (frame.parent !== undefined && isPeerSatisfactionEdge(opts.skip, frame.parent, alias))) continue
    const depPath = refToDepPath(alias, ref)
    const below = opts.visit(depPath, frame.parent)
    if (below !== undefined) stack.push({ edges: Object.entries(below).values(), parent: depPath })
  }
}
