import { STATUS_CODES } from 'node:http'

import { isLodeError, LodeError } from '@lode/core.error'
import type { Config } from '@lode/pkg-manager.config.settings'
import { registryClientFor } from '@lode/pkg-manager.installing.installer'
import { encodeName, registryFor } from '@lode/resolving.npm-resolver/registries'
import { ACCEPT_FULL } from '@lode/resolving.registry-client'
import type { RegistryClient } from '@lode/resolving.registry-client'
import semver from 'semver'

import { fetchStatus } from './registry-answer.js'

// pnpm 11's `dist-tag` (`dist-tags`): `ls <package>`, `add <package>@<version> [<tag>]`, `rm <package> <tag>`,
// through the registry's `/-/package/<name>/dist-tags` endpoints.

export interface DistTagOptions {
  onWarning: (message: string) => void
  /** A one-time password for an account with two-factor authentication (`--otp`). */
  otp?: string | undefined
}

/** The package's dist-tags, `tag: version` lines in tag order. */
export async function listDistTags (config: Config, name: string | undefined, opts: DistTagOptions): Promise<string> {
  if (name === undefined) throw new LodeError('DIST_TAG_LS_PACKAGE_REQUIRED', 'Package name is required', { hint: 'lode dist-tag ls <package>' })
  return await withClient(config, opts, async (client) => {
    const tags = await fetchDistTags(client, registryOf(config, name), name)
    return Object.entries(tags).sort(([a], [b]) => a.localeCompare(b)).map(([tag, version]) => `${tag}: ${String(version)}`).join('\n')
  })
}

/** Points `tag` (`latest` by default) at an exact version: `+<tag>: <name>@<version>`. */
export async function addDistTag (
  config: Config,
  spec: string | undefined,
  tag: string | undefined,
  opts: DistTagOptions
): Promise<string> {
  if (spec === undefined) {
    throw new LodeError('DIST_TAG_ADD_SPEC_REQUIRED', 'Package name and version are required (e.g., pnpm dist-tag add pkg@1.0.0 latest)')
  }
  const at = spec.indexOf('@', 1)
  const name = at === -1 ? spec : spec.slice(0, at)
  const version = at === -1 ? undefined : spec.slice(at + 1)
  if (version === undefined || version === '') {
    throw new LodeError('DIST_TAG_ADD_VERSION_REQUIRED', 'Version is required (e.g., pnpm dist-tag add pkg@1.0.0 latest)')
  }
  if (semver.valid(version) === null) throw new LodeError('DIST_TAG_ADD_INVALID_VERSION', `Version must be an exact semver version, got "${version}"`)
  const distTag = tag ?? 'latest'
  const action = `set dist-tag "${distTag}" on`
  await withClient(config, opts, async (client) => {
    let answer
    try {
      answer = await client.send('PUT', distTagUrl(registryOf(config, name), name, distTag), JSON.stringify(version), {
        subject: `${name}@${version}`,
        headers: { 'content-type': 'application/json', 'npm-auth-type': opts.otp === undefined ? 'web' : 'legacy', ...opts.otp === undefined ? {} : { 'npm-otp': opts.otp } },
      })
    } catch (err) {
      // The client refuses a 401 or 403 itself; said as pnpm says it.
      const status = fetchStatus(err)
      if (status === 401 || status === 403) throw refused(status, Buffer.alloc(0), action)
      throw err
    }
    if (answer.status < 200 || answer.status >= 300) throw refused(answer.status, answer.body, action)
  })
  return `+${distTag}: ${name}@${version}`
}

function distTagUrl (registry: string, name: string, tag: string): string {
  return `${registry}-/package/${encodeName(name)}/dist-tags/${encodeURIComponent(tag)}`
}

async function fetchDistTags (client: RegistryClient, registry: string, name: string): Promise<Record<string, unknown>> {
  let body: Buffer
  try {
    const answer = await client.get(`${registry}-/package/${encodeName(name)}/dist-tags`, { accept: ACCEPT_FULL, subject: name })
    if (answer.status !== 200) throw new LodeError('REGISTRY_ERROR', `Failed to fetch package info: ${answer.status}`)
    body = answer.body
  } catch (err) {
    if (isLodeError(err, 'ERR_LODE_NOT_FOUND')) throw new LodeError('PACKAGE_NOT_FOUND', `Package "${name}" not found in registry`, { hint: 'Check the name, and the registry (or the @scope:registry setting) it is published to.' })
    throw err
  }
  let tags: unknown
  try {
    tags = JSON.parse(body.toString('utf8'))
  } catch {
    tags = undefined
  }
  if (typeof tags === 'object' && tags !== null && !Array.isArray(tags)) return tags as Record<string, unknown>
  throw new LodeError('REGISTRY_ERROR', `The registry sent ${name}'s dist-tags as something other than a JSON object.`, { hint: 'Check the registry setting.' })
}

/** pnpm's errors for a refused change: 401 (log in, or an OTP), 403, any other status. */
function refused (status: number, body: Buffer, action: string): LodeError {
  const text = body.toString('utf8')
  if (status === 401) return new LodeError('UNAUTHORIZED', `You must be logged in to ${action} packages. ${text}`.trimEnd(), { hint: 'Log in (a token in .npmrc), or pass --otp for an account with two-factor authentication.' })
  if (status === 403) return new LodeError('FORBIDDEN', `You do not have permission to ${action} this package. ${text}`.trimEnd())
  return new LodeError('REGISTRY_ERROR', `Failed to ${action} package: ${status} ${STATUS_CODES[status] ?? ''}. ${text}`)
}

function registryOf (config: Config, name: string): string {
  return registryFor({ default: config.registry, scoped: config.scopedRegistries }, name)
}

async function withClient<T> (config: Config, opts: DistTagOptions, work: (client: RegistryClient) => Promise<T>): Promise<T> {
  const client = registryClientFor(config, { onWarning: opts.onWarning, signal: undefined })
  try {
    return await work(client)
  } finally {
    await client.close()
  }
}
