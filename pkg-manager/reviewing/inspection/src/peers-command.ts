import path from 'node:path'

import type { PeerDependencyRules } from '@lode/pkg-manager.config.settings'

import { installedLockfile } from './installed.js'
import { lockfilePeerIssues, noPeerIssues } from './peers-check.js'
import { renderPeerIssues } from './peers-render.js'

export interface PeersCheckOptions {
  lockfileDir: string
  /** The projects checked (a workspace's, all of them unless a selection says otherwise). */
  projectDirs: readonly string[]
  /** pnpm-lock.yaml alone, not what is installed (`node_modules/.pnpm/lock.yaml`). */
  lockfileOnly: boolean
  json: boolean
  rules: PeerDependencyRules | undefined
}

/** `lode peers check`: the report (or JSON) and the exit code, 1 when there is an issue; no lockfile is no issue, as in pnpm. */
export async function peersCheck (opts: PeersCheckOptions): Promise<{ output: string, exitCode: number }> {
  const lockfile = await installedLockfile(opts.lockfileDir, opts.lockfileOnly)
  const importerIds = opts.projectDirs.map((dir) => path.relative(opts.lockfileDir, dir).split(path.sep).join('/') || '.')
  const issues = lockfile === undefined ? {} : lockfilePeerIssues(lockfile, importerIds, opts.rules)
  const clean = noPeerIssues(issues)
  if (opts.json) return { output: JSON.stringify(issues, null, 2), exitCode: clean ? 0 : 1 }
  if (clean) return { output: 'No peer dependency issues found', exitCode: 0 }
  return { output: `Issues with peer dependencies found\n\n${renderPeerIssues(issues)}`, exitCode: 1 }
}
