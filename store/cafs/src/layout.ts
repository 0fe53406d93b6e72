// The store's layout alone, without the writer's hashing (node:crypto): what the link threads need.
import path from 'node:path'

import { STORE_FILES_DIR, STORE_VERSION } from '@lode/core.constants'

/** `<storeDir>/v11`: the versioned store directory that holds `files/` and `index.db`. */
export function storePath (storeDir: string): string {
  return path.join(storeDir, STORE_VERSION)
}

/** pnpm's rule: any execute bit makes a file executable, and its CAS name gets `-exec`. */
export function modeIsExecutable (mode: number): boolean {
  return (mode & 0o111) !== 0
}

/** `files/<2 hex>/<126 hex>[-exec]`, relative to the versioned store directory. */
export function contentPathFromHex (digest: string, executable: boolean): string {
  const rel = `${STORE_FILES_DIR}/${digest.slice(0, 2)}/${digest.slice(2)}`
  return executable ? `${rel}-exec` : rel
}

/** The absolute CAS path of a file, from its digest and mode. */
export function casFilePath (storeDir: string, digest: string, mode: number): string {
  return path.join(storePath(storeDir), contentPathFromHex(digest, modeIsExecutable(mode)))
}
