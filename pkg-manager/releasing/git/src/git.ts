import { execFile } from 'node:child_process'

import { LodeError } from '@lode/core.error'

/** A git command's trimmed output, or undefined when it fails (or git is missing): for questions. */
export async function gitOutput (cwd: string, args: readonly string[]): Promise<string | undefined> {
  return await new Promise((resolve) => {
    execFile('git', args, { cwd, encoding: 'utf8' }, (err, stdout) => { resolve(err === null ? stdout.trim() : undefined) })
  })
}

/** Runs a git command that must succeed (a commit, a tag): its failure is `ERR_LODE_GIT_FAILED` with git's own words. */
export async function runGit (cwd: string, args: readonly string[]): Promise<string> {
  return await new Promise((resolve, reject) => {
    execFile('git', args, { cwd, encoding: 'utf8' }, (err, stdout, stderr) => {
      if (err === null) {
        resolve(stdout.trim())
        return
      }
      const said = stderr.trim() || stdout.trim() || err.message
      reject(new LodeError('GIT_FAILED', `git ${args[0] ?? ''} failed in ${cwd}: ${said}`, {
        hint: 'Fix what git reports (its user.name and user.email, a tag that exists already, a hook that refused), then run the command again.',
      }))
    })
  })
}

/** Whether `dir` is inside a git work tree. */
export async function isGitRepo (dir: string): Promise<boolean> {
  return await gitOutput(dir, ['rev-parse', '--git-dir']) !== undefined
}

/** Whether git reports nothing changed, staged or untracked (`git status --porcelain` says nothing). */
export async function isWorkingTreeClean (dir: string): Promise<boolean> {
  return await gitOutput(dir, ['status', '--porcelain']) === ''
}
