import { LodeError } from '@lode/fs.error'

/**
 * A `package.json`'s text as an object. Invalid JSON is `ERR_LODE_INVALID_PACKAGE_JSON` naming
 * `where` (a file, or a file inside a tarball) and the line and column; so is anything but an object.
 */
export function parsePackageJson (text: string, where: string): Record<string, unknown> {
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch (err) {
    const message = (err as Error).message
    throw new LodeError('INVALID_PACKAGE_JSON', `${where} is not valid JSON${positionOf(text, message)}: ${message}`, { hint: 'Fix the syntax error and run again.' })
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new LodeError('INVALID_PACKAGE_JSON', `${where} must contain a JSON object.`, { hint: 'Fix the file and run again.' })
  }
  return value as Record<string, unknown>
}

/** ` (line L, column C)` from V8's "at position N" message, when it has one. */
function positionOf (text: string, message: string): string {
  const match = /position (\d+)/.exec(message)
  if (match === null) return ''
  const before = text.slice(0, Number(match[1]))
  const line = before.split('\n').length
  const column = before.length - before.lastIndexOf('\n')
  return ` (line ${line}, column ${column})`
}
