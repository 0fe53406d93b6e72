import { createHash } from 'node:crypto'
import fs from 'node:fs'
import path from 'node:path'

import { LodeError } from '@lode/fs.error'
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
  const at = pkgId.indexOf('@', 1)
  const name = pkgId.slice(0, at)
  const version = pkgId.slice(at + 1)
  let all: Patch | undefined
  const ranges: Patch[] = []
  for (const patch of patches) {
    const keyAt = patch.key.indexOf('@', 1)
    const keyName = keyAt === -1 ? patch.key : patch.key.slice(0, keyAt)
    if (keyName !== name) continue
    if (keyAt === -1) { all = patch; continue }
    const selector = patch.key.slice(keyAt + 1)
    if (selector === version) return patch
    if (validVersion(selector) === null && validRange(selector) !== null && satisfies(version, selector)) ranges.push(patch)
  }
  if (ranges.length > 1) {
    throw new LodeError('PATCH_KEY_CONFLICT', `Unable to choose between ${ranges.length} version ranges to patch ${pkgId}: ${ranges.map((patch) => patch.key.slice(patch.key.indexOf('@', 1) + 1)).join(', ')}`, {
      hint: 'Make the ranges in patchedDependencies not overlap, or add an exact version.',
    })
  }
  return ranges[0] ?? all
}
