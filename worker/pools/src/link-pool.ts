import os from 'node:os'

import { fromLodeErrorData } from '@lode/core.error'
import type { LinkOutcome, LinkResult, LinkTask } from '@lode/worker.link'
import { Piscina } from 'piscina'

import { THREAD_RESOURCE_LIMITS, fromThread, threadEnv } from './threads.js'

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
