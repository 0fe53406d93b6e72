import { decodeBody } from '@lode/resolving.registry-client'

import type { StoredListing } from './metadata-cache.js'
import { PIECEWISE_PARSE_SIZE } from './packument-task.js'
import type { PackumentTask } from './packument-task.js'
import { notAPackageDocument, notValidJson, publishedDist } from './packument.js'
import type { Packument } from './packument.js'
import { registryTarballUrl } from './registries.js'

/**
 * What a lockfile check reads of an abbreviated document: when the package was last modified, and
 * the versions it lists with their tarballs. Read from a document without trimming and encoding
 * it for resolution (most of a fetched document's cost): the check of a lockfile with a cold cache
 * reads a thousand of them and uses two fields of each.
 */
export interface PackumentListing {
  modified: string | undefined
  /** A listed version's tarball URL; undefined for a version the document does not list (or lists without a tarball and integrity, as trimPackument drops it). */
  tarballOf: (version: string) => string | undefined
}

/** The listing of a parsed (trimmed) packument. */
export function listingOf (packument: Packument): PackumentListing {
  return { modified: packument.modified, tarballOf: (version) => packument.versions.get(version)?.dist.tarball }
}

/** The listing of `name` that the cache kept, for the document `registry` sent. */
export function listingOfStored (stored: StoredListing, name: string, registry: string): PackumentListing {
  const listed = new Set(stored.versions)
  // Maps: a version named `__proto__` is a key like any other.
  const others = new Map(stored.otherTarballs)
  return {
    modified: stored.modified,
    tarballOf: (version) => listed.has(version) ? others.get(version) ?? registryTarballUrl(registry, name, version) : undefined,
  }
}

/** A document as the registry sent it, with what reading it needs (a packument task's fields). */
export type SentDocument = Pick<PackumentTask, 'body' | 'encoding' | 'url' | 'name' | 'registry' | 'maxSize' | 'tooLargeHint'>

/**
 * The listing of a document as sent (decoded here; zlib's error for damaged data, LodeErrors for
 * the rest, as `storedFromBody` throws them), as the cache keeps it; undefined for a document of
 * `PIECEWISE_PARSE_SIZE` or more, which is read the way resolution reads it (piece by piece,
 * within its size in memory).
 */
export function listingFromBody (sent: SentDocument): StoredListing | undefined {
  const body = decodeBody(Buffer.from(sent.body.buffer, sent.body.byteOffset, sent.body.byteLength), sent.encoding, {
    url: sent.url, subject: sent.name, maxSize: sent.maxSize, tooLargeHint: sent.tooLargeHint,
  })
  if (body.length >= PIECEWISE_PARSE_SIZE) return undefined
  let doc: unknown
  try {
    doc = JSON.parse(body.toString('utf8'))
  } catch (err) {
    throw notValidJson(sent.name, sent.registry, err)
  }
  if (!isObject(doc) || !isObject(doc['versions'])) throw notAPackageDocument(sent.name, sent.registry)
  const listing: StoredListing = { versions: [] }
  for (const [version, raw] of Object.entries(doc['versions'])) {
    const dist = publishedDist(raw)
    if (dist === undefined) continue
    listing.versions.push(version)
    if (dist.tarball !== registryTarballUrl(sent.registry, sent.name, version)) (listing.otherTarballs ??= []).push([version, dist.tarball])
  }
  if (typeof doc['modified'] === 'string') listing.modified = doc['modified']
  return listing
}

function isObject (value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}
