import { LodeError } from '@lode/core.error'
import compare from 'semver/functions/compare.js'
import satisfies from 'semver/functions/satisfies.js'
import validVersion from 'semver/functions/valid.js'

/** What `patch <param>` asks for: a name, and a version or range when given (`is-positive@^1`). */
export interface WantedPackage {
  name: string
  range?: string
}

export function parseWanted (param: string): WantedPackage {
  const at = param.indexOf('@', 1)
  return at === -1 ? { name: param } : { name: param.slice(0, at), range: param.slice(at + 1) }
}

/** An installed package, as `patch` offers it. */
export interface InstalledPackage {
  /** The lockfile's key: `name@version`, or `name@<url>` for a git or tarball package. */
  pkgId: string
  /** Its version (a key without one has it in its lockfile entry). */
  version: string | undefined
  /** A git-hosted package's archive URL: pnpm offers it by this URL, and names its edit directory after it. */
  gitTarballUrl?: string | undefined
}

/** The installed package `patch` copies out, and how the edit is recorded. */
export interface PatchTarget {
  name: string
  version: string
  /** The lockfile's key of the package. */
  pkgId: string
  /** No version was asked for: the patch is for every version (its key is the bare name). */
  applyToAll: boolean
  /** `node_modules/.pnpm_patches/<this>`: `name@version` (`name@<archive URL>` for a git-hosted one), as pnpm names it. */
  editDirName: string
}

/** One of several installed versions, as pnpm's question lists it: the version, and the archive URL of a git-hosted one. */
export interface VersionOption {
  name: string
  value: string
  description?: string
}

/** What the user picked when several versions are installed (pnpm asks which, and whether the patch is for every version). */
export interface VersionChoice {
  /** The option's `value`. */
  version: string
  applyToAll: boolean
}

/**
 * The installed version `patch <param>` edits, from the packages of what the last install laid out
 * (pnpm reads `node_modules/.pnpm/lock.yaml` too): the one version of the name (satisfying the
 * range, when one is given). None is `ERR_LODE_PATCH_VERSION_NOT_FOUND` (listing the installed
 * versions); several need `choose` (pnpm's questions on a terminal), else are
 * `ERR_LODE_PATCH_VERSION_AMBIGUOUS`. A git-hosted package alone is patched for its version only.
 */
export async function patchTarget (
  param: string,
  lockfileDir: string,
  installed: Iterable<InstalledPackage>,
  choose?: (options: VersionOption[]) => Promise<VersionChoice | undefined>
): Promise<PatchTarget | undefined> {
  const wanted = parseWanted(param)
  const versions = [...installed].flatMap((pkg) => {
    const { version } = pkg
    return nameOf(pkg.pkgId) === wanted.name && version !== undefined && validVersion(version) !== null ? [{ ...pkg, version }] : []
  }).sort((a, b) => compare(a.version, b.version))
  const preferred = wanted.range === undefined ? versions : versions.filter(({ version }) => satisfies(version, wanted.range!))
  if (preferred.length === 0) {
    throw new LodeError('PATCH_VERSION_NOT_FOUND', `Can not find ${param} in project ${lockfileDir}, ${versions.length > 0
      ? `you can specify currently installed version: ${versions.map(({ version }) => version).join(', ')}.`
      : `did you forget to install ${param}?`}`)
  }
  const valueOf = (pkg: InstalledPackage & { version: string }): string => pkg.gitTarballUrl ?? pkg.version
  let chosen = preferred[0]!
  let applyToAll = wanted.range === undefined && chosen.gitTarballUrl === undefined
  if (preferred.length > 1) {
    const labels = preferred.map((pkg) => pkg.version)
    if (choose === undefined) {
      throw new LodeError('PATCH_VERSION_AMBIGUOUS', `${param} is installed at ${preferred.length} versions: ${labels.join(', ')}.`, {
        hint: `Name the version to patch, e.g. lode patch ${wanted.name}@${labels.at(-1)!}`,
      })
    }
    const choice = await choose(preferred.map((pkg) => ({
      name: pkg.version,
      value: valueOf(pkg),
      ...pkg.gitTarballUrl === undefined ? {} : { description: 'Git Hosted' },
    })))
    // Cancelled: nothing to patch.
    if (choice === undefined) return undefined
    chosen = preferred.find((pkg) => valueOf(pkg) === choice.version) ?? chosen
    applyToAll = choice.applyToAll
  }
  return {
    name: wanted.name,
    version: chosen.version,
    pkgId: chosen.pkgId,
    applyToAll,
    editDirName: `${wanted.name}@${valueOf(chosen).replace(/[\\/:*?"<>|]+/g, '+')}`,
  }
}

/** The package name of a lockfile key (`@scope/name@…` → `@scope/name`). */
function nameOf (pkgId: string): string {
  return pkgId.slice(0, pkgId.indexOf('@', 1))
}

/** The `patchedDependencies` key `patch-commit` writes: the bare name for every version, else `name@version`. */
export function patchKey (manifest: { name: string, version: string }, applyToAll: boolean): string {
  return applyToAll ? manifest.name : `${manifest.name}@${manifest.version}`
}

/** The patch file's name for a key, as pnpm names it (`@scope/name@1.0.0` → `@scope__name@1.0.0.patch`). */
export function patchFileName (key: string): string {
  return `${key.replace('/', '__')}.patch`
}
