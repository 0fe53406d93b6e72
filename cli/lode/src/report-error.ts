import { isLodeError } from '@lode/fs.error'

/**
 * Writes a `LodeError` as lode prints errors (its code as a label, the message, then the hint) and
 * returns the exit code 1. Anything else is not lode's to explain and is thrown again.
 */
export function writeLodeError (err: unknown, stderr: NodeJS.WritableStream, label: (code: string) => string = (code) => `[${code}]`): number {
  if (!isLodeError(err)) throw err
  stderr.write(`${label(err.code)} ${err.message}\n${err.hint === undefined ? '' : `\n${err.hint}\n`}`)
  return 1
}
