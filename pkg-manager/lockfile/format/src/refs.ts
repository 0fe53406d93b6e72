import type { ProjectSnapshot } from './types.js'

/** A project's dependency group as a package's are written: alias → reference (`1.0.0(peer@2.0.0)`, `link:../p`). */
export function dependencyRefs (group: ProjectSnapshot['dependencies']): Record<string, string> {
  return Object.fromEntries(Object.entries(group ?? {}).map(([alias, dependency]) => [alias, dependency.version]))
}
