import { isLodeError } from '@lode/core.error'

/** The HTTP status behind a registry client's `ERR_LODE_FETCH_<status>` (a refused authentication, say); undefined for other errors. */
export function fetchStatus (err: unknown): number | undefined {
  const status = isLodeError(err) ? /^ERR_LODE_FETCH_(\d{3})$/.exec(err.code)?.[1] : undefined
  return status === undefined ? undefined : Number(status)
}

/** A member of a JSON object body; undefined for a body that is no JSON object or lacks it. */
export function jsonMember (body: Buffer, member: string): unknown {
  try {
    const value = JSON.parse(body.toString('utf8')) as unknown
    return typeof value === 'object' && value !== null && Object.hasOwn(value, member) ? (value as Record<string, unknown>)[member] : undefined
  } catch {
    return undefined
  }
}
