import fs from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'

import { LodeError } from '@lode/core.error'

import { GitCommandError, redactCredentials, runGit } from './git.js'

/**
 * The package directory `path:<dir>` names, relative to the repository's root (`''` for the root).
 * A directory outside the repository (`path:/../..`) is `ERR_LODE_GIT_INVALID_PATH`.
 */
export function packagePathInRepository (dir: string | undefined, subject: string): string {
  const relative = path.posix.normalize((dir ?? '').replaceAll('\\', '/').replace(/^\/+/, '') || '.')
  if (relative === '..' || relative.startsWith('../') || path.posix.isAbsolute(relative)) throw invalidGitPath(dir, subject, 'is not inside the repository')
  return relative === '.' ? '' : relative.replace(/\/+$/, '')
}

/** `ERR_LODE_GIT_INVALID_PATH`: the `path:` of a git dependency names no directory of its repository. */
export function invalidGitPath (dir: string | undefined, subject: string, why: string): LodeError {
  return new LodeError('GIT_INVALID_PATH', `The path "${dir ?? ''}" of ${subject} ${why}.`, {
    hint: 'Fix the path: after # in package.json (or the entry in pnpm-lock.yaml): it names a directory of the repository, e.g. path:/packages/a.',
  })
}

/** `ERR_LODE_GIT_FETCH_FAILED` for a git command that failed while getting a package's files; other errors as they are. */
export function gitFetchFailed (err: unknown, subject: string, repo: string): unknown {
  if (!(err instanceof GitCommandError)) return err
  return new LodeError('GIT_FETCH_FAILED', `Failed to fetch ${subject} from the git repository ${redactCredentials(repo)}: ${err.stderr === '' ? err.message : err.stderr}`, {
    hint: 'Check that the repository and the commit exist and that git can reach them from here (try `git clone` of it); for a private repository, set up git\'s credentials or an SSH key.',
  })
}

/**
 * The text of the package.json that a commit of a repository has in `dir` (its root by default),
 * read without a checkout or a build: the repository is cloned bare into a temp dir (removed after)
 * and the file read with `git show`. Undefined when the directory has none. `add` names a git
 * dependency by it before installing it.
 */
export async function packageJsonAtCommit (
  source: { repo: string, commit: string, path?: string | undefined },
  opts: { subject: string, signal?: AbortSignal | undefined }
): Promise<string | undefined> {
  const dir = packagePathInRepository(source.path, opts.subject)
  const tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'lode-git-manifest-'))
  const run = async (args: string[]): Promise<string> => await runGit(args, { cwd: tmp, subject: opts.subject, signal: opts.signal })
  try {
    try {
      await run(['clone', '--bare', '--quiet', '--', source.repo, tmp])
    } catch (err) {
      throw gitFetchFailed(err, opts.subject, source.repo)
    }
    const tree = `${source.commit}:${dir}`
    const type = await run(['cat-file', '-t', tree]).then((out) => out.trim(), () => undefined)
    if (type !== 'tree') throw invalidGitPath(source.path, opts.subject, 'is not a directory of the repository')
    return await run(['show', `${source.commit}:${dir === '' ? '' : `${dir}/`}package.json`]).catch((err: unknown) => {
      if (err instanceof GitCommandError) return undefined
      throw err
    })
  } finally {
    await fs.rm(tmp, { recursive: true, force: true })
  }
}
