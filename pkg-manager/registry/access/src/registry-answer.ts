import { STATUS_CODES } from 'node:http'

import { isLodeError, LodeError } from '@lode/core.error'
import type { Config } from '@lode/pkg-manager.config.settings'
import { registryClientFor } from '@lode/pkg-manager.installing.installer'
import { registryFor } from '@lode/resolving.npm-resolver/registries'
import type { RegistryClient } from '@lode/resolving.registry-client'

/** The HTTP status behind a registry client's `ERR_LODE_FETCH_<status>` (a refused authentication, say); undefined for other errors. */
export function fetchStatus (err: unknown): number | undefined {
  const status = isLodeError(err) ? /^ERR_LODE_FETCH_(\d{3})$/.exec(err.code)?.[1] : undefined
  return status === undefined ? undefined : Number(status)
}

/** A member of a JSON object body; undefined for a body that is no JSON object or lacks it. */
export function jsonMember (body: Buffer, member: string): unknown {
  try {
    const value = JSON.parse(body.toString('utf8')) as unknown
    return typeof value === 'object' && value !== null && Object.hasOwn(value, member) ? (value as Record<string, unknown>)[member] : undefined
  } catch {
    return undefined
  }
}

/** The registry that serves `name` (its scope's, else the default). */
export function registryOf (config: Config, name: string): string {
  return registryFor({ default: config.registry, scoped: config.scopedRegistries }, name)
}

export interface AccessOptions {
  onWarning: (message: string) => void
  /** A one-time password for an account with two-factor authentication (`--otp`). */
  otp?: string | undefined
}

/** `work` with a registry client for `config`, closed after it. */
export async function withClient<T> (config: Config, opts: AccessOptions, work: (client: RegistryClient) => Promise<T>): Promise<T> {
  const client = registryClientFor(config, { onWarning: opts.onWarning, signal: undefined })
  try {
    return await work(client)
  } finally {
    await client.close()
  }
}

/**
 * A change sent to the registry (a PUT or DELETE, once), refused as pnpm refuses it when the
 * registry does not take it: `action` says what was asked (`remove owner "x" from`).
 */
export async function sendChange (
  client: RegistryClient,
  change: { method: 'PUT' | 'DELETE', url: string, body?: string, subject: string, headers: Record<string, string>, action: string, notFound?: boolean }
): Promise<void> {
  let answer
  try {
    answer = await client.send(change.method, change.url, change.body, { subject: change.subject, headers: change.headers })
  } catch (err) {
    // The client refuses a 401 or 403 itself; said as pnpm says it.
    const status = fetchStatus(err)
    if (status === 401 || status === 403) throw refused(status, Buffer.alloc(0), change.action, change.notFound)
    throw err
  }
  if (answer.status < 200 || answer.status >= 300) throw refused(answer.status, answer.body, change.action, change.notFound)
}

/** pnpm's errors for a refused change: 401 (log in, or an OTP), 403, 404 where it names one, any other status. */
export function refused (status: number, body: Buffer, action: string, notFound = false): LodeError {
  const text = body.toString('utf8')
  if (status === 401) return new LodeError('UNAUTHORIZED', `You must be logged in to ${action} packages. ${text}`.trimEnd(), { hint: 'Log in (lode login, or a token in .npmrc), or pass --otp for an account with two-factor authentication.' })
  if (status === 403) return new LodeError('FORBIDDEN', `You do not have permission to ${action} this package. ${text}`.trimEnd())
  if (status === 404 && notFound) return new LodeError('PACKAGE_NOT_FOUND', `Package not found in registry. ${text}`.trimEnd())
  return new LodeError('REGISTRY_ERROR', `Failed to ${action} package: ${status} ${STATUS_CODES[status] ?? ''}. ${text}`)
}

/** The `npm-otp` header for `--otp`, none without it. */
export function otpHeader (otp: string | undefined): Record<string, string> {
  return otp === undefined ? {} : { 'npm-otp': otp }
}

/** pnpm's error for a package the registry does not have. */
export function packageNotFound (name: string): LodeError {
  return new LodeError('PACKAGE_NOT_FOUND', `Package "${name}" not found in registry`, { hint: 'Check the name, and the registry (or the @scope:registry setting) it is published to.' })
}

/** pnpm's key for a registry's settings: `//host/path/`. */
export function registryConfigKey (registry: string): string {
  const url = new URL(registry)
  return `//${url.host}${url.pathname}`
}
