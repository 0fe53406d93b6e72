import path from 'node:path'

import { isLodeError } from '@lode/fs.error'
import { METADATA_CACHE_DIR, METADATA_CACHE_EXT } from '@lode/fs.formats'
import { readMsgpackFile, writeMsgpackFile } from '@lode/fs.msgpack-file'

import type { Packument } from './packument.js'

/** One cached packument with what a conditional request needs. */
export interface CachedMetadata {
  packument: Packument
  etag?: string
  lastModified?: string
  /** When the registry sent this document (ms since epoch); a 304 later leaves the entry as it is. */
  fetchedAt: number
  /** The full document (with `time`) rather than the abbreviated one. */
  full: boolean
}

/** `<cacheDir>/lode-metadata-v1/<host+port/path>/<name>.mpk`; scoped names get a `@scope/` folder. */
export function metadataCachePath (cacheDir: string, registryUrl: string, name: string): string {
  const url = new URL(registryUrl)
  const registryDir = `${url.host.replace(':', '+')}${url.pathname.replace(/\/+$/, '')}`.split('/').filter(Boolean)
  return path.join(cacheDir, METADATA_CACHE_DIR, ...registryDir, `${name}${METADATA_CACHE_EXT}`)
}

function isCachedMetadata (value: unknown): value is CachedMetadata {
  if (typeof value !== 'object' || value === null) return false
  const record = value as Record<string, unknown>
  const packument = record['packument'] as Record<string, unknown> | undefined
  return typeof record['fetchedAt'] === 'number' && typeof record['full'] === 'boolean' &&
    typeof packument === 'object' && packument !== null && typeof packument['versions'] === 'object'
}

/**
 * The cached entry, or `undefined` when there is none. A damaged entry (torn by a crash, edited by
 * hand) is reported through `onDamaged` and treated as missing: the registry can always refill it.
 */
export async function readCachedMetadata (file: string, onDamaged: (message: string) => void): Promise<CachedMetadata | undefined> {
  try {
    return await readMsgpackFile<CachedMetadata>(file, { validate: isCachedMetadata })
  } catch (err) {
    if (!isLodeError(err)) throw err
    onDamaged(`${err.message} It will be fetched again.`)
    return undefined
  }
}

export async function writeCachedMetadata (file: string, entry: CachedMetadata): Promise<void> {
  await writeMsgpackFile(file, entry)
}
