import { LodeError } from '@lode/core.error'
import type { ConfigFilesOptions as ConfigOptions } from '@lode/pkg-manager.config.settings'

import type { MainContext } from '../context.js'
import { VERSION } from '../version.js'
import type { CommandInput } from './types.js'

const path = process.getBuiltinModule('node:path')

/**
 * `lode config set|delete|get|list` (and `lode get`, `lode set`), as pnpm 11's: global by default
 * (pnpm's `auth.ini` and `config.yaml`), `--location project` (or `--no-global`) for the project's
 * `.npmrc` and the workspace's `pnpm-workspace.yaml`; `--json` reads and prints values as JSON.
 */
export async function configCommand (input: CommandInput, ctx: MainContext): Promise<number> {
  const { values, positionals } = input.args!
  const [subcommand, ...params] = input.name === 'get' || input.name === 'set' ? [input.name, ...positionals] : positionals
  if (subcommand === undefined) throw new LodeError('CONFIG_NO_SUBCOMMAND', 'Please specify the subcommand', { hint: 'lode config set <key> <value>, get <key>, delete <key> or list.' })
  const location = values['location'] as string | undefined
  if (location !== undefined && location !== 'global' && location !== 'project') {
    throw new LodeError('BAD_ARGUMENTS', `--location is "${location}".`, { hint: 'Use --location global or --location project.' })
  }
  const { findWorkspaceDir } = await import('@lode/pkg-manager.core')
  const dir = values['dir'] === undefined ? ctx.cwd : path.resolve(ctx.cwd, values['dir'] as string)
  const opts: ConfigOptions = {
    location: location ?? (values['global'] === false ? 'project' : 'global'),
    dir,
    workspaceDir: await findWorkspaceDir(dir) ?? dir,
    env: ctx.env,
  }
  // Reading merges the machine's files and the project's, unless -g or --location global asks for the machine's alone.
  const readOpts: ConfigOptions = { ...opts, location: location ?? (values['global'] === true ? 'global' : 'project') }
  const json = values['json'] === true
  const edit = await import('@lode/pkg-manager.config.settings')
  switch (subcommand) {
    case 'set':
    case 'delete': {
      const [key, ...rest] = params
      if (key === undefined || key === '') throw new LodeError('CONFIG_NO_PARAMS', `\`lode config ${subcommand}\` requires the config key`)
      if (subcommand === 'delete') {
        await edit.setConfigValue(key, null, opts)
        return 0
      }
      // `set key value`, or `set key=value` (split at the first `=`), or `set key` (an empty value).
      const [name, text] = rest.length > 0 ? [key, rest.join(' ')] : key.includes('=') ? [key.slice(0, key.indexOf('=')), key.slice(key.indexOf('=') + 1)] : [key, '']
      await edit.setConfigValue(name, json ? parseJson(text) : text, opts)
      return 0
    }
    case 'get':
      if (params[0] === undefined || params[0] === '') return await listConfig(readOpts, ctx)
      return print(await configValue(params[0], readOpts, ctx), json, ctx)
    case 'list':
      return await listConfig(readOpts, ctx)
    default:
      throw new LodeError('CONFIG_UNKNOWN_SUBCOMMAND', 'This subcommand is not known', { hint: 'lode config set <key> <value>, get <key>, delete <key> or list.' })
  }
}

function parseJson (text: string): unknown {
  try {
    return JSON.parse(text)
  } catch (err) {
    throw new LodeError('BAD_ARGUMENTS', `--json: the value is not JSON (${(err as Error).message}).`, { hint: 'For example: lode config set --json overrides \'{"foo":"1.0.0"}\'' })
  }
}

/** A setting as pnpm's `config get` finds it: the registry (merged, with its default), an auth key, else the setting by its camelCase name. */
async function configValue (key: string, opts: ConfigOptions, ctx: MainContext): Promise<unknown> {
  const { camelCase, isIniKey, kebabCase, readConfigValues } = await import('@lode/pkg-manager.config.settings')
  const { settings, ini } = await readConfigValues(opts)
  const kebab = /^[a-z][a-zA-Z0-9]*$/.test(key) ? kebabCase(key) : key
  if (kebab === 'registry') return (await mergedConfig(opts, ctx)).registry
  if (isIniKey(key)) return ini[key]
  return settings[camelCase(key)] ?? ini[kebab]
}

async function mergedConfig (opts: ConfigOptions, ctx: MainContext): Promise<{ registry: string, userAgent: string }> {
  const { getConfig } = await import('@lode/pkg-manager.core')
  return getConfig({ dir: opts.location === 'global' ? ctx.env['HOME'] ?? opts.dir : opts.workspaceDir, env: ctx.env, overrides: {}, lodeVersion: VERSION })
}

/** `lode config list`: the settings given (not the defaults), auth values hidden, the registry and user agent, as JSON with sorted keys. */
async function listConfig (opts: ConfigOptions, ctx: MainContext): Promise<number> {
  const { isProtectedKey, readConfigValues } = await import('@lode/pkg-manager.config.settings')
  const { settings, ini } = await readConfigValues(opts)
  const { registry, userAgent } = await mergedConfig(opts, ctx)
  const record: Record<string, unknown> = { ...settings }
  for (const [key, value] of Object.entries(ini)) record[key] ??= isProtectedKey(key) ? '(protected)' : value
  record['registry'] = registry
  record['userAgent'] = userAgent
  const sorted = Object.fromEntries(Object.entries(record).sort(([a], [b]) => a < b ? -1 : a > b ? 1 : 0))
  ctx.stdout.write(`${JSON.stringify(sorted, undefined, 2)}\n`)
  return 0
}

/** pnpm's printing of a value: JSON for `--json`, objects and lists; `undefined` when unset (nothing with `--json`). */
function print (value: unknown, json: boolean, ctx: MainContext): number {
  const text = json || (typeof value === 'object' && value !== null) ? JSON.stringify(value, undefined, 2) : String(value)
  if (text !== undefined && text !== '') ctx.stdout.write(`${text}\n`)
  return 0
}
