import { refToDepPath } from '@lode/core.dep-path'

import type { Lockfile, ProjectSnapshot } from './types.js'

/**
 * The packages only development installs (pnpm's `detectDepTypes`, over every project of the
 * lockfile whichever are listed): reached from some devDependencies and from no production or
 * optional dependency.
 */
export function devOnlyDepPaths (lockfile: Lockfile): Set<string> {
  const devOnly = new Set<string>()
  const both = new Set<string>()
  const walked = new Set<string>()
  const walk = (refs: Readonly<Record<string, string>>, dev: boolean): void => {
    for (const [alias, ref] of Object.entries(refs)) {
      if (ref.startsWith('link:')) continue
      const depPath = refToDepPath(alias, ref)
      const key = `${depPath}:${dev}`
      if (walked.has(key)) continue
      walked.add(key)
      const snapshot = lockfile.snapshots?.[depPath]
      if (snapshot === undefined) continue
      if (dev && !both.has(depPath)) devOnly.add(depPath)
      else if (!dev && devOnly.delete(depPath)) both.add(depPath)
      walk({ ...snapshot.dependencies, ...snapshot.optionalDependencies }, dev)
    }
  }
  const importers = Object.values(lockfile.importers)
  for (const importer of importers) walk(dependencyRefs(importer.devDependencies), true)
  for (const importer of importers) walk(dependencyRefs(importer.optionalDependencies), false)
  for (const importer of importers) walk(dependencyRefs(importer.dependencies), false)
  return devOnly
}

/** A project's dependency group as a package's are written: alias → reference (`1.0.0(peer@2.0.0)`, `link:../p`). */
export function dependencyRefs (group: ProjectSnapshot['dependencies']): Record<string, string> {
  return Object.fromEntries(Object.entries(group ?? {}).map(([alias, dependency]) => [alias, dependency.version]))
}
