import { setTimeout as sleep } from 'node:timers/promises'
import { promisify } from 'node:util'
import zlib from 'node:zlib'

import { LodeError } from '@lode/fs.error'
import pLimit from 'p-limit'
import type { Dispatcher, request as undiciRequest } from 'undici'

import type { AuthHeaderLookup } from './auth.js'

const gunzip = promisify(zlib.gunzip)
const brotliDecompress = promisify(zlib.brotliDecompress)
const inflate = promisify(zlib.inflate)

/** pnpm's `Accept` for abbreviated ("corgi") metadata, and for the full document. */
export const ACCEPT_ABBREVIATED = 'application/vnd.npm.install-v1+json; q=1.0, application/json; q=0.8, */*'
export const ACCEPT_FULL = 'application/json'

export interface RetryOptions {
  /** How many times a failed request is tried again (pnpm's `fetchRetries`). */
  retries: number
  factor: number
  minTimeout: number
  maxTimeout: number
}

export interface ProxyOptions {
  httpProxy?: string | undefined
  httpsProxy?: string | undefined
  noProxy?: string | undefined
}

export interface RegistryClientOptions {
  authHeader: AuthHeaderLookup
  /** Requests in flight at once, over all origins (pnpm's `networkConcurrency`). */
  networkConcurrency: number
  retry: RetryOptions
  /** Milliseconds to wait for headers, and between body chunks (pnpm's `fetchTimeout`). */
  timeout: number
  strictSsl: boolean
  ca?: readonly string[] | undefined
  proxy?: ProxyOptions | undefined
  userAgent: string
  /** Called with pnpm's retry warning before each retry. */
  onWarning?: ((message: string) => void) | undefined
  /** Cancels every request (and retry wait) of this client. */
  signal?: AbortSignal | undefined
}

export interface GetOptions {
  accept: string
  /** Sent as `If-None-Match` / `If-Modified-Since`; a 304 answer is returned as such. */
  etag?: string | undefined
  lastModified?: string | undefined
  /** Names the thing asked for in error messages (a package name). */
  subject: string
}

export type GetResult =
  | { status: 200, body: Buffer, etag: string | undefined, lastModified: string | undefined }
  | { status: 304 }

interface HttpStack {
  dispatcher: Dispatcher
  request: typeof undiciRequest
}

/**
 * The one HTTP client of an install: a keep-alive undici dispatcher (through the configured proxy
 * when there is one), at most `networkConcurrency` requests at once, retries with pnpm's backoff,
 * auth per URL, and one request for concurrent identical GETs. Close it when the install ends.
 */
export class RegistryClient {
  // undici (about 100 modules) is loaded by the first request: an install from the lockfile and a
  // warm store makes none.
  private http: Promise<HttpStack> | undefined
  private readonly limit: ReturnType<typeof pLimit>
  private readonly inflight = new Map<string, Promise<GetResult>>()

  constructor (private readonly opts: RegistryClientOptions) {
    this.limit = pLimit(opts.networkConcurrency)
  }

  private async connect (): Promise<HttpStack> {
    const { Agent, EnvHttpProxyAgent, request } = await import('undici')
    const { opts } = this
    const connect = { rejectUnauthorized: opts.strictSsl, ...(opts.ca !== undefined && opts.ca.length > 0 ? { ca: [...opts.ca] } : {}) }
    const agentOptions = { connections: opts.networkConcurrency, keepAliveTimeout: 30_000, connect }
    const proxy = opts.proxy
    // Proxy settings arrive through the config object; empty strings keep undici off process.env.
    const dispatcher = proxy?.httpProxy !== undefined || proxy?.httpsProxy !== undefined
      ? new EnvHttpProxyAgent({ ...agentOptions, httpProxy: proxy.httpProxy ?? '', httpsProxy: proxy.httpsProxy ?? proxy.httpProxy ?? '', noProxy: proxy.noProxy ?? '' })
      : new Agent(agentOptions)
    return { dispatcher, request }
  }

  /** GET `url`, decompressed. 304 only when a validator was sent. Errors are `LodeError`s. */
  async get (url: string, options: GetOptions): Promise<GetResult> {
    const key = `${options.accept}\n${options.etag ?? ''}\n${options.lastModified ?? ''}\n${url}`
    let pending = this.inflight.get(key)
    if (pending === undefined) {
      pending = this.limit(async () => await this.getWithRetries(url, options))
        .finally(() => { this.inflight.delete(key) })
      this.inflight.set(key, pending)
    }
    return await pending
  }

  private async getWithRetries (url: string, options: GetOptions): Promise<GetResult> {
    const { retry } = this.opts
    for (let attempt = 0; ; attempt++) {
      let failure: { code: string, error: unknown }
      try {
        const result = await this.getOnce(url, options)
        if ('retryable' in result) failure = { code: String(result.retryable), error: undefined }
        else return result
      } catch (err) {
        if (err instanceof LodeError) throw err
        this.opts.signal?.throwIfAborted()
        failure = { code: errorCode(err), error: err }
        // Only what the network did is worth another try; anything else would fail the same way.
        if (!isNetworkError(err)) throw fetchFailed(url, options.subject, failure, false)
      }
      const retriesLeft = retry.retries - attempt
      if (retriesLeft <= 0) throw fetchFailed(url, options.subject, failure, true)
      const wait = Math.min(retry.minTimeout * retry.factor ** attempt, retry.maxTimeout)
      this.opts.onWarning?.(`GET ${url} error (${failure.code}). Will retry in ${verboseDuration(wait)}. ${retriesLeft} retries left.`)
      await sleep(wait, undefined, this.opts.signal === undefined ? {} : { signal: this.opts.signal })
    }
  }

  private async getOnce (url: string, options: GetOptions): Promise<GetResult | { retryable: number }> {
    const headers: Record<string, string> = {
      accept: options.accept,
      'accept-encoding': 'gzip, deflate, br',
      'user-agent': this.opts.userAgent,
    }
    const authorization = this.opts.authHeader(url)
    if (authorization !== undefined) headers['authorization'] = authorization
    if (options.etag !== undefined) headers['if-none-match'] = options.etag
    if (options.lastModified !== undefined) headers['if-modified-since'] = options.lastModified
    const { dispatcher, request } = await (this.http ??= this.connect())
    const response = await request(url, {
      dispatcher,
      headers,
      headersTimeout: this.opts.timeout,
      bodyTimeout: this.opts.timeout,
      signal: this.opts.signal ?? null,
    })
    const status = response.statusCode
    if (status === 304) {
      await response.body.dump()
      return { status: 304 }
    }
    if (status !== 200) {
      await response.body.dump()
      if (status === 408 || status === 429 || status >= 500) return { retryable: status }
      throw httpError(url, options.subject, status, authorization !== undefined)
    }
    const raw = Buffer.from(await response.body.arrayBuffer())
    return {
      status: 200,
      body: await decode(raw, header(response.headers, 'content-encoding')),
      etag: header(response.headers, 'etag'),
      lastModified: header(response.headers, 'last-modified'),
    }
  }

  async close (): Promise<void> {
    // A stack that could not be made (its error went to the requests) has nothing to close.
    const http = await this.http?.catch(() => undefined)
    await http?.dispatcher.close()
  }
}

async function decode (raw: Buffer, encoding: string | undefined): Promise<Buffer> {
  switch (encoding?.trim().toLowerCase()) {
    case undefined: case '': case 'identity': return raw
    case 'gzip': case 'x-gzip': return await gunzip(raw)
    case 'br': return await brotliDecompress(raw)
    case 'deflate': return await inflate(raw)
    default: throw new LodeError('FETCH_BAD_ENCODING', `The registry answered with an unsupported content-encoding "${encoding}".`)
  }
}

function header (headers: Record<string, string | string[] | undefined>, name: string): string | undefined {
  const value = headers[name]
  return Array.isArray(value) ? value[0] : value
}

function errorCode (err: unknown): string {
  if (typeof err === 'object' && err !== null && 'code' in err && typeof err.code === 'string') return err.code
  return err instanceof Error ? err.name : 'UNKNOWN'
}

/**
 * A failure of the connection or the transfer (a system error such as ECONNRESET, an undici
 * UND_ERR_ code, a damaged gzip stream), as opposed to an error of lode's own making or of its
 * settings (no code at all, or one of Node's ERR_ codes: an invalid URL or argument).
 */
function isNetworkError (err: unknown): boolean {
  const code = typeof err === 'object' && err !== null && 'code' in err ? err.code : undefined
  return typeof code === 'string' && !code.startsWith('ERR_')
}

function fetchFailed (url: string, subject: string, failure: { code: string, error: unknown }, retried: boolean): LodeError {
  if (failure.error === undefined) {
    return new LodeError(`FETCH_${failure.code}`, `GET ${url} failed with HTTP ${failure.code} while fetching ${subject}, after retrying.`, {
      hint: 'The registry is having trouble; try again later, or raise fetchRetries.',
    })
  }
  const reason = retried ? failure.code : `${failure.code}: ${(failure.error as Error).message}`
  return new LodeError('FETCH_FAILED', `GET ${url} failed (${reason}) while fetching ${subject}${retried ? ', after retrying' : ''}.`, {
    hint: 'Check your network connection, the registry URL and any proxy settings (https-proxy, http-proxy, no-proxy in .npmrc).',
    cause: failure.error,
  })
}

function httpError (url: string, subject: string, status: number, sentAuth: boolean): LodeError {
  const registry = new URL(url)
  const dart = `//${registry.host}/`
  if (status === 401 || status === 403) {
    const what = status === 401 ? 'requires authentication' : 'refused access'
    return new LodeError(`FETCH_${status}`, `GET ${url}: the registry ${what} (${status}) for ${subject}.`, {
      hint: sentAuth
        ? `The token sent for this URL was not accepted; check \`${dart}:_authToken\` in your .npmrc (or log in again with npm login).`
        : `No credentials are configured for this URL; set \`${dart}:_authToken=<token>\` in your .npmrc.`,
    })
  }
  if (status === 404) {
    return new LodeError('NOT_FOUND', `${subject} is not in the registry (GET ${url} answered 404).`, {
      hint: 'Check the name for typos; a scoped package may need its registry set with `@scope:registry=<url>` in .npmrc.',
    })
  }
  return new LodeError(`FETCH_${status}`, `GET ${url} answered HTTP ${status} while fetching ${subject}.`)
}

/** A wait in words, as pnpm words it (pretty-ms, verbose): `10 seconds`, `1 minute`, `1 minute 30 seconds`, `5 milliseconds`. */
export function verboseDuration (ms: number): string {
  const words = (n: number, unit: string): string => `${n} ${unit}${n === 1 ? '' : 's'}`
  if (ms < 1000) return words(Math.round(ms), 'millisecond')
  const parts: string[] = []
  let rest = ms
  for (const [unit, size] of [['day', 86_400_000], ['hour', 3_600_000], ['minute', 60_000]] as const) {
    const n = Math.floor(rest / size)
    if (n > 0) parts.push(words(n, unit))
    rest -= n * size
  }
  // Seconds keep one decimal, floored; a whole number drops it.
  const seconds = Math.floor(rest / 100) / 10
  if (seconds > 0) parts.push(words(seconds, 'second'))
  return parts.join(' ')
}
