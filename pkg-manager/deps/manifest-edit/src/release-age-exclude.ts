import { splitNameAt } from '@lode/core.dep-path'
import { mergeReleaseAgeExcludes, parseReleaseAgeExclude, updateWorkspaceYaml } from '@lode/pkg-manager.config.settings'
import type { Lockfile } from '@lode/pkg-manager.lockfile.format'

/**
 * The default (loose) `minimumReleaseAge`: versions picked although too young (nothing fitting was
 * old enough) are added to `minimumReleaseAgeExclude` in pnpm-workspace.yaml, as pnpm 11 does, so
 * the choice is visible in review and the next install accepts them knowingly. Returns the
 * entries added (`name@version`).
 */
export async function excludeFromReleaseAge (
  dir: string,
  excluded: readonly string[],
  immature: ReadonlyArray<{ name: string, version: string }>
): Promise<string[]> {
  const added = mergeReleaseAgeExcludes(immature.map((v) => `${v.name}@${v.version}`))
  await updateWorkspaceYaml(dir, { minimumReleaseAgeExclude: mergeReleaseAgeExcludes([...excluded, ...added]) })
  return added
}

/**
 * pnpm's `minimumReleaseAgeExcludePrune`: after an install, the entries of `minimumReleaseAgeExclude`
 * that no longer excuse anything go from pnpm-workspace.yaml: a package the lockfile no longer has,
 * versions of it the lockfile no longer has (the rest of the entry stays). Globs, and entries that
 * are not `name` or `name@versions`, stay. Returns whether the file changed.
 */
export async function pruneReleaseAgeExcludes (dir: string, excluded: readonly string[], lockfile: Lockfile): Promise<boolean> {
  const resolved = new Map<string, Set<string>>()
  for (const key of Object.keys(lockfile.packages ?? {})) {
    const { name, rest: version } = splitNameAt(key)
    if (version === undefined) continue
    const versions = resolved.get(name) ?? new Set<string>()
    versions.add(version)
    resolved.set(name, versions)
  }
  const surviving: string[] = []
  let changed = false
  for (const entry of excluded) {
    const { name, versions } = parseReleaseAgeExclude(entry)
    if (name.includes('*')) {
      surviving.push(entry)
      continue
    }
    const kept = versions.filter((version) => resolved.get(name)?.has(version) === true)
    if (versions.length === 0 ? resolved.has(name) : kept.length === versions.length) surviving.push(entry)
    else {
      changed = true
      if (kept.length > 0) surviving.push(`${name}@${kept.join(' || ')}`)
    }
  }
  if (!changed) return false
  await updateWorkspaceYaml(dir, { minimumReleaseAgeExclude: surviving.length === 0 ? null : mergeReleaseAgeExcludes(surviving) })
  return true
}
