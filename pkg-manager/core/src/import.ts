import type { InstallOptions, InstallResult } from '@lode/pkg-manager.installing.installer'
import { readImportedVersions } from '@lode/pkg-manager.lockfile.import'

import { installAndRecord } from './install.js'

/**
 * pnpm's `import`: pnpm-lock.yaml resolved anew (`--lockfile-only`, nothing installed) with the
 * versions yarn.lock, package-lock.json or npm-shrinkwrap.json has preferred above every other
 * version a range allows. A pnpm-lock.yaml already there is replaced, and kept as it was when the
 * resolution fails.
 */
export async function importLockfile (opts: InstallOptions): Promise<InstallResult> {
  const importedVersions = readImportedVersions(opts.config.dir)
  return await installAndRecord({ ...opts, importedVersions, lockfileOnly: true, frozenLockfile: false, preferFrozenLockfile: false })
}
