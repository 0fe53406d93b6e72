import { STATUS_CODES } from 'node:http'

import { LodeError } from '@lode/core.error'
import type { Config } from '@lode/pkg-manager.config.settings'
import { registryClientFor } from '@lode/pkg-manager.installing.installer'
import { packumentVersions } from '@lode/resolving.npm-resolver'
import { encodeName, registryFor } from '@lode/resolving.npm-resolver/registries'
import { ACCEPT_ABBREVIATED, redactUrl } from '@lode/resolving.registry-client'

import { publishDocument } from './publish-document.js'


// pnpm's `publish`, the registry's part: the packed package sent as npm sends it. The CLI packs
// the project and runs its publish scripts around this.

export interface PublishOptions {
  config: Config
  /** The packed package.json (what `pack` wrote into the tarball). */
  manifest: Record<string, unknown>
  tarball: Buffer
  /** `--tag` (default `latest`). */
  tag?: string | undefined
  /** `--access` (else `publishConfig.access`). */
  access?: 'public' | 'restricted' | undefined
  /** `--otp`: the one-time password the registry asks of an account with 2FA. */
  otp?: string | undefined
  /** Everything but the upload. */
  dryRun?: boolean | undefined
  signal?: AbortSignal | undefined
  onInfo: (message: string) => void
  onWarning: (message: string) => void
}

/**
 * Publishes a packed package: `📦 name@version → registry`, then the PUT, then `✅ Published
 * package name@version` (a dry run warns instead of sending). The registry is the package's
 * (`publishConfig.registry`, its scope's, else the default), with the auth `.npmrc` gives it. A
 * refusal is `ERR_LODE_PUBLISH_FAILED` with the registry's reason (409: the version is there
 * already); a refused token `ERR_LODE_FETCH_401/403`.
 */
export async function publishPackage (opts: PublishOptions): Promise<void> {
  const { config, manifest } = opts
  const name = manifest['name'] as string
  const version = manifest['version'] as string
  const registry = publishRegistry(config, manifest)
  opts.onInfo(`📦 ${name}@${version} → ${redactUrl(registry)}`)
  const publishConfigAccess = (manifest['publishConfig'] as { access?: unknown } | undefined)?.access
  const access = opts.access ?? (publishConfigAccess === 'public' || publishConfigAccess === 'restricted' ? publishConfigAccess : null)
  const document = publishDocument(manifest, opts.tarball, { registry, tag: opts.tag ?? 'latest', access, nodeVersion: process.versions.node })
  if (opts.dryRun === true) {
    opts.onWarning(`Skip publishing ${name}@${version} (dry run)`)
    return
  }
  // npm's publish refuses it (pnpm 11 sends through it): a private package is never uploaded.
  if (manifest['private'] === true) {
    throw new LodeError('PRIVATE_PACKAGE', `${name}@${version} has been marked as private.`, {
      hint: 'Remove the "private" field from the package.json to publish it.',
    })
  }
  const client = registryClientFor(config, { onWarning: opts.onWarning, signal: opts.signal })
  try {
    // npm's escaped name (`@scope%2fname`), as pnpm sends it.
    const url = `${registry}${name.replace('/', '%2f')}`
    const headers: Record<string, string> = { 'npm-command': 'publish', 'npm-auth-type': 'web', ...opts.otp === undefined ? {} : { 'npm-otp': opts.otp } }
    const answer = await client.send('PUT', url, JSON.stringify(document), { subject: `${name}@${version}`, headers })
    if (answer.status < 200 || answer.status >= 300) throw publishFailed(answer.status, url, answer.body, `${name}@${version}`)
  } finally {
    await client.close()
  }
  opts.onInfo(`✅ Published package ${name}@${version}`)
}

/** Whether the registry has that version of the package (pnpm's `publish -r` leaves those out). */
export async function isPublished (config: Config, manifest: Record<string, unknown>, signal?: AbortSignal): Promise<boolean> {
  const name = manifest['name'] as string
  const client = registryClientFor(config, { onWarning: () => {}, signal })
  try {
    const answer = await client.get(`${publishRegistry(config, manifest)}${encodeName(name)}`, { accept: ACCEPT_ABBREVIATED, subject: name })
    if (answer.status !== 200) return false
    return Object.hasOwn(packumentVersions(answer.body, name), manifest['version'] as string)
  } catch (err) {
    if (err instanceof LodeError && err.code === 'ERR_LODE_NOT_FOUND') return false
    throw err
  } finally {
    await client.close()
  }
}

/** `publishConfig['@scope:registry']` or `publishConfig.registry`, else the registry installs use for the name. */
function publishRegistry (config: Config, manifest: Record<string, unknown>): string {
  const name = manifest['name'] as string
  const publishConfig = (manifest['publishConfig'] ?? {}) as Record<string, unknown>
  const scope = name.startsWith('@') ? name.slice(0, name.indexOf('/')) : undefined
  const configured = (scope !== undefined ? publishConfig[`${scope}:registry`] : undefined) ?? publishConfig['registry']
  const registry = typeof configured === 'string' ? configured : registryFor({ default: config.registry, scoped: config.scopedRegistries }, name)
  return registry.endsWith('/') ? registry : `${registry}/`
}

function publishFailed (status: number, url: string, body: Buffer, subject: string): LodeError {
  let reason: string | undefined
  try {
    const parsed = JSON.parse(body.toString('utf8')) as { error?: unknown, message?: unknown }
    reason = typeof parsed.error === 'string' ? parsed.error : typeof parsed.message === 'string' ? parsed.message : undefined
  } catch {
    reason = undefined
  }
  const hint = status === 409
    ? `The registry has ${subject} already: give package.json a new version, then publish again.`
    : 'Check the registry URL, your access to the package (npm owner ls) and its name, then publish again.'
  return new LodeError('PUBLISH_FAILED', `${status} ${STATUS_CODES[status] ?? ''} - PUT ${redactUrl(url)}${reason === undefined ? '' : ` - ${reason}`}`, { hint })
}
