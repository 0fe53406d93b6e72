import type { MainContext } from '../context.js'
import { createReporter } from '../reporter.js'
import type { ReporterName } from '../reporter.js'
import { projectConfig } from './project-config.js'
import type { CommandInput } from './types.js'

// The registry's commands about accounts and tags (pkg-manager/registry/access), as pnpm 11 has them.

/** `lode whoami`: the default registry's name for the configured credentials. */
export async function whoamiCommand (input: CommandInput, ctx: MainContext): Promise<number> {
  const { config } = await projectConfig(input, ctx)
  const { whoami } = await import('@lode/pkg-manager.registry.access')
  ctx.stdout.write(`${await whoami(config, { onWarning: warner(input, ctx) })}\n`)
  return 0
}

/** `lode dist-tag [ls] <package>`, `lode dist-tag add <package>@<version> [<tag>]`; `rm` is pnpm's alone for now. */
export async function distTagCommand (input: CommandInput, ctx: MainContext): Promise<number> {
  const { values, positionals } = input.args!
  const [{ LodeError }, access] = await Promise.all([import('@lode/core.error'), import('@lode/pkg-manager.registry.access')])
  const [subcommand, ...rest] = positionals
  if (subcommand === 'rm') {
    throw new LodeError('COMMAND_NOT_IMPLEMENTED', 'lode dist-tag rm is not implemented yet.', { hint: `Run pnpm dist-tag rm ${rest.join(' ')} for now.`.replace(/ {2,}/g, ' ') })
  }
  const { config } = await projectConfig(input, ctx)
  const opts = { onWarning: warner(input, ctx), otp: values['otp'] as string | undefined ?? ctx.env['PNPM_CONFIG_OTP'] ?? ctx.env['NPM_CONFIG_OTP'] }
  const output = subcommand === 'add'
    ? await access.addDistTag(config, rest[0], rest[1], opts)
    : await access.listDistTags(config, subcommand === 'ls' || subcommand === 'list' ? rest[0] : subcommand, opts)
  ctx.stdout.write(`${output}\n`)
  return 0
}

function warner (input: CommandInput, ctx: MainContext): (message: string) => void {
  const reporter = createReporter((input.args!.values['reporter'] ?? 'default') as ReporterName, ctx)
  return (message) => { reporter.warn(message) }
}
