import { LodeError } from '@lode/core.error'
import type { ConfigOverrides } from '@lode/pkg-manager.core'

// Node's modules through process.getBuiltinModule, not `import` (see index.ts).
const { parseArgs } = process.getBuiltinModule('node:util')

/** One option of a command: its parser type and its line in `lode <cmd> --help`. */
export interface OptionSpec {
  type: 'boolean' | 'string'
  short?: string
  multiple?: boolean
  /** The argument's name in the help (`<dir>`). */
  arg?: string
  help: string
  /** Left out of the help (accepted for pnpm's spelling of another option). */
  hidden?: boolean
  /**
   * A string option whose value may be left out (`--fix`, `--fix update`): the next argument is
   * its value only when it is one of these; without one the value is ''.
   */
  optionalValues?: readonly string[]
}

export type OptionSpecs = Readonly<Record<string, OptionSpec>>

export interface ParsedArgs {
  values: Record<string, string | boolean | string[] | undefined>
  positionals: string[]
  /** `--config.<key>=<value>`, as settings that win over every file. */
  config: ConfigOverrides
}

/**
 * A command's arguments, read as pnpm reads them: `--flag`, `--no-flag` and `--flag=true|false`
 * for a boolean, `--name value` and `--name=value` for a string, `--config.<key>=<value>` for a
 * setting, and `--` ending the options (what follows is positional). An option the command does
 * not have is `ERR_LODE_BAD_ARGUMENTS` naming it.
 */
export function parseCommandArgs (argv: readonly string[], options: OptionSpecs, command: string): ParsedArgs {
  const config: ConfigOverrides = {}
  const args: string[] = []
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!
    if (arg === '--') {
      args.push(...argv.slice(i))
      break
    }
    const setting = /^--config\.([^=]+)(?:=(.*))?$/.exec(arg)
    if (setting !== null) {
      // Without `=`, a boolean takes the next argument only when it is true or false (`--config.offline react` adds react).
      const next = argv[i + 1]
      const takesNext = next !== undefined && (configType(setting[1]!) === 'boolean' ? next === 'true' || next === 'false' : !next.startsWith('-'))
      setConfig(config, setting[1]!, setting[2] ?? (takesNext ? argv[++i]! : 'true'))
      continue
    }
    const flag = /^--([^=]+)=(true|false)$/.exec(arg)
    if (flag !== null && options[flag[1]!]?.type === 'boolean') {
      args.push(flag[2] === 'true' ? `--${flag[1]!}` : `--no-${flag[1]!}`)
      continue
    }
    const next = argv[i + 1]
    const optionalValues = arg.startsWith('--') ? options[arg.slice(2)]?.optionalValues : undefined
    if (optionalValues !== undefined) {
      const value = next !== undefined && optionalValues.includes(next) ? argv[++i]! : ''
      args.push(`${arg}=${value}`)
      continue
    }
    // A value option followed by a negative number takes it (`--depth -1`), as pnpm's parser does.
    if (arg.startsWith('--') && options[arg.slice(2)]?.type === 'string' && next !== undefined && /^-\d/.test(next)) {
      args.push(`${arg}=${next}`)
      i++
      continue
    }
    args.push(arg)
  }
  const parserOptions = Object.fromEntries(Object.entries(options).map(([name, spec]) => [name, {
    type: spec.type,
    ...(spec.short === undefined ? {} : { short: spec.short }),
    ...(spec.multiple === true ? { multiple: true } : {}),
  }]))
  try {
    const { values, positionals } = parseArgs({ args, options: parserOptions, allowPositionals: true, allowNegative: true, strict: true })
    return { values: values as ParsedArgs['values'], positionals, config }
  } catch (err) {
    throw new LodeError('BAD_ARGUMENTS', (err as Error).message, { hint: `Run lode ${command} --help for its options.` })
  }
}

/** The settings `--config.<key>` may set, by pnpm's names (kebab-case or camelCase), and how each value is read. */
const CONFIG_KEYS: Readonly<Record<string, [keyof ConfigOverrides, 'string' | 'boolean' | 'concurrency']>> = {
  'registry': ['registry', 'string'],
  'cache-dir': ['cacheDir', 'string'],
  'store-dir': ['storeDir', 'string'],
  'offline': ['offline', 'boolean'],
  'prefer-offline': ['preferOffline', 'boolean'],
  'frozen-lockfile': ['frozenLockfile', 'boolean'],
  'node-linker': ['nodeLinker', 'string'],
  'shamefully-hoist': ['shamefullyHoist', 'boolean'],
  'virtual-store-dir': ['virtualStoreDir', 'string'],
  'enable-global-virtual-store': ['enableGlobalVirtualStore', 'boolean'],
  'virtual-store-type': ['virtualStoreType', 'string'],
  'network-concurrency': ['networkConcurrency', 'concurrency'],
}

function configKey (key: string): [keyof ConfigOverrides, 'string' | 'boolean' | 'concurrency'] | undefined {
  return CONFIG_KEYS[key.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`)]
}

function configType (key: string): 'string' | 'boolean' | 'concurrency' | undefined {
  return configKey(key)?.[1]
}

function setConfig (config: ConfigOverrides, key: string, value: string): void {
  const known = configKey(key)
  if (known === undefined) {
    throw new LodeError('UNSUPPORTED_CLI_SETTING', `--config.${key} is not a setting lode takes on the command line.`, {
      hint: `Set ${key} in pnpm-workspace.yaml (or .npmrc for registry and auth settings); on the command line lode takes --config. with ${Object.keys(CONFIG_KEYS).join(', ')}.`,
    })
  }
  const [name, type] = known
  if (type === 'concurrency') {
    (config as Record<string, number>)[name] = concurrency(`--config.${key}`, value)
    return
  }
  if (type === 'string') {
    (config as Record<string, string>)[name] = value
    return
  }
  if (value !== 'true' && value !== 'false') {
    throw new LodeError('BAD_ARGUMENTS', `--config.${key} is ${JSON.stringify(value)}; it takes true or false.`, { hint: `For example: --config.${key}=true` })
  }
  (config as Record<string, boolean>)[name] = value === 'true'
}

/** A concurrency given on the command line: a whole number, 1 or more (`ERR_LODE_BAD_ARGUMENTS` otherwise). */
export function concurrency (flag: string, value: string): number {
  const count = /^\d+$/.test(value) ? Number(value) : Number.NaN
  if (!Number.isSafeInteger(count) || count < 1) {
    throw new LodeError('BAD_ARGUMENTS', `${flag} is ${JSON.stringify(value)}; it takes a whole number, 1 or more.`, { hint: `For example: ${flag}=16` })
  }
  return count
}

/** A command's help: its usage lines, what it does, and its options as pnpm lists them. */
export function renderHelp (usage: readonly string[], description: string, options: OptionSpecs): string {
  const rows = Object.entries(options).filter(([, spec]) => spec.hidden !== true).map(([name, spec]) => {
    const flag = `${spec.short === undefined ? '    ' : `-${spec.short}, `}--${name}${spec.arg === undefined ? '' : ` ${spec.arg}`}`
    return [flag, spec.help] as const
  })
  const width = Math.max(...rows.map(([flag]) => flag.length)) + 2
  const lines = rows.map(([flag, help]) => `  ${flag.padEnd(width)}${help}`)
  return `Usage: ${usage.join('\n       ')}\n\n${description}\n\nOptions:\n${lines.join('\n')}\n`
}
