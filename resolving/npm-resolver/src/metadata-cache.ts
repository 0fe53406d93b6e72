import fs from 'node:fs'
import path from 'node:path'

import { METADATA_CACHE_DIR, METADATA_CACHE_EXT } from '@lode/core.constants'
import { LodeError, hasErrno, isLodeError } from '@lode/core.error'
import { isValidPackageName, joinInside } from '@lode/core.safe-name'
import { decodeMsgpackPart, readMsgpackFileSync, writeMsgpackFileSync } from '@lode/fs.msgpack-file'

import type { Packument } from './packument.js'
import type { PackageMeta } from './types.js'
import { PackageVersions } from './versions.js'
import type { EncodedVersions } from './versions.js'

/** One cached packument with what a conditional request needs. */
export interface CachedMetadata {
  packument: Packument
  etag?: string
  lastModified?: string
  /** When the registry sent this document (ms since epoch); a 304 later leaves the entry as it is. */
  fetchedAt: number
  /** The full document (with `time`) rather than the abbreviated one. */
  full: boolean
  /**
   * When the registry last vouched for this document (ms since epoch): the cache file's time, which
   * a 304 renews (`touchCachedMetadata`) without writing the document again. Not stored in the file.
   */
  validatedAt: number
}

/** A cache entry as its file holds it: the versions each encoded on their own (`EncodedVersions`). */
export interface StoredMetadata extends Omit<CachedMetadata, 'packument' | 'validatedAt'> {
  packument: Omit<Packument, 'versions'> & { versions: EncodedVersions }
}

/**
 * A document cached as the registry sent it (still content-encoded), not parsed yet: what a
 * lockfile check leaves, which reads only when a package was last modified and which versions it
 * lists. Resolution parses it when it first reads it (and caches it as `StoredMetadata` then).
 */
export interface SentMetadata extends Omit<CachedMetadata, 'packument' | 'validatedAt'> {
  sent: Uint8Array
  /** The body's `content-encoding`. */
  encoding?: string
  /** What the check read of it, kept so that the next check reads no more than this. */
  listing: StoredListing
}

/**
 * A listing as the cache keeps it beside the document as sent: the listed versions, and the
 * tarballs of those not at the registry's usual place (`registryTarballUrl`), which are few.
 */
export interface StoredListing {
  modified?: string
  versions: string[]
  otherTarballs?: Array<[string, string]>
}

/** What a cache file holds, and when the registry last vouched for it (the file's time). */
export interface CacheFileEntry {
  stored: StoredMetadata | SentMetadata
  validatedAt: number
}

/** `<cacheDir>/lode-metadata-v4/<host+port/path>/<name>.mpk`; scoped names get a `@scope/` folder. */
export function metadataCachePath (cacheDir: string, registryUrl: string, name: string): string {
  if (!isValidPackageName(name)) {
    throw new LodeError('INVALID_DEPENDENCY_NAME', `"${name}" is not a valid package name: lode neither asks the registry for it nor caches it.`, {
      hint: 'A package name is `name` or `@scope/name`, of URL-friendly characters, not starting with ".", "_" or "-".',
    })
  }
  const url = new URL(registryUrl)
  const registryDir = `${url.host.replace(':', '+')}${url.pathname.replace(/\/+$/, '')}`
  // The URL parser has already resolved `..` segments; checked again, so no registry URL can name a file outside the cache.
  const file = joinInside(path.join(cacheDir, METADATA_CACHE_DIR), `${registryDir}/${name}${METADATA_CACHE_EXT}`)
  if (file === undefined) throw new LodeError('INVALID_REGISTRY', `The registry URL ${url.origin}${url.pathname} cannot name a metadata cache directory.`, { hint: 'Check the registry setting in .npmrc.' })
  return file
}

/** Whether a cache file's value is a `StoredListing` (what a file holds is checked before it is used). */
function isStoredListing (value: Record<string, unknown>): boolean {
  const { modified, versions, otherTarballs } = value
  return (modified === undefined || typeof modified === 'string') &&
    Array.isArray(versions) && versions.every((version) => typeof version === 'string') &&
    (otherTarballs === undefined || (Array.isArray(otherTarballs) && otherTarballs.every((pair) =>
      Array.isArray(pair) && pair.length === 2 && typeof pair[0] === 'string' && typeof pair[1] === 'string')))
}

function isCacheFileValue (value: unknown): value is StoredMetadata | SentMetadata {
  if (typeof value !== 'object' || value === null) return false
  const record = value as Record<string, unknown>
  if (typeof record['fetchedAt'] !== 'number' || typeof record['full'] !== 'boolean') return false
  if (record['sent'] !== undefined) {
    return record['sent'] instanceof Uint8Array && (record['encoding'] === undefined || typeof record['encoding'] === 'string') &&
      typeof record['listing'] === 'object' && record['listing'] !== null && isStoredListing(record['listing'] as Record<string, unknown>)
  }
  const packument = record['packument'] as Record<string, unknown> | undefined
  if (typeof packument !== 'object' || packument === null) return false
  const versions = packument['versions'] as Record<string, unknown> | undefined
  return typeof versions === 'object' && versions !== null && Array.isArray(versions['names']) && Array.isArray(versions['ends']) &&
    versions['names'].length === versions['ends'].length && versions['data'] instanceof Uint8Array &&
    (versions['ends'].at(-1) ?? 0) === versions['data'].length && Array.isArray(versions['deprecated'])
}

/**
 * What the cache file holds, or `undefined` when there is none. A damaged entry (torn by a crash,
 * edited by hand) is reported through `onDamaged` and treated as missing: the registry can always
 * refill it. Read blocking (see `readMsgpackFileSync`): a resolution reads hundreds in a row.
 */
export function readCacheFile (file: string, onDamaged: (message: string) => void): CacheFileEntry | undefined {
  try {
    const read = readMsgpackFileSync(file, { validate: isCacheFileValue })
    // A file's time can be set by anyone who can write it, as its content can: it is trusted as the content is.
    return read === undefined ? undefined : { stored: read.value, validatedAt: read.mtimeMs }
  } catch (err) {
    // Damaged content is refetched; a directory in the file's place or a permission error is the user's to fix.
    if (!isLodeError(err, 'ERR_LODE_MSGPACK_FILE_CORRUPTED') && !isLodeError(err, 'ERR_LODE_MSGPACK_FILE_TRUNCATED')) throw err
    onDamaged(`${err.message} It will be fetched again.`)
    return undefined
  }
}

export function isSent (stored: StoredMetadata | SentMetadata): stored is SentMetadata {
  return 'sent' in stored
}

/** The entry of a stored one: its versions decoded when first read (`file` names them in errors). */
export function fromStored (file: string, stored: StoredMetadata, validatedAt = stored.fetchedAt): CachedMetadata {
  const versions = PackageVersions.decode(stored.packument.versions, (bytes) => decodeMsgpackPart(file, bytes) as PackageMeta)
  return { ...stored, packument: { ...stored.packument, versions }, validatedAt }
}

/** Records that the registry answered 304 for the cached document at `now`: the file's time, not its content. */
export function touchCachedMetadata (file: string, now: number): void {
  const time = new Date(now)
  try {
    fs.utimesSync(file, time, time)
  } catch (err) {
    // The entry came from memory and its file is gone (a cache cleaned meanwhile): nothing to renew.
    if (!hasErrno(err, 'ENOENT')) throw err
  }
}

/**
 * Writes a cache entry; with `validatedAt`, the file keeps that time (an entry written again in
 * another form, not fetched again). Blocking, as the reads are: an install writes hundreds.
 */
export function writeStoredMetadata (file: string, stored: StoredMetadata | SentMetadata, validatedAt?: number): void {
  writeMsgpackFileSync(file, stored)
  if (validatedAt !== undefined) touchCachedMetadata(file, validatedAt)
}
