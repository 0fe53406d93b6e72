import os from 'node:os'

import { fromLodeErrorData } from '@lode/core.error'
import { storeIndexKey } from '@lode/store.index'
import type { StoreIndex } from '@lode/store.index'
import type { ExtractedPackage, ExtractLimits, ExtractResult, ExtractTask } from '@lode/worker.extract'
import { Piscina } from 'piscina'

import { THREAD_RESOURCE_LIMITS, fromThread, ownedArrayBuffer, threadEnv } from './threads.js'

export interface StorePoolOptions {
  /** Threads; the work is CPU-bound (gunzip, SHA-512), so the default is the number of cores. */
  threads?: number
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
