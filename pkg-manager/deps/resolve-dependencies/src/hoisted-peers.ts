/**
 * A peer a resolution hoisted to an importer: a missing one auto-installed there, or a provider
 * found above a package. pnpm keeps them among the importer's direct dependencies, though the
 * lockfile does not list them: one that is a directory (a workspace project, a `link:`) is linked
 * into the importer's node_modules, and the others are where its hoisting starts, after the
 * importer's own dependencies. `dir` (absolute) for a directory, else the lockfile's `depPath`.
 */
export type HoistedPeer = { alias: string, dir: string } | { alias: string, depPath: string }

/** A hoisted peer as the resolution left it: the directory it links to, or its dependency path in the lockfile being written. */
export interface HoistedPeerCandidate {
  alias: string
  /** Absolute: a linked package's directory, or the project an injected copy was deduplicated to. */
  dir: string | undefined
  /** Its dependency path in the lockfile (none: the lockfile dropped it, nothing reaches it). */
  depPath: string | undefined
}

/**
 * An importer's hoisted peers, auto-installed ones first and then providers (pnpm's order of its
 * direct dependencies), the first of an alias kept; those the lockfile dropped are left out.
 */
export function hoistedPeersOf (candidates: readonly HoistedPeerCandidate[], directAliases: ReadonlySet<string>): HoistedPeer[] {
  const seen = new Set(directAliases)
  const out: HoistedPeer[] = []
  for (const { alias, dir, depPath } of candidates) {
    if (seen.has(alias)) continue
    if (dir !== undefined) out.push({ alias, dir })
    else if (depPath !== undefined) out.push({ alias, depPath })
    else continue
    seen.add(alias)
  }
  return out
}
