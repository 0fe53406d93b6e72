import { setTimeout as sleep } from 'node:timers/promises'

import { LodeError } from '@lode/core.error'
import type { Config } from '@lode/pkg-manager.config.settings'
import { updateIniFile } from '@lode/pkg-manager.config.settings'
import { ACCEPT_FULL } from '@lode/resolving.registry-client'
import type { RegistryClient } from '@lode/resolving.registry-client'

import { fetchStatus, jsonMember, registryConfigKey, withClient } from './registry-answer.js'

// pnpm 11's `login` (`adduser`): a token got from the registry (its web login, else the classic
// username and password one), written into pnpm's `auth.ini`.

/** How long a web login waits for the browser's side, as pnpm waits; and how often it asks. */
const WEB_LOGIN_TIMEOUT_MS = 5 * 60 * 1000
const POLL_INTERVAL_MS = 1000

export interface Credentials { username: string, password: string, email: string }

export interface LoginOptions {
  /** pnpm's `auth.ini`, where the token goes. */
  authFile: string
  /** `--scope`: the token is the scope's, and the scope is mapped to the registry. */
  scope?: string | undefined
  onWarning: (message: string) => void
  /** Said after a classic login got its token (`Logged in as <user>`). */
  onInfo: (message: string) => void
  /** Says where to log in on the web (and may open it); called once. */
  onAuthUrl: (url: string) => void
  /** On a terminal, asks for a classic login's credentials; without one, undefined (the login is refused). */
  askCredentials: (() => Promise<Credentials | undefined>) | undefined
  /** On a terminal, asks for a one-time password when the registry wants one. */
  askOtp: (() => Promise<string | undefined>) | undefined
  /** Test hooks: the poll interval and the web login's time limit. */
  pollIntervalMs?: number
  timeoutMs?: number
}

/** Logs in to the default registry and keeps the token in `auth.ini`: `Logged in on <registry>`. */
export async function login (config: Config, opts: LoginOptions): Promise<string> {
  const registry = config.registry
  const token = await withClient(config, opts, async (client) => {
    const web = await startWebLogin(client, registry)
    if (web === 'unsupported') return await classicLogin(client, registry, opts)
    opts.onAuthUrl(web.loginUrl)
    return await pollForToken(client, web.doneUrl, opts)
  })
  const scope = normalizeScope(opts.scope)
  const key = scope === undefined ? registryConfigKey(registry) : `${registryConfigKey(registry)}:${scope}`
  await updateIniFile(opts.authFile, { [`${key}:_authToken`]: token, ...scope === undefined ? {} : { [`${scope}:registry`]: registry } })
  return `Logged in on ${registry}`
}

function normalizeScope (scope: string | undefined): string | undefined {
  const trimmed = scope?.trim()
  if (trimmed === undefined || trimmed === '' || trimmed === '@') return undefined
  return trimmed.startsWith('@') ? trimmed : `@${trimmed}`
}

/** The registry's web login (`POST /-/v1/login`): where to send the user, and where to ask for the token; 'unsupported' on 404 or 405. */
async function startWebLogin (client: RegistryClient, registry: string): Promise<{ loginUrl: string, doneUrl: string } | 'unsupported'> {
  let answer
  try {
    answer = await client.send('POST', `${registry}-/v1/login`, '{}', { subject: 'a web login', headers: { 'npm-auth-type': 'web' } })
  } catch (err) {
    const status = fetchStatus(err)
    if (status === undefined) throw err
    throw webLoginFailed(status, '')
  }
  if (answer.status === 404 || answer.status === 405) return 'unsupported'
  if (answer.status < 200 || answer.status >= 300) throw webLoginFailed(answer.status, answer.body.toString('utf8'))
  const loginUrl = urlMember(answer.body, 'loginUrl')
  const doneUrl = urlMember(answer.body, 'doneUrl')
  if (loginUrl === undefined || doneUrl === undefined) {
    throw new LodeError('LOGIN_INVALID_RESPONSE', 'The registry returned an invalid response for web-based login')
  }
  // A URL that moves the cursor or recolours the terminal could pass for another one.
  if (hasControlCharacters(loginUrl) || hasControlCharacters(doneUrl)) {
    throw new LodeError('AUTH_COMMANDS_LOGIN_UNSAFE_URL', 'The registry returned an authentication URL containing control characters and was rejected as a possible terminal-spoofing attempt')
  }
  return { loginUrl, doneUrl }
}

function webLoginFailed (status: number, text: string): LodeError {
  return new LodeError('WEB_LOGIN_FAILED', `Web-based login failed (HTTP ${status}): ${text}`)
}

function urlMember (body: Buffer, member: string): string | undefined {
  const value = jsonMember(body, member)
  return typeof value === 'string' && value !== '' ? value : undefined
}

function hasControlCharacters (text: string): boolean {
  for (const char of text) {
    const code = char.codePointAt(0)!
    if (code <= 0x1f || (code >= 0x7f && code <= 0x9f)) return true
  }
  return false
}

/** Asks `doneUrl` every second until the registry hands over the token (the user logged in), for five minutes at most. */
async function pollForToken (client: RegistryClient, doneUrl: string, opts: LoginOptions): Promise<string> {
  const start = Date.now()
  const timeout = opts.timeoutMs ?? WEB_LOGIN_TIMEOUT_MS
  for (;;) {
    if (Date.now() - start > timeout) {
      throw new LodeError('WEBAUTH_TIMEOUT', 'Web-based authentication timed out before it could be completed', {
        hint: 'Re-run this command and complete the authentication step in your browser before the time limit is reached',
      })
    }
    await sleep(opts.pollIntervalMs ?? POLL_INTERVAL_MS)
    try {
      // A 202 (not yet) is an error to the client, as any answer but 200 is: asked again.
      const answer = await client.get(doneUrl, { accept: ACCEPT_FULL, subject: 'the web login\'s token' })
      const token = answer.status === 200 ? jsonMember(answer.body, 'token') : undefined
      if (typeof token === 'string' && token !== '') return token
    } catch (err) {
      if (!(err instanceof LodeError)) throw err
    }
  }
}

/** The classic login (`PUT /-/user/org.couchdb.user:<name>`), on a terminal only; a one-time password asked when the registry wants one. */
async function classicLogin (client: RegistryClient, registry: string, opts: LoginOptions): Promise<string> {
  if (opts.askCredentials === undefined) throw new LodeError('LOGIN_NON_INTERACTIVE', 'The login command requires an interactive terminal')
  const credentials = await opts.askCredentials()
  if (credentials === undefined) throw new LodeError('LOGIN_CANCELED', 'Login canceled')
  const { username, password, email } = credentials
  if (username === '' || password === '' || email === '') {
    throw new LodeError('LOGIN_MISSING_CREDENTIALS', 'Username, password, and email are all required')
  }
  const put = async (otp: string | undefined): Promise<{ status: number, body: Buffer, challenge?: string | undefined }> => {
    try {
      return await client.send('PUT', `${registry}-/user/org.couchdb.user:${encodeURIComponent(username)}`, JSON.stringify({
        _id: `org.couchdb.user:${username}`, name: username, password, email, type: 'user',
      }), {
        subject: `the user ${username}`,
        headers: {
          'npm-auth-type': 'web',
          authorization: `Basic ${Buffer.from(`${username}:${password}`, 'utf8').toString('base64')}`,
          ...otp === undefined ? {} : { 'npm-otp': otp },
        },
        answerRefusals: true,
      })
    } catch (err) {
      const status = fetchStatus(err)
      if (status === undefined) throw err
      return { status, body: Buffer.alloc(0) }
    }
  }
  let answer = await put(undefined)
  // An account with two-factor authentication answers 401 with an `OTP` challenge (pnpm asks for one only then).
  if (answer.status === 401 && answer.challenge?.toLowerCase().includes('otp') === true && opts.askOtp !== undefined) {
    const otp = await opts.askOtp()
    if (otp !== undefined && otp !== '') answer = await put(otp)
  }
  if (answer.status < 200 || answer.status >= 300) {
    throw new LodeError('LOGIN_FAILED', `Login failed (HTTP ${answer.status}): ${answer.body.toString('utf8')}`)
  }
  const token = jsonMember(answer.body, 'token')
  if (typeof token !== 'string' || token === '') throw new LodeError('LOGIN_NO_TOKEN', 'The registry did not return an authentication token')
  opts.onInfo(`Logged in as ${username}`)
  return token
}
