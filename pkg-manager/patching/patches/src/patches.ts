import { createHash } from 'node:crypto'
import fs from 'node:fs'
import path from 'node:path'

import { splitNameAt } from '@lode/core.dep-path'
import { LodeError } from '@lode/core.error'
import satisfies from 'semver/functions/satisfies.js'
import validVersion from 'semver/functions/valid.js'
import validRange from 'semver/ranges/valid.js'

/** A patch from `patchedDependencies`: its key (`name`, `name@version` or `name@range`), file and hash. */
export interface Patch {
  key: string
  file: string
  /** SHA-256 (hex) of the file with CRLF read as LF: pnpm's `patch_hash`. */
  hash: string
}

/** Reads the patches `patchedDependencies` names; a missing file is `ERR_LODE_PATCH_NOT_FOUND`. */
export function loadPatches (patchedDependencies: Readonly<Record<string, string>>, projectDir: string): Patch[] {
  return Object.entries(patchedDependencies).map(([key, relative]) => {
    const file = path.resolve(projectDir, relative)
    let text: string
    try {
      text = fs.readFileSync(file, 'utf8')
    } catch (err) {
      throw new LodeError('PATCH_NOT_FOUND', `The patch ${file} for ${key} (patchedDependencies) cannot be read.`, {
        hint: 'Fix the path in pnpm-workspace.yaml, or restore the patch file.',
        cause: err,
      })
    }
    return { key, file, hash: createHash('sha256').update(text.split('\r\n').join('\n')).digest('hex') }
  })
}

/**
 * The patch for a package id, by pnpm's rules: an exact `name@version` key first, then the one
 * range that contains the version (two is `ERR_LODE_PATCH_KEY_CONFLICT`), then a bare name.
 */
export function patchFor (patches: readonly Patch[], pkgId: string): Patch | undefined {
  const { name, rest: version = '' } = splitNameAt(pkgId)
  let all: Patch | undefined
  const ranges: Patch[] = []
  for (const patch of patches) {
    const { name: keyName, rest: selector } = splitNameAt(patch.key)
    if (keyName !== name) continue
    if (selector === undefined) { all = patch; continue }
    if (selector === version) return patch
    if (validVersion(selector) === null && validRange(selector) !== null && satisfies(version, selector)) ranges.push(patch)
  }
  if (ranges.length > 1) {
    throw new LodeError('PATCH_KEY_CONFLICT', `Unable to choose between ${ranges.length} version ranges to patch ${pkgId}: ${ranges.map((patch) => splitNameAt(patch.key).rest).join(', ')}`, {
      hint: 'Make the ranges in patchedDependencies not overlap, or add an exact version.',
    })
  }
  return ranges[0] ?? all
}

/** The patch a dependency path names (`name@1.0.0(patch_hash=…)`). */
export function patchOf (depPath: string, patches: readonly Patch[]): Patch | undefined {
  const hash = /\(patch_hash=([0-9a-f]+)\)/.exec(depPath)?.[1]
  if (hash === undefined) return undefined
  const patch = patches.find((candidate) => candidate.hash === hash)
  if (patch === undefined) {
    throw new LodeError('PATCH_NOT_FOUND', `pnpm-lock.yaml wants ${depPath} patched, but no patch in patchedDependencies has that hash.`, {
      hint: 'Restore the patch file (and its entry in pnpm-workspace.yaml), or install without --frozen-lockfile to update the lockfile.',
    })
  }
  return patch
}
