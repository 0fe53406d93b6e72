import { refToDepPath } from '@lode/core.dep-path'

import { isPeerSatisfactionEdge, peerSatisfactionEdges } from './peer-edges.js'
import { dependencyRefs } from './refs.js'
import type { Lockfile } from './types.js'

/**
 * The packages only development installs (pnpm's `detectDepTypes`, over every project of the
 * lockfile whichever are listed): reached from some devDependencies and from no production or
 * optional dependency, a package's edges to optional peers it only has for a project's sake
 * (`peerSatisfactionEdges`) not followed.
 */
export function devOnlyDepPaths (lockfile: Lockfile, opts: { resolvePeersFromWorkspaceRoot: boolean }): Set<string> {
  const edges = peerSatisfactionEdges(lockfile, opts)
  const devOnly = new Set<string>()
  const both = new Set<string>()
  const walked = new Set<string>()
  // Depth first on an explicit stack, in the order a recursive walk takes: a chain is as deep as a registry makes it.
  const walk = (refs: Readonly<Record<string, string>>, dev: boolean): void => {
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
      if (ref.startsWith('link:') || (frame.parent !== undefined && isPeerSatisfactionEdge(edges, frame.parent, alias))) continue
      const depPath = refToDepPath(alias, ref)
      const key = `${depPath}:${dev}`
      if (walked.has(key)) continue
      walked.add(key)
      const snapshot = lockfile.snapshots?.[depPath]
      if (snapshot === undefined) continue
      if (dev && !both.has(depPath)) devOnly.add(depPath)
      else if (!dev && devOnly.delete(depPath)) both.add(depPath)
      stack.push({ edges: Object.entries({ ...snapshot.dependencies, ...snapshot.optionalDependencies }).values(), parent: depPath })
    }
  }
  const importers = Object.values(lockfile.importers)
  for (const importer of importers) walk(dependencyRefs(importer.devDependencies), true)
  for (const importer of importers) walk(dependencyRefs(importer.optionalDependencies), false)
  for (const importer of importers) walk(dependencyRefs(importer.dependencies), false)
  return devOnly
}
