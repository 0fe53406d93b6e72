import { LodeError } from '@lode/core.error'
import hostedGitInfo from '@pnpm/hosted-git-info'

/** What follows `#` in a git specifier: a commit-ish, or `semver:<range>`, and `path:<dir>`, joined by `&`. */
export interface GitParams {
  /** A branch, tag or commit (`HEAD` when neither it nor a range is given). */
  committish: string | undefined
  /** `semver:<range>`: the highest tag (`v1.2.3` or `1.2.3`) in the range. */
  range?: string
  /** `path:<dir>`: the package is this directory of the repository. */
  path?: string
}

/**
 * A git dependency, parsed: either a repository on a known host (GitHub, GitLab, Bitbucket, a
 * gist), whose URL for git and whose tarball URL depend on what the resolver can reach, or a
 * repository at a git URL, which git is given as it is.
 */
export type GitSpec = GitParams & (
  | { hosted: HostedRepo, url?: undefined }
  | { hosted?: undefined, url: string }
)

/** A repository on a known host, and the URLs pnpm 11 tries for it. */
export interface HostedRepo {
  type: 'github' | 'gitlab' | 'bitbucket' | 'gist'
  /** How the specifier was written: `shortcut`, `https`, `sshurl`, `git`, … (`sshurl` asks for SSH). */
  written: string
  /** The specifier's URL carries credentials. */
  auth: boolean
  /** `https://<host>/<user>/<repo>.git` (with the specifier's credentials, if any). */
  httpsUrl: string
  /** `git@<host>:<user>/<repo>.git`. */
  sshUrl: string
  /** `git+ssh://git@<host>/<user>/<repo>.git`: what pnpm records when it can reach neither. */
  gitSshUrl: string
  /** The host's archive of a commit (GitLab's in the form pnpm 11 uses). */
  tarballUrl: (commit: string) => string
  /** `github:user/repo#<fragment>`: how `add` saves it. */
  shortcut: string
  /** `git+https://<host>/<user>/<repo>.git#<fragment>`: how `add` saves one git reaches only with credentials. */
  httpsSpec: string
}

// pnpm 11's list (resolving/git-resolver/src/parseBareSpecifier.ts): an http(s) URL is a git
// repository only when its path ends in `.git`.
const GIT_PROTOCOLS = new Set(['git', 'git+http', 'git+https', 'git+rsync', 'git+ftp', 'git+file', 'git+ssh', 'ssh'])

/**
 * Whether `spec` is a git dependency, and which, as pnpm 11 decides it: a hosted repository in
 * any of the forms hosted-git-info knows (`user/repo`, `github:user/repo`, `gitlab:`, `bitbucket:`,
 * `gist:`, the hosts' https/ssh/git URLs), else a URL with a git protocol (`git+https:`, `git+ssh:`,
 * `git+file:`, `git:`, `ssh:`, …) or an http(s) URL ending in `.git`. Undefined for anything else.
 * Throws `ERR_LODE_INVALID_SPEC` for a git URL that does not parse.
 */
export function parseGitSpec (spec: string): GitSpec | undefined {
  const hosted = hostedGitInfo.fromUrl(spec)
  if (hosted !== undefined) {
    const { type, domain, user, project } = hosted
    return {
      hosted: {
        type,
        written: hosted.default,
        auth: hosted.auth !== null,
        httpsUrl: hosted.https({ noCommittish: true, noGitPlus: true }),
        sshUrl: hosted.ssh({ noCommittish: true }),
        gitSshUrl: hosted.sshurl({ noCommittish: true }),
        tarballUrl: (commit) => type === 'gitlab' ? gitlabTarballUrl(domain, user ?? '', project, commit) : hosted.tarballtemplate({ domain, user, project, committish: commit }),
        shortcut: hosted.shortcut(),
        httpsSpec: hosted.https(),
      },
      ...parseGitParams(hosted.committish),
    }
  }
  const colon = spec.indexOf(':')
  if (colon === -1) return undefined
  const protocol = spec.slice(0, colon)
  if (!GIT_PROTOCOLS.has(protocol.toLowerCase()) && !((protocol === 'http' || protocol === 'https') && /\.git(?:#|$)/.test(spec))) return undefined
  let url: URL
  let hash: string | undefined
  try {
    url = new URL(correctScpUrl(spec))
    hash = url.hash.length > 1 ? decodeURIComponent(url.hash.slice(1)) : undefined
  } catch (err) {
    throw new LodeError('INVALID_SPEC', `"${spec}" is not a valid git URL.`, {
      hint: 'Fix the specifier in package.json, e.g. "git+https://example.com/owner/repo.git#v1.0.0" or "github:owner/repo".',
      cause: err,
    })
  }
  url.hash = ''
  return { url: url.href.replace(/^git\+/, ''), ...parseGitParams(hash) }
}

/** `v1.0.0`, `semver:^1&path:/packages/a`, `path:/a&main`: what a git specifier's fragment asks for. */
export function parseGitParams (fragment: string | null | undefined): GitParams {
  const params: GitParams = { committish: undefined }
  if (fragment == null || fragment === '') return params
  for (const param of fragment.split('&')) {
    if (param.startsWith('semver:')) params.range = param.slice('semver:'.length)
    else if (param.startsWith('path:')) params.path = param.slice('path:'.length)
    else params.committish = param
  }
  return params
}

// pnpm 11's: hosted-git-info's GitLab archive URL has an encoded slash (`%2F`), which ends up in
// the virtual store's directory name and makes Node refuse to import the package.
function gitlabTarballUrl (domain: string, user: string, project: string, commit: string): string {
  const ref = encodeURIComponent(commit)
  return `https://${domain}/${user}/${project}/-/archive/${ref}/${project}-${ref}.tar.gz`
}

/**
 * `git+ssh://git@host:owner/repo.git` (scp-like, with a `:` before the path) as a URL:
 * `git+ssh://git@host/owner/repo.git`. A `:port` stays; a bracketed IPv6 host's colons are its own.
 */
function correctScpUrl (spec: string): string {
  const unwrapped = spec.replace(/^git\+/, '')
  if (!unwrapped.startsWith('ssh://')) return spec
  const hashAt = unwrapped.indexOf('#')
  const hash = hashAt === -1 ? '' : unwrapped.slice(hashAt)
  const [auth = '', ...pathname] = (hashAt === -1 ? unwrapped : unwrapped.slice(0, hashAt)).slice('ssh://'.length).split('/')
  const host = auth.slice(auth.lastIndexOf('@') + 1)
  const afterHost = host.startsWith('[') ? host.slice(host.indexOf(']') + 1) : host
  if (!afterHost.includes(':') || /:\d+$/.test(afterHost)) return spec
  const parts = auth.split(':')
  const protocol = spec.split('://')[0]!
  return `${protocol}://${parts.slice(0, -1).join(':')}/${parts.at(-1)!}${pathname.length > 0 ? `/${pathname.join('/')}` : ''}${hash}`
}

/**
 * A package.json repository URL on a known git host as normalize-package-data rewrites it
 * (`github:user/repo` → `git+https://github.com/user/repo.git`), and the repository's page
 * (`https://github.com/user/repo#readme`) it makes a missing homepage of; undefined for another host.
 */
export function hostedRepository (url: string): { url: string, page: string | undefined, https: string | undefined } | undefined {
  const hosted = hostedGitInfo.fromUrl(url)
  if (hosted === undefined) return undefined
  return {
    url: hosted.default === 'shortcut' ? hosted.https() : hosted.toString(),
    page: hosted.docs(),
    // The https clone URL, for a repository of a user (or a gist), as pnpm 11's SBOM writes it.
    https: hosted.user !== null || hosted.type === 'gist' ? hosted.https() : undefined,
  }
}
