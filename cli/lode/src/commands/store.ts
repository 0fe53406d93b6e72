import { LodeError } from '@lode/core.error'

import type { MainContext } from '../context.js'
import { createReporter } from '../reporter.js'
import { projectConfig } from './project-config.js'
import type { CommandInput } from './types.js'

/** pnpm's `store` subcommands lode has (`add` is refused by name). */
const SUBCOMMANDS = ['path', 'status', 'prune'] as const
const PNPM_SUBCOMMANDS = ['add']

/**
 * `lode store path|status|prune`, as pnpm's: where the store is (its versioned directory); whether
 * the project's installed packages still hold what the store recorded; the store files no install
 * links to any more removed, with their index rows. Status and prune report on stderr, as pnpm does.
 */
export async function storeCommand (input: CommandInput, ctx: MainContext): Promise<number> {
  const { positionals, values } = input.args!
  const sub = positionals[0]
  if (sub === undefined || !(SUBCOMMANDS as readonly string[]).includes(sub)) {
    const known = sub !== undefined && PNPM_SUBCOMMANDS.includes(sub)
    throw new LodeError(known ? 'COMMAND_NOT_IMPLEMENTED' : 'BAD_ARGUMENTS', known
      ? `"store ${sub}" is a pnpm command lode does not have yet.`
      : `lode store takes a subcommand: ${SUBCOMMANDS.join(', ')}${sub === undefined ? '' : ` (not "${sub}")`}.`, {
      hint: known ? `Use pnpm store ${sub} for now.` : 'For example: lode store path.',
    })
  }
  if (sub !== 'prune' && values['force'] !== undefined) throw new LodeError('BAD_ARGUMENTS', `lode store ${sub} takes no --force.`, { hint: 'lode store prune --force removes directories found among the store\'s files.' })
  const { config } = await projectConfig(input, ctx)
  const commands = await import('@lode/pkg-manager.store.commands')
  if (sub === 'path') {
    ctx.stdout.write(`${commands.storePath(config.storeDir)}\n`)
    return 0
  }
  if (sub === 'status') {
    const modified = await commands.storeStatus(config)
    if (modified.length > 0) throw new LodeError('MODIFIED_DEPENDENCY', 'Packages in the store have been mutated', { hint: `These packages are modified:\n${modified.join('\n')}` })
    ctx.stderr.write('Packages in the store are untouched\n')
    return 0
  }
  const reporter = createReporter('default', { ...ctx, stdout: ctx.stderr })
  const force = values['force'] === true
  if (force) reporter.warn('using --force I sure hope you know what you are doing')
  const { files, bytes, packages } = await commands.storePrune(config, {
    force,
    now: Date.now,
    onInfo: (message) => { reporter.print(message) },
    onWarning: (message) => { reporter.warn(message) },
  })
  reporter.print(`Removed ${files} file${files === 1 ? '' : 's'} (${commands.prettyBytes(bytes)})`)
  reporter.print(`Removed ${packages} package${packages === 1 ? '' : 's'}`)
  return 0
}

/** `lode cat-file <hash>`: the content of the store's file with that SHA-512 (an integrity or hex). */
export async function catFileCommand (input: CommandInput, ctx: MainContext): Promise<number> {
  const [{ config }, commands] = await Promise.all([projectConfig(input, ctx), import('@lode/pkg-manager.store.commands')])
  const content = commands.readStoreFile(config.storeDir, commands.parseFileHash(input.args!.positionals[0], 'cat-file'))
  // The file's bytes as they are (pnpm decodes them as UTF-8 and ends them with a newline).
  ctx.stdout.write(content)
  return 0
}

/** `lode cat-index <name>@<version>`: the package's row in the store index, as JSON. */
export async function catIndexCommand (input: CommandInput, ctx: MainContext): Promise<number> {
  const [{ config }, commands] = await Promise.all([projectConfig(input, ctx), import('@lode/pkg-manager.store.commands')])
  ctx.stdout.write(`${commands.catIndex(config, input.args!.positionals[0])}\n`)
  return 0
}

/** `lode find-hash <hash>`: the store's packages with a file of that SHA-512, `name@version  <index key>` lines. */
export async function findHashCommand (input: CommandInput, ctx: MainContext): Promise<number> {
  const [{ config }, commands] = await Promise.all([projectConfig(input, ctx), import('@lode/pkg-manager.store.commands')])
  const found = commands.packagesWithFile(config.storeDir, commands.parseFileHash(input.args!.positionals[0], 'find-hash'))
  if (found.length === 0) throw new LodeError('INVALID_FILE_HASH', 'No package or index file matching this hash was found.')
  ctx.stdout.write(found.map(({ name, version, indexKey }) => `${name}@${version}  ${indexKey}\n`).join(''))
  return 0
}
