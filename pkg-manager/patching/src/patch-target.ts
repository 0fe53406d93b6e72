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

/** The installed package `patch` copies out, and how the edit is recorded. */
export interface PatchTarget {
  name: string
  version: string
  /** The lockfile's key of the package (`name@version`). */
  pkgId: string
  /** No version was asked for: the patch is for every version (its key is the bare name). */
  applyToAll: boolean
  /** `node_modules/.pnpm_patches/<this>`: `name@version`, as pnpm names it. */
  editDirName: string
}

/** What the user picked when several versions are installed (pnpm asks which, and whether the patch is for every version). */
export interface VersionChoice {
  version: string
  applyToAll: boolean
}

/**
 * The installed version `patch <param>` edits, from the packages of what the last install laid out
 * (pnpm reads `node_modules/.pnpm/lock.yaml` too): the one version of the name (satisfying the
 * range, when one is given). None is `ERR_LODE_PATCH_VERSION_NOT_FOUND` (listing the installed
 * versions); several need `choose` (pnpm's questions on a terminal), else are
 * `ERR_LODE_PATCH_VERSION_AMBIGUOUS`.
 */
export async function patchTarget (
  param: string,
  lockfileDir: string,
  pkgIds: Iterable<string>,
  choose?: (versions: string[]) => Promise<VersionChoice | undefined>
): Promise<PatchTarget | undefined> {
  const wanted = parseWanted(param)
  const versions = [...pkgIds].flatMap((pkgId) => {
    const at = pkgId.indexOf('@', 1)
    const version = pkgId.slice(at + 1)
    return pkgId.slice(0, at) === wanted.name && validVersion(version) !== null ? [version] : []
  }).sort(compare)
  const preferred = wanted.range === undefined ? versions : versions.filter((version) => satisfies(version, wanted.range!))
  if (preferred.length === 0) {
    throw new LodeError('PATCH_VERSION_NOT_FOUND', `Can not find ${param} in project ${lockfileDir}, ${versions.length > 0
      ? `you can specify currently installed version: ${versions.join(', ')}.`
      : `did you forget to install ${param}?`}`)
  }
  let choice: VersionChoice = { version: preferred[0]!, applyToAll: wanted.range === undefined }
  if (preferred.length > 1) {
    if (choose === undefined) {
      throw new LodeError('PATCH_VERSION_AMBIGUOUS', `${param} is installed at ${preferred.length} versions: ${preferred.join(', ')}.`, {
        hint: `Name the version to patch, e.g. lode patch ${wanted.name}@${preferred.at(-1)!}`,
      })
    }
    const chosen = await choose(preferred)
    // Cancelled: nothing to patch.
    if (chosen === undefined) return undefined
    choice = chosen
  }
  return {
    name: wanted.name,
    version: choice.version,
    pkgId: `${wanted.name}@${choice.version}`,
    applyToAll: choice.applyToAll,
    editDirName: `${wanted.name}@${choice.version.replace(/[\\/:*?"<>|]+/g, '+')}`,
  }
}

/** The `patchedDependencies` key `patch-commit` writes: the bare name for every version, else `name@version`. */
export function patchKey (manifest: { name: string, version: string }, applyToAll: boolean): string {
  return applyToAll ? manifest.name : `${manifest.name}@${manifest.version}`
}

/** The patch file's name for a key, as pnpm names it (`@scope/name@1.0.0` → `@scope__name@1.0.0.patch`). */
export function patchFileName (key: string): string {
  return `${key.replace('/', '__')}.patch`
}
