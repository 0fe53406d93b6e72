import { execFile } from 'node:child_process'

import { LodeError } from '@lode/core.error'

/** A git command that ran and failed: its stderr says why (credentials in it redacted). */
export class GitCommandError extends Error {
  constructor (readonly args: readonly string[], readonly stderr: string, readonly exitCode: number | string | undefined) {
    super(`git ${args[0] ?? ''} failed: ${stderr === '' ? `exit code ${String(exitCode)}` : stderr}`)
  }
}

export interface RunGitOptions {
  cwd?: string | undefined
  /** Names the dependency git is run for, in `ERR_LODE_GIT_NOT_FOUND`. */
  subject: string
  signal?: AbortSignal | undefined
}

// What git may print (a `ls-remote` of a repository with many refs, a clone's progress).
const MAX_OUTPUT = 64 * 1024 * 1024

/**
 * Runs `git <args>` and resolves with its stdout. Never asks for credentials on the terminal
 * (`GIT_TERMINAL_PROMPT=0`, ssh in batch mode, as pnpm runs it): a private repository fails at once
 * instead of waiting for input. The environment is otherwise the user's: git's own configuration
 * (`insteadOf`, credential helpers, proxies) applies. `git` missing from `PATH` is
 * `ERR_LODE_GIT_NOT_FOUND`; a failing command is a `GitCommandError`.
 */
export async function runGit (args: readonly string[], opts: RunGitOptions): Promise<string> {
  const env: Record<string, string | undefined> = { ...gitEnv(), GIT_TERMINAL_PROMPT: '0' }
  // Nor does ssh ask (for a passphrase, a host key), unless the user chose their own ssh command.
  if (env['GIT_SSH_COMMAND'] === undefined && env['GIT_SSH'] === undefined && !await hasSshCommand()) env['GIT_SSH_COMMAND'] = 'ssh -o BatchMode=yes'
  return await exec(args, opts, env)
}

/**
 * The environment git runs in: the user's, as lifecycle scripts get it (git's own settings apply),
 * without the variables that would point it at another repository (set when lode runs in a git hook).
 */
function gitEnv (): Record<string, string | undefined> {
  const env: Record<string, string | undefined> = { ...process.env }
  for (const name of ['GIT_DIR', 'GIT_WORK_TREE', 'GIT_COMMON_DIR', 'GIT_INDEX_FILE', 'GIT_OBJECT_DIRECTORY', 'GIT_ALTERNATE_OBJECT_DIRECTORIES']) delete env[name]
  return env
}

let sshCommand: Promise<boolean> | undefined

/** Whether git's configuration names an ssh command (`core.sshCommand`), which `GIT_SSH_COMMAND` would override. */
async function hasSshCommand (): Promise<boolean> {
  sshCommand ??= exec(['config', '--get', 'core.sshCommand'], { subject: 'git' }, gitEnv()).then((out) => out.trim() !== '', () => false)
  return await sshCommand
}

async function exec (args: readonly string[], opts: RunGitOptions, env: Record<string, string | undefined>): Promise<string> {
  return await new Promise<string>((resolve, reject) => {
    execFile('git', args, {
      cwd: opts.cwd,
      env,
      maxBuffer: MAX_OUTPUT,
      encoding: 'utf8',
      signal: opts.signal,
    }, (err, stdout, stderr) => {
      if (err === null) {
        resolve(stdout)
        return
      }
      const errno = err as NodeJS.ErrnoException
      if (errno.code === 'ENOENT' && errno.syscall === 'spawn git') {
        reject(gitNotFound(opts.subject))
        return
      }
      if (err.name === 'AbortError') {
        reject(Object.assign(new Error(err.message, { cause: err }), { name: 'AbortError' }))
        return
      }
      reject(new GitCommandError(args, redactCredentials(stderr.trim()), (err as { code?: number | string }).code))
    })
  })
}

export function gitNotFound (subject: string): LodeError {
  return new LodeError('GIT_NOT_FOUND', `\`git\` was not found on PATH; it is needed to install ${subject}.`, {
    hint: 'Install git (https://git-scm.com) and make sure it is on PATH, or replace the git dependency with a registry version or a tarball URL.',
  })
}

/** `https://user:token@host/…` → `https://***@host/…` in anything git prints. */
export function redactCredentials (text: string): string {
  return text.replace(/\b([a-z][a-z0-9+.-]*:\/\/)[^/@\s]+@/gi, '$1***@')
}
