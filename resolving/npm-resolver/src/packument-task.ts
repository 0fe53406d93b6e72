import { LodeError } from '@lode/core.error'
import type { LodeErrorData } from '@lode/core.error'
import { decodeBody, redactUrl } from '@lode/resolving.registry-client'

import { toStored } from './metadata-cache.js'
import type { StoredMetadata } from './metadata-cache.js'
import { trimPackument } from './packument.js'

/**
 * A packument as the registry sent it (still content-encoded), to be decoded, parsed, cut down to
 * what resolution reads and encoded as the metadata cache stores it. The work of a metadata thread
 * (`@lode/worker.metadata`), so that the main thread only decodes the versions it picks.
 */
export interface PackumentTask {
  body: Uint8Array
  /** The body's `content-encoding`. */
  encoding: string | undefined
  url: string
  name: string
  registry: string
  /** The bound on the decoded body (`ERR_LODE_FETCH_TOO_LARGE` past it). */
  maxSize: number
  /** The cache entry's other fields. */
  fetchedAt: number
  full: boolean
  etag: string | undefined
  lastModified: string | undefined
  /** Where the entry is cached. */
  cacheFile: string
}

/**
 * What became of a task: the entry (and the reason its cache write failed, if it did); a coded
 * error; or `damaged`, a body that would not decode, which the client would have fetched again
 * (the caller does).
 */
export type PackumentOutcome =
  | { ok: true, stored: StoredMetadata, cacheWriteError?: string }
  | { ok: false, error: LodeErrorData }
  | { ok: false, damaged: string }

/** Where packument tasks run; without one, `MetadataSource` runs them on its own thread. */
export interface PackumentProcessor {
  /** A request for a packument is under way: a thread boots meanwhile. */
  start: () => void
  /** May move `task.body` to another thread: the caller does not read it after. */
  process: (task: PackumentTask) => Promise<PackumentOutcome>
}

/** Decodes, parses and trims a task's body into the entry the cache stores. Throws LodeErrors, and zlib's for damaged data. */
export function storedFromBody (task: Omit<PackumentTask, 'cacheFile'>): StoredMetadata {
  const body = decodeBody(Buffer.from(task.body.buffer, task.body.byteOffset, task.body.byteLength), task.encoding, {
    url: task.url, subject: task.name, maxSize: task.maxSize,
  })
  let doc: unknown
  try {
    doc = JSON.parse(body.toString('utf8'))
  } catch (err) {
    throw new LodeError('BAD_PACKUMENT', `The registry ${redactUrl(task.registry)} sent metadata for ${task.name} that is not valid JSON.`, { cause: err })
  }
  const stored = toStored({ packument: trimPackument(task.name, task.registry, doc), fetchedAt: task.fetchedAt, full: task.full })
  if (task.etag !== undefined) stored.etag = task.etag
  if (task.lastModified !== undefined) stored.lastModified = task.lastModified
  return stored
}
