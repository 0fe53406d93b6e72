import type { Builds } from './dependency-builds.js'

/**
 * `.modules.yaml`'s `pendingBuilds` after an install, as pnpm 11 keeps it: the builds the last
 * install left pending stay pending while their package (or project) is still installed and this
 * install neither built nor ignored it; this install's own pending builds follow.
 */
export function pendingBuildsAfter (previous: readonly string[], builds: Builds, installed: (id: string) => boolean): string[] {
  const settled = new Set([...builds.built, ...builds.ignored, ...builds.pending])
  const carried = previous.filter((id) => installed(id) && !settled.has(id))
  return [...new Set([...carried, ...builds.pending])]
}
