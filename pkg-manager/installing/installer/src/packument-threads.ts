import type { PackumentOutcome, PackumentProcessor, PackumentTask } from '@lode/resolving.npm-resolver'
import { ThreadPool, ownedArrayBuffer } from '@lode/worker.pools'

/**
 * The resolver's packument thread (`@lode/resolving.npm-resolver/packument-thread`) in a pool of
 * one: fetched packuments are inflated, parsed, trimmed and cached there while the main thread
 * resolves, which then decodes only the versions it picks. One thread: the cores are the store
 * pool's, and a packument takes it well under a millisecond.
 */
export class PackumentThreads implements PackumentProcessor {
  private readonly pool = new ThreadPool<PackumentTask, PackumentOutcome>({
    filename: import.meta.resolve('@lode/resolving.npm-resolver/packument-thread'),
    name: 'packument',
    // A whole packument's objects (a few MB of JSON) fit in the young generation and die there.
    youngGenerationMb: 24,
  })

  start (): void {
    this.pool.start()
  }

  /** Moves the task's body to the thread (the caller must not read it after): a packument is up to a few MB, copied twice by a message. */
  async process (task: PackumentTask): Promise<PackumentOutcome> {
    const body = ownedArrayBuffer(task.body)
    return await this.pool.run({ ...task, body: new Uint8Array(body) }, [body])
  }

  async close (): Promise<void> {
    await this.pool.close()
  }
}
