import { LodeError, fromLodeErrorData } from '@lode/core.error'
import { ACCEPT_ABBREVIATED, ACCEPT_FULL, redactUrl } from '@lode/resolving.registry-client'
import type { RegistryClient } from '@lode/resolving.registry-client'

import { fromStored, isSent, metadataCachePath, readCacheFile, touchCachedMetadata, writeStoredMetadata } from './metadata-cache.js'
import type { CachedMetadata, SentMetadata, StoredMetadata } from './metadata-cache.js'
import { listingFromBody, listingOf, listingOfStored } from './packument-listing.js'
import type { PackumentListing, SentDocument } from './packument-listing.js'
import { storedFromBody } from './packument-task.js'
import type { PackumentProcessor, PackumentTask } from './packument-task.js'
import type { Packument } from './packument.js'
import { encodeName } from './registries.js'

export interface MetadataSourceOptions {
  client: RegistryClient
  cacheDir: string
  /** Cache only: a package missing from the cache is `ERR_LODE_NO_OFFLINE_META`. */
  offline: boolean
  /** Use a cached packument without asking the registry when it can answer the request. */
  preferOffline: boolean
  now: () => number
  onWarning: (message: string) => void
  /**
   * Where fetched packuments are parsed and cached (a thread of `@lode/worker.pools`); this
   * thread when not given.
   */
  packuments?: PackumentProcessor | undefined
  /**
   * The most bytes one packument may have, as sent and once decoded (lode's `packumentMaxSize`;
   * default `DEFAULT_PACKUMENT_MAX_SIZE`): past it, `ERR_LODE_FETCH_TOO_LARGE` naming the package.
   */
  packumentMaxSize?: number | undefined
}

/**
 * The default bound on one packument: 512 MiB, two and a half times the largest on the public
 * registry (full documents of 100 to 200 MB, from thousands of versions each with its readme),
 * which grow with every publish. Reading one takes about its size again (`readPackumentDocument`),
 * so a registry, or whoever answers for it, can make an install hold about 1 GiB for it at most.
 */
export const DEFAULT_PACKUMENT_MAX_SIZE = 512 * 1024 * 1024

export interface MetadataRequest {
  name: string
  registry: string
  /** The full document (with `time`) is needed, not the abbreviated one. */
  full: boolean
  /** Under prefer-offline: whether a cached packument can answer without a request. */
  canUseCached: (packument: Packument) => boolean
  /** What is asked never changes once published (a version's manifest): a cached packument that `canUseCached` answers without a request, prefer-offline or not. */
  immutable?: boolean
  /**
   * Milliseconds (the release age): a cached packument the registry vouched for within this long,
   * that `canUseCached` answers, is used without a request (pnpm's shortcut): a version published
   * since would be too young to pick anyway.
   */
  freshFor?: number | undefined
}

interface Loaded {
  entry: CachedMetadata
  /** Read from the cache without asking the registry (offline or prefer-offline). */
  unverified: boolean
}

/**
 * Packuments for one install: from memory, the MessagePack cache, or the registry (conditional
 * requests renew a cached entry on 304). Each package is read and fetched at most once per
 * install unless a fuller document is needed. Cache writes run in the background; `flush()`
 * waits for them.
 */
export class MetadataSource {
  private readonly loaded = new Map<string, Promise<Loaded>>()
  private readonly listings = new Map<string, Promise<PackumentListing>>()
  private readonly writes = new Set<Promise<void>>()
  private readonly fileWrites = new Map<string, Promise<void>>()
  private writeError: unknown

  constructor (private readonly opts: MetadataSourceOptions) {}

  async get (request: MetadataRequest): Promise<Packument> {
    const key = `${request.registry}\t${request.name}`
    const pending = this.loaded.get(key)
    if (pending !== undefined) {
      const loaded = await pending
      if (satisfies(loaded, request)) return loaded.entry.packument
    }
    // A second request for a fuller or fresher document replaces the memoized one.
    const previous = this.loaded.get(key)
    const next = (async () => await this.load(request, previous === undefined ? undefined : (await previous).entry))()
    this.loaded.set(key, next)
    return (await next).entry.packument
  }

  private async load (request: MetadataRequest, known: CachedMetadata | undefined): Promise<Loaded> {
    const file = metadataCachePath(this.opts.cacheDir, request.registry, request.name)
    const cached = known ?? this.readCached(file, request)
    if (this.opts.offline) {
      if (cached === undefined) {
        throw new LodeError('NO_OFFLINE_META', `${request.name} is not in the metadata cache, and --offline forbids asking the registry ${redactUrl(request.registry)}.`, {
          hint: `Run the install once without --offline (or with --prefer-offline) to cache ${request.name}'s metadata.`,
        })
      }
      return { entry: cached, unverified: true }
    }
    if (cached !== undefined && (cached.full || !request.full) && this.answersUnasked(request, cached)) {
      return { entry: cached, unverified: true }
    }
    // Validators only apply to the same kind of document.
    const validators = cached !== undefined && cached.full === request.full ? cached : undefined
    const url = `${request.registry}${encodeName(request.name)}`
    const processor = this.opts.packuments
    processor?.start()
    const maxSize = this.opts.packumentMaxSize ?? DEFAULT_PACKUMENT_MAX_SIZE
    const tooLargeHint = tooLargeHintOf(maxSize)
    const get = async (decode: boolean): ReturnType<RegistryClient['get']> => await this.opts.client.get(url, {
      accept: request.full ? ACCEPT_FULL : ACCEPT_ABBREVIATED,
      etag: validators?.etag,
      lastModified: validators?.etag === undefined ? validators?.lastModified : undefined,
      subject: request.name,
      decode,
      maxSize,
      tooLargeHint,
    })
    const response = await get(processor === undefined)
    // Not modified: the cached entry stands as it is (writing it again would encode the whole
    // packument for one timestamp); its file's time records the registry's answer.
    if (response.status === 304) return this.notModified(file, validators!)
    const task: PackumentTask = {
      body: response.body,
      encoding: response.encoding,
      url,
      name: request.name,
      registry: request.registry,
      maxSize,
      tooLargeHint,
      fetchedAt: this.opts.now(),
      full: request.full,
      etag: response.etag,
      lastModified: response.lastModified,
      cacheFile: file,
    }
    let stored: StoredMetadata | undefined
    if (processor !== undefined) {
      const outcome = await processor.process(task)
      if (outcome.ok) {
        stored = outcome.stored
        if (outcome.cacheWriteError !== undefined) this.writeError ??= new Error(outcome.cacheWriteError)
      } else if ('error' in outcome) {
        throw fromLodeErrorData(outcome.error)
      } else {
        // A body that would not decode: asked for again, decoded here, as the client retries one.
        const again = await get(true)
        if (again.status === 304) return this.notModified(file, validators!)
        Object.assign(task, { body: again.body, encoding: undefined, etag: again.etag, lastModified: again.lastModified })
      }
    }
    if (stored === undefined) {
      stored = storedFromBody(task)
      this.write(file, stored)
    }
    return { entry: fromStored(file, stored), unverified: false }
  }

  /**
   * What a lockfile check reads of `name`'s abbreviated document (`PackumentListing`), asked for
   * (conditionally) whatever the cache holds. A document fetched for it is cached as sent, not
   * parsed for resolution: resolution does that when it first reads it, if it ever does.
   */
  async listing (request: { name: string, registry: string }): Promise<PackumentListing> {
    const key = `${request.registry}\t${request.name}`
    let pending = this.listings.get(key)
    if (pending === undefined) {
      pending = this.loadListing(request)
      this.listings.set(key, pending)
    }
    return await pending
  }

  private async loadListing (request: { name: string, registry: string }): Promise<PackumentListing> {
    const asked: MetadataRequest = { ...request, full: false, canUseCached: () => true }
    const loaded = this.loaded.get(`${request.registry}\t${request.name}`)
    if (loaded !== undefined) return listingOf((await loaded).entry.packument)
    const file = metadataCachePath(this.opts.cacheDir, request.registry, request.name)
    const cached = readCacheFile(file, this.opts.onWarning)?.stored
    const listed = (entry: StoredMetadata | SentMetadata): PackumentListing =>
      isSent(entry) ? listingOfStored(entry.listing, request.name, request.registry) : listingOf(fromStored(file, entry).packument)
    if (this.opts.offline) return cached === undefined ? listingOf(await this.get(asked)) : listed(cached)
    const document = this.sentDocument(request)
    const validators = cached !== undefined && !cached.full ? cached : undefined
    const response = await this.opts.client.get(document.url, {
      accept: ACCEPT_ABBREVIATED,
      etag: validators?.etag,
      lastModified: validators?.etag === undefined ? validators?.lastModified : undefined,
      subject: request.name,
      decode: false,
      maxSize: document.maxSize,
      tooLargeHint: document.tooLargeHint,
    })
    if (response.status === 304) {
      this.background(file, () => { touchCachedMetadata(file, this.opts.now()) })
      return listed(validators!)
    }
    let listing
    try {
      listing = listingFromBody({ ...document, body: response.body, encoding: response.encoding })
    } catch (err) {
      if (err instanceof LodeError) throw err
      // A body that would not decode (damaged on the way): fetched again the way resolution fetches.
      listing = undefined
    }
    // A document too large to read whole, or one to fetch again: read as resolution reads it (and cached so).
    if (listing === undefined) return listingOf(await this.get({ ...asked, canUseCached: () => false }))
    const stored: SentMetadata = { sent: response.body, fetchedAt: this.opts.now(), full: false, listing }
    if (response.encoding !== undefined) stored.encoding = response.encoding
    if (response.etag !== undefined) stored.etag = response.etag
    if (response.lastModified !== undefined) stored.lastModified = response.lastModified
    this.write(file, stored)
    return listingOfStored(listing, request.name, request.registry)
  }

  private sentDocument (request: { name: string, registry: string }): SentDocument {
    const maxSize = this.opts.packumentMaxSize ?? DEFAULT_PACKUMENT_MAX_SIZE
    return { body: new Uint8Array(0), encoding: undefined, url: `${request.registry}${encodeName(request.name)}`, name: request.name, registry: request.registry, maxSize, tooLargeHint: tooLargeHintOf(maxSize) }
  }

  /**
   * The cache file's entry for `request`; one a lockfile check cached as sent is parsed now, and
   * cached parsed (so it is parsed once). Damaged content is reported and read as none.
   */
  private readCached (file: string, request: MetadataRequest): CachedMetadata | undefined {
    const read = readCacheFile(file, this.opts.onWarning)
    if (read === undefined) return undefined
    if (!isSent(read.stored)) return fromStored(file, read.stored, read.validatedAt)
    const { sent, encoding, fetchedAt, full, etag, lastModified } = read.stored
    let stored: StoredMetadata
    try {
      stored = storedFromBody({ ...this.sentDocument(request), body: sent, encoding, fetchedAt, full, etag, lastModified })
    } catch (err) {
      this.opts.onWarning(`The cached metadata in ${file} is damaged (${(err as Error).message}). It will be fetched again.`)
      return undefined
    }
    // Its file's time stays when the registry last vouched for it.
    this.background(file, () => { writeStoredMetadata(file, stored, read.validatedAt) })
    return fromStored(file, stored, read.validatedAt)
  }

  /** Whether `cached` answers `request` without asking the registry: prefer-offline, an immutable ask, or a document fresher than `freshFor`. */
  private answersUnasked (request: MetadataRequest, cached: CachedMetadata): boolean {
    // A document from the future (a clock set back, a file's time set ahead) is not fresh.
    const age = this.opts.now() - cached.validatedAt
    const unasked = this.opts.preferOffline || request.immutable === true ||
      (request.freshFor !== undefined && age >= 0 && age < request.freshFor)
    return unasked && request.canUseCached(cached.packument)
  }

  private notModified (file: string, cached: CachedMetadata): Loaded {
    const now = this.opts.now()
    this.background(file, () => { touchCachedMetadata(file, now) })
    return { entry: { ...cached, validatedAt: now }, unverified: false }
  }

  private write (file: string, stored: StoredMetadata | SentMetadata): void {
    this.background(file, () => { writeStoredMetadata(file, stored) })
  }

  /** A cache write, after the ones before it to the same file (a parsed entry written back must not land after a newer answer). */
  private background (file: string, work: () => void): void {
    const write = (this.fileWrites.get(file) ?? Promise.resolve())
      .then(work)
      .catch((err: unknown) => { this.writeError ??= err })
      .finally(() => {
        this.writes.delete(write)
        if (this.fileWrites.get(file) === write) this.fileWrites.delete(file)
      })
    this.writes.add(write)
    this.fileWrites.set(file, write)
  }

  /** Waits for the cache writes; a failed write is reported once, as a warning (the cache is optional). */
  async flush (): Promise<void> {
    while (this.writes.size > 0) await Promise.all(this.writes)
    if (this.writeError !== undefined) {
      this.opts.onWarning(`Could not write the metadata cache in ${this.opts.cacheDir}: ${(this.writeError as Error).message}`)
      this.writeError = undefined
    }
  }
}

function tooLargeHintOf (maxSize: number): string {
  return `lode reads a package's metadata (its packument) of up to packumentMaxSize bytes (${maxSize} now): a larger one is most likely a broken or hostile registry. ` +
    'If the package is real and its metadata that large, raise packumentMaxSize in pnpm-workspace.yaml.'
}

function satisfies (loaded: Loaded, request: MetadataRequest): boolean {
  if (request.full && !loaded.entry.full) return false
  return !loaded.unverified || request.canUseCached(loaded.entry.packument)
}
