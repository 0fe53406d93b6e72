import { isLodeError, LodeError } from '@lode/core.error'
import type { Config } from '@lode/pkg-manager.config.settings'
import { encodeName } from '@lode/resolving.npm-resolver/registries'
import { ACCEPT_FULL } from '@lode/resolving.registry-client'
import type { RegistryClient } from '@lode/resolving.registry-client'
import semver from 'semver'

import { otpHeader, packageNotFound, registryOf, sendChange, withClient } from './registry-answer.js'
import type { AccessOptions } from './registry-answer.js'

// pnpm 11's `dist-tag` (`dist-tags`): `ls <package>`, `add <package>@<version> [<tag>]`, `rm <package> <tag>`,
// through the registry's `/-/package/<name>/dist-tags` endpoints.

/** The package's dist-tags, `tag: version` lines in tag order. */
export async function listDistTags (config: Config, name: string | undefined, opts: AccessOptions): Promise<string> {
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
  opts: AccessOptions
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
  await withClient(config, opts, async (client) => {
    await sendChange(client, {
      method: 'PUT',
      url: distTagUrl(registryOf(config, name), name, distTag),
      body: JSON.stringify(version),
      subject: `${name}@${version}`,
      headers: { 'content-type': 'application/json', ...authType(opts.otp), ...otpHeader(opts.otp) },
      action: `set dist-tag "${distTag}" on`,
    })
  })
  return `+${distTag}: ${name}@${version}`
}

/**
 * Removes a tag the package has (never `latest`, which every package keeps):
 * `-<tag>: <name>@<the version it pointed at>`.
 */
export async function removeDistTag (
  config: Config,
  name: string | undefined,
  tag: string | undefined,
  opts: AccessOptions
): Promise<string> {
  if (name === undefined || tag === undefined) {
    throw new LodeError('DIST_TAG_RM_ARGS_REQUIRED', 'Package name and tag are required (e.g., pnpm dist-tag rm pkg tag)')
  }
  if (tag === 'latest') throw new LodeError('DIST_TAG_RM_LATEST', 'Removing the "latest" dist-tag is not allowed')
  const registry = registryOf(config, name)
  return await withClient(config, opts, async (client) => {
    const tags = await fetchDistTags(client, registry, name)
    if (!Object.hasOwn(tags, tag)) throw new LodeError('DIST_TAG_NOT_FOUND', `dist-tag "${tag}" is not set on package "${name}"`, { hint: `lode dist-tag ls ${name} lists its tags.` })
    await sendChange(client, {
      method: 'DELETE',
      url: distTagUrl(registry, name, tag),
      subject: `${name}'s dist-tag ${tag}`,
      headers: { ...authType(opts.otp), ...otpHeader(opts.otp) },
      action: `remove dist-tag "${tag}" from`,
    })
    return `-${tag}: ${name}@${String(tags[tag])}`
  })
}

/** As pnpm says which authentication the registry may ask for: a web one unless an OTP is given. */
function authType (otp: string | undefined): Record<string, string> {
  return { 'npm-auth-type': otp === undefined ? 'web' : 'legacy' }
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
    if (isLodeError(err, 'ERR_LODE_NOT_FOUND')) throw packageNotFound(name)
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
