/**
 * Registry auth from `.npmrc` settings, matched the way npm and pnpm match it: a setting keyed by a
 * "nerf-darted" URL (`//host[:port]/path/:_authToken`) applies to every URL under that prefix, and
 * the longest matching prefix wins.
 */

/** `https://host:8080/a/b/` → `//host:8080/a/b/`: the scheme is dropped, the path kept. */
export function nerfDart (url: string): string {
  const parsed = new URL(url)
  const pathname = parsed.pathname.endsWith('/') ? parsed.pathname : parsed.pathname.replace(/[^/]*$/, '')
  return `//${parsed.host}${pathname}`
}

export type AuthHeaderLookup = (url: string) => string | undefined

/**
 * A lookup from request URL to `Authorization` header value. `settings` are raw `.npmrc` key/value
 * pairs; an un-darted `_authToken`/`_auth` applies to `defaultRegistry` only.
 */
export function createAuthHeaderLookup (settings: Readonly<Record<string, string>>, defaultRegistry: string): AuthHeaderLookup {
  const byPrefix = new Map<string, string>()
  const creds = new Map<string, Record<string, string>>()
  for (const [key, value] of Object.entries(settings)) {
    const match = /^(\/\/.*?):(_authToken|_auth|username|_password)$/.exec(key)
    if (match === null) continue
    const prefix = match[1]!.endsWith('/') ? match[1]! : `${match[1]!}/`
    creds.set(prefix, { ...creds.get(prefix), [match[2]!]: value })
  }
  const defaultCreds: Record<string, string> = {}
  for (const field of ['_authToken', '_auth', 'username', '_password']) {
    const value = settings[field]
    if (value !== undefined) defaultCreds[field] = value
  }
  if (Object.keys(defaultCreds).length > 0) {
    const prefix = nerfDart(defaultRegistry)
    creds.set(prefix, { ...defaultCreds, ...creds.get(prefix) })
  }
  for (const [prefix, fields] of creds) {
    const header = headerFromCreds(fields)
    if (header !== undefined) byPrefix.set(prefix, header)
  }
  if (byPrefix.size === 0) return () => undefined
  const prefixes = [...byPrefix.keys()].sort((a, b) => b.length - a.length)
  return (url) => {
    const target = `//${url.replace(/^[a-z]+:\/\//i, '')}`
    const prefix = prefixes.find((p) => target.startsWith(p))
    return prefix === undefined ? undefined : byPrefix.get(prefix)
  }
}

function headerFromCreds (fields: Record<string, string>): string | undefined {
  if (fields['_authToken'] !== undefined) return `Bearer ${fields['_authToken']}`
  if (fields['_auth'] !== undefined) return `Basic ${fields['_auth']}`
  if (fields['username'] !== undefined && fields['_password'] !== undefined) {
    // npm stores `_password` base64-encoded.
    const password = Buffer.from(fields['_password'], 'base64').toString('utf8')
    return `Basic ${Buffer.from(`${fields['username']}:${password}`).toString('base64')}`
  }
  return undefined
}
