import fs from 'node:fs'
import path from 'node:path'

import { MODULES_DIR, VIRTUAL_STORE_DIR } from '@lode/core.constants'
import { writeFileAtomic } from '@lode/fs.write-file-atomic'
import type { Config } from '@lode/pkg-manager.config'
import { PackageFetcher, PipelineTrace } from '@lode/pkg-manager.package-requester'
import type { TraceData } from '@lode/pkg-manager.package-requester'
import { registryFor } from '@lode/resolving.npm-resolver/registries'
import { RegistryClient, createAuthHeaderLookup } from '@lode/resolving.registry-client'
import type { RequestTiming } from '@lode/resolving.registry-client'
import { LinkPool } from '@lode/worker.pools'

import { PackumentThreads } from './packument-threads.js'

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

type RequestHook = (request: RequestTiming) => void

/** The registry client `config` describes (registry auth, retries, deadlines, TLS, proxy). Close it when done. */
export function registryClientFor (
  config: Config,
  opts: { onWarning: (message: string) => void, signal: AbortSignal | undefined, onRequest?: RequestHook | undefined }
): RegistryClient {
  return new RegistryClient({
    authHeader: createAuthHeaderLookup(config.rawNpmrc, config.registry),
    networkConcurrency: config.networkConcurrency,
    retry: {
      retries: config.fetchRetries,
      factor: config.fetchRetryFactor,
      minTimeout: config.fetchRetryMintimeout,
      maxTimeout: config.fetchRetryMaxtimeout,
    },
    timeout: config.fetchTimeout,
    strictSsl: config.strictSsl,
    ca: config.ca,
    proxy: { httpProxy: config.httpProxy, httpsProxy: config.httpsProxy, noProxy: config.noProxy },
    userAgent: config.userAgent,
    onWarning: opts.onWarning,
    signal: opts.signal,
    onRequest: opts.onRequest,
  })
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
  readonly linkPool: LinkPool | undefined
  /** The packument thread: it parses the packuments a resolution fetches (started by the first request). */
  readonly packuments = new PackumentThreads()
  private readonly closing: Array<Promise<void>> = []
  private readonly timeline: string | undefined

  constructor (opts: InstallerOptions) {
    const { config } = opts
    this.linkPool = opts.linking && !fs.existsSync(path.join(config.dir, MODULES_DIR, VIRTUAL_STORE_DIR)) ? new LinkPool() : undefined
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
          await Promise.all([this.linkPool?.close(), ...this.closing, this.packuments.close()])
        }
      }
    }
  }
}

/** The timeline page, written whether the install succeeded or not (where the time went matters most when it failed). */
async function writeTimeline (file: string, data: TraceData): Promise<void> {
  const { renderTimeline } = await import('@lode/pkg-manager.timeline')
  await writeFileAtomic(file, renderTimeline(data))
}
