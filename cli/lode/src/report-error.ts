import { fileSystemError, isLodeError, printable } from '@lode/core.error'

import { rawOutput } from './terminal.js'

/**
 * Writes a `LodeError` as lode prints errors (its code as a label, the message, then the hint) and
 * returns the exit code 1. Anything else is not lode's to explain and is thrown again. The message
 * and hint quote names, versions and paths from the registry or a manifest: written printable,
 * the label (coloured) as it is.
 */
export function writeLodeError (err: unknown, stderr: NodeJS.WritableStream, label: (code: string) => string = (code) => `[${code}]`): number {
  // A file-system error the machine causes (permissions, a full disk) is reported like lode's own.
  const coded = isLodeError(err) ? err : fileSystemError(err)
  if (coded === undefined) throw err
  const hint = coded.hint === undefined ? '' : `\n${printable(coded.hint, { newlines: true })}\n`
  rawOutput(stderr).write(`${label(printable(coded.code))} ${printable(coded.message, { newlines: true })}\n${hint}`)
  return 1
}
