import fs from 'node:fs'
import path from 'node:path'

import { MODULES_DIR, VIRTUAL_STORE_DIR } from '@lode/core.constants'
import { writeFileAtomic } from '@lode/fs.write-file-atomic'
import type { Config } from '@lode/pkg-manager.config.settings'
import type { LinkThreads } from '@lode/pkg-manager.installing.linker'
import { PackageFetcher, PipelineTrace } from '@lode/pkg-manager.installing.package-requester'
import type { TraceData } from '@lode/pkg-manager.installing.package-requester'
import { registryFor } from '@lode/resolving.npm-resolver/registries'
import type { RegistryClient, RequestTiming } from '@lode/resolving.registry-client'
import { LinkPool } from '@lode/worker.pools'

import { PackumentThreads } from './packument-threads.js'
import { registryClientFor } from './registry-client.js'

export interface InstallerOptions {
  config: Config
  /** Links into node_modules (not `--lockfile-only`). */
  linking: boolean
  ignoreScripts: boolean | undefined
  /** Where to write the pipeline trace (`--trace-pipeline`). */
  tracePipeline: string | undefined
  /** Where to write the install's timeline page (`--timeline`), when it ends. */
  timeline?: string | undefined
  signal: AbortSignal | undefined
  onWarning: (message: string) => void
}

/**
 * What one install runs on: the registry client, the package fetcher (the store pool and the store
 * index), the link pool and the pipeline trace. Made once per install, ended by one `close()`.
 * The client connects, and the pools start their threads, only when first used; except the link
 * pool, started at once when node_modules has no `.pnpm` (there will be packages to import, and its
 * threads boot while the install reads its inputs).
 */
export class Installer {
  readonly client: RegistryClient
  readonly fetcher: PackageFetcher
  readonly trace: PipelineTrace | undefined
  /** The link pool, lent to the linker: this Installer starts it and closes it. */
  readonly linkThreads: LinkThreads
  /** The packument thread: it parses the packuments a resolution fetches (started by the first request). */
  readonly packuments = new PackumentThreads()
  private readonly closing: Array<Promise<void>> = []
  private readonly timeline: string | undefined

  constructor (opts: InstallerOptions) {
    const { config } = opts
    const startEarly = opts.linking && !fs.existsSync(path.join(config.dir, MODULES_DIR, VIRTUAL_STORE_DIR))
    this.linkThreads = this.lendLinkPool(startEarly ? new LinkPool() : undefined)
    const trace = opts.tracePipeline === undefined && opts.timeline === undefined ? undefined : new PipelineTrace(opts.tracePipeline)
    this.trace = trace
    this.timeline = opts.timeline
    // Every registry request is on the timeline: a package's metadata, or a tarball.
    const onRequest = trace === undefined
      ? undefined
      : (request: RequestTiming): void => {
          const kind = request.accept === '*/*' ? 'download' : 'metadata'
          trace.span(kind, request.subject, request.start, request.end, { status: request.status, bytes: request.bytes })
        }
    this.client = registryClientFor(config, { ...opts, onRequest })
    const registries = { default: config.registry, scoped: config.scopedRegistries }
    this.fetcher = new PackageFetcher({
      config,
      client: this.client,
      registryFor: (name) => registryFor(registries, name),
      trace: this.trace,
      signal: opts.signal,
      onWarning: opts.onWarning,
      ignoreScripts: opts.ignoreScripts,
    })
  }

  /** The link pool as the linker borrows it: started when asked for, ended here when the linker is done with it. */
  private lendLinkPool (early: LinkPool | undefined): LinkThreads {
    let pool = early
    return {
      get started () { return pool },
      pool: () => pool ??= new LinkPool(),
      release: () => {
        if (pool === undefined) return
        // Awaited by `close()`; a failure meanwhile is not an unhandled rejection.
        const closing = pool.close()
        closing.catch(() => {})
        this.closing.push(closing)
        pool = undefined
      },
    }
  }

  /** A resolution starts: extraction leaves it cores meanwhile (PackageFetcher's `resolving`). */
  beginResolution (): void {
    this.fetcher.resolving(true)
  }

  /** The resolution is over: the packument thread ends now, and its memory is back before linking needs more; extraction takes every store thread. */
  endResolution (): void {
    this.fetcher.resolving(false)
    const closing = this.packuments.close()
    // Awaited by `close()`; a later resolution starts the thread again.
    closing.catch(() => {})
    this.closing.push(closing)
  }

  /** Ends everything, each part even when an earlier one failed to close: downloads and store writes first, then the link threads. */
  async close (): Promise<void> {
    try {
      await this.fetcher.close()
    } finally {
      try {
        await this.client.close()
      } finally {
        try {
          await this.trace?.finish()
          if (this.timeline !== undefined) await writeTimeline(this.timeline, this.trace!.data())
        } finally {
          this.linkThreads.release()
          await Promise.all([...this.closing, this.packuments.close()])
        }
      }
    }
  }
}

/** The timeline page, written whether the install succeeded or not (where the time went matters most when it failed). */
async function writeTimeline (file: string, data: TraceData): Promise<void> {
  const { renderTimeline } = await import('@lode/pkg-manager.installing.timeline')
  await writeFileAtomic(file, renderTimeline(data))
}
