import { LodeError, toLodeErrorData } from '@lode/core.error'
import { writeMsgpackFileSync } from '@lode/fs.msgpack-file'

import type { StoredMetadata } from './metadata-cache.js'
import { storedFromBody } from './packument-task.js'
import type { PackumentOutcome, PackumentTask } from './packument-task.js'

/**
 * The task of a packument thread (pkg-manager/core runs it in a pool of `@lode/worker.pools`): a
 * fetched packument decoded, parsed, cut down and encoded as the metadata cache stores it, and
 * written there. The main thread gets back the encoded entry and decodes only the versions it
 * picks. Never throws for bad input.
 */
export function packument (task: PackumentTask): PackumentOutcome {
  let stored: StoredMetadata
  try {
    stored = storedFromBody(task)
  } catch (err) {
    if (err instanceof LodeError) return { ok: false, error: toLodeErrorData(err) }
    // zlib's errors for a damaged body: the main thread fetches it again.
    const code = (err as NodeJS.ErrnoException).code
    if (typeof code === 'string' && code.startsWith('Z_')) return { ok: false, damaged: (err as Error).message }
    throw err
  }
  // Written before the answer, not behind it: a thread ended with the install leaves no entry half-written.
  try {
    writeMsgpackFileSync(task.cacheFile, stored, { sizeHint: encodedSize(stored) })
  } catch (err) {
    return { ok: true, stored, cacheWriteError: (err as Error).message }
  }
  return { ok: true, stored }
}

/** About the size of an entry's encoding: its versions' bytes, and for each version its name, end, publish time and trust. */
function encodedSize (stored: StoredMetadata): number {
  const { versions } = stored.packument
  return versions.data.length + versions.names.length * 96 + 64 * 1024
}
