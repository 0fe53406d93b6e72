import type { LodeErrorData } from '@lode/core.error'
import { encodeMsgpackPart } from '@lode/fs.msgpack-file'
import { decodeBody } from '@lode/resolving.registry-client'

import type { StoredMetadata } from './metadata-cache.js'
import { readPackumentDocument } from './packument-json.js'
import { notAPackageDocument, notValidJson, packumentDocument, trimDocument } from './packument.js'
import type { PackumentDocument } from './packument.js'
import { PackageVersions } from './versions.js'

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
  /** The bound on the decoded body (`ERR_LODE_FETCH_TOO_LARGE` past it, with this hint). */
  maxSize: number
  tooLargeHint?: string | undefined
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

/**
 * From this size a document is read piece by piece (`readPackumentDocument`): its memory stays
 * within about its own size however large it is. Below it, JSON.parse whole is quicker (what an
 * install-v1 document holds is mostly kept) and costs at most a few times this.
 */
export const PIECEWISE_PARSE_SIZE = 8 * 1024 * 1024

/**
 * Decodes, parses and trims a task's body into the entry the cache stores, each version encoded as
 * it is trimmed. The task's body is taken (`task.body` is empty after) and its memory given back as
 * soon as it is read: a large one is detached, the body as sent once decoded, the decoded one once
 * trimmed. Throws LodeErrors, and zlib's for damaged data.
 */
export function storedFromBody (task: Omit<PackumentTask, 'cacheFile'>): StoredMetadata {
  const body = takeDecodedBody(task)
  let packument: StoredMetadata['packument']
  try {
    const doc = body.length < PIECEWISE_PARSE_SIZE ? packumentDocument(JSON.parse(body.toString('utf8'))) : readPackumentDocument(body)
    if (doc === undefined) throw notAPackageDocument(task.name, task.registry)
    // A document read piece by piece is parsed as its versions are reached: its errors come from here too.
    const capacity = encodedBound(task.name, doc)
    packument = trimDocument(task.name, doc, (versions) => PackageVersions.encodeEntries(versions, encodeMsgpackPart, capacity))
    release(body)
  } catch (err) {
    if (!(err instanceof SyntaxError) && (err as NodeJS.ErrnoException).code !== 'ERR_STRING_TOO_LONG') throw err
    throw notValidJson(task.name, task.registry, err)
  }
  // The cache file's key order (its records are keyed by it): packument, fetchedAt, full, etag, lastModified.
  const stored: StoredMetadata = { packument, fetchedAt: task.fetchedAt, full: task.full }
  if (task.etag !== undefined) stored.etag = task.etag
  if (task.lastModified !== undefined) stored.lastModified = task.lastModified
  return stored
}

/**
 * A bound on the encodings of a document's versions, when read from bytes (past it they are kept
 * apart as for a small one): a string kept encodes to at most its JSON's bytes, 3 more for one of
 * 64 KiB or more (a 5-byte header for 2 quotes); the keys and the name each version is given, less
 * than 96 bytes more than the package's name.
 */
function encodedBound (name: string, doc: PackumentDocument): number | undefined {
  const size = doc.versionsSize
  return size === undefined ? undefined : size.bytes + Math.ceil(size.bytes / 16384) + size.members * (name.length + 96)
}

function takeDecodedBody (task: Omit<PackumentTask, 'cacheFile'>): Buffer {
  const sent = Buffer.from(task.body.buffer, task.body.byteOffset, task.body.byteLength)
  task.body = new Uint8Array(0)
  const decoded = decodeBody(sent, task.encoding, {
    url: task.url, subject: task.name, maxSize: task.maxSize, tooLargeHint: task.tooLargeHint,
  })
  if (decoded.buffer !== sent.buffer) release(sent)
  return decoded
}

/** A body is released from this size: smaller ones may share their memory (Node's pool) and cost little. */
const RELEASED_SIZE = 1024 * 1024

/**
 * Frees a large body's memory now, not at the next garbage collection: detached, its memory goes
 * at once (the cache entry's encoding, as large for a packument of little but dependencies, would
 * otherwise be made beside it). Only memory of its own: Node's pool is shared, and never this large.
 */
function release (body: Buffer): void {
  if (body.buffer instanceof ArrayBuffer && body.buffer.byteLength >= RELEASED_SIZE) body.buffer.transfer(0)
}
