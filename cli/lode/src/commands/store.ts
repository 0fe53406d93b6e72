import { LodeError } from '@lode/core.error'

import type { MainContext } from '../context.js'
import { VERSION } from '../version.js'
import { projectDir } from './paths.js'
import type { CommandInput } from './types.js'

/** pnpm's `store` subcommands lode has (the others are refused by name). */
const SUBCOMMANDS = ['path'] as const
const PNPM_SUBCOMMANDS = ['add', 'prune', 'status']

/** `lode store path`: where the content-addressable store is (its versioned directory), as pnpm prints it. */
export async function storeCommand (input: CommandInput, ctx: MainContext): Promise<number> {
  const { values, positionals } = input.args!
  const sub = positionals[0]
  if (sub === undefined || !(SUBCOMMANDS as readonly string[]).includes(sub)) {
    const known = sub !== undefined && PNPM_SUBCOMMANDS.includes(sub)
    throw new LodeError(known ? 'COMMAND_NOT_IMPLEMENTED' : 'BAD_ARGUMENTS', known
      ? `"store ${sub}" is a pnpm command lode does not have yet.`
      : `lode store takes a subcommand: ${SUBCOMMANDS.join(', ')}${sub === undefined ? '' : ` (not "${sub}")`}.`, {
      hint: known ? `Use pnpm store ${sub} for now.` : 'For example: lode store path.',
    })
  }
  const [{ findWorkspaceDir, getConfig }, { storePath }] = await Promise.all([import('@lode/pkg-manager.core'), import('@lode/store.cafs')])
  const dir = projectDir(values['dir'] as string | undefined, ctx)
  const storeDir = values['store-dir'] as string | undefined
  const config = getConfig({
    dir: await findWorkspaceDir(dir) ?? dir,
    env: ctx.env,
    overrides: { ...storeDir === undefined ? {} : { storeDir }, ...input.args!.config },
    lodeVersion: VERSION,
  })
  ctx.stdout.write(`${storePath(config.storeDir)}\n`)
  return 0
}
