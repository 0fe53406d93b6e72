import { execFile } from 'node:child_process'

import { LodeError } from '@lode/core.error'

/**
 * The patch between two directories, as pnpm 11 makes it: `git diff --no-index` with the user's
 * and the system's git configuration left out (predictable output), full blob ids, deletions
 * without their content, then the directories' paths taken out of the `a/`/`b/` names. Git must
 * be on the PATH, as for pnpm: without it, `ERR_LODE_PATCH_GIT_NOT_FOUND`.
 */
export async function diffFolders (original: string, edited: string): Promise<string> {
  const from = original.replace(/\\/g, '/')
  const to = edited.replace(/\\/g, '/')
  const stdout = await gitDiff(from, to)
  return stdout
    .replace(new RegExp(`(a|b)(${escape(`/${trimSlashes(from)}/`)})`, 'g'), '$1/')
    .replace(new RegExp(`(a|b)${escape(`/${trimSlashes(to)}/`)}`, 'g'), '$1/')
    .replace(new RegExp(escape(`${from}/`), 'g'), '')
    .replace(new RegExp(escape(`${to}/`), 'g'), '')
    .replace(/\n\\ No newline at end of file\n$/, '\n')
}

async function gitDiff (from: string, to: string): Promise<string> {
  const args = [
    '-c', 'core.safecrlf=false', '-c', 'core.quotePath=false', 'diff', '--src-prefix=a/', '--dst-prefix=b/',
    '--ignore-cr-at-eol', '--irreversible-delete', '--full-index', '--no-index', '--text', '--no-ext-diff', '--no-color', '--', from, to,
  ]
  const env = { ...process.env, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null' }
  return await new Promise((resolve, reject) => {
    execFile('git', args, { env, maxBuffer: 1024 * 1024 * 1024, encoding: 'utf8' }, (err, stdout, stderr) => {
      // `git diff --no-index` exits with 1 when the directories differ.
      const code = (err as { code?: unknown } | null)?.code
      if (err === null || (code === 1 && stderr.length === 0)) {
        resolve(stdout)
        return
      }
      if (code === 'ENOENT') {
        reject(new LodeError('PATCH_GIT_NOT_FOUND', 'lode patch-commit makes the patch with git, which is not on the PATH.', {
          hint: 'Install git (as pnpm needs it for the same command) and run lode patch-commit again.',
        }))
        return
      }
      reject(new LodeError('PATCH_DIFF_FAILED', `git could not diff ${from} and ${to}: ${stderr.trim() || err.message}`, {
        hint: 'Make sure a recent git is on the PATH, then run lode patch-commit again.',
      }))
    })
  })
}

function trimSlashes (dir: string): string {
  return dir.replace(/^\/|\/$/g, '')
}

function escape (text: string): string {
  return text.replace(/[|\\{}()[\]^$+*?.]/g, '\\$&').replace(/-/g, '\\x2d')
}
