import { printable } from '@lode/core.error'

import type { MainContext } from './context.js'

// Where lode's output leaves for the terminal. Names, versions, ranges, messages and paths come
// from registries, tarballs and manifests: an ESC in one of them would move the cursor, erase a
// line or write the clipboard (OSC 52) on the user's terminal if written as it is.

type Output = MainContext['stdout']

const RAW = Symbol('the stream under a printable one')

/**
 * `ctx` whose stdout and stderr write text through `printable` (newlines kept): no command can
 * print a control character it was given, whichever path its text took. lode's own control
 * sequences go to `rawOutput`.
 */
export function printableContext (ctx: MainContext): MainContext {
  return { ...ctx, stdout: printableOutput(ctx.stdout), stderr: printableOutput(ctx.stderr) }
}

function printableOutput (stream: Output): Output {
  if (RAW in stream) return stream
  // Only `write` and `isTTY`: all the CLI uses of its streams (bin/lode passes no more).
  const output = {
    write: (chunk: string | Uint8Array): boolean => stream.write(printable(typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString(), { newlines: true })),
    get isTTY (): boolean | undefined { return stream.isTTY },
    [RAW]: stream,
  }
  return output as unknown as Output
}

/**
 * The stream under a printable one, written as is: for lode's own control sequences (the progress
 * line rewritten, coloured labels, prompts redrawn) and a build's own output, which is the
 * script's, as in pnpm. Anything else written here must have gone through `printable`.
 */
export function rawOutput (stream: NodeJS.WritableStream): NodeJS.WritableStream {
  return (stream as { [RAW]?: NodeJS.WritableStream })[RAW] ?? stream
}
