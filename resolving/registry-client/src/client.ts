import { createRequire } from 'node:module'
import { setTimeout as sleep } from 'node:timers/promises'
import { promisify } from 'node:util'
import zlib from 'node:zlib'

import { LodeError } from '@lode/core.error'
import pLimit from 'p-limit'
import type { Agent as UndiciAgent, Dispatcher, EnvHttpProxyAgent as UndiciEnvHttpProxyAgent } from 'undici'

import type { AuthHeaderLookup } from './auth.js'
import { redactUrl, redactUrlsIn } from './redact.js'

const gunzip = promisify(zlib.gunzip)
const brotliDecompress = promisify(zlib.brotliDecompress)
const inflate = promisify(zlib.inflate)

/** pnpm's `Accept` for abbreviated ("corgi") metadata, and for the full document. */
export const ACCEPT_ABBREVIATED = 'application/vnd.npm.install-v1+json; q=1.0, application/json; q=0.8, */*'
export const ACCEPT_FULL = 'application/json'

/** Redirects followed for one GET before giving up: pnpm's, npm's and the fetch standard's limit. */
export const MAX_REDIRECTS = 20

export interface RetryOptions {
  /** How many times a failed request is tried again (pnpm's `fetchRetries`). */
  retries: number
  factor: number
  minTimeout: number
  /** Also the longest a `Retry-After` answer is waited for. */
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
  /**
   * pnpm's `fetchTimeout` (ms, `0` for none): the longest a request may make no progress, waiting
   * for the response headers or for the next byte of the body. The deadlines below default to parts
   * and multiples of it (see `networkDeadlines`), so this one setting scales them all.
   */
  timeout: number
  /** From the start of a request (connecting included) to its response headers, in ms. Default: `timeout / 3`. */
  headersTimeout?: number | undefined
  /** For a whole response, headers and body, in ms. Default: `timeout × 5`. */
  responseTimeout?: number | undefined
  /** A body that brings fewer than `lowSpeedLimit` bytes a second over `lowSpeedTime` ms is abandoned. Default: 100. */
  lowSpeedLimit?: number | undefined
  /** Default: `timeout / 3`. */
  lowSpeedTime?: number | undefined
  strictSsl: boolean
  ca?: readonly string[] | undefined
  proxy?: ProxyOptions | undefined
  userAgent: string
  /** Called with pnpm's retry warning before each retry. */
  onWarning?: ((message: string) => void) | undefined
  /** Cancels every request (and retry wait) of this client. */
  signal?: AbortSignal | undefined
  /** Told of each GET answered (retries and redirects included in its time; not its wait for a free slot): the install's timeline. */
  onRequest?: ((request: RequestTiming) => void) | undefined
}

/** A GET as the timeline records it: `performance.now()` times, and the body's size (0 for a 304). */
export interface RequestTiming {
  url: string
  /** What was asked for (`GetOptions.accept`): a packument's JSON, or `*\/*` for a tarball. */
  accept: string
  subject: string
  status: number
  start: number
  end: number
  bytes: number
}

export interface GetOptions {
  accept: string
  /** Sent as `If-None-Match` / `If-Modified-Since`; a 304 answer is returned as such. */
  etag?: string | undefined
  lastModified?: string | undefined
  /** Names the thing asked for in error messages (a package name). */
  subject: string
  /** The most bytes the body may have, as sent and decoded (default `MAX_BODY_SIZE`): past it, `ERR_LODE_FETCH_TOO_LARGE`. */
  maxSize?: number | undefined
  /** The hint of that error: the setting that raises `maxSize` (default: a tarball's, `tarballMaxUnpackedSize`). */
  tooLargeHint?: string | undefined
  /** More request headers (a publish's `npm-command`, `npm-otp`). */
  headers?: Readonly<Record<string, string>> | undefined
  /** A change's 401 or 403 is answered (its body and challenge) rather than thrown: a login reads why. */
  answerRefusals?: boolean | undefined
  /**
   * `false`: the body comes as the registry sent it, its `content-encoding` in `encoding`, for a
   * thread to decode (`decodeBody`) and parse: inflating a few thousand packuments was a fifth of
   * the main thread's time in a resolution.
   */
  decode?: boolean | undefined
}

/** What a POST was answered: any status a retry would not change, and the body. */
export interface PostResult {
  status: number
  body: Buffer
  /** The `www-authenticate` challenge of a refusal answered to the caller (`answerRefusals`): `OTP` asks for a one-time password. */
  challenge?: string | undefined
}

/**
 * The default bound on a response body, as sent and once decoded: a registry (or whoever answers
 * for it) cannot make lode hold more. A packument past it could not be parsed anyway (V8's
 * strings end at about 512 MiB).
 */
export const MAX_BODY_SIZE = 512 * 1024 * 1024

export type GetResult =
  | {
    status: 200
    body: Buffer
    /** The `content-encoding` still on `body` (only when asked for with `decode: false`). */
    encoding?: string | undefined
    etag: string | undefined
    lastModified: string | undefined
  }
  | { status: 304 }

/** The deadlines of one request, in ms; `0` is none. */
export interface NetworkDeadlines {
  /** No progress (no headers yet, no body byte) for this long: undici's `headersTimeout` and `bodyTimeout`. */
  stall: number
  headers: number
  response: number
  lowSpeedLimit: number
  lowSpeedTime: number
}

/**
 * The deadlines `opts` give a request. With pnpm's default `fetchTimeout` of 60 s:
 * - headers in 20 s. A registry answers in well under a second and a caching proxy on a miss in a
 *   few; a request that has not been answered in 20 s was almost always lost (a keep-alive
 *   connection that died silently, a dropped SYN), and retrying it at once beats waiting a minute;
 * - a body slower than 100 bytes/s over 20 s is dropped: that is a stalled or trickling connection,
 *   yet far below the share of one download among 64 parallel ones on a slow mobile link;
 * - a whole response in 5 minutes (npm's `fetch-timeout`, which bounds the whole request): a
 *   100 MB tarball needs 340 kB/s. It only stops a server that stays just above the low-speed
 *   limit; a user on a slower link raises `fetchTimeout`, which raises every deadline.
 * A GET therefore ends, with its answer or a coded error, within
 * `(retries + 1) × (response deadline) + (retry waits)` plus redirects (each a request).
 */
export function networkDeadlines (opts: Pick<RegistryClientOptions, 'timeout' | 'headersTimeout' | 'responseTimeout' | 'lowSpeedLimit' | 'lowSpeedTime'>): NetworkDeadlines {
  const { timeout } = opts
  return {
    stall: timeout,
    headers: opts.headersTimeout ?? Math.round(timeout / 3),
    response: opts.responseTimeout ?? timeout * 5,
    lowSpeedLimit: opts.lowSpeedLimit ?? 100,
    lowSpeedTime: opts.lowSpeedTime ?? Math.round(timeout / 3),
  }
}

interface HttpStack {
  dispatcher: Dispatcher
  request: (url: string, opts: Omit<Dispatcher.RequestOptions, 'origin' | 'path'> & { dispatcher: Dispatcher }) => Promise<Dispatcher.ResponseData>
}

/**
 * The parts of undici an install uses, each from its own module. undici's entry loads all of it
 * (its mocks, fetch, WebSocket, caches: 40 ms at the start of every install that goes to the
 * network); these load in half that. undici is pinned (package.json): the paths are that
 * version's. `request` is undici's, called on the dispatcher as undici's entry calls it.
 */
function loadUndici (proxied: boolean): { Agent: typeof UndiciAgent, EnvHttpProxyAgent: typeof UndiciEnvHttpProxyAgent | undefined, request: HttpStack['request'] } {
  const load = createRequire(import.meta.url)
  const Agent = load('undici/lib/dispatcher/agent.js') as typeof UndiciAgent
  // Through a proxy, the whole of undici: its proxy agent tunnels with the methods undici's entry
  // adds to every dispatcher (`connect`).
  const EnvHttpProxyAgent = proxied ? (load('undici') as { EnvHttpProxyAgent: typeof UndiciEnvHttpProxyAgent }).EnvHttpProxyAgent : undefined
  const apiRequest = load('undici/lib/api/api-request.js') as (this: Dispatcher, opts: Dispatcher.RequestOptions) => Promise<Dispatcher.ResponseData>
  const request: HttpStack['request'] = async (url, { dispatcher, ...opts }) => {
    const { origin, pathname, search } = new URL(url)
    return await apiRequest.call(dispatcher, { ...opts, origin, path: `${pathname}${search}` })
  }
  return { Agent, EnvHttpProxyAgent, request }
}

/** Where a request goes and with which credentials; `shown` is what messages print. */
interface Hop {
  method: 'GET' | 'HEAD' | 'POST' | 'PUT' | 'DELETE'
  url: string
  shown: string
  authorization: string | undefined
  authSource: 'npmrc' | 'url' | undefined
}

type Deadline = 'headers' | 'response' | 'lowSpeed'

/** A redirect (or a HEAD's status): whoever asked decides whether to follow it. */
interface Redirect {
  status: number
  location: string | undefined
}

/** A failed attempt that another attempt might fix: a retryable status, a missed deadline, a network error. */
class Transient extends Error {
  constructor (
    readonly hop: Hop,
    readonly code: string,
    readonly kind: 'status' | 'deadline' | 'network',
    readonly error?: unknown,
    readonly retryAfter?: number,
  ) {
    super(code)
  }
}

// pnpm's list (network/fetch): TLS verification failures and a CA option with no certificate fail
// the same way on every attempt.
const TLS_ERROR_CODES = new Set([
  'CERT_CHAIN_TOO_LONG', 'CERT_HAS_EXPIRED', 'CERT_NOT_YET_VALID', 'CERT_REJECTED', 'CERT_REVOKED',
  'CERT_SIGNATURE_FAILURE', 'CERT_UNTRUSTED', 'DEPTH_ZERO_SELF_SIGNED_CERT', 'ERR_OSSL_PEM_NO_START_LINE',
  'ERR_TLS_CERT_ALTNAME_INVALID', 'HOSTNAME_MISMATCH', 'INVALID_CA', 'INVALID_PURPOSE', 'PATH_LENGTH_EXCEEDED',
  'SELF_SIGNED_CERT_IN_CHAIN', 'UNABLE_TO_GET_ISSUER_CERT', 'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
])
// undici's codes for a misuse of undici or a closed client, not for something the network did.
const UNDICI_OWN_ERROR_CODES = new Set(['UND_ERR_INVALID_ARG', 'UND_ERR_INVALID_RETURN_VALUE', 'UND_ERR_NOT_SUPPORTED', 'UND_ERR_DESTROYED', 'UND_ERR_CLOSED'])

/**
 * The one HTTP client of an install: a keep-alive undici dispatcher (through the configured proxy
 * when there is one), at most `networkConcurrency` requests at once, deadlines per request, retries
 * with pnpm's backoff, redirects followed, auth per URL, and one request for concurrent identical
 * GETs. No URL it prints shows credentials. Close it when the install ends.
 */
export class RegistryClient {
  // undici is loaded by the first request (see loadUndici): an install from the lockfile and a
  // warm store makes none.
  private http: HttpStack | undefined
  private readonly limit: ReturnType<typeof pLimit>
  private readonly inflight = new Map<string, Promise<GetResult>>()
  private readonly deadlines: NetworkDeadlines

  constructor (private readonly opts: RegistryClientOptions) {
    this.limit = pLimit(opts.networkConcurrency)
    this.deadlines = networkDeadlines(opts)
  }

  private connect (): HttpStack {
    const { opts } = this
    const proxy = opts.proxy
    const proxied = proxy?.httpProxy !== undefined || proxy?.httpsProxy !== undefined
    const { Agent, EnvHttpProxyAgent, request } = loadUndici(proxied)
    const connect = { rejectUnauthorized: opts.strictSsl, ...(opts.ca !== undefined && opts.ca.length > 0 ? { ca: [...opts.ca] } : {}) }
    const agentOptions = { connections: opts.networkConcurrency, keepAliveTimeout: 30_000, connect }
    // Proxy settings arrive through the config object; empty strings keep undici off process.env.
    const dispatcher = proxied && EnvHttpProxyAgent !== undefined
      // Through a proxy, undici takes the TLS options of the connection to the origin (the registry,
      // tunnelled) and to the proxy apart: both trust `ca` and follow `strict-ssl`.
      ? new EnvHttpProxyAgent({ ...agentOptions, requestTls: connect, proxyTls: connect, httpProxy: proxy?.httpProxy ?? '', httpsProxy: proxy?.httpsProxy ?? proxy?.httpProxy ?? '', noProxy: proxy?.noProxy ?? '' })
      : new Agent(agentOptions)
    return { dispatcher, request }
  }

  /** GET `url`, decompressed. 304 only when a validator was sent. Errors are `LodeError`s. */
  async get (url: string, options: GetOptions): Promise<GetResult> {
    const key = `${options.accept}\n${options.etag ?? ''}\n${options.lastModified ?? ''}\n${options.decode === false ? 'raw' : ''}\n${url}`
    let pending = this.inflight.get(key)
    if (pending === undefined) {
      pending = this.limit(async () => {
        const start = performance.now()
        const result = await this.getWithRetries(url, options)
        const bytes = result.status === 200 ? result.body.length : 0
        const { accept, subject } = options
        this.opts.onRequest?.({ url, accept, subject, status: result.status, start, end: performance.now(), bytes })
        return result
      })
        .finally(() => { this.inflight.delete(key) })
      this.inflight.set(key, pending)
    }
    return await pending
  }

  /**
   * The status of a `HEAD` request to `url`, sent with no credentials and no redirect followed (a
   * redirect's status is the answer). Only what `retry` allows is retried: pnpm probes whether a
   * hosted git repository is public this way, with its own short retries. A failure to get any
   * answer rejects.
   */
  async head (url: string, options: { subject: string, retry: RetryOptions }): Promise<number> {
    return await this.limit(async () => {
      const hop = { ...this.firstHop(url, options.subject, 'HEAD'), authorization: undefined, authSource: undefined }
      for (let attempt = 0; ; attempt++) {
        let failure: Transient
        try {
          // A HEAD is answered with its status, whatever it is (not retried, redirects not followed), unless it is one retried.
          return (await this.request(hop, { accept: '*/*', subject: options.subject })).status
        } catch (err) {
          if (!(err instanceof Transient)) throw err
          failure = err
        }
        const retriesLeft = options.retry.retries - attempt
        if (retriesLeft <= 0) throw exhausted(hop, options.subject, failure, this.deadlines)
        const wait = Math.min(options.retry.minTimeout * options.retry.factor ** attempt, options.retry.maxTimeout)
        this.opts.onWarning?.(`HEAD ${failure.hop.shown} error (${failure.code}). Will retry in ${verboseDuration(wait)}. ${retriesLeft} retries left.`)
        await sleep(wait, undefined, this.opts.signal === undefined ? {} : { signal: this.opts.signal })
      }
    })
  }

  private async getWithRetries (url: string, options: GetOptions): Promise<GetResult> {
    const first = this.firstHop(url, options.subject, 'GET')
    return await this.withRetries(first, options.subject, async () => await this.followRedirects(first, options))
  }

  /**
   * POST `body` (JSON) to `url`: the answer, whatever its status (the caller reads a 404 or a 400),
   * but for a refused authentication (`ERR_LODE_FETCH_401/403`, with the GET's hints). Retried and
   * redirected as a GET is (the body sent again to where a redirect points).
   */
  async post (url: string, body: string, options: { subject: string }): Promise<PostResult> {
    return await this.send('POST', url, body, options)
  }

  /**
   * POST or PUT `body` (JSON) to `url`, or DELETE it (`body` undefined), as `post` says. A PUT
   * (a publish) or a DELETE is sent once: retried after the registry took it, it would be answered
   * 409 (a version it has) or 404 (a tag it no longer has); a PUT's 409 is the caller's to read.
   * A PUT has no deadline for the answer's headers apart from the whole response's (its body may
   * take long to send).
   */
  async send (
    method: 'POST' | 'PUT' | 'DELETE',
    url: string,
    body: string | undefined,
    options: { subject: string, headers?: Readonly<Record<string, string>>, answerRefusals?: boolean }
  ): Promise<PostResult> {
    return await this.limit(async () => {
      const hop = this.firstHop(url, options.subject, method)
      return await this.withRetries(hop, options.subject, async () => {
        const answer = await this.followRedirects(hop, { accept: 'application/json', subject: options.subject, headers: options.headers, answerRefusals: options.answerRefusals }, body ?? '')
        return { status: answer.status, body: answer.body, ...answer.challenge === undefined ? {} : { challenge: answer.challenge } }
      }, method === 'POST' ? undefined : 0)
    })
  }

  /** `attempt` until it answers or fails for good, with pnpm's backoff between attempts. */
  private async withRetries<T> (first: Hop, subject: string, attempt: () => Promise<T>, retries?: number): Promise<T> {
    const retry = retries === undefined ? this.opts.retry : { ...this.opts.retry, retries }
    for (let attempts = 0; ; attempts++) {
      let failure: Transient
      try {
        return await attempt()
      } catch (err) {
        if (err instanceof LodeError) throw err
        this.opts.signal?.throwIfAborted()
        if (!(err instanceof Transient)) throw permanentError(first, subject, err)
        failure = err
      }
      const retriesLeft = retry.retries - attempts
      if (retriesLeft <= 0) throw exhausted(first, subject, failure, this.deadlines)
      const backoff = Math.min(retry.minTimeout * retry.factor ** attempts, retry.maxTimeout)
      const wait = failure.retryAfter === undefined ? backoff : Math.min(failure.retryAfter, retry.maxTimeout)
      this.opts.onWarning?.(`${failure.hop.method} ${failure.hop.shown} error (${failure.code}). Will retry in ${verboseDuration(wait)}. ${retriesLeft} retries left.`)
      await sleep(wait, undefined, this.opts.signal === undefined ? {} : { signal: this.opts.signal })
    }
  }

  /**
   * The request for `url`. Credentials written in the URL (`https://user:pass@host/`) are sent as
   * npm sends them, as Basic auth when `.npmrc` gives none, and never in the URL: undici would drop
   * them silently.
   */
  private firstHop (url: string, subject: string, method: Hop['method']): Hop {
    let parsed: URL
    try {
      parsed = new URL(url)
    } catch {
      throw invalidUrl(url, subject)
    }
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw invalidUrl(url, subject)
    return this.hopTo(parsed, redactUrl(url), method)
  }

  private hopTo (parsed: URL, shown: string, method: Hop['method']): Hop {
    let userinfo: string | undefined
    if (parsed.username !== '' || parsed.password !== '') {
      userinfo = `Basic ${Buffer.from(`${decodeUserinfo(parsed.username)}:${decodeUserinfo(parsed.password)}`).toString('base64')}`
      parsed = new URL(parsed.href)
      parsed.username = ''
      parsed.password = ''
    }
    const url = parsed.href
    const configured = this.opts.authHeader(url)
    if (configured !== undefined) return { method, url, shown, authorization: configured, authSource: 'npmrc' }
    return { method, url, shown, authorization: userinfo, authSource: userinfo === undefined ? undefined : 'url' }
  }

  /**
   * One attempt: the request and the redirects it is answered with. Each hop's `Authorization` is
   * the one configured for that hop's URL. The first request's credentials go on only to its own
   * origin (pnpm drops them on a change of host, pnpm/pnpm#1815), and never over plain HTTP after
   * HTTPS.
   */
  private async followRedirects (first: Hop, options: GetOptions): Promise<GetResult>
  private async followRedirects (first: Hop, options: GetOptions, body: string): Promise<PostResult & { posted: true }>
  private async followRedirects (first: Hop, options: GetOptions, body?: string): Promise<GetResult | (PostResult & { posted: true })> {
    let hop = first
    for (let redirects = 0; ; redirects++) {
      const outcome = body === undefined ? await this.request(hop, options) : await this.request(hop, options, body)
      if (!('location' in outcome)) return outcome
      if (redirects === MAX_REDIRECTS) {
        throw new LodeError('FETCH_TOO_MANY_REDIRECTS', `${first.method} ${first.shown} was redirected more than ${MAX_REDIRECTS} times (last to ${hop.shown}) while fetching ${shownSubject(options.subject)}.`, {
          hint: 'The registry (or a proxy in front of it) redirects in a loop; check the registry URL in .npmrc and the proxy settings.',
        })
      }
      hop = this.redirectHop(hop, first, outcome, options.subject)
    }
  }

  private redirectHop (from: Hop, first: Hop, redirect: { status: number, location: string | undefined }, subject: string): Hop {
    let target: URL | undefined
    try {
      if (redirect.location !== undefined) target = new URL(redirect.location, from.url)
    } catch {
      target = undefined
    }
    if (target === undefined || (target.protocol !== 'http:' && target.protocol !== 'https:')) {
      const where = redirect.location === undefined ? 'without a Location header' : `to "${redactUrl(redirect.location)}", which lode cannot follow`
      throw new LodeError('FETCH_BAD_REDIRECT', `${from.method} ${from.shown} answered ${redirect.status} ${where}, while fetching ${shownSubject(subject)}.`, {
        hint: 'The registry (or a proxy in front of it) sends a broken redirect; check the registry URL in .npmrc.',
      })
    }
    const hop = this.hopTo(target, redactUrl(target.href), from.method)
    if (first.url.startsWith('https:') && target.protocol === 'http:') return { ...hop, authorization: undefined, authSource: undefined }
    if (hop.authorization === undefined && target.origin === new URL(first.url).origin) {
      return { ...hop, authorization: first.authorization, authSource: first.authSource }
    }
    return hop
  }

  /**
   * One request, under its deadlines. Throws a `Transient` for what another attempt might fix. The
   * deadlines, the body stream and the error mapping share the request's timers: one method.
   */
  private async request (hop: Hop, options: GetOptions): Promise<GetResult | Redirect>
  private async request (hop: Hop, options: GetOptions, body: string): Promise<Redirect | (PostResult & { posted: true })>
  private async request (hop: Hop, options: GetOptions, body?: string): Promise<GetResult | Redirect | (PostResult & { posted: true })> {
    const headers: Record<string, string> = {
      accept: options.accept,
      'accept-encoding': 'gzip, deflate, br',
      'user-agent': this.opts.userAgent,
    }
    if (hop.authorization !== undefined) headers['authorization'] = hop.authorization
    if (options.etag !== undefined) headers['if-none-match'] = options.etag
    if (options.lastModified !== undefined) headers['if-modified-since'] = options.lastModified
    if (body !== undefined && hop.method !== 'DELETE') headers['content-type'] = 'application/json'
    Object.assign(headers, options.headers)
    const d = this.deadlines
    const controller = new AbortController()
    let missed: Deadline | undefined
    const miss = (deadline: Deadline): void => {
      missed ??= deadline
      controller.abort(new Error(`${deadline} deadline`))
    }
    const parent = this.opts.signal
    const cancel = (): void => { controller.abort(parent?.reason) }
    parent?.addEventListener('abort', cancel, { once: true })
    const timers: NodeJS.Timeout[] = []
    const after = (ms: number, deadline: Deadline): NodeJS.Timeout | undefined => {
      if (ms <= 0) return undefined
      const timer = setTimeout(() => { miss(deadline) }, ms)
      timers.push(timer)
      return timer
    }
    try {
      const { dispatcher, request } = (this.http ??= this.connect())
      parent?.throwIfAborted()
      const headersTimer = hop.method === 'PUT' ? undefined : after(d.headers, 'headers')
      after(d.response, 'response')
      const response = await request(hop.url, {
        dispatcher,
        method: hop.method,
        headers,
        ...body === undefined || hop.method === 'DELETE' ? {} : { body },
        headersTimeout: d.stall,
        bodyTimeout: d.stall,
        signal: controller.signal,
      })
      clearTimeout(headersTimer)
      const status = response.statusCode
      const sent = hop.method === 'POST' || hop.method === 'PUT' || hop.method === 'DELETE'
      const retried = status === 408 || (status === 409 && hop.method !== 'PUT' && hop.method !== 'DELETE') || status === 420 || status === 429 || status >= 500
      if (hop.method === 'HEAD' && !retried) {
        await response.body.dump()
        return { status, location: header(response.headers, 'location') }
      }
      // A POST's (or PUT's) answer is the caller's to read, but for a redirect, a retry or a refused authentication.
      const posted = sent && !retried && !REDIRECTS.has(status) && ((status !== 401 && status !== 403) || options.answerRefusals === true)
      if (status !== 200 && !posted) {
        await response.body.dump()
        if (status === 304) return { status: 304 }
        if (REDIRECTS.has(status)) {
          return { status, location: header(response.headers, 'location') }
        }
        // pnpm retries 409 and 420 too (some registries answer them while busy).
        if (retried) {
          const retryAfter = status === 429 || status === 503 ? retryAfterMs(header(response.headers, 'retry-after')) : undefined
          throw new Transient(hop, String(status), 'status', undefined, retryAfter)
        }
        throw httpError(hop, options.subject, status)
      }
      const maxSize = options.maxSize ?? MAX_BODY_SIZE
      if (Number(header(response.headers, 'content-length')) > maxSize) {
        drop(response.body)
        throw tooLarge(hop, options.subject, maxSize, options.tooLargeHint)
      }
      const collected = new BodyCollector(Number(header(response.headers, 'content-length')))
      let received = 0
      if (d.lowSpeedTime > 0 && d.lowSpeedLimit > 0) {
        let atWindowStart = 0
        const minBytes = d.lowSpeedLimit * d.lowSpeedTime / 1000
        const check = setInterval(() => {
          if (received - atWindowStart < minBytes) miss('lowSpeed')
          atWindowStart = received
        }, d.lowSpeedTime)
        timers.push(check)
      }
      for await (const chunk of response.body) {
        const buffer = chunk as Buffer
        received += buffer.length
        if (received > maxSize) {
          drop(response.body)
          throw tooLarge(hop, options.subject, maxSize, options.tooLargeHint)
        }
        collected.add(buffer)
      }
      const raw = collected.bytes()
      const encoding = header(response.headers, 'content-encoding')
      if (options.decode === false && !sent) {
        checkEncoding(encoding, hop, options.subject)
        return { status: 200, body: raw, encoding, etag: header(response.headers, 'etag'), lastModified: header(response.headers, 'last-modified') }
      }
      const decoded = await decode(raw, encoding, hop, options, maxSize)
      if (sent) return { posted: true, status, body: decoded, challenge: header(response.headers, 'www-authenticate') }
      return {
        status: 200,
        body: decoded,
        etag: header(response.headers, 'etag'),
        lastModified: header(response.headers, 'last-modified'),
      }
    } catch (err) {
      if (err instanceof LodeError || err instanceof Transient) throw err
      parent?.throwIfAborted()
      if (missed !== undefined) throw new Transient(hop, DEADLINE_CODES[missed], 'deadline')
      if (isTransientError(err)) throw new Transient(hop, errorCode(err), 'network', err)
      throw permanentError(hop, options.subject, err)
    } finally {
      for (const timer of timers) clearTimeout(timer)
      parent?.removeEventListener('abort', cancel)
    }
  }

  async close (): Promise<void> {
    // None was made when no request was (or its making failed: the error went to the requests).
    await this.http?.dispatcher.close()
  }
}

const REDIRECTS = new Set([301, 302, 303, 307, 308])

const DEADLINE_CODES: Record<Deadline, string> = { headers: 'HEADERS_TIMEOUT', response: 'RESPONSE_TIMEOUT', lowSpeed: 'LOW_SPEED' }

async function decode (raw: Buffer, encoding: string | undefined, hop: Hop, options: GetOptions, maxSize: number): Promise<Buffer> {
  const coding = checkEncoding(encoding, hop, options.subject)
  if (coding === undefined) return raw
  const inflateWith = coding === 'gzip' ? gunzip : coding === 'br' ? brotliDecompress : inflate
  // A small compressed body can inflate to gigabytes: the decoded size has the same bound.
  try {
    return await inflateWith(raw, { maxOutputLength: maxSize, ...coding === 'gzip' ? gzipOneChunk(raw, maxSize) : {} })
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE') throw tooLarge(hop, options.subject, maxSize, options.tooLargeHint)
    throw err
  }
}

/**
 * The gzip trailer's size (mod 4 GiB) as zlib's one output chunk: the body inflates into one buffer
 * of its size, where 16 KiB pieces were copied together at the end (twice its size at once). A
 * trailer that lies costs a few more chunks, or one too large: never more than `maxSize`.
 */
function gzipOneChunk (raw: Buffer, maxSize: number): { chunkSize?: number } {
  const size = raw.length >= 18 ? raw.readUInt32LE(raw.length - 4) : 0
  return size > 0 && size < maxSize ? { chunkSize: Math.max(size + 1, zlib.constants.Z_MIN_CHUNK) } : {}
}

/** The decoder a `content-encoding` needs (undefined: none); `ERR_LODE_FETCH_BAD_ENCODING` for one lode cannot decode. */
function checkEncoding (encoding: string | undefined, hop: Pick<Hop, 'method' | 'shown'>, subject: string): 'gzip' | 'br' | 'deflate' | undefined {
  const known = contentCoding(encoding)
  if (known !== null) return known
  throw new LodeError('FETCH_BAD_ENCODING', `${hop.method} ${hop.shown} answered with an unsupported content-encoding "${encoding}" while fetching ${shownSubject(subject)}.`, {
    hint: 'A proxy between you and the registry may be rewriting responses; check the proxy settings in .npmrc.',
  })
}

function contentCoding (encoding: string | undefined): 'gzip' | 'br' | 'deflate' | undefined | null {
  switch (encoding?.trim().toLowerCase()) {
    case undefined: case '': case 'identity': return undefined
    case 'gzip': case 'x-gzip': return 'gzip'
    case 'br': return 'br'
    case 'deflate': return 'deflate'
    default: return null
  }
}

/**
 * Decodes a body fetched with `decode: false`, synchronously (for a thread): bounded by `maxSize`
 * as `get` bounds it (`ERR_LODE_FETCH_TOO_LARGE`). Damaged data throws zlib's own error, which
 * `get` would have retried: the caller fetches the document again, decoded.
 */
export function decodeBody (
  raw: Buffer, encoding: string | undefined, opts: { url: string, subject: string, maxSize: number, tooLargeHint?: string | undefined }
): Buffer {
  const coding = contentCoding(encoding)
  if (coding === undefined || coding === null) {
    // Sent as it is: bounded here too, for a caller that did not fetch it with the same bound.
    if (raw.length > opts.maxSize) throw tooLarge({ method: 'GET', shown: redactUrl(opts.url) }, opts.subject, opts.maxSize, opts.tooLargeHint)
    return raw
  }
  const bound = { maxOutputLength: opts.maxSize }
  try {
    switch (coding) {
      case 'gzip': return zlib.gunzipSync(raw, { ...bound, ...gzipOneChunk(raw, opts.maxSize) })
      case 'br': return zlib.brotliDecompressSync(raw, bound)
      case 'deflate': return zlib.inflateSync(raw, bound)
    }
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE') {
      throw tooLarge({ method: 'GET', shown: redactUrl(opts.url) }, opts.subject, opts.maxSize, opts.tooLargeHint)
    }
    throw err
  }
}

/** Stops reading a body and closes its connection (undici reports the abort as an error event: it is expected here). */
function drop (body: NodeJS.ReadableStream & { destroy: () => void }): void {
  body.on('error', () => {})
  body.destroy()
}

function tooLarge (hop: Pick<Hop, 'method' | 'shown'>, subject: string, maxSize: number, hint: string | undefined): LodeError {
  return new LodeError('FETCH_TOO_LARGE', `${hop.method} ${hop.shown} answered with more than ${maxSize} bytes while fetching ${shownSubject(subject)}.`, {
    hint: hint ?? 'No package is that large: the registry (or a proxy) may be broken or hostile. For a real package that large, raise tarballMaxUnpackedSize in pnpm-workspace.yaml.',
  })
}

function decodeUserinfo (part: string): string {
  try {
    return decodeURIComponent(part)
  } catch {
    return part
  }
}

function header (headers: Record<string, string | string[] | undefined>, name: string): string | undefined {
  const value = headers[name]
  return Array.isArray(value) ? value[0] : value
}

/** `Retry-After` in its delta-seconds form; an HTTP date (rare from registries) falls back to the backoff. */
function retryAfterMs (value: string | undefined): number | undefined {
  return value !== undefined && /^\s*\d+\s*$/.test(value) ? Number(value) * 1000 : undefined
}

function errorCode (err: unknown): string {
  if (typeof err === 'object' && err !== null && 'code' in err && typeof err.code === 'string') return err.code
  return err instanceof Error ? err.name : 'UNKNOWN'
}

function tlsCode (err: unknown): string | undefined {
  const code = errorCode(err)
  if (TLS_ERROR_CODES.has(code)) return code
  const cause = err instanceof Error ? err.cause : undefined
  return cause !== undefined && TLS_ERROR_CODES.has(errorCode(cause)) ? errorCode(cause) : undefined
}

/**
 * A failure of the connection or the transfer that another attempt may not meet: a system error
 * (ECONNRESET, ECONNREFUSED, ETIMEDOUT, EPIPE, ENOTFOUND, …), an undici socket or timeout error
 * (a body cut short included), an unparsable response (HPE_), a damaged gzip stream (Z_). Not:
 * a TLS certificate that fails verification, an error of lode's own making or of its settings
 * (no code, one of Node's ERR_ codes, undici's invalid-argument codes).
 */
function isTransientError (err: unknown): boolean {
  const code = errorCode(err)
  if (tlsCode(err) !== undefined || UNDICI_OWN_ERROR_CODES.has(code)) return false
  const hasCode = typeof err === 'object' && err !== null && 'code' in err && typeof err.code === 'string'
  return hasCode && !code.startsWith('ERR_')
}

function shownSubject (subject: string): string {
  return redactUrlsIn(subject)
}

function invalidUrl (url: string, subject: string): LodeError {
  return new LodeError('FETCH_INVALID_URL', `Cannot fetch ${shownSubject(subject)}: "${redactUrl(url)}" is not a valid http(s) URL.`, {
    hint: 'Check the registry settings in .npmrc (registry=, @scope:registry=) and the tarball URL in the lockfile.',
  })
}

/** The error of a failure another attempt would meet again: a certificate refused, a setting or a bug of lode's. */
function permanentError (hop: Hop, subject: string, err: unknown): LodeError {
  const tls = tlsCode(err)
  const message = redactUrlsIn(err instanceof Error ? err.message : String(err))
  if (tls !== undefined) {
    const { host, hostname } = new URL(hop.url)
    return new LodeError('FETCH_TLS', `${hop.method} ${hop.shown} failed: the TLS certificate of ${host} was not accepted (${tls}: ${message}) while fetching ${shownSubject(subject)}.`, {
      hint: tls === 'ERR_TLS_CERT_ALTNAME_INVALID' || tls === 'HOSTNAME_MISMATCH'
        ? `The certificate is not for ${hostname}; check the registry URL in .npmrc (it must name the host the certificate was issued for).`
        : 'If the registry or a proxy in between uses a certificate of its own authority, give that CA in .npmrc with `cafile=<path to the PEM file>` (or `ca=`). `strict-ssl=false` turns the check off, for every registry.',
      cause: err,
    })
  }
  return new LodeError('FETCH_FAILED', `${hop.method} ${hop.shown} failed (${errorCode(err)}: ${message}) while fetching ${shownSubject(subject)}.`, {
    hint: 'Check your network connection, the registry URL and any proxy settings (https-proxy, http-proxy, no-proxy in .npmrc).',
    cause: err,
  })
}

function exhausted (first: Hop, subject: string, failure: Transient, d: NetworkDeadlines): LodeError {
  const url = failure.hop === first ? first.shown : `${failure.hop.shown} (redirected from ${first.shown})`
  const what = shownSubject(subject)
  if (failure.kind === 'status') {
    return new LodeError(`FETCH_${failure.code}`, `${first.method} ${url} failed with HTTP ${failure.code} while fetching ${what}, after retrying.`, {
      hint: 'The registry is having trouble; try again later, or raise fetch-retries.',
    })
  }
  if (failure.kind === 'deadline') {
    const why = failure.code === 'HEADERS_TIMEOUT'
      ? `no answer within ${verboseDuration(d.headers)}`
      : failure.code === 'LOW_SPEED'
        ? `the response came slower than ${d.lowSpeedLimit} bytes a second for ${verboseDuration(d.lowSpeedTime)}`
        : `the response took longer than ${verboseDuration(d.response)}`
    return new LodeError('FETCH_TIMEOUT', `${first.method} ${url} failed (${failure.code}: ${why}) while fetching ${what}, after retrying.`, {
      hint: 'The registry or the network stalled. Check your connection and proxy settings; on a slow link raise fetch-timeout in .npmrc (headers may take a third of it, a whole response five times it).',
    })
  }
  return new LodeError('FETCH_FAILED', `${first.method} ${url} failed (${failure.code}) while fetching ${what}, after retrying.`, {
    hint: 'Check your network connection, the registry URL and any proxy settings (https-proxy, http-proxy, no-proxy in .npmrc).',
    cause: failure.error,
  })
}

function httpError (hop: Hop, subject: string, status: number): LodeError {
  const dart = `//${new URL(hop.url).host}/`
  const what = shownSubject(subject)
  if (status === 401 || status === 403) {
    const refused = status === 401 ? 'requires authentication' : 'refused access'
    return new LodeError(`FETCH_${status}`, `${hop.method} ${hop.shown}: the registry ${refused} (${status}) for ${what}.`, {
      hint: hop.authSource === 'npmrc'
        ? `The token sent for this URL was not accepted; check \`${dart}:_authToken\` in your .npmrc (or log in again with npm login).`
        : hop.authSource === 'url'
          ? `The user and password written in the registry URL were not accepted; set \`${dart}:_authToken=<token>\` in your .npmrc instead.`
          : `No credentials are configured for this URL; set \`${dart}:_authToken=<token>\` in your .npmrc.`,
    })
  }
  if (status === 404) {
    return new LodeError('NOT_FOUND', `${what} is not in the registry (${hop.method} ${hop.shown} answered 404).`, {
      hint: 'Check the name for typos; a scoped package may need its registry set with `@scope:registry=<url>` in .npmrc.',
    })
  }
  return new LodeError(`FETCH_${status}`, `${hop.method} ${hop.shown} answered HTTP ${status} while fetching ${what}.`)
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

/**
 * A response body as it arrives. With a content-length, the chunks are copied into one buffer of
 * that size as they come: each dies at once, where a list of them held every socket read of every
 * download under way until the last byte (and then a copy of it all). The buffer is not pooled,
 * so a tarball's memory moves to a store thread without a copy. Without one, or past it, chunks are
 * gathered and joined at the end.
 */
class BodyCollector {
  private whole: Buffer | undefined
  private filled = 0
  private readonly chunks: Buffer[] = []

  constructor (contentLength: number) {
    if (Number.isSafeInteger(contentLength) && contentLength > 0) this.whole = Buffer.allocUnsafeSlow(contentLength)
  }

  add (chunk: Buffer): void {
    if (this.whole !== undefined && this.filled + chunk.length <= this.whole.length) {
      chunk.copy(this.whole, this.filled)
      this.filled += chunk.length
      return
    }
    if (this.whole !== undefined) {
      this.chunks.push(this.whole.subarray(0, this.filled))
      this.whole = undefined
    }
    this.chunks.push(chunk)
  }

  bytes (): Buffer {
    if (this.whole !== undefined) return this.filled === this.whole.length ? this.whole : this.whole.subarray(0, this.filled)
    return Buffer.concat(this.chunks)
  }
}
