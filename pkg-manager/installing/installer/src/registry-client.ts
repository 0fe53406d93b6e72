import type { Config } from '@lode/pkg-manager.config.settings'
import { RegistryClient, createAuthHeaderLookup } from '@lode/resolving.registry-client'
import type { RequestTiming } from '@lode/resolving.registry-client'

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
