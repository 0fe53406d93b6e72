import path from 'node:path'
import { constants as zlibConstants, createGunzip, gunzipSync } from 'node:zlib'

import { LodeError, fileSystemError, toLodeErrorData } from '@lode/core.error'
import type { LodeErrorData } from '@lode/core.error'
import { PLACEHOLDER_PACKAGE_JSON, createCasWriter, packFiles } from '@lode/store.cafs'
import type { CasFileInfo, CasWriter } from '@lode/store.cafs'
import { createPackageFilesIndex, encodeRow, identityOf } from '@lode/store.index/row'
import ssri from 'ssri'
import { extract as tarExtract } from 'tar-stream'
import type { Extract } from 'tar-stream'

import { DEFAULT_EXTRACT_LIMITS } from './limits.js'
import type { ExtractLimits } from './limits.js'
import { readTar } from './tar.js'

/** A tarball to add to the store. Runs in a store-pool thread (see `@lode/worker.pools`). */
export interface ExtractTask {
  /** The downloaded tarball; moved to the thread (transferList), not copied. */
  tarball: ArrayBuffer
  /** The expected integrity (`sha512-…`), checked before anything is written. */
  integrity: string
  storeDir: string
  /** `name@version`, for error messages. */
  pkgId: string
  /** What one tarball may unpack to; each one left out is its `DEFAULT_EXTRACT_LIMITS` value. */
  limits?: Partial<ExtractLimits>
}

/**
 * What the main thread needs of an extracted package, in the forms it passes on as they are:
 * cloning a Map of a few hundred file records, then encoding it there, cost the main thread more
 * than the thread's encoding does.
 */
export interface ExtractedPackage {
  /** The package's store index row (`createPackageFilesIndex`), encoded (`encodeRow`): what the index stores. */
  row: Uint8Array
  /** Its files as a link task carries them (`packFiles`). */
  files: string
  /** The row's `requiresBuild`: an install script, a binding.gyp, or .hooks/. */
  requiresBuild: boolean
  /** The sum of the files' sizes. */
  unpackedSize: number
  /** The name its package.json gives, if a string: the caller checks it is the package it asked for. */
  name?: string
  /** The version its package.json gives, as it is, if a string. */
  version?: string
}

/** Errors cross the thread boundary as data; the pool turns them back into LodeErrors. */
export type ExtractResult = { ok: true, value: ExtractedPackage } | { ok: false, error: LodeErrorData }

// One CAS writer per store per thread: it remembers the files it already wrote.
const casWriters = new Map<string, CasWriter>()

/**
 * The store pool's task: integrity check → gunzip → tar → each file hashed and written to the
 * CAS → the package's file index and manifest. Never throws for bad input or a store it cannot
 * write; returns the error.
 * Its memory is bounded whatever the tarball: one that inflates to more than `ONE_GO_MAX_SIZE` is
 * inflated and read as a stream, and its large files streamed to the CAS.
 */
export async function extract (task: ExtractTask): Promise<ExtractResult> {
  try {
    return { ok: true, value: await extractTarball(task) }
  } catch (err) {
    return { ok: false, error: threadErrorData(err) }
  }
}

/**
 * An error as it leaves the thread: a `LodeError`, or a file-system error the machine causes (a
 * full disk, a read-only store: `fileSystemError`'s `ERR_LODE_ENOSPC`, …), as data. Thrown, piscina
 * would send a copy with only its message and stack: the main thread would see neither its code nor
 * its path. Anything else is a bug, thrown as it is.
 */
function threadErrorData (err: unknown): LodeErrorData {
  const coded = err instanceof LodeError ? err : fileSystemError(err)
  if (coded === undefined) throw err
  return toLodeErrorData(coded)
}

/**
 * Several tarballs in one task, one after the other: the store pool sends what queued up while its
 * threads were busy as one message, and gets one back. A result each, in order.
 */
export async function extractBatch (tasks: readonly ExtractTask[]): Promise<ExtractResult[]> {
  const results: ExtractResult[] = []
  for (const task of tasks) results.push(await extract(task))
  return results
}

/**
 * The store pool's other task: the index's checkpoint (`checkpointStoreIndex`), once the install's
 * rows are committed. The SQLite module loads only for it. It never throws: the main thread's
 * connection checkpoints on close whatever happens here.
 */
export async function checkpointIndex (task: { storeDir: string }): Promise<boolean> {
  try {
    const { checkpointStoreIndex } = await import('@lode/store.index')
    checkpointStoreIndex(task.storeDir)
    return true
  } catch {
    return false
  }
}

async function extractTarball (task: ExtractTask): Promise<ExtractedPackage> {
  const { tarball, integrity, storeDir, pkgId } = task
  // `??`, not a spread: a limit sent as undefined still gets its default.
  const limits: ExtractLimits = {
    maxSize: task.limits?.maxSize ?? DEFAULT_EXTRACT_LIMITS.maxSize,
    maxFiles: task.limits?.maxFiles ?? DEFAULT_EXTRACT_LIMITS.maxFiles,
    maxPathLength: task.limits?.maxPathLength ?? DEFAULT_EXTRACT_LIMITS.maxPathLength,
  }
  const data = Buffer.from(tarball)
  checkIntegrity(data, integrity, pkgId)
  checkGzip(data, pkgId)
  let cas = casWriters.get(storeDir)
  if (cas === undefined) {
    // The worker entry is lode's clock boundary for `checkedAt`, as the CLI is for the rest.
    cas = createCasWriter(storeDir, { now: Date.now })
    casWriters.set(storeDir, cas)
  }
  const tarData = inflateSmall(data, limits.maxSize, pkgId)
  const files = new Map<string, CasFileInfo>()
  let manifestContent: Buffer | undefined
  let unpackedSize = 0
  const add = (file: BufferedTarFile): void => {
    const info = cas.addFile(file.content, file.mode)
    if (file.name === 'package.json') manifestContent = file.content
    files.set(file.name, info)
    unpackedSize += info.size
  }
  if (tarData !== undefined) {
    // Almost every tarball: its files are views of the inflated data, added one after the other.
    for (const file of tarFiles(tarData, pkgId, limits)) add(file)
  } else {
    for await (const file of streamedTarFiles(data, pkgId, limits)) {
      if ('content' in file) {
        add(file)
        continue
      }
      // Never package.json: streamedTarFiles gives it whole.
      const info = await addStreamed(cas, file)
      files.set(file.name, info)
      unpackedSize += info.size
    }
  }
  if (manifestContent === undefined) {
    files.set('package.json', cas.addFile(PLACEHOLDER_PACKAGE_JSON, 0o644))
  }
  checkPathConflicts(files.keys(), pkgId)
  const manifest = manifestContent === undefined ? undefined : parseManifest(manifestContent, pkgId)
  const row = createPackageFilesIndex(files, manifest)
  return { row: encodeRow(row), files: packFiles(files), requiresBuild: row.requiresBuild === true, unpackedSize, ...identityOf(manifest) }
}

async function addStreamed (cas: CasWriter, file: StreamedTarFile): Promise<CasFileInfo> {
  const out = cas.openFile(file.mode)
  try {
    for await (const chunk of file.chunks) out.write(chunk)
    return out.finish()
  } catch (err) {
    out.abort()
    throw err
  }
}

function checkIntegrity (data: Buffer, integrity: string, pkgId: string): void {
  // ssri.parse gives null or an empty Integrity for a string with no valid hash in it.
  const expected = ssri.parse(integrity) as ssri.Integrity | null
  if (expected === null || Object.keys(expected).length === 0) {
    throw new LodeError('INVALID_INTEGRITY', `${pkgId} has an invalid integrity "${integrity}".`,
      { hint: 'Fix or remove the integrity of this package in the lockfile.' })
  }
  if (ssri.checkData(data, integrity) === false) {
    const algorithm = expected.pickAlgorithm()
    const actual = ssri.fromData(data, { algorithms: [algorithm] }).toString()
    throw new LodeError('TARBALL_INTEGRITY',
      `The tarball of ${pkgId} does not match its integrity: expected ${integrity}, got ${actual}.`,
      { hint: 'The download was damaged or the registry changed the tarball; nothing was added to the store. Try again, and if it persists check the registry or the lockfile entry.' })
  }
}

function checkGzip (data: Buffer, pkgId: string): void {
  if (data.length < 2 || data[0] !== 0x1f || data[1] !== 0x8b) {
    throw new LodeError('TARBALL_NOT_GZIP', `The tarball of ${pkgId} is not gzip data.`,
      { hint: 'The registry served something other than a package tarball; check the registry and the package\'s tarball URL.' })
  }
}

function damagedGzip (pkgId: string, err: unknown): LodeError {
  return new LodeError('TARBALL_NOT_GZIP', `The tarball of ${pkgId} is damaged gzip data: ${(err as Error).message}.`,
    { hint: 'Try again; if it persists, the package\'s tarball on the registry is broken.', cause: err })
}

// Tarballs whose gzip trailer says at most this are inflated in one go: all of a real project of
// 1,350 packages (the largest inflates to 45 MiB). Larger ones are streamed, which costs about a
// quarter more CPU (measured on that 45 MiB package).
const ONE_GO_MAX_SIZE = 64 * 1024 * 1024

/**
 * The tar data, inflated in one go into one buffer the size the gzip trailer gives (ISIZE, the
 * uncompressed size modulo 4 GiB): zlib then neither fills 16 KiB chunks nor copies them into one
 * at the end, which cost a tenth of an extract thread's time. Undefined when the trailer says more
 * than `ONE_GO_MAX_SIZE`, or when the data inflates to more than the trailer says (the trailer is
 * the last gzip member's, written by whoever made the tarball): the caller streams it instead.
 */
function inflateSmall (data: Buffer, maxSize: number, pkgId: string): Buffer | undefined {
  if (data.length < 18) return undefined
  const size = data.readUInt32LE(data.length - 4)
  if (size === 0 || size > Math.min(ONE_GO_MAX_SIZE, maxSize)) return undefined
  try {
    // maxOutputLength: a trailer that understates cannot make this buffer grow.
    return gunzipSync(data, { chunkSize: Math.max(size + 1, zlibConstants.Z_MIN_CHUNK), maxOutputLength: size })
  } catch (err) {
    if (err instanceof RangeError && (err as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE') return undefined
    throw damagedGzip(pkgId, err)
  }
}

// The streaming path: inflated a chunk at a time, files up to this size held in memory whole,
// larger ones written to the CAS as they come.
const STREAM_CHUNK_SIZE = 64 * 1024
const BUFFERED_FILE_MAX_SIZE = 8 * 1024 * 1024
// package.json is parsed, so it is held whole whichever the path. Real ones are a few KB.
const MANIFEST_MAX_SIZE = BUFFERED_FILE_MAX_SIZE

/**
 * Inflates `gzip` into `extractor` a chunk at a time, as fast as the extractor takes it, counting
 * the bytes: past `maxSize` the extractor is destroyed with ERR_LODE_TARBALL_TOO_LARGE. Returns
 * the count so far, and a stop for when the extractor is left early.
 */
function inflateInto (extractor: Extract, gzip: Buffer, maxSize: number, pkgId: string): { inflated: () => number, stop: () => void } {
  const gunzip = createGunzip({ chunkSize: STREAM_CHUNK_SIZE })
  let inflated = 0
  gunzip.on('data', (chunk: Buffer) => {
    inflated += chunk.length
    if (inflated > maxSize) {
      gunzip.destroy()
      extractor.destroy(tooLarge(pkgId, maxSize))
    } else if (!extractor.write(chunk)) {
      gunzip.pause()
    }
  })
  extractor.on('drain', () => { gunzip.resume() })
  gunzip.on('end', () => { extractor.end(undefined) })
  gunzip.on('error', (err) => { extractor.destroy(damagedGzip(pkgId, err)) })
  gunzip.end(gzip)
  return { inflated: () => inflated, stop: () => { gunzip.destroy() } }
}

interface TarFileBase { name: string, mode: number }
interface BufferedTarFile extends TarFileBase { content: Buffer }
interface StreamedTarFile extends TarFileBase {
  /** Read it to the end (or stop reading) before asking for the next file. */
  chunks: AsyncIterable<Buffer>
}
type TarFile = BufferedTarFile | StreamedTarFile

/**
 * The regular files of an inflated tar archive, first path segment stripped (as npm does),
 * checked against `limits`, each whole (a view of `tar`). Links and other special entries are
 * skipped (as npm does); an entry that would land outside the package directory fails the whole
 * tarball.
 */
function * tarFiles (tar: Buffer, pkgId: string, limits: ExtractLimits): Generator<BufferedTarFile> {
  if (tar.length === 0) throw notTar(pkgId, 'it is empty')
  const counter = { files: 0 }
  try {
    for (const entry of readTar(tar)) {
      const file = regularFile(entry, entry.offset, pkgId, limits, counter)
      if (file !== undefined) yield { ...file, content: entry.content() }
    }
  } catch (err) {
    throw tarError(err, pkgId)
  }
}

/**
 * `tarFiles` for a tarball too large to inflate in one go: inflated a chunk at a time into
 * tar-stream, the files larger than `BUFFERED_FILE_MAX_SIZE` come as `chunks`.
 */
async function * streamedTarFiles (gzip: Buffer, pkgId: string, limits: ExtractLimits): AsyncGenerator<TarFile> {
  const extractor = tarExtract()
  const inflating = inflateInto(extractor, gzip, limits.maxSize, pkgId)
  const counter = { files: 0 }
  try {
    for await (const entry of extractor) {
      const { header } = entry
      const described = { name: header.name, mode: header.mode ?? 0o644, type: header.type ?? undefined, size: header.size ?? 0 }
      const file = regularFile(described, entry.offset, pkgId, limits, counter)
      if (file === undefined) {
        entry.resume()
        continue
      }
      // package.json is within BUFFERED_FILE_MAX_SIZE, so it always comes whole.
      if ((header.size ?? 0) <= BUFFERED_FILE_MAX_SIZE) {
        const chunks: Buffer[] = []
        for await (const chunk of entry) chunks.push(chunk as Buffer)
        yield { ...file, content: chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks) }
      } else {
        yield { ...file, chunks: entryChunks(entry, pkgId) }
      }
    }
    if (inflating.inflated() === 0) throw notTar(pkgId, 'it is empty')
  } catch (err) {
    throw tarError(err, pkgId)
  } finally {
    inflating.stop()
  }
}

/**
 * A tar entry as a file of the package (its path inside it, its mode), or undefined for an entry
 * that is skipped: not a regular file, or the package directory itself. Throws past `limits`
 * (counting files in `counter`) and for a path outside the package.
 */
function regularFile (
  entry: { name: string, mode: number, type: string | undefined, size: number },
  offset: number,
  pkgId: string,
  limits: ExtractLimits,
  counter: { files: number }
): TarFileBase | undefined {
  // The header gives the entry's size: no need to inflate a bomb to see it is one.
  if (offset + 512 + entry.size > limits.maxSize) throw tooLarge(pkgId, limits.maxSize)
  if (entry.type !== 'file' && entry.type !== 'contiguous-file') return undefined
  if (++counter.files > limits.maxFiles) throw tooManyFiles(pkgId, limits.maxFiles)
  if (Buffer.byteLength(entry.name) > limits.maxPathLength) throw pathTooLong(pkgId, entry.name, limits.maxPathLength)
  const name = packagePath(entry.name, pkgId)
  if (name === undefined) return undefined
  if (name === 'package.json' && entry.size > MANIFEST_MAX_SIZE) {
    throw badManifest(pkgId, `is larger than ${formatBytes(MANIFEST_MAX_SIZE)}`)
  }
  return { name, mode: entry.mode }
}

async function * entryChunks (entry: AsyncIterable<unknown>, pkgId: string): AsyncGenerator<Buffer> {
  try {
    for await (const chunk of entry) yield chunk as Buffer
  } catch (err) {
    throw tarError(err, pkgId)
  }
}

/** tar-stream's errors are about the archive; ours (limits, gzip) pass as they are. */
function tarError (err: unknown, pkgId: string): LodeError {
  return err instanceof LodeError ? err : notTar(pkgId, (err as Error).message)
}

/**
 * Rejects a package where one path is both a file and a directory (`a` and `a/b`): it could not
 * be linked. In an order where `/` sorts before any other character, whatever lies under `a/`
 * comes right after `a`, so comparing neighbours finds every such pair.
 */
function checkPathConflicts (paths: Iterable<string>, pkgId: string): void {
  // A path holds no \0 (packagePath rejects it), so it can stand for `/` in the sort keys.
  const keys = Array.from(paths, (p) => p.replaceAll('/', '\0')).sort()
  for (let i = 1; i < keys.length; i++) {
    const file = keys[i - 1]!
    const under = keys[i]!
    if (under.length > file.length && under.startsWith(file) && under[file.length] === '\0') {
      throw new LodeError('TARBALL_PATH_CONFLICT',
        `The tarball of ${pkgId} has a file "${file.replaceAll('\0', '/')}" and a file "${under.replaceAll('\0', '/')}" under it: a path cannot be both a file and a directory.`,
        { hint: 'The package\'s tarball is broken (or made to break installs); nothing was added to the store index. Use another version of this package.' })
    }
  }
}

// On Windows a `\` in a file's name is a separator; elsewhere it is a character like any other.
const BACKSLASH_SEPARATES = path.sep === '\\'

/**
 * The entry's path inside the package, or undefined for the package directory itself, as pnpm 11
 * reads it: the package's directory (`package/`, any name) ends at the first `/` or `\` (a tarball
 * packed on Windows); in the rest, a `\` is a separator on Windows, or in a name holding `./` or
 * `.\` (pnpm resolves those with either separator), and elsewhere part of a file's name
 * (`lib/a\b.js` is a file `a\b.js` in `lib` on POSIX, as pnpm installs it). An absolute path, or
 * one whose `..` climbs out of the package, is refused where pnpm would keep what is left inside.
 */
function packagePath (entryName: string, pkgId: string): string | undefined {
  if (entryName.startsWith('/') || /^[a-zA-Z]:/.test(entryName) || entryName.includes('\0')) {
    throw unsafePath(pkgId, entryName)
  }
  const top = entryName.search(/[/\\]/)
  if (top === -1) return undefined
  const inside = entryName.slice(top + 1)
  const unixName = BACKSLASH_SEPARATES || inside.includes('./') || inside.includes('.\\') ? inside.replaceAll('\\', '/') : inside
  if (unixName === '') return undefined
  const normalized = path.posix.normalize(unixName)
  if (normalized === '..' || normalized.startsWith('../') || normalized.startsWith('/') || /^[a-zA-Z]:/.test(normalized)) {
    throw unsafePath(pkgId, entryName)
  }
  return normalized === '.' ? undefined : normalized.replace(/\/$/, '')
}

function parseManifest (content: Buffer, pkgId: string): Record<string, unknown> {
  let manifest: unknown
  try {
    manifest = JSON.parse(content.toString('utf8').replace(/^\uFEFF/, ''))
  } catch (err) {
    throw badManifest(pkgId, `is not valid JSON: ${(err as Error).message}`)
  }
  if (typeof manifest !== 'object' || manifest === null || Array.isArray(manifest)) {
    throw badManifest(pkgId, 'is not a JSON object')
  }
  return manifest as Record<string, unknown>
}

function badManifest (pkgId: string, why: string): LodeError {
  return new LodeError('TARBALL_BAD_MANIFEST', `The package.json in the tarball of ${pkgId} ${why}.`,
    { hint: 'The package is broken on the registry; use another version of it.' })
}

// The limits' hints: a tarball past them is either a real, huge package or one made to exhaust
// the machine; only the user can tell which.
const limitHint = (setting: string): string => `Nothing was added to the store index. If you trust this package and it really is that large, raise ${setting} in pnpm-workspace.yaml; otherwise do not install this version: the tarball may be made to exhaust memory or disk.`

function tooLarge (pkgId: string, maxSize: number): LodeError {
  return new LodeError('TARBALL_TOO_LARGE', `The tarball of ${pkgId} unpacks to more than ${formatBytes(maxSize)}, the limit for one package.`,
    { hint: limitHint('tarballMaxUnpackedSize') })
}

function tooManyFiles (pkgId: string, maxFiles: number): LodeError {
  return new LodeError('TARBALL_TOO_MANY_FILES', `The tarball of ${pkgId} has more than ${maxFiles} files, the limit for one package.`,
    { hint: limitHint('tarballMaxFiles') })
}

function pathTooLong (pkgId: string, entryName: string, maxPathLength: number): LodeError {
  const shown = entryName.length > 120 ? `${entryName.slice(0, 120)}…` : entryName
  return new LodeError('TARBALL_PATH_TOO_LONG',
    `The tarball of ${pkgId} has a file whose path is longer than ${maxPathLength} bytes (${Buffer.byteLength(entryName)}): "${shown}".`,
    { hint: 'Real packages have no such paths: the tarball is broken or made to break installs. Nothing was added to the store index; use another version of this package.' })
}

function formatBytes (bytes: number): string {
  const mib = bytes / (1024 * 1024)
  return mib >= 1024 ? `${+(mib / 1024).toFixed(2)} GiB` : `${+mib.toFixed(2)} MiB`
}

function notTar (pkgId: string, why: string): LodeError {
  return new LodeError('TARBALL_NOT_TAR', `The tarball of ${pkgId} is not a valid tar archive: ${why}.`,
    { hint: 'The package\'s tarball on the registry is broken; nothing was added to the store.' })
}

function unsafePath (pkgId: string, entryName: string): LodeError {
  return new LodeError('TARBALL_UNSAFE_PATH', `The tarball of ${pkgId} has an entry outside the package directory: "${entryName}".`,
    { hint: 'The tarball may be malicious; nothing was added to the store index. Do not install this package version.' })
}
