import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'

import { NpmResolver } from '@lode/resolving.npm-resolver'
import type { NpmResolverOptions } from '@lode/resolving.npm-resolver'
import { RegistryClient } from '@lode/resolving.registry-client'

/** The tests' clock: 2026-06-01. */
export const NOW = Date.parse('2026-06-01T00:00:00.000Z')

/** Runs `fn` with a resolver over a real client for `registryUrl` (no retries) and a fresh cache dir unless `opts` names one; closes both. */
export async function withResolver (
  registryUrl: string, opts: Partial<NpmResolverOptions>, fn: (resolver: NpmResolver) => Promise<void>
): Promise<void> {
  const client = new RegistryClient({
    authHeader: () => undefined,
    networkConcurrency: 4,
    retry: { retries: 0, factor: 1, minTimeout: 1, maxTimeout: 1 },
    timeout: 5000,
    strictSsl: true,
    userAgent: 'lode-test',
  })
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
