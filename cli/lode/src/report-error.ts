import { fileSystemError, isLodeError } from '@lode/core.error'

/**
 * Writes a `LodeError` as lode prints errors (its code as a label, the message, then the hint) and
 * returns the exit code 1. Anything else is not lode's to explain and is thrown again.
 */
export function writeLodeError (err: unknown, stderr: NodeJS.WritableStream, label: (code: string) => string = (code) => `[${code}]`): number {
  // A file-system error the machine causes (permissions, a full disk) is reported like lode's own.
  const coded = isLodeError(err) ? err : fileSystemError(err)
  if (coded === undefined) throw err
  stderr.write(`${label(coded.code)} ${coded.message}\n${coded.hint === undefined ? '' : `\n${coded.hint}\n`}`)
  return 1
}
