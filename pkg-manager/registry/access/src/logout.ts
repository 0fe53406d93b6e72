import { isLodeError, LodeError } from '@lode/core.error'
import type { Config } from '@lode/pkg-manager.config.settings'
import { readIniFile, updateIniFile } from '@lode/pkg-manager.config.settings'
import type { RegistryClient } from '@lode/resolving.registry-client'

import { fetchStatus, registryConfigKey, withClient } from './registry-answer.js'

// pnpm 11's `logout`: the default registry's token revoked and taken out of pnpm's `auth.ini`.

export interface LogoutOptions {
  authFile: string
  onWarning: (message: string) => void
  onInfo: (message: string) => void
}

/**
 * Revokes the default registry's token (`DELETE /-/user/token/<token>`) and takes it out of
 * `auth.ini`: `Logged out of <registry>`. A token set elsewhere (an `.npmrc`) is revoked but left
 * in its file, with a warning that says so.
 */
export async function logout (config: Config, opts: LogoutOptions): Promise<string> {
  const registry = config.registry
  const tokenKey = `${registryConfigKey(registry)}:_authToken`
  const token = config.rawNpmrc[tokenKey]
  if (token === undefined || token === '') {
    throw new LodeError('NOT_LOGGED_IN', `Not logged in to ${registry}, so can't log out`, { hint: 'lode login logs in; lode whoami says who the token is.' })
  }
  const revoked = await withClient(config, opts, async (client) => await revokeToken(client, registry, token, opts))
  const settings = await readIniFile(opts.authFile)
  if (Object.hasOwn(settings, tokenKey)) {
    await updateIniFile(opts.authFile, { [tokenKey]: null })
  } else if (revoked) {
    opts.onWarning(`The auth token for ${registry} was not found in ${opts.authFile}. It may be configured in .npmrc or another config file. The token was revoked on the registry but must be removed manually from that config file.`)
  } else {
    throw new LodeError('LOGOUT_FAILED', `Failed to log out of ${registry}. The registry rejected the token revocation request, and the token was not found in ${opts.authFile}. The token may be configured in .npmrc or another config file and must be removed manually, and may still need to be revoked on the registry.`)
  }
  return `Logged out of ${registry}`
}

/** Whether the registry took back the token; a refusal or no answer is said, not thrown (the token still leaves `auth.ini`). */
async function revokeToken (client: RegistryClient, registry: string, token: string, opts: LogoutOptions): Promise<boolean> {
  try {
    const answer = await client.send('DELETE', `${registry}-/user/token/${encodeURIComponent(token)}`, undefined, {
      subject: 'the token',
      headers: { authorization: `Bearer ${token}` },
    })
    if (answer.status >= 200 && answer.status < 300) return true
    opts.onInfo(`Registry returned HTTP ${answer.status} when revoking token`)
    return false
  } catch (err) {
    const status = fetchStatus(err)
    if (status !== undefined) {
      opts.onInfo(`Registry returned HTTP ${status} when revoking token`)
      return false
    }
    if (isLodeError(err)) {
      opts.onInfo('Could not reach the registry to revoke the token')
      return false
    }
    throw err
  }
}
