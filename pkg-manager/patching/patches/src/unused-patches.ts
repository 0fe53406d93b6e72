import { splitNameAt } from '@lode/core.dep-path'
import { LodeError, printable } from '@lode/core.error'
import validVersion from 'semver/functions/valid.js'

import { patchFor } from './patches.js'
import type { Patch } from './patches.js'

/**
 * The `patchedDependencies` keys no package of `pkgIds` (`name@version`) takes its patch from, in
 * the order pnpm names them: by package name as first given, each name's exact versions, then its
 * ranges, then the bare name.
 */
export function unusedPatchKeys (patches: readonly Patch[], pkgIds: Iterable<string>): string[] {
  const used = new Set<string>()
  for (const pkgId of pkgIds) {
    const key = patchFor(patches, pkgId)?.key
    if (key !== undefined) used.add(key)
  }
  const kind = (key: string): number => {
    const selector = splitNameAt(key).rest
    return selector === undefined ? 2 : validVersion(selector) !== null ? 0 : 1
  }
  const names = [...new Set(patches.map(({ key }) => splitNameAt(key).name))]
  return names.flatMap((name) => patches
    .filter(({ key }) => splitNameAt(key).name === name && !used.has(key))
    .map(({ key }) => key)
    .sort((a, b) => kind(a) - kind(b)))
}

/**
 * pnpm's check after a resolution of the whole workspace: patches no package took fail the install
 * (`ERR_LODE_UNUSED_PATCH`), or with `allowUnusedPatches` are warned about.
 */
export function checkUnusedPatches (
  patches: readonly Patch[],
  pkgIds: Iterable<string>,
  opts: { allowUnusedPatches: boolean, onWarning: (message: string) => void }
): void {
  const unused = unusedPatchKeys(patches, pkgIds)
  if (unused.length === 0) return
  const message = `The following patches were not used: ${unused.map((key) => printable(key)).join(', ')}`
  if (opts.allowUnusedPatches) {
    opts.onWarning(message)
    return
  }
  throw new LodeError('UNUSED_PATCH', message, {
    hint: 'Either remove them from "patchedDependencies" or update them to match packages in your dependencies (or set allowUnusedPatches: true).',
  })
}
