import type { PackumentOutcome, PackumentProcessor, PackumentTask } from '@lode/resolving.npm-resolver'
import { ThreadPool } from '@lode/worker.pools'

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

  async process (task: PackumentTask): Promise<PackumentOutcome> {
    return await this.pool.run(task)
  }

  async close (): Promise<void> {
    await this.pool.close()
  }
}
