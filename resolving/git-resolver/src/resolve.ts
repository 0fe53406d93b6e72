import { LodeError, isLodeError } from '@lode/core.error'
import validVersion from 'semver/functions/valid.js'
import maxSatisfying from 'semver/ranges/max-satisfying.js'

import { GitCommandError, redactCredentials, runGit } from './git.js'
import type { GitSpec, HostedRepo } from './parse.js'

/**
 * Where a git dependency's files come from, as the lockfile records it: a commit of a repository
 * (cloned), or a hosted repository's archive of the commit (downloaded). `path` is the package's
 * directory in the repository.
 */
export type GitResolution =
  | { type: 'git', repo: string, commit: string, path?: string }
  | { tarball: string, gitHosted: true, integrity?: string, path?: string }

/** A lockfile resolution of a git package: a commit of a repository, or a hosted repository's archive. */
export function isGitResolution (resolution: object): resolution is GitResolution {
  return ('type' in resolution && resolution.type === 'git') || ('gitHosted' in resolution && resolution.gitHosted === true)
}

export interface ResolvedGit {
  /** The package's id without its name: `git+<repo>#<commit>[&path:<dir>]`, or `<tarball>[#path:<dir>]`. */
  id: string
  resolution: GitResolution
  /**
   * What `add` saves for a hosted repository, as pnpm 11 normalizes it: `github:user/repo#…`, or its
   * `git+https://` URL when git reaches it only with credentials. Undefined for a git URL (saved as written).
   */
  savedSpecifier?: string
}

export interface ResolveGitOptions {
  /** Names the dependency in errors (`alias@specifier`). */
  subject: string
  /**
   * Whether a hosted repository's page (`https://<host>/<user>/<repo>`) is public: pnpm asks with
   * an HTTP HEAD (which prompts for no credentials) and downloads the archive of a public one.
   */
  isPublic: (url: string) => Promise<boolean>
  signal?: AbortSignal | undefined
}

/**
 * Resolves a git dependency to a commit as pnpm 11 does: `git ls-remote` of the repository for
 * the branch or tag asked for (`HEAD` by default; an annotated tag to the commit it points to; a
 * 7 to 39 character commit prefix to the one commit it names; `semver:<range>` to the highest
 * matching `v1.2.3`/`1.2.3` tag). A full 40-character commit is taken as it is. A repository on a
 * known host is reached over HTTPS unless the specifier asks for SSH, and a public one's files
 * come from the host's archive of the commit (no git needed to fetch it); anything else is cloned.
 */
export async function resolveGit (spec: GitSpec, opts: ResolveGitOptions): Promise<ResolvedGit> {
  const { repo, tarballUrl, savedSpecifier } = spec.hosted === undefined
    ? { repo: spec.url, tarballUrl: undefined, savedSpecifier: undefined }
    : await hostedRepo(spec.hosted, opts)
  const saved = savedSpecifier === undefined ? {} : { savedSpecifier }
  const commit = await resolveRef(repo, spec.committish ?? 'HEAD', spec.range, opts)
  const path = spec.path === undefined ? {} : { path: spec.path }
  if (tarballUrl !== undefined && !isSsh(repo)) {
    const tarball = tarballUrl(commit)
    return { id: spec.path === undefined ? tarball : `${tarball}#path:${spec.path}`, resolution: { tarball, gitHosted: true, ...path }, ...saved }
  }
  const resolution = { commit, repo, type: 'git' as const, ...path }
  return { id: gitPackageId(resolution), resolution, ...saved }
}

/** `git+<repo>#<commit>[&path:<dir>]`: pnpm's id of a cloned git package (an scp-like `user@host:path` as `ssh://user@host/path`). */
export function gitPackageId ({ repo, commit, path }: { repo: string, commit: string, path?: string | undefined }): string {
  const scp = repo.includes('://') ? null : /^([^@\s]+@[^:\s]+):(.+)$/.exec(repo)
  const normalized = scp === null ? repo : `ssh://${scp[1]!}/${scp[2]!}`
  let id = `${normalized.includes('://') ? '' : 'https://'}${normalized}#${commit}`
  if (!id.startsWith('git+')) id = `git+${id}`
  return path === undefined ? id : `${id}&path:${path}`
}

/**
 * The URL git gets for a hosted repository, and whether its archive may be downloaded, in pnpm 11's
 * order: HTTPS when the repository is public; SSH first only when the specifier was an SSH URL;
 * HTTPS that git can reach (with credentials it has) but that is not provably public is cloned,
 * never downloaded from the archive endpoint, which would carry no credentials.
 */
async function hostedRepo (
  hosted: HostedRepo,
  opts: ResolveGitOptions
): Promise<{ repo: string, tarballUrl: ((commit: string) => string) | undefined, savedSpecifier: string }> {
  const preferSsh = hosted.written === 'sshurl'
  const isPublic = await opts.isPublic(hosted.httpsUrl.replace(/\.git$/, ''))
  let repo: string | undefined
  if (isPublic && (!preferSsh || await canAccess(hosted.httpsUrl, opts))) repo = hosted.httpsUrl
  if (repo === undefined && preferSsh && await canAccess(hosted.sshUrl, opts)) repo = hosted.sshUrl
  if (repo === undefined) {
    if ((hosted.auth || !isPublic) && await canAccess(hosted.httpsUrl, opts)) {
      return { repo: hosted.httpsUrl, tarballUrl: undefined, savedSpecifier: hosted.httpsSpec }
    }
    if (isPublic) repo = hosted.httpsUrl
  }
  if (repo === undefined && !preferSsh && await canAccess(hosted.sshUrl, opts)) repo = hosted.sshUrl
  repo ??= preferSsh ? hosted.gitSshUrl : hosted.httpsUrl
  return { repo, tarballUrl: isPublic ? hosted.tarballUrl : undefined, savedSpecifier: hosted.shortcut }
}

async function canAccess (repo: string, opts: ResolveGitOptions): Promise<boolean> {
  try {
    await runGit(['ls-remote', '--exit-code', repo, 'HEAD'], { subject: opts.subject, signal: opts.signal })
    return true
  } catch (err) {
    if (err instanceof GitCommandError || isLodeError(err, 'ERR_LODE_GIT_NOT_FOUND')) return false
    throw err
  }
}

async function resolveRef (repo: string, ref: string, range: string | undefined, opts: ResolveGitOptions): Promise<string> {
  const committish = /^[0-9a-f]{7,40}$/.test(ref)
  if (committish && ref.length === 40) return ref
  const listAll = range !== undefined ? range !== '' : committish
  const refs = await lsRemote(repo, listAll ? undefined : ref, opts)
  const commit = range === undefined || range === '' ? exactRef(refs, repo, ref, committish, opts) : rangeRef(refs, repo, range, opts)
  if (committish && !commit.startsWith(ref)) {
    throw new LodeError('GIT_AMBIGUOUS_REF', `${opts.subject}: the commit-ish ${ref} resolved to commit ${commit} of ${redactCredentials(repo)}.`, {
      hint: 'Write the full 40-character commit in package.json.',
    })
  }
  return commit
}

/** ref name → commit, from `git ls-remote` (tried twice, as pnpm does), of `ref` and what it peels to, or of every ref. */
async function lsRemote (repo: string, ref: string | undefined, opts: ResolveGitOptions): Promise<Map<string, string>> {
  const args = ['ls-remote', '--', repo, ...ref === undefined ? [] : [ref, `${ref}^{}`]]
  let stdout: string | undefined
  for (let attempt = 0; stdout === undefined; attempt++) {
    try {
      stdout = await runGit(args, { subject: opts.subject, signal: opts.signal })
    } catch (err) {
      if (!(err instanceof GitCommandError) || attempt >= 1) throw resolveFailed(err, repo, opts.subject)
    }
  }
  const refs = new Map<string, string>()
  for (const line of stdout.split('\n')) {
    const [commit, name] = line.split('\t')
    if (commit !== undefined && commit !== '' && name !== undefined && name !== '') refs.set(name, commit)
  }
  return refs
}

function exactRef (refs: Map<string, string>, repo: string, ref: string, committish: boolean, opts: ResolveGitOptions): string {
  const commit = refs.get(ref) ?? refs.get(`refs/${ref}`) ?? refs.get(`refs/tags/${ref}^{}`) ?? refs.get(`refs/tags/${ref}`) ?? refs.get(`refs/heads/${ref}`)
  if (commit !== undefined) return commit
  // A commit prefix names the one commit a ref points to that starts with it.
  const candidates = committish ? [...new Set([...refs.values()].filter((value) => value.startsWith(ref)))] : []
  if (candidates.length === 1) return candidates[0]!
  throw new LodeError('GIT_REF_NOT_FOUND', `${opts.subject}: could not resolve ${ref} to a commit of ${redactCredentials(repo)}.`, {
    hint: 'Check the branch, tag or commit after # in package.json (a commit given in part must be one a branch or tag points to; write it in full otherwise).',
  })
}

function rangeRef (refs: Map<string, string>, repo: string, range: string, opts: ResolveGitOptions): string {
  // Version tags as pacote reads them: `v1.2.3` or `1.2.3`, annotated (`^{}`) or not.
  const tags = [...new Set([...refs.keys()]
    .filter((name) => /^refs\/tags\/v?\d+\.\d+\.\d+(?:[-+].+)?(?:\^\{\})?$/.test(name))
    .map((name) => name.replace(/^refs\/tags\//, '').replace(/\^\{\}$/, ''))
    .filter((tag) => validVersion(tag, true) !== null))]
  const tag = maxSatisfying(tags, range, true)
  const commit = tag === null ? undefined : refs.get(`refs/tags/${tag}^{}`) ?? refs.get(`refs/tags/${tag}`)
  if (commit === undefined) {
    throw new LodeError('GIT_REF_NOT_FOUND', `${opts.subject}: no tag of ${redactCredentials(repo)} matches ${range}. Available versions are: ${tags.join(', ')}`, {
      hint: 'Change the semver: range in package.json, or tag a matching version in the repository.',
    })
  }
  return commit
}

function resolveFailed (err: unknown, repo: string, subject: string): unknown {
  if (!(err instanceof GitCommandError)) return err
  return new LodeError('GIT_RESOLVE_FAILED', `Failed to resolve the git dependency ${subject}: git ls-remote ${redactCredentials(repo)} failed: ${err.stderr === '' ? err.message : err.stderr}`, {
    hint: `Check that the repository exists and that git can reach it from here (try \`git ls-remote ${redactCredentials(repo)}\`); for a private repository, set up git's credentials or an SSH key (git's url.<base>.insteadOf can switch the transport).`,
  })
}

function isSsh (repo: string): boolean {
  return repo.startsWith('git+ssh://') || repo.startsWith('git@')
}
