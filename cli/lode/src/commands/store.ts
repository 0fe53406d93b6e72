import { LodeError } from '@lode/core.error'

import type { MainContext } from '../context.js'
import { projectConfig } from './project-config.js'
import type { CommandInput } from './types.js'

/** pnpm's `store` subcommands lode has (the others are refused by name). */
const SUBCOMMANDS = ['path'] as const
const PNPM_SUBCOMMANDS = ['add', 'prune', 'status']

/** `lode store path`: where the content-addressable store is (its versioned directory), as pnpm prints it. */
export async function storeCommand (input: CommandInput, ctx: MainContext): Promise<number> {
  const { positionals } = input.args!
  const sub = positionals[0]
  if (sub === undefined || !(SUBCOMMANDS as readonly string[]).includes(sub)) {
    const known = sub !== undefined && PNPM_SUBCOMMANDS.includes(sub)
    throw new LodeError(known ? 'COMMAND_NOT_IMPLEMENTED' : 'BAD_ARGUMENTS', known
      ? `"store ${sub}" is a pnpm command lode does not have yet.`
      : `lode store takes a subcommand: ${SUBCOMMANDS.join(', ')}${sub === undefined ? '' : ` (not "${sub}")`}.`, {
      hint: known ? `Use pnpm store ${sub} for now.` : 'For example: lode store path.',
    })
  }
  const { storePath } = await import('@lode/store.cafs')
  const { config } = await projectConfig(input, ctx)
  ctx.stdout.write(`${storePath(config.storeDir)}\n`)
  return 0
}
