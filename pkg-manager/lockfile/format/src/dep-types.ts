import { peerSatisfactionEdges } from './peer-edges.js'
import { dependencyRefs } from './refs.js'
import type { Lockfile } from './types.js'
import { walkDependencies } from './walk.js'

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
  const walk = (refs: Readonly<Record<string, string>>, dev: boolean): void => {
    walkDependencies(refs, {
      skip: edges,
      visit: (depPath) => {
        const key = `${depPath}:${dev}`
        if (walked.has(key)) return undefined
        walked.add(key)
        const snapshot = lockfile.snapshots?.[depPath]
        if (snapshot === undefined) return undefined
        if (dev && !both.has(depPath)) devOnly.add(depPath)
        else if (!dev && devOnly.delete(depPath)) both.add(depPath)
        return { ...snapshot.dependencies, ...snapshot.optionalDependencies }
      },
    })
  }
  const importers = Object.values(lockfile.importers)
  for (const importer of importers) walk(dependencyRefs(importer.devDependencies), true)
  for (const importer of importers) walk(dependencyRefs(importer.optionalDependencies), false)
  for (const importer of importers) walk(dependencyRefs(importer.dependencies), false)
  return devOnly
}
