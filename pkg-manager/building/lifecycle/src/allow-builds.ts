import { splitNameAt, withoutPeersSuffix } from '@lode/core.dep-path'
import validVersion from 'semver/functions/valid.js'

interface Rules {
  /** Exact package ids (`name@git+https://…#<commit>`, `name@file:x`). */
  ids: Set<string>
  /** A git repository's every commit: `name@git+<repo>` (no `#`). */
  gitRepos: Set<string>
  /** Names and `name@version`s. */
  specs: Set<string>
}

/**
 * pnpm 11's `allowBuilds` (pnpm-workspace.yaml): `name: true` lets a package run its build
 * scripts, `name: false` skips them without complaint; keys may also be `name@1.0.0 || 2.0.0`, an
 * exact package id, or a git repository (`name@git+https://host/repo.git`, every commit of it). A
 * `false` wins. A package whose id is not `name@<semver>` (a git commit, a tarball URL, a file) is
 * not allowed by its name alone, as pnpm 11 decides (building/policy): only its id or its
 * repository allows it, while its name can still deny it (`trustPackageIdentity`: its name allows it
 * too, as an approval counted when it was given). Returns undefined for a package the setting does
 * not decide.
 */
export function createAllowBuild (
  allowBuilds: Readonly<Record<string, boolean>>,
  opts: { trustPackageIdentity?: boolean } = {}
): (pkgId: string) => boolean | undefined {
  const allowed: Rules = { ids: new Set(), gitRepos: new Set(), specs: new Set() }
  const denied: Rules = { ids: new Set(), gitRepos: new Set(), specs: new Set() }
  for (const [key, value] of Object.entries(allowBuilds)) {
    const rules = value ? allowed : denied
    if (!key.includes('#') && isGitId(key)) rules.gitRepos.add(key)
    else if (isIdKey(key)) rules.ids.add(key)
    else for (const expanded of expand(key)) rules.specs.add(expanded)
  }
  return (pkgId) => {
    const repo = gitRepoKey(pkgId)
    const { name, version } = parseId(pkgId)
    const matches = (rules: Rules, trustName: boolean): boolean => rules.ids.has(pkgId) ||
      (repo !== undefined && rules.gitRepos.has(repo)) ||
      (trustName && (rules.specs.has(name) || (version !== undefined && rules.specs.has(`${name}@${version}`))))
    if (matches(denied, true)) return false
    if (matches(allowed, version !== undefined || opts.trustPackageIdentity === true)) return true
    return undefined
  }
}

/** `name@1.0.0 || 2.0.0` → `name@1.0.0`, `name@2.0.0`; anything else as it is. */
function expand (key: string): string[] {
  const { name, rest } = splitNameAt(key)
  if (rest === undefined) return [key]
  const versions = rest.split('||').map((v) => v.trim())
  if (!versions.every((v) => validVersion(v) !== null)) return [key]
  return versions.map((version) => `${name}@${version}`)
}

/** `name@1.0.0` → its name and version; a version that is not semver (a URL, a commit) is none. */
function parseId (pkgId: string): { name: string, version: string | undefined } {
  const { name, rest: version } = splitNameAt(pkgId)
  return { name, version: version !== undefined && validVersion(version) === version ? version : undefined }
}

/** A key naming one package's source rather than a name or version: its version part is a URL, a path or a commit. */
function isIdKey (key: string): boolean {
  if (key.includes('||')) return false
  const { rest: version } = splitNameAt(key)
  if (version !== undefined) {
    if (validVersion(version) === version) return false
    return version.includes(':') || version.includes('/') || version.includes('#')
  }
  return !key.startsWith('@') && (key.includes('/') || key.includes(':'))
}

function isGitId (pkgId: string): boolean {
  return pkgId.startsWith('git+') || pkgId.includes('@git+')
}

/** The repository a git package comes from (`name@git+<repo>`), also for a hosted archive of one. */
function gitRepoKey (pkgId: string): string | undefined {
  if (isGitId(pkgId)) {
    const hash = pkgId.indexOf('#')
    return hash === -1 ? pkgId : pkgId.slice(0, hash)
  }
  const { name, rest: url } = splitNameAt(pkgId)
  if (url === undefined) return undefined
  const github = /^https:\/\/codeload\.github\.com\/([^/]+)\/([^/]+)\/tar\.gz\//.exec(url)
  const bitbucket = /^https:\/\/bitbucket\.org\/([^/]+)\/([^/]+)\/get\//.exec(url)
  const gitlab = /^https:\/\/([^/]+)\/(.+?)\/-\/archive\/[^/]+\//.exec(url)
  const repo = github !== null ? `github.com/${github[1]!}/${github[2]!}`
    : bitbucket !== null ? `bitbucket.org/${bitbucket[1]!}/${bitbucket[2]!}`
      : gitlab !== null ? `${gitlab[1]!}/${gitlab[2]!}` : undefined
  return repo === undefined ? undefined : `${name}@git+https://${repo}.git`
}

/**
 * The `allowBuilds` key that would decide an ignored build (pnpm's `allowBuildKeyFromIgnoredBuild`):
 * a registry package's name, else its whole id (a git or tarball package is allowed only by its id).
 */
export function allowBuildKeyOf (depPath: string): string {
  const pkgId = withoutPeersSuffix(depPath)
  const { name, rest } = splitNameAt(pkgId)
  return rest !== undefined && validVersion(rest) !== null ? name : pkgId
}

/**
 * pnpm's revoked builds: the packages the last install's `allowBuilds` let build (approvals by name
 * counting for git and tarball packages too, as they counted then) that the setting now leaves
 * undecided. They are reported as ignored builds (with strictDepBuilds, the install fails), as pnpm
 * reports them; one denied now (`false`) is not.
 */
export function revokedBuilds (
  previous: Readonly<Record<string, boolean>> | undefined,
  current: Readonly<Record<string, boolean>>,
  pkgIds: Iterable<string>,
  ignored: ReadonlySet<string>
): string[] {
  if (previous === undefined || !Object.values(previous).some((allowed) => allowed)) return []
  const before = createAllowBuild(previous, { trustPackageIdentity: true })
  const now = createAllowBuild(current)
  return [...pkgIds].filter((pkgId) => !ignored.has(pkgId) && before(pkgId) === true && now(pkgId) === undefined)
}
