import fs from 'node:fs'
import path from 'node:path'

import { WANTED_LOCKFILE } from '@lode/core.constants'
import type { Lockfile } from '@lode/pkg-manager.lockfile.format'

/** What an install writes to pnpm-lock.yaml: a text as it is, or a lockfile serialized as pnpm does. */
export type WantedLockfile =
  | { text: string }
  | { lockfile: Lockfile, envDocument: string | undefined }

/**
 * The one writer of pnpm-lock.yaml (atomically, and not at all when it already says this): every
 * install path decides what to write, and writes it here. Resolves with whether it wrote. The
 * lockfile module loads here, so that the up-to-date install that writes a lockfile back loads it
 * only then.
 */
export async function writeWantedLockfile (dir: string, wanted: WantedLockfile): Promise<boolean> {
  const { writeLockfile, writeLockfileText } = await import('@lode/pkg-manager.lockfile.format')
  return 'text' in wanted
    ? await writeLockfileText(dir, wanted.text)
    : await writeLockfile(dir, wanted.lockfile, wanted.envDocument)
}

/**
 * Refuses, before the install changes anything, a lockfile it could not write: a change through a
 * symlinked pnpm-lock.yaml (`ERR_LODE_LOCKFILE_IS_SYMLINK`, as pnpm). Only a link costs more than a stat.
 */
export async function checkWantedLockfileWrite (dir: string, wanted: WantedLockfile): Promise<void> {
  if (fs.lstatSync(path.join(dir, WANTED_LOCKFILE), { throwIfNoEntry: false })?.isSymbolicLink() !== true) return
  const { checkLockfileWrite, lockfileText } = await import('@lode/pkg-manager.lockfile.format')
  await checkLockfileWrite(dir, 'text' in wanted ? wanted.text : lockfileText(wanted.lockfile, wanted.envDocument))
}
