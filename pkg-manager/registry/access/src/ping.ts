import { STATUS_CODES } from 'node:http'

import { isLodeError, LodeError } from '@lode/core.error'
import type { Config } from '@lode/pkg-manager.config.settings'
import { ACCEPT_FULL } from '@lode/resolving.registry-client'

import { fetchStatus, withClient } from './registry-answer.js'
import type { AccessOptions } from './registry-answer.js'

/**
 * pnpm 11's `ping`: one GET of the default registry's `/-/ping?write=true`, not retried;
 * `PING <registry>`, `PONG <ms>ms`, and the registry's answer when it is a JSON object with members.
 */
export async function pingRegistry (config: Config, opts: AccessOptions): Promise<string> {
  const url = new URL('-/ping', config.registry)
  url.searchParams.set('write', 'true')
  const start = Date.now()
  const body = await withClient({ ...config, fetchRetries: 0 }, opts, async (client) => {
    try {
      const answer = await client.get(url.href, { accept: ACCEPT_FULL, subject: 'the registry\'s ping' })
      if (answer.status !== 200) throw unreachable(`${answer.status} ${STATUS_CODES[answer.status] ?? ''}`.trimEnd())
      return answer.body
    } catch (err) {
      const status = fetchStatus(err) ?? (isLodeError(err, 'ERR_LODE_NOT_FOUND') ? 404 : undefined)
      if (status !== undefined) throw unreachable(`${status} ${STATUS_CODES[status] ?? ''}`.trimEnd())
      if (err instanceof LodeError && err.code !== 'ERR_LODE_PING_ERROR') throw unreachable(err.message, err.hint)
      throw err
    }
  })
  const lines = [`PING ${config.registry}`, `PONG ${Date.now() - start}ms`]
  const details = pingDetails(body)
  if (details !== '') lines.push(`PONG ${details}`)
  return lines.join('\n')
}

function unreachable (why: string, hint?: string): LodeError {
  return new LodeError('PING_ERROR', `Failed to reach registry: ${why}`, { hint: hint ?? 'Check the registry setting and your network.' })
}

function pingDetails (body: Buffer): string {
  let parsed: unknown
  try {
    parsed = JSON.parse(body.toString('utf8'))
  } catch {
    return ''
  }
  return typeof parsed === 'object' && parsed !== null && Object.keys(parsed).length > 0 ? JSON.stringify(parsed, null, 2) : ''
}
