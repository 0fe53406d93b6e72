import { STATUS_CODES } from 'node:http'

import { LodeError } from '@lode/core.error'
import type { Config } from '@lode/pkg-manager.config.settings'
import { registryClientFor } from '@lode/pkg-manager.installing.installer'
import { ACCEPT_FULL, createAuthHeaderLookup } from '@lode/resolving.registry-client'

import { fetchStatus, jsonMember } from './registry-answer.js'

/**
 * `lode whoami`: the user the default registry knows the configured credentials as (`/-/whoami`),
 * as pnpm 11 asks it. No credentials for that registry: `ERR_LODE_WHOAMI_UNAUTHORIZED`, nothing sent.
 */
export async function whoami (config: Config, opts: { onWarning: (message: string) => void }): Promise<string> {
  const registry = config.registry
  if (createAuthHeaderLookup(config.rawNpmrc, registry)(registry) === undefined) {
    throw new LodeError('WHOAMI_UNAUTHORIZED', 'You must be logged in to use whoami', {
      hint: `Set //${new URL(registry).host}/:_authToken in .npmrc (npm login writes it).`,
    })
  }
  const client = registryClientFor(config, { onWarning: opts.onWarning, signal: undefined })
  try {
    const answer = await client.get(`${registry}-/whoami`, { accept: ACCEPT_FULL, subject: 'the current user' })
    const username = answer.status === 200 ? jsonMember(answer.body, 'username') : undefined
    if (typeof username !== 'string') throw new LodeError('WHOAMI_FAILED', `The registry ${registry} did not name the current user.`)
    return username
  } catch (err) {
    const status = fetchStatus(err)
    if (status === undefined) throw err
    throw new LodeError('WHOAMI_FAILED', `Failed to find the current user: ${status} ${STATUS_CODES[status] ?? ''}`.trimEnd(), {
      hint: (err as LodeError).hint ?? 'Check the token for this registry in .npmrc.',
    })
  } finally {
    await client.close()
  }
}

