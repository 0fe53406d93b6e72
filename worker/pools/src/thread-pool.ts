import v8 from 'node:v8'

import { Piscina } from 'piscina'

import { THREAD_RESOURCE_LIMITS, fromThread, threadEnv } from './threads.js'

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
