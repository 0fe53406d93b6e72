import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'

import { NpmResolver } from '@lode/resolving.npm-resolver'
import type { NpmResolverOptions, PackumentOutcome, PackumentProcessor, PackumentTask } from '@lode/resolving.npm-resolver'
import { RegistryClient } from '@lode/resolving.registry-client'
import { Piscina } from 'piscina'

/** The tests' clock: 2026-06-01. */
export const NOW = Date.parse('2026-06-01T00:00:00.000Z')

/** A real registry client as the tests use one: no retries, no auth. */
export function testClient (): RegistryClient {
  return new RegistryClient({
    authHeader: () => undefined,
    networkConcurrency: 4,
    retry: { retries: 0, factor: 1, minTimeout: 1, maxTimeout: 1 },
    timeout: 5000,
    strictSsl: true,
    userAgent: 'lode-test',
  })
}

/** Runs `fn` with a resolver over a real client for `registryUrl` (no retries) and a fresh cache dir unless `opts` names one; closes both. */
export async function withResolver (
  registryUrl: string, opts: Partial<NpmResolverOptions>, fn: (resolver: NpmResolver) => Promise<void>
): Promise<void> {
  const client = testClient()
  const resolver = new NpmResolver({
    client,
    cacheDir: opts.cacheDir ?? fs.mkdtempSync(path.join(os.tmpdir(), 'lode-cache-')),
    offline: false,
    preferOffline: false,
    now: () => NOW,
    onWarning: () => {},
    registries: { default: registryUrl, scoped: {} },
    minimumReleaseAge: 0,
    minimumReleaseAgeExclude: [],
    ...opts,
  })
  try {
    await fn(resolver)
  } finally {
    await resolver.close()
    await client.close()
  }
}

/** The packument thread in a real thread, as pkg-manager/core runs it (over worker/pools' piscina). */
export class PackumentThread implements PackumentProcessor {
  readonly pool = new Piscina<PackumentTask, PackumentOutcome>({
    filename: import.meta.resolve('@lode/resolving.npm-resolver/packument-thread'),
    name: 'packument',
    minThreads: 1,
    maxThreads: 1,
  })

  start (): void {}

  async process (task: PackumentTask): Promise<PackumentOutcome> {
    return await this.pool.run(task)
  }

  async close (): Promise<void> {
    await this.pool.close()
  }
}
