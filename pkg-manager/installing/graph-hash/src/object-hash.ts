import crypto from 'node:crypto'

/** The values pnpm hashes for slot paths: strings, null, and plain objects of them. */
export type HashedValue = string | null | { readonly [key: string]: HashedValue }

/**
 * object-hash@3.0.0's serialization with `respectType: false`, for the types above: a string is
 * `string:<UTF-16 length>:<s>`, null `Null`, an object `object:<keys>:` then `<key>:<value>,` per key
 * (sorted by UTF-16 code units when `sort`). Each object must be a fresh one: object-hash writes
 * `[CIRCULAR:n]` for an object it has met before, which these hashes never contain.
 */
function serialize (value: HashedValue, sort: boolean, out: string[]): void {
  if (value === null) {
    out.push('Null')
    return
  }
  if (typeof value === 'string') {
    out.push(`string:${value.length}:`, value)
    return
  }
  const keys = Object.keys(value)
  if (sort) keys.sort()
  out.push(`object:${keys.length}:`)
  for (const key of keys) {
    out.push(`string:${key.length}:`, key, ':')
    serialize(value[key]!, sort, out)
    out.push(',')
  }
}

function digest (value: HashedValue, sort: boolean, encoding: 'base64' | 'hex'): string {
  const out: string[] = []
  serialize(value, sort, out)
  return crypto.createHash('sha256').update(out.join(''), 'utf8').digest(encoding)
}

/** pnpm's `hashObject` (`@pnpm/crypto.object-hasher`): keys sorted, sha256, base64. */
export function hashObject (value: HashedValue): string {
  return digest(value, true, 'base64')
}

/** pnpm's `hashObjectWithoutSorting(value, { encoding: 'hex' })`: keys in insertion order, sha256, hex. */
export function hashObjectWithoutSorting (value: HashedValue): string {
  return digest(value, false, 'hex')
}
