import { isLodeError, LodeError } from '@lode/core.error'
import type { Config } from '@lode/pkg-manager.config.settings'
import { encodeName } from '@lode/resolving.npm-resolver/registries'
import { ACCEPT_FULL } from '@lode/resolving.registry-client'

import { fetchStatus, jsonMember, otpHeader, packageNotFound, refused, registryOf, sendChange, withClient } from './registry-answer.js'
import type { AccessOptions } from './registry-answer.js'

// pnpm 11's `owner` (`owners`): `ls <package>` from the packument's maintainers, `add`/`rm <package> <user>`
// through the registry's `/-/package/<name>/owners` endpoint.

/** The package's maintainers, `name <email>` lines (`name` without an email), as the registry lists them. */
export async function listOwners (config: Config, spec: string | undefined, opts: AccessOptions): Promise<string> {
  if (spec === undefined) throw new LodeError('OWNER_LS_PACKAGE_REQUIRED', 'Package name is required', { hint: 'lode owner ls <package>' })
  const name = packageName(spec)
  return await withClient(config, opts, async (client) => {
    let body: Buffer
    try {
      const answer = await client.get(`${registryOf(config, name)}${encodeName(name)}`, { accept: ACCEPT_FULL, subject: name })
      if (answer.status !== 200) throw refused(answer.status, Buffer.alloc(0), 'fetch owners of')
      body = answer.body
    } catch (err) {
      if (isLodeError(err, 'ERR_LODE_NOT_FOUND')) throw packageNotFound(name)
      const status = fetchStatus(err)
      if (status !== undefined) throw refused(status, Buffer.alloc(0), 'fetch owners of')
      throw err
    }
    const maintainers = jsonMember(body, 'maintainers')
    return (Array.isArray(maintainers) ? maintainers : []).map(ownerLine).filter((line) => line !== '').join('\n')
  })
}

/** Makes `user` an owner of the package: `+<user>: <name>`. */
export async function addOwner (config: Config, spec: string | undefined, user: string | undefined, opts: AccessOptions): Promise<string> {
  if (spec === undefined || user === undefined) {
    throw new LodeError('OWNER_ADD_ARGS_REQUIRED', 'Package name and owner are required (e.g., pnpm owner add pkg username)')
  }
  const name = packageName(spec)
  await withClient(config, opts, async (client) => {
    await sendChange(client, {
      method: 'PUT',
      url: ownersUrl(registryOf(config, name), name),
      body: JSON.stringify({ user }),
      subject: `${name}'s owners`,
      headers: { 'content-type': 'application/json', ...otpHeader(opts.otp) },
      action: `add owner "${user}" to`,
      notFound: true,
    })
  })
  return `+${user}: ${name}`
}

/** Takes `user` off the package's owners: `-<user>: <name>`. */
export async function removeOwner (
  config: Config,
  spec: string | undefined,
  user: string | undefined,
  opts: AccessOptions
): Promise<string> {
  if (spec === undefined || user === undefined) {
    throw new LodeError('OWNER_RM_ARGS_REQUIRED', 'Package name and owner are required (e.g., pnpm owner rm pkg username)')
  }
  const name = packageName(spec)
  await withClient(config, opts, async (client) => {
    await sendChange(client, {
      method: 'DELETE',
      url: `${ownersUrl(registryOf(config, name), name)}/${encodeURIComponent(user)}`,
      subject: `${name}'s owners`,
      headers: otpHeader(opts.otp),
      action: `remove owner "${user}" from`,
      notFound: true,
    })
  })
  return `-${user}: ${name}`
}

/** The name of `<name>[@<version>]`, as pnpm takes a spec's name (a version is ignored). */
function packageName (spec: string): string {
  const at = spec.indexOf('@', 1)
  return at === -1 ? spec : spec.slice(0, at)
}

function ownersUrl (registry: string, name: string): string {
  return `${registry}-/package/${encodeName(name)}/owners`
}

function ownerLine (maintainer: unknown): string {
  if (typeof maintainer !== 'object' || maintainer === null) return ''
  const { name, email } = maintainer as { name?: unknown, email?: unknown }
  if (typeof name !== 'string') return ''
  return typeof email === 'string' && email !== '' ? `${name} <${email}>` : name
}
