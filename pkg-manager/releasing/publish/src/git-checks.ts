import fs from 'node:fs'
import path from 'node:path'

import { LodeError } from '@lode/core.error'
import { gitOutput as git, isGitRepo, isWorkingTreeClean } from '@lode/pkg-manager.releasing.git'

// pnpm's words (its setting is `gitChecks` in pnpm-workspace.yaml, `git-checks` on the command line).
const HINT = 'If you want to disable Git checks on publish, set the "git-checks" setting to "false", or run again with "--no-git-checks".'

export interface GitCheckOptions {
  /** pnpm's `publishBranch`; `master` or `main` when unset. */
  publishBranch?: string | undefined
  /** In CI a detached HEAD is accepted (a checkout of a tag or a commit). */
  ci: boolean
}

/**
 * pnpm's checks before a publish, in a git repository (outside one, none): a clean working tree
 * (`ERR_LODE_GIT_UNCLEAN`), a branch (`ERR_LODE_GIT_UNKNOWN_BRANCH`, unless in CI on a detached
 * HEAD) that is the publish branch (`ERR_LODE_GIT_NOT_CORRECT_BRANCH`: pnpm asks on a terminal,
 * lode refuses), and nothing on the upstream branch that HEAD lacks (`ERR_LODE_GIT_NOT_LATEST`).
 */
export async function checkGitForPublish (dir: string, opts: GitCheckOptions): Promise<void> {
  if (!await isGitRepo(dir)) return
  if (!await isWorkingTreeClean(dir)) {
    throw new LodeError('GIT_UNCLEAN', 'Unclean working tree. Commit or stash changes first.', { hint: HINT })
  }
  const branch = branchFromHead(dir) ?? await git(dir, ['symbolic-ref', '--short', 'HEAD']) ?? null
  const branches = opts.publishBranch !== undefined ? [opts.publishBranch] : ['master', 'main']
  if (branch === null && !(opts.ci && await git(dir, ['rev-parse', '--verify', '--symbolic-full-name', 'HEAD']) === 'HEAD')) {
    throw new LodeError('GIT_UNKNOWN_BRANCH', `The Git HEAD may not attached to any branch, but your "publish-branch" is set to "${branches.join('|')}".`, { hint: HINT })
  }
  if (branch !== null && !branches.includes(branch)) {
    throw new LodeError('GIT_NOT_CORRECT_BRANCH', `Branch is not on '${branches.join('|')}'.`, {
      hint: `You're on branch "${branch}". ${HINT}`,
    })
  }
  if (branch !== null) {
    const behind = await git(dir, ['rev-list', '--count', '--left-only', '@{u}...HEAD'])
    if (behind !== undefined && behind !== '0') throw new LodeError('GIT_NOT_LATEST', 'Remote history differs. Please pull changes.', { hint: HINT })
  }
}

/** The branch `.git/HEAD` names (a worktree's `.git` file followed), as pnpm reads it before asking git. */
function branchFromHead (dir: string): string | undefined {
  const dotGit = path.join(dir, '.git')
  let gitDir: string
  try {
    const stat = fs.statSync(dotGit)
    if (stat.isDirectory()) gitDir = dotGit
    else {
      const match = /^gitdir:\s*(.+)/.exec(fs.readFileSync(dotGit, 'utf8').trim())
      if (match === null) return undefined
      gitDir = path.resolve(dir, match[1]!)
    }
    const head = fs.readFileSync(path.join(gitDir, 'HEAD'), 'utf8').trim()
    return head.startsWith('ref: refs/heads/') ? head.slice('ref: refs/heads/'.length) : undefined
  } catch {
    return undefined
  }
}
