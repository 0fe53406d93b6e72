import { UNDECIDED_ALLOW_BUILD, readWorkspaceYaml, updateWorkspaceYaml } from '@lode/pkg-manager.config.settings'

import { withKeys } from './key-order.js'

/**
 * pnpm 11's record of the builds an install left out, when it runs on a terminal: each key not
 * yet in `allowBuilds` is added to pnpm-workspace.yaml as undecided (`set this to true or false`),
 * for the user to decide there. Returns the keys added.
 */
export async function addUndecidedBuilds (dir: string, keys: readonly string[]): Promise<string[]> {
  const written = readWorkspaceYaml(dir)['allowBuilds']
  const allowBuilds = (typeof written === 'object' && written !== null && !Array.isArray(written) ? written : {}) as Record<string, unknown>
  const added = [...new Set(keys)].filter((key) => !Object.hasOwn(allowBuilds, key)).sort()
  if (added.length === 0) return []
  const undecided: Record<string, unknown> = Object.fromEntries(added.map((key) => [key, UNDECIDED_ALLOW_BUILD]))
  await updateWorkspaceYaml(dir, { allowBuilds: withKeys(allowBuilds, undecided) })
  return added
}
