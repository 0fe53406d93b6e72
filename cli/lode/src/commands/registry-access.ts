import type { MainContext } from '../context.js'
import { createReporter } from '../reporter.js'
import type { ReporterName } from '../reporter.js'
import { projectConfig } from './project-config.js'
import type { CommandInput } from './types.js'

// The registry's commands about accounts, owners, tags and search (pkg-manager/registry/access), as pnpm 11 has them.

/** `lode whoami`: the default registry's name for the configured credentials. */
export async function whoamiCommand (input: CommandInput, ctx: MainContext): Promise<number> {
  const { config } = await projectConfig(input, ctx)
  const { whoami } = await import('@lode/pkg-manager.registry.access')
  ctx.stdout.write(`${await whoami(config, { onWarning: warner(input, ctx) })}\n`)
  return 0
}

/** `lode dist-tag [ls] <package>`, `add <package>@<version> [<tag>]`, `rm <package> <tag>`. */
export async function distTagCommand (input: CommandInput, ctx: MainContext): Promise<number> {
  const [subcommand, ...rest] = input.args!.positionals
  const access = await import('@lode/pkg-manager.registry.access')
  const { config } = await projectConfig(input, ctx)
  const opts = accessOptions(input, ctx)
  const output = subcommand === 'add'
    ? await access.addDistTag(config, rest[0], rest[1], opts)
    : subcommand === 'rm'
      ? await access.removeDistTag(config, rest[0], rest[1], opts)
      : await access.listDistTags(config, subcommand === 'ls' || subcommand === 'list' ? rest[0] : subcommand, opts)
  ctx.stdout.write(`${output}\n`)
  return 0
}

/** `lode owner [ls] <package>`, `add <package> <user>`, `rm <package> <user>`. */
export async function ownerCommand (input: CommandInput, ctx: MainContext): Promise<number> {
  const [subcommand, ...rest] = input.args!.positionals
  const access = await import('@lode/pkg-manager.registry.access')
  const { config } = await projectConfig(input, ctx)
  const opts = accessOptions(input, ctx)
  const output = subcommand === 'add'
    ? await access.addOwner(config, rest[0], rest[1], opts)
    : subcommand === 'rm'
      ? await access.removeOwner(config, rest[0], rest[1], opts)
      : await access.listOwners(config, subcommand === 'ls' || subcommand === 'list' ? rest[0] : subcommand, opts)
  ctx.stdout.write(`${output}\n`)
  return 0
}

/** `lode search <keyword>...` (`s`, `se`, `find`): the default registry's search results. */
export async function searchCommand (input: CommandInput, ctx: MainContext): Promise<number> {
  const { values, positionals } = input.args!
  const { searchPackages } = await import('@lode/pkg-manager.registry.access')
  const { config } = await projectConfig(input, ctx)
  const limit = values['search-limit'] === undefined ? 20 : Number(values['search-limit'])
  ctx.stdout.write(`${await searchPackages(config, positionals, { ...accessOptions(input, ctx), json: values['json'] === true, limit })}\n`)
  return 0
}

/** `lode ping`: whether the default registry answers, and how fast. */
export async function pingCommand (input: CommandInput, ctx: MainContext): Promise<number> {
  const { pingRegistry } = await import('@lode/pkg-manager.registry.access')
  const { config } = await projectConfig(input, ctx)
  ctx.stdout.write(`${await pingRegistry(config, accessOptions(input, ctx))}\n`)
  return 0
}

function accessOptions (input: CommandInput, ctx: MainContext): { onWarning: (message: string) => void, otp: string | undefined } {
  return { onWarning: warner(input, ctx), otp: input.args!.values['otp'] as string | undefined ?? ctx.env['PNPM_CONFIG_OTP'] ?? ctx.env['NPM_CONFIG_OTP'] }
}

function warner (input: CommandInput, ctx: MainContext): (message: string) => void {
  const reporter = createReporter((input.args!.values['reporter'] ?? 'default') as ReporterName, ctx)
  return (message) => { reporter.warn(message) }
}
