import { getCompileCacheDir } from 'node:module'

import { fileSystemError, isLodeError } from '@lode/core.error'

// The threads use the compile cache the main thread uses (bin/lode turns it on): their modules are
// not compiled again in every install.
export function threadEnv (): NodeJS.ProcessEnv {
  const dir = getCompileCacheDir()
  return dir === undefined ? process.env : { ...process.env, NODE_COMPILE_CACHE: dir }
}

/**
 * Every pool thread's young generation, in MiB. Left to V8, each thread's grew to ~45 MiB of heap
 * of which ~15 was in use: the threads keep little alive between tasks (a tarball's files are
 * written and dropped), so a small young generation costs a few more scavenges and saves ~20 MiB a thread.
 */
export const THREAD_RESOURCE_LIMITS = { maxYoungGenerationSizeMb: 4 }

/**
 * A task's rejection as the main thread passes it on. Thread modules hand their `LodeError`s and
 * file-system errors back as data (piscina's copy of a thrown Error keeps only its message and
 * stack), so what rejects is a bug, or a thread that died under its task: an uncaught error there
 * (a stream's 'error' with no listener) reaches this thread with its code, syscall and path, and a
 * file-system one the machine causes is made the `LodeError` it stands for (`ERR_LODE_ENOSPC`, ...).
 */
export function fromThread (err: unknown): Error {
  if (isLodeError(err)) return err
  return fileSystemError(err) ?? (err instanceof Error ? err : new Error(String(err)))
}

/**
 * The view's own ArrayBuffer when it spans all of it, else a copy (a slice of Node's pool, whose
 * transfer would take the pool from everything else on it): what a task moves to a thread.
 */
export function ownedArrayBuffer (view: Uint8Array): ArrayBuffer {
  if (view.byteOffset === 0 && view.byteLength === view.buffer.byteLength && view.buffer instanceof ArrayBuffer) {
    return view.buffer
  }
  const copy = new ArrayBuffer(view.byteLength)
  new Uint8Array(copy).set(view)
  return copy
}
