import { getCompileCacheDir } from 'node:module'
import os from 'node:os'
import v8 from 'node:v8'

import { fileSystemError, fromLodeErrorData, isLodeError } from '@lode/core.error'
import { storeIndexKey } from '@lode/store.index'
import type { StoreIndex } from '@lode/store.index'
import type { ExtractedPackage, ExtractLimits, ExtractResult, ExtractTask } from '@lode/worker.extract'
import type { LinkOutcome, LinkResult, LinkTask } from '@lode/worker.link'
import { Piscina } from 'piscina'

// The threads use the compile cache the main thread uses (bin/lode turns it on): their modules are
// not compiled again in every install.
function threadEnv (): NodeJS.ProcessEnv {
  const dir = getCompileCacheDir()
  return dir === undefined ? process.env : { ...process.env, NODE_COMPILE_CACHE: dir }
}

/**
 * Every pool thread's young generation, in MiB. Left to V8, each thread's grew to ~45 MiB of heap
 * of which ~15 was in use: the threads keep little alive between tasks (a tarball's files are
 * written and dropped), so a small young generation costs a few more scavenges and saves ~20 MiB a thread.
 */
const THREAD_RESOURCE_LIMITS = { maxYoungGenerationSizeMb: 4 }

export interface StorePoolOptions {
  /** Threads; the work is CPU-bound (gunzip, SHA-512), so the default is the number of cores. */
  threads?: number
}

/**
 * A task's rejection as the main thread passes it on. Thread modules hand their `LodeError`s and
 * file-system errors back as data (piscina's copy of a thrown Error keeps only its message and
 * stack), so what rejects is a bug, or a thread that died under its task: an uncaught error there
 * (a stream's 'error' with no listener) reaches this thread with its code, syscall and path, and a
 * file-system one the machine causes is made the `LodeError` it stands for (`ERR_LODE_ENOSPC`, ...).
 */
function fromThread (err: unknown): Error {
  if (isLodeError(err)) return err
  return fileSystemError(err) ?? (err instanceof Error ? err : new Error(String(err)))
}

/** The most tarballs one store task carries. */
const MAX_BATCH = 8

interface QueuedExtraction {
  task: ExtractTask
  settle: (result: ExtractResult | Error) => void
}

/**
 * The store pool: piscina threads that extract tarballs into the CAS. Separate from the link
 * pool so a burst of extraction never queues ahead of linking. Owned by an install session and
 * closed by it; no thread outlives `close()`, so the process exits when the work is done.
 *
 * A tarball goes to a free thread at once; those that arrive while every thread is busy wait here
 * and go as one task (up to `MAX_BATCH`, shared among the threads): a message each way and a
 * thread wake-up per task cost the main thread as much as its own part of an extraction.
 */
export class StorePool {
  private readonly pool: Piscina<readonly ExtractTask[], ExtractResult[]>
  private readonly threadCount: number
  private readonly queued: QueuedExtraction[] = []
  private running = 0
  private sent = 0
  /** The threads that take tasks now (see `useThreads`). */
  private active: number

  constructor (opts: StorePoolOptions = {}) {
    this.threadCount = opts.threads ?? Math.max(1, os.availableParallelism())
    this.active = this.threadCount
    this.pool = new Piscina({
      filename: import.meta.resolve('@lode/worker.extract'),
      name: 'extractBatch',
      env: threadEnv(),
      resourceLimits: THREAD_RESOURCE_LIMITS,
      minThreads: this.threadCount,
      maxThreads: this.threadCount,
      // Tasks carry whole tarballs; queueing is cheaper than more threads fighting for 2 cores.
      concurrentTasksPerWorker: 1,
    })
  }

  /**
   * Extracts one tarball into the store. The tarball's memory is moved to the thread: the caller
   * must not use `tarball` afterwards (a view on a shared buffer is copied first).
   * Rejects with a `LodeError` for bad input (integrity, not gzip, not tar, unsafe path, past
   * `limits`, whose defaults are `DEFAULT_EXTRACT_LIMITS` of `@lode/worker.extract`), and for a
   * store it cannot write (`ERR_LODE_ENOSPC`, `ERR_LODE_EACCES`, … naming the file).
   */
  async extract (
    tarball: Uint8Array,
    opts: { integrity: string, storeDir: string, pkgId: string, limits?: Partial<ExtractLimits> }
  ): Promise<ExtractedPackage> {
    const task: ExtractTask = { tarball: ownedArrayBuffer(tarball), ...opts }
    const result = await new Promise<ExtractResult | Error>((resolve) => {
      this.queued.push({ task, settle: resolve })
      this.dispatch()
    })
    if (result instanceof Error) throw result
    if (!result.ok) throw fromLodeErrorData(result.error)
    return result.value
  }

  /**
   * How many of the threads take tasks, from one to all of them; the others stay idle (the install
   * keeps cores for its resolution this way, see PackageFetcher's `resolving`).
   */
  useThreads (count: number): void {
    this.active = Math.min(this.threadCount, Math.max(1, count))
    this.dispatch()
  }

  private dispatch (): void {
    while (this.running < this.active && this.queued.length > 0) {
      const batch = this.queued.splice(0, Math.min(MAX_BATCH, Math.ceil(this.queued.length / (this.active - this.running))))
      this.running++
      this.sent++
      this.pool.run(batch.map((queued) => queued.task), { transferList: batch.map((queued) => queued.task.tarball) })
        .then((results) => { batch.forEach((queued, i) => { queued.settle(results[i]!) }) },
          (err: unknown) => { for (const queued of batch) queued.settle(fromThread(err)) })
        .finally(() => {
          this.running--
          this.dispatch()
        })
    }
  }

  /**
   * The store index's checkpoint on one of the threads (see `checkpointStoreIndex`), for when the
   * install's rows are committed and extraction is over. Resolves with whether it was done; never rejects.
   */
  async checkpointIndex (storeDir: string): Promise<boolean> {
    // The same threads, another function of their module (`checkpointIndex` of @lode/worker.extract).
    const pool = this.pool as unknown as Piscina<{ storeDir: string }, boolean>
    return await pool.run({ storeDir }, { name: 'checkpointIndex' }).then((done) => done, () => false)
  }

  get threads (): number {
    return this.threadCount
  }

  /** Tasks sent to the threads so far: a batch of tarballs is one. */
  get tasks (): number {
    return this.sent
  }

  async close (): Promise<void> {
    await this.pool.close()
  }
}

export interface LinkPoolOptions {
  /** Threads; linking is file-system calls, which threads overlap well. Default: the cores, at least 2. */
  threads?: number
}

/**
 * The link pool: piscina threads that import packages from the CAS into `node_modules/.pnpm`.
 * Its own threads and queue, apart from the store pool, so an extraction burst never delays a
 * link. Owned by an install session and closed by it.
 */
export class LinkPool {
  private readonly pool: Piscina<LinkTask, LinkResult>
  private closing: Promise<void> | undefined

  constructor (opts: LinkPoolOptions = {}) {
    const threads = opts.threads ?? Math.max(2, os.availableParallelism())
    this.pool = new Piscina({
      filename: import.meta.resolve('@lode/worker.link'),
      name: 'link',
      env: threadEnv(),
      resourceLimits: THREAD_RESOURCE_LIMITS,
      minThreads: threads,
      maxThreads: threads,
      // Tasks queued in each thread: it goes on while the main thread is busy (decoding the next
      // store rows) instead of waiting for it to hand out the next task.
      concurrentTasksPerWorker: 4,
    })
  }

  /** Imports a batch of packages; rejects with the `LodeError` a thread reported. A closed pool refuses (its owner starts another). */
  async link (task: LinkTask): Promise<LinkOutcome> {
    if (this.closing !== undefined) throw new Error('The link pool was closed: a task after close() would start its threads again.')
    const result = await this.pool.run(task).catch((err: unknown) => { throw fromThread(err) })
    if (!result.ok) throw fromLodeErrorData(result.error)
    return result.value
  }

  /** Lets the tasks under way finish, then ends the threads. Again, it returns the same promise. */
  async close (): Promise<void> {
    this.closing ??= this.pool.close()
    await this.closing
  }
}

export interface ThreadPoolOptions {
  /** The URL of the module the threads run (`import.meta.resolve` of its package). */
  filename: string
  /** The function of that module a task calls. */
  name: string
  /** Default: one. */
  threads?: number
  /**
   * The young generation its threads start with and keep, in MiB (default: the pools' 4). For a
   * thread that parses large documents (the packument thread): one document's objects fit, and
   * die there. It cannot grow into one: the CLI's cap on its own (`--semi-space-growth-factor=1`)
   * stops every heap of the process growing, and the collector then promoted and compacted
   * every packument (a third of that thread's time in a large workspace's clean install).
   */
  youngGenerationMb?: number
}

/**
 * Threads for a task whose code lives in another tier (the resolver's packument thread): that tier
 * names its module, this one runs it. The threads start with the first task, or at `start()` when
 * the caller knows one is coming. Owned by whoever made it and ended by `close()`.
 */
export class ThreadPool<Task, Result> {
  private pool: Piscina<Task, Result> | undefined

  constructor (private readonly opts: ThreadPoolOptions) {}

  start (): void {
    if (this.pool !== undefined) return
    const threads = this.opts.threads ?? 1
    const young = this.opts.youngGenerationMb
    // Semi-spaces are a third of the young generation. The setting is read when a heap is made:
    // it counts for these threads' heaps and those made after, which the smaller maximum of
    // THREAD_RESOURCE_LIMITS keeps at theirs.
    if (young !== undefined) v8.setFlagsFromString(`--min-semi-space-size=${Math.max(1, Math.floor(young / 3))}`)
    this.pool = new Piscina({
      filename: this.opts.filename,
      name: this.opts.name,
      env: threadEnv(),
      resourceLimits: young === undefined ? THREAD_RESOURCE_LIMITS : { maxYoungGenerationSizeMb: young },
      minThreads: threads,
      maxThreads: threads,
      concurrentTasksPerWorker: 1,
    })
  }

  /**
   * Runs a task; the buffers of `transfer` move to the thread (the caller must not use them after).
   * A thread that dies under it rejects it, with a `LodeError` for a file-system error (`fromThread`).
   */
  async run (task: Task, transfer?: ArrayBuffer[]): Promise<Result> {
    this.start()
    return await this.pool!.run(task, transfer === undefined ? undefined : { transferList: transfer })
      .catch((err: unknown) => { throw fromThread(err) })
  }

  /** Ends the threads; a task after this starts new ones. */
  async close (): Promise<void> {
    const pool = this.pool
    this.pool = undefined
    await pool?.close()
  }
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

export interface AddTarballOptions {
  pool: StorePool
  index: StoreIndex
  storeDir: string
  /** `name@version`: the second half of the index key. */
  pkgId: string
  integrity: string
  tarball: Uint8Array
  /** What the tarball may unpack to; by default `DEFAULT_EXTRACT_LIMITS` of `@lode/worker.extract`. */
  limits?: Partial<ExtractLimits>
}

/**
 * Adds a downloaded tarball to the store: extracted and written to the CAS by the pool, then its
 * index row (encoded by the thread) queued on the main thread's batching writer. Nothing is
 * indexed for a bad tarball.
 */
export async function addTarballToStore (opts: AddTarballOptions): Promise<ExtractedPackage> {
  const { pool, index, tarball, ...task } = opts
  const extracted = await pool.extract(tarball, task)
  index.queueWriteEncoded(storeIndexKey(task.integrity, task.pkgId), extracted.row)
  return extracted
}
