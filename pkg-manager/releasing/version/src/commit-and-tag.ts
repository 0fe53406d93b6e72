import path from 'node:path'

import { isLodeError, LodeError } from '@lode/core.error'
import { gitOutput, runGit } from '@lode/pkg-manager.releasing.git'

export interface CommitOptions {
  /** `%s` is the new version (pnpm's `message`; `%s` by default). */
  message: string
  /** `v` by default; may be empty. */
  tagVersionPrefix: string
  /** false: `git commit --no-verify`. */
  commitHooks: boolean
  /** `git tag -s` (GPG) rather than an annotated `-a`. */
  signGitTag: boolean
  /** The same version again: the commit may be empty. */
  allowSameVersion: boolean
}

// pnpm 11's commit and annotated tag of a bump, in the workspace's (or the project's) directory:
// the project's package.json staged, the message with `%s` replaced, the tag `<prefix><version>`
// with the same message. What git would refuse is asked first, before any package.json is written.

/** Before anything is written: the tag must be new (`ERR_LODE_GIT_TAG_EXISTS`) and git must know who commits. */
export async function checkCanCommit (gitDir: string, version: string, opts: CommitOptions): Promise<void> {
  const tag = `${opts.tagVersionPrefix}${version}`
  if (await gitOutput(gitDir, ['rev-parse', '--quiet', '--verify', `refs/tags/${tag}`]) !== undefined) {
    throw new LodeError('GIT_TAG_EXISTS', `The tag ${tag} exists already in ${gitDir}.`, {
      hint: 'Give another version, remove the tag (git tag -d), or run again with --no-git-tag-version.',
    })
  }
  await runGit(gitDir, ['var', 'GIT_COMMITTER_IDENT'])
}

/** The manifest staged and committed; when the commit fails it is unstaged again (the caller puts its text back). */
export async function commitBump (
  gitDir: string,
  change: { newVersion: string, manifestPath: string },
  opts: CommitOptions
): Promise<void> {
  const relative = path.relative(path.resolve(gitDir), path.resolve(change.manifestPath))
  if (relative === '' || path.isAbsolute(relative) || relative === '..' || relative.startsWith(`..${path.sep}`)) {
    throw new LodeError('INVALID_MANIFEST_PATH', `Cannot stage manifest outside of git cwd: ${change.manifestPath}`)
  }
  const file = relative.split(path.sep).join('/')
  // `--` ends git's options: a path or a tag name is never read as one.
  await runGit(gitDir, ['add', '--', file])
  try {
    await runGit(gitDir, ['commit', '-m', messageOf(change.newVersion, opts), ...opts.commitHooks ? [] : ['--no-verify'], ...opts.allowSameVersion ? ['--allow-empty'] : []])
  } catch (err) {
    await gitOutput(gitDir, ['reset', '--quiet', '--', file])
    throw err
  }
}

/** The annotated (or signed) tag of the commit just made; its failure says the commit stays. */
export async function tagBump (gitDir: string, version: string, opts: CommitOptions): Promise<void> {
  const tag = `${opts.tagVersionPrefix}${version}`
  try {
    await runGit(gitDir, ['tag', opts.signGitTag ? '-s' : '-a', '-m', messageOf(version, opts), '--', tag])
  } catch (err) {
    if (!isLodeError(err)) throw err
    throw new LodeError('GIT_FAILED', err.message, { hint: `The bump is committed; tag it once git can (git tag ${opts.signGitTag ? '-s' : '-a'} ${tag}), or undo the commit (git reset --hard HEAD~1).` })
  }
}

function messageOf (version: string, opts: CommitOptions): string {
  return opts.message.replaceAll('%s', version)
}
