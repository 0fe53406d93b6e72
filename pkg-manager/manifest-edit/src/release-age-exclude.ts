import { mergeReleaseAgeExcludes, updateWorkspaceYaml } from '@lode/pkg-manager.config'

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
