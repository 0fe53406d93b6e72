import fs from 'node:fs'
import { createRequire } from 'node:module'
import path from 'node:path'

import { STORE_INDEX_FILE } from '@lode/core.constants'
import { LodeError } from '@lode/core.error'
import { storePath } from '@lode/store.cafs'
import Database from 'better-sqlite3'

import { decodeRow, encodeRow } from './row.js'
import type { PackageFilesIndex } from './row.js'
import { readStoredFiles } from './stored-files.js'
import type { StoredFiles } from './stored-files.js'

/** better-sqlite3 loads its addon on the first `new Database`: a missing file or one built for another Node. */
function isAddonLoadError (err: unknown): boolean {
  const { code, message } = err as NodeJS.ErrnoException
  return code === 'ERR_DLOPEN_FAILED' || (code === 'MODULE_NOT_FOUND' && /\.node\b/.test(message ?? '')) || /NODE_MODULE_VERSION/.test(message ?? '')
}

function addonError (err: unknown): LodeError {
  const dir = path.dirname(createRequire(import.meta.url).resolve('better-sqlite3/package.json'))
  return new LodeError('SQLITE_ADDON_UNAVAILABLE',
    `better-sqlite3's native addon (the store index's SQLite) cannot be loaded on Node.js ${process.versions.node} ` +
    `(${process.platform}-${process.arch}): ${(err as Error).message.split('\n')[0]}`, {
      hint: 'better-sqlite3 ships prebuilt addons for Linux (glibc and musl), macOS and Windows on x64 and arm64. Elsewhere, or if ' +
        `that one does not load, build it from source (Python 3 and a C++ compiler): cd ${dir} && npx node-gyp rebuild --release`,
      cause: err,
    })
}

/** pnpm's key: `<integrity>\t<name>@<version>`. */
export function storeIndexKey (integrity: string, pkgId: string): string {
  return `${integrity}\t${pkgId}`
}

/** The key pnpm gives a git package (and a tarball without an integrity): its id and whether its build may have run. */
export function gitIndexKey (id: string, built: boolean): string {
  return `${id}\t${built ? 'built' : 'not-built'}`
}

const BUSY_TIMEOUT_MS = 5000
const BUSY_RETRY_DELAY_MS = 50
const BUSY_RETRIES = 100
const sleepCell = new Int32Array(new SharedArrayBuffer(4))

export interface StoreIndexOptions {
  /** Queued rows are committed once this many are waiting (and at the end of each tick). */
  batchSize?: number
  /** better-sqlite3's `nativeBinding`: the addon file to load instead of the one it finds (tests). */
  nativeBinding?: string
}

interface QueuedRow { key: string, data: Buffer }

/**
 * The store index `<store>/v11/index.db`: pnpm's schema, key format and row format, through one
 * better-sqlite3 connection opened once per install (an install session owns it and closes it).
 *
 * Writes are queued and committed together, in one `BEGIN IMMEDIATE` transaction per batch.
 * Several processes may write one store: SQLite's busy timeout waits for the other writer, and
 * a transaction that still meets SQLITE_BUSY is retried.
 */
export class StoreIndex {
  readonly file: string
  private readonly db: Database.Database
  private readonly stmtGet: Database.Statement<[string], { data: Buffer }>
  private readonly stmtHas: Database.Statement<[string], { found: number }>
  private readonly stmtGetMany: Database.Statement<[string], { key: string, data: Buffer }>
  private readonly stmtSet: Database.Statement<[string, Buffer]>
  private readonly writeBatch: Database.Transaction<(rows: QueuedRow[]) => void>
  private readonly batchSize: number
  private queue: QueuedRow[] = []
  private flushScheduled = false
  /** The error of a commit run at the end of a tick, for the next caller that commits (no one awaits that one). */
  private failure: Error | undefined
  private closed = false

  constructor (storeDir: string, opts: StoreIndexOptions = {}) {
    const dir = storePath(storeDir)
    fs.mkdirSync(dir, { recursive: true })
    this.file = path.join(dir, STORE_INDEX_FILE)
    this.batchSize = opts.batchSize ?? 256
    try {
      const binding = opts.nativeBinding === undefined ? {} : { nativeBinding: opts.nativeBinding }
      this.db = new Database(this.file, { timeout: BUSY_TIMEOUT_MS, ...binding })
    } catch (err) {
      if (isAddonLoadError(err)) throw addonError(err)
      throw new LodeError('STORE_INDEX_OPEN', `Cannot open the store index ${this.file}: ${(err as Error).message}`,
        { hint: 'Check that the store directory is writable, or point store-dir at another store.', cause: err })
    }
    try {
      retryBusy(() => {
        // The same settings pnpm uses, so the two share a database file without surprises.
        this.db.pragma('journal_mode = WAL')
        this.db.pragma('synchronous = NORMAL')
        this.db.pragma('mmap_size = 536870912')
        this.db.pragma('cache_size = -32000')
        this.db.pragma('temp_store = MEMORY')
        this.db.pragma('wal_autocheckpoint = 10000')
        this.db.exec(`CREATE TABLE IF NOT EXISTS package_index (
          key TEXT PRIMARY KEY,
          data BLOB NOT NULL
        ) WITHOUT ROWID`)
      })
      this.stmtGet = this.db.prepare('SELECT data FROM package_index WHERE key = ?')
      this.stmtHas = this.db.prepare('SELECT 1 AS found FROM package_index WHERE key = ?')
      this.stmtGetMany = this.db.prepare('SELECT key, data FROM package_index WHERE key IN (SELECT value FROM json_each(?))')
      this.stmtSet = this.db.prepare('INSERT OR REPLACE INTO package_index (key, data) VALUES (?, ?)')
      const insert = this.stmtSet
      this.writeBatch = this.db.transaction((rows: QueuedRow[]) => {
        for (const row of rows) insert.run(row.key, row.data)
      })
    } catch (err) {
      this.db.close()
      throw corruption(this.file, err) ?? fullDisk(this.file, err) ?? err
    }
  }

  /** One row, or `undefined`. Rows queued but not yet committed are seen too. */
  get (key: string): PackageFilesIndex | undefined {
    const queued = this.queue.findLast((row) => row.key === key)
    if (queued !== undefined) return decodeRow(queued.data)
    const row = this.run(() => this.stmtGet.get(key))
    return row === undefined ? undefined : this.decode(key, row.data, decodeRow)
  }

  /** Whether the store has a row for `key` (queued rows count), without decoding it. */
  has (key: string): boolean {
    if (this.queue.some((row) => row.key === key)) return true
    return this.run(() => this.stmtHas.get(key)) !== undefined
  }

  /** The rows of many keys, read in one statement (one pass for a whole install). */
  getMany (keys: Iterable<string>): Map<string, PackageFilesIndex> {
    return this.readMany(keys, decodeRow)
  }

  /**
   * What installing needs of the rows of many keys (their files, packed, and `requiresBuild`), read
   * in one statement like `getMany`, without decoding the rest of each row (`readStoredFiles`).
   */
  getManyStored (keys: Iterable<string>): Map<string, StoredFiles> {
    return this.readMany(keys, readStoredFiles)
  }

  private readMany<T> (keys: Iterable<string>, read: (data: Buffer) => T): Map<string, T> {
    this.flush()
    const rows = this.run(() => this.stmtGetMany.all(JSON.stringify([...keys])))
    return new Map(rows.map((row) => [row.key, this.decode(row.key, row.data, read)]))
  }

  /** Every row, one at a time (store prune reads them all). */
  * all (): Generator<[string, PackageFilesIndex]> {
    this.flush()
    for (const row of this.run(() => this.db.prepare<[], { key: string, data: Buffer }>('SELECT key, data FROM package_index').iterate())) {
      yield [row.key, this.decode(row.key, row.data, decodeRow)]
    }
  }

  /** Deletes rows, in one transaction. */
  delete (keys: readonly string[]): void {
    this.flush()
    const remove = this.db.prepare<[string]>('DELETE FROM package_index WHERE key = ?')
    this.run(() => { this.db.transaction(() => { for (const key of keys) remove.run(key) }).immediate() })
  }

  /** Queues a row; it is committed with the others of its batch. */
  queueWrite (key: string, row: PackageFilesIndex): void {
    this.queueWriteEncoded(key, encodeRow(row))
  }

  /** Queues a row encoded already (`encodeRow`, as an extract thread does); it is committed with the others of its batch. */
  queueWriteEncoded (key: string, data: Uint8Array): void {
    if (this.closed) throw new Error(`The store index ${this.file} is closed`)
    this.queue.push({ key, data: Buffer.from(data.buffer, data.byteOffset, data.byteLength) })
    if (this.queue.length >= this.batchSize) {
      this.flush()
    } else if (!this.flushScheduled) {
      this.flushScheduled = true
      // Thrown here, the error would end the process: the next commit (flush, getMany, close) throws it.
      setImmediate(() => {
        try {
          this.flush()
        } catch (err) {
          this.failure ??= err instanceof Error ? err : new Error(String(err))
        }
      })
    }
  }

  /**
   * Commits every queued row now, in one transaction. Throws the error of a commit run at the end of
   * a tick since the last call, if one failed: its rows are not in the index.
   */
  flush (): void {
    this.flushScheduled = false
    if (this.failure !== undefined) {
      const failure = this.failure
      this.failure = undefined
      throw failure
    }
    if (this.queue.length === 0 || this.closed) return
    const rows = this.queue
    this.queue = []
    this.run(() => { this.writeBatch.immediate(rows) })
  }

  /**
   * A statement, retried while another process holds the database; a damaged database is
   * `ERR_LODE_STORE_INDEX_CORRUPT`, a full disk `ERR_LODE_ENOSPC`.
   */
  private run<T> (fn: () => T): T {
    try {
      return retryBusy(fn)
    } catch (err) {
      throw corruption(this.file, err) ?? fullDisk(this.file, err) ?? err
    }
  }

  private decode<T> (key: string, data: Buffer, read: (data: Buffer) => T): T {
    try {
      return read(data)
    } catch (err) {
      throw corruption(this.file, err, `its row for ${key.slice(key.indexOf('\t') + 1)} cannot be decoded`) ?? err
    }
  }

  /**
   * Commits what is queued and moves the write-ahead log into the database file now (a passive
   * checkpoint). Closing does it otherwise: 50-100 ms at the very end of a cold install, where
   * called while the main thread waits for the link threads it costs nothing.
   */
  checkpoint (): void {
    if (this.closed) return
    this.flush()
    this.run(() => this.db.pragma('wal_checkpoint(PASSIVE)'))
  }

  /** Commits what is queued and closes the connection, also when the commit fails (and throws its error). */
  close (): void {
    if (this.closed) return
    try {
      this.flush()
    } finally {
      this.closed = true
      this.db.close()
    }
  }
}

/**
 * Moves the write-ahead log of the store index at `storeDir` into the database file through a
 * connection of its own: a store thread does it at the end of an install that downloaded (50-100 ms
 * of writes and fsyncs), while the main thread links bins and writes the lockfile. The main
 * thread's connection, closed last, then finds nothing left to move.
 */
export function checkpointStoreIndex (storeDir: string): void {
  const index = new StoreIndex(storeDir)
  try {
    index.checkpoint()
  } finally {
    index.close()
  }
}

/**
 * The coded error for a damaged database file (torn by a disk fault, truncated, overwritten), or
 * undefined for any other error. `why` is given for a row that SQLite read but MessagePack cannot.
 */
function corruption (file: string, err: unknown, why?: string): LodeError | undefined {
  const code = (err as { code?: unknown }).code
  if (why === undefined && (typeof code !== 'string' || !(code.startsWith('SQLITE_CORRUPT') || code === 'SQLITE_NOTADB'))) return undefined
  return new LodeError('STORE_INDEX_CORRUPT', `The store index ${file} is damaged: ${why ?? (err as Error).message}.`, {
    hint: `Delete it (with ${path.basename(file)}-wal and ${path.basename(file)}-shm beside it) and install again: lode starts a new index and downloads the packages once more; the files the store already holds are kept, not written again.`,
    cause: err,
  })
}

/** SQLite's SQLITE_FULL (the disk is full, ENOSPC to SQLite) as lode reports a full disk, or undefined for any other error. */
function fullDisk (file: string, err: unknown): LodeError | undefined {
  if ((err as { code?: unknown }).code !== 'SQLITE_FULL') return undefined
  return new LodeError('ENOSPC', `Cannot write the store index ${file}: no space left on the device.`, {
    hint: 'Free some disk space (or move store-dir to a disk with room), then install again. The packages whose rows were not written are downloaded again next time.',
    cause: err,
  })
}

function isBusy (err: unknown): boolean {
  const code = (err as { code?: unknown }).code
  return code === 'SQLITE_BUSY' || code === 'SQLITE_BUSY_SNAPSHOT' || code === 'SQLITE_LOCKED'
}

/** Runs `fn`, again after a short pause while another process holds the database past the busy timeout. */
function retryBusy<T> (fn: () => T): T {
  for (let attempt = 0; ; attempt++) {
    try {
      return fn()
    } catch (err) {
      if (!isBusy(err) || attempt >= BUSY_RETRIES) throw err
      Atomics.wait(sleepCell, 0, 0, BUSY_RETRY_DELAY_MS)
    }
  }
}
