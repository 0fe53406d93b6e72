import { STATUS_CODES } from 'node:http'

import { isLodeError, LodeError } from '@lode/core.error'
import type { Config } from '@lode/pkg-manager.config.settings'
import { ACCEPT_FULL } from '@lode/resolving.registry-client'

import { fetchStatus, jsonMember, withClient } from './registry-answer.js'
import type { AccessOptions } from './registry-answer.js'

// pnpm 11's `search` (`s`, `se`, `find`): the default registry's `/-/v1/search`, printed as pnpm prints
// it without colors (or its packages as JSON).

export interface SearchOptions extends AccessOptions {
  json: boolean
  /** How many results to ask for (`--search-limit`, 20 by default). */
  limit: number
}

/** The packages the default registry finds for `terms` (joined with spaces). */
export async function searchPackages (config: Config, terms: readonly string[], opts: SearchOptions): Promise<string> {
  const query = terms.join(' ')
  if (query === '') throw new LodeError('MISSING_SEARCH_QUERY', 'Search query is required. Usage: pnpm search <keyword>')
  if (!Number.isInteger(opts.limit) || opts.limit < 1) {
    throw new LodeError('INVALID_SEARCH_LIMIT', `--search-limit must be a whole number above 0, got ${opts.limit}`)
  }
  const url = new URL('-/v1/search', config.registry)
  url.searchParams.set('text', query)
  url.searchParams.set('size', String(opts.limit))
  const body = await withClient(config, opts, async (client) => {
    try {
      const answer = await client.get(url.href, { accept: ACCEPT_FULL, subject: `the search for "${query}"` })
      if (answer.status === 200) return answer.body
      throw failed(answer.status)
    } catch (err) {
      const status = fetchStatus(err) ?? (isLodeError(err, 'ERR_LODE_NOT_FOUND') ? 404 : undefined)
      throw status === undefined ? err : failed(status)
    }
  })
  const objects = jsonMember(body, 'objects')
  if (!Array.isArray(objects)) {
    throw new LodeError('SEARCH_FAILED', `The registry ${config.registry} answered the search with something other than a list of results.`, { hint: 'Check the registry setting: not every registry serves /-/v1/search.' })
  }
  const packages = objects.map((object: unknown) => (typeof object === 'object' && object !== null ? (object as { package?: unknown }).package : undefined))
  if (opts.json) return JSON.stringify(packages, null, 2)
  if (packages.length === 0) return 'No packages found'
  return packages.map(renderResult).join('\n\n')
}

function failed (status: number): LodeError {
  return new LodeError('SEARCH_FAILED', `Search failed with status ${status}: ${STATUS_CODES[status] ?? ''}`.trimEnd(), { hint: 'Check the registry setting: not every registry serves /-/v1/search.' })
}

interface SearchResult {
  name?: unknown
  description?: unknown
  version?: unknown
  date?: unknown
  author?: unknown
  publisher?: { username?: unknown }
  maintainers?: unknown
  keywords?: unknown
}

/** One result: name, description, version (date, author), maintainers, keywords, its page. */
function renderResult (result: unknown): string {
  const pkg = (typeof result === 'object' && result !== null ? result : {}) as SearchResult
  const name = String(pkg.name)
  const lines = [name]
  if (typeof pkg.description === 'string' && pkg.description !== '') lines.push(pkg.description)
  const author = authorName(pkg)
  const date = typeof pkg.date === 'string' ? pkg.date.split('T')[0]! : ''
  const version = [`Version ${String(pkg.version)}`]
  if (date !== '') version.push(`published ${date}`)
  if (author !== '') version.push(`by ${author}`)
  lines.push(version.join(' '))
  const maintainers = Array.isArray(pkg.maintainers)
    ? pkg.maintainers.map((m: unknown) => text((m as { username?: unknown } | null)?.username))
    : []
  if (maintainers.length > 0) lines.push(`Maintainers: ${maintainers.join(', ')}`)
  if (Array.isArray(pkg.keywords) && pkg.keywords.length > 0) lines.push(`Keywords: ${pkg.keywords.map(text).join(', ')}`)
  lines.push(`https://npmx.dev/package/${name}`)
  return lines.join('\n')
}

/** The author's name (`author` a string or `{ name }`), else the publisher's; '' for none. */
function authorName (pkg: SearchResult): string {
  if (typeof pkg.author === 'object' && pkg.author !== null) {
    const name = (pkg.author as { name?: unknown }).name
    return name === undefined || name === null || name === '' ? '' : text(name)
  }
  if (pkg.author !== undefined && pkg.author !== null) return text(pkg.author)
  return typeof pkg.publisher?.username === 'string' ? pkg.publisher.username : ''
}

/** A value of the registry's answer as text (a string as it is, anything else as JSON). */
function text (value: unknown): string {
  return typeof value === 'string' ? value : String(JSON.stringify(value))
}
