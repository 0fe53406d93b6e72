import type { Lockfile } from '@lode/pkg-manager.lockfile'

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
  const { writeLockfile, writeLockfileText } = await import('@lode/pkg-manager.lockfile')
  return 'text' in wanted
    ? await writeLockfileText(dir, wanted.text)
    : await writeLockfile(dir, wanted.lockfile, wanted.envDocument)
}
