/**
 * URLs as they may be shown to a user. A registry URL can carry credentials (`https://user:pass@host/`,
 * as npm allows) and a tarball URL can be a signed CDN link (`?X-Amz-Signature=…`, `?sig=…`); a
 * message, warning or log line must show neither.
 */

/** Query parameter names whose value is masked: any name containing one of these words. */
const SECRET_PARAM = /token|auth|pass|pwd|secret|key|sig|credential|session|cookie/i
const MASK = '***'

/**
 * `url` with any userinfo replaced by `***@` and the values of secret-looking query parameters
 * (token, auth, password, key, secret, signature, …) by `***`. A URL with neither comes back as
 * given, byte for byte; one that does not parse is masked by pattern.
 */
export function redactUrl (url: string): string {
  let parsed: URL
  try {
    parsed = new URL(url)
  } catch {
    return redactByPattern(url)
  }
  const secretParams = [...parsed.searchParams.keys()].filter((name) => SECRET_PARAM.test(name))
  if (parsed.username === '' && parsed.password === '' && secretParams.length === 0) return url
  parsed.username = ''
  parsed.password = ''
  // URLSearchParams would re-encode every other parameter; masking the raw text keeps them as sent.
  const search = parsed.search === '' ? '' : `?${maskQuery(parsed.search.slice(1))}`
  const hadUserinfo = /^[a-z][a-z\d+.-]*:\/\/[^/?#]*@/i.test(url)
  const origin = hadUserinfo ? `${parsed.protocol}//${MASK}@${parsed.host}` : `${parsed.protocol}//${parsed.host}`
  return `${origin}${parsed.pathname}${search}${parsed.hash}`
}

/** `text` with every `scheme://…` in it passed through `redactUrl`: for messages of other libraries. */
export function redactUrlsIn (text: string): string {
  return text.replace(/\b[a-z][a-z\d+.-]*:\/\/[^\s"'<>`]+/gi, (url) => redactUrl(url))
}

function maskQuery (query: string): string {
  return query.split('&').map((pair) => {
    const eq = pair.indexOf('=')
    const name = eq === -1 ? pair : pair.slice(0, eq)
    let decoded = name
    try { decoded = decodeURIComponent(name.replaceAll('+', ' ')) } catch { /* a malformed escape: match the raw name */ }
    return eq !== -1 && SECRET_PARAM.test(decoded) ? `${name}=${MASK}` : pair
  }).join('&')
}

function redactByPattern (url: string): string {
  const noUserinfo = url.replace(/^([a-z][a-z\d+.-]*:)?\/\/[^/?#\s]*@/i, (_, scheme: string | undefined) => `${scheme ?? ''}//${MASK}@`)
  const query = noUserinfo.indexOf('?')
  if (query === -1) return noUserinfo
  const hash = noUserinfo.indexOf('#', query)
  const end = hash === -1 ? noUserinfo.length : hash
  return `${noUserinfo.slice(0, query + 1)}${maskQuery(noUserinfo.slice(query + 1, end))}${noUserinfo.slice(end)}`
}
