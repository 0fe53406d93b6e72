import { LodeError } from '@lode/core.error'

import { parseCommandArgs, renderHelp } from './args.js'
import { COMMANDS, PNPM_ONLY_COMMANDS, findCommand, mainHelp } from './commands/registry.js'
import type { CommandSpec } from './commands/registry.js'
import type { MainContext } from './context.js'
import { writeLodeError } from './report-error.js'
import { REPORTERS } from './reporter.js'
import type { ReporterName } from './reporter.js'
import { printableContext } from './terminal.js'
import { VERSION } from './version.js'

export { capYoungGeneration } from './young-generation.js'

// Node's modules through process.getBuiltinModule, not `import`: an ESM import of a builtin builds
// a facade that runs every lazy getter (~3 ms for node:util), and a no-op install counts in ms.
const fs = process.getBuiltinModule('node:fs')
const path = process.getBuiltinModule('node:path')

/** Options that take a value, in any command: their value is not the command's name (`lode --filter app run build`). */
const VALUE_OPTIONS = new Set(COMMANDS.flatMap((spec) => Object.entries(spec.options)
  .filter(([, option]) => option.type === 'string')
  .flatMap(([name, option]) => [`--${name}`, ...option.short === undefined ? [] : [`-${option.short}`]])))

/**
 * Runs the CLI; returns the exit code. The command is the first argument that is neither an
 * option nor an option's value; what comes before it (the selection flags of `lode -r run build`)
 * is the command's too. A name that is none of lode's or pnpm's commands runs package.json's
 * script of that name, as pnpm does (`lode build`); one of pnpm's never does. What a command
 * writes to stdout and stderr reaches them printable (see terminal.ts).
 */
export async function main (argv: string[], processCtx: MainContext): Promise<number> {
  const ctx = printableContext(processCtx)
  // The completion scripts' helper: not a command of the help.
  if (argv[0] === 'completion-server') return await (await import('./commands/completion.js')).completionServer(processCtx, COMMANDS, VALUE_OPTIONS)
  // `lode pm <command>`: the built-in command even where a script of that name would run instead (pnpm's `pm`).
  const builtIn = argv[0] === 'pm'
  if (builtIn) argv = argv.slice(1)
  let at = commandIndex(argv)
  // `lode recursive <command>` (`multi`, `m`) is `lode -r <command>`, as in pnpm.
  const recursed = at !== -1 && RECURSIVE.has(argv[at]!) ? commandIndex(argv.slice(at + 1)) : -1
  if (recursed !== -1) {
    argv = [...argv.slice(0, at), '--recursive', ...argv.slice(at + 1)]
    at += 1 + recursed
  }
  const name = at === -1 ? undefined : argv[at]!
  const leading = at === -1 ? argv : argv.slice(0, at)
  const rest = at === -1 ? [] : argv.slice(at + 1)
  if (name === undefined || name === 'help') {
    if (leading.includes('-v') || leading.includes('--version')) return write(ctx, `${VERSION}\n`)
    const topic = rest[0]
    if (name === 'help' && topic !== undefined) return helpFor(topic, ctx)
    ctx.stdout.write(mainHelp())
    return name === undefined && !leading.includes('--help') && !leading.includes('-h') ? 1 : 0
  }
  if (!builtIn && SCRIPT_OVERRIDABLE.has(name)) {
    const overridden = await scriptOverride(name, leading, rest, ctx)
    if (overridden !== undefined) return overridden
  }
  const spec = findCommand(name)
  if (spec === undefined) return await notACommand(name, leading, rest, ctx)
  // Options after the name of `run` and `exec` belong to the script or command; --help only before it.
  const ownArgs = spec.passThrough === true ? leading : [...leading, ...rest]
  try {
    const args = parseCommandArgs(ownArgs, spec.options, spec.names[0]!)
    if (args.values['help'] === true || (spec.passThrough === true && (rest[0] === '--help' || rest[0] === '-h'))) {
      return write(ctx, commandHelp(spec))
    }
    if (args.values['version'] === true) return write(ctx, `${VERSION}\n`)
    const reporter = args.values['reporter']
    if (reporter !== undefined && !REPORTERS.includes(reporter as ReporterName)) {
      throw new LodeError('BAD_ARGUMENTS', `Unknown reporter "${String(reporter)}".`, { hint: 'Use default, append-only, silent or ndjson.' })
    }
    return await spec.run({ name, leading, rest, args: spec.passThrough === true ? undefined : args }, ctx)
  } catch (err) {
    return writeLodeError(err, ctx.stderr)
  }
}

const RECURSIVE: ReadonlySet<string> = new Set(['recursive', 'multi', 'm'])

/** pnpm 11's commands that a script of package.json with the same name replaces (`pnpm pm <command>` runs the built-in). */
const SCRIPT_OVERRIDABLE: ReadonlySet<string> = new Set(['clean', 'purge', 'deploy', 'rebuild', 'rb', 'setup'])

/**
 * The project's script of that name, run instead of the command, as pnpm runs it; in a workspace's
 * project whose root has such a script (and the project not), `ERR_LODE_SCRIPT_OVERRIDE_IN_WORKSPACE_ROOT`,
 * as pnpm refuses to run the built-in there. Undefined: the command runs.
 */
async function scriptOverride (name: string, leading: string[], rest: string[], ctx: MainContext): Promise<number | undefined> {
  const dir = path.resolve(ctx.cwd)
  if (hasScript(dir, name)) return await findCommand('run')!.run({ name: 'run', leading, rest: [name, ...rest], args: undefined }, ctx)
  const { findWorkspaceDir } = await import('@lode/pkg-manager.core')
  const root = await findWorkspaceDir(dir)
  if (root === undefined || root === dir || !hasScript(root, name)) return undefined
  return writeLodeError(new LodeError('SCRIPT_OVERRIDE_IN_WORKSPACE_ROOT',
    `The workspace root has a "${name}" script, so the built-in "lode ${name}" command cannot run from a subdirectory`,
    { hint: `Run "lode run ${name}" from the workspace root to execute the script (or lode pm ${name} for the command).` }), ctx.stderr)
}

function commandIndex (argv: readonly string[]): number {
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!
    if (arg === '--') return -1
    if (!arg.startsWith('-')) return i
    if (VALUE_OPTIONS.has(arg)) i++
  }
  return -1
}

function write (ctx: MainContext, text: string): number {
  ctx.stdout.write(text)
  return 0
}

function commandHelp (spec: CommandSpec): string {
  const aliases = spec.names.length > 1 ? `\n\nAliases: ${spec.names.slice(1).join(', ')}` : ''
  return renderHelp(spec.usage, `${spec.description}${aliases}`, spec.options)
}

/** `lode help <command>`. */
function helpFor (topic: string, ctx: MainContext): number {
  const spec = findCommand(topic)
  if (spec !== undefined) return write(ctx, commandHelp(spec))
  if (PNPM_ONLY_COMMANDS.includes(topic)) return writeLodeError(notImplemented(topic), ctx.stderr)
  return writeLodeError(new LodeError('UNKNOWN_COMMAND', `Unknown command "${topic}".`, { hint: 'Run lode --help for the commands.' }), ctx.stderr)
}

/** A name that is no command of lode's: pnpm's (refused), a script of package.json's (run), or unknown. */
async function notACommand (name: string, leading: string[], rest: string[], ctx: MainContext): Promise<number> {
  if (PNPM_ONLY_COMMANDS.includes(name)) return writeLodeError(notImplemented(name), ctx.stderr)
  // `lode build` runs package.json's build script, as `pnpm build` does.
  if (hasScript(path.resolve(ctx.cwd), name)) return await findCommand('run')!.run({ name: 'run', leading, rest: [name, ...rest], args: undefined }, ctx)
  // `lode vitest run` runs node_modules/.bin/vitest (the project's, else the workspace root's), as `pnpm vitest run` does.
  const { workspaceBins } = await import('./commands/run.js')
  const bins = [path.resolve(ctx.cwd, 'node_modules', '.bin'), ...await workspaceBins(ctx.cwd)]
  if (bins.some((bin) => fs.existsSync(path.join(bin, name)))) {
    return await findCommand('exec')!.run({ name: 'exec', leading, rest: [name, ...rest], args: undefined }, ctx)
  }
  return writeLodeError(new LodeError('UNKNOWN_COMMAND', `Unknown command "${name}", and package.json has no script of that name (nor node_modules/.bin a command).`, {
    hint: 'Run lode --help for the commands, or lode run for the scripts.',
  }), ctx.stderr)
}

/** pnpm's commands that manage Node.js and pnpm installations: lode leaves them to what manages those, by design. */
const INSTALLATION_COMMANDS: Readonly<Record<string, string>> = {
  env: 'lode does not manage Node.js versions: use pnpm env (or pnpm runtime, fnm, nvm, volta)',
  runtime: 'lode does not manage runtimes: use pnpm runtime (or fnm, nvm, volta)',
  rt: 'lode does not manage runtimes: use pnpm runtime (or fnm, nvm, volta)',
  setup: 'lode does not set up shells for global packages: use pnpm setup',
  'self-update': 'Update lode with the tool that installed it (npm install -g lode@latest, or your project\'s devDependency)',
  with: 'lode runs with the Node.js that runs it: use pnpm with, or your version manager',
}

function notImplemented (name: string): LodeError {
  const installation = INSTALLATION_COMMANDS[name]
  if (installation !== undefined) {
    return new LodeError('COMMAND_NOT_IMPLEMENTED', `"${name}" is a pnpm command lode does not have: it manages Node.js and pnpm installations.`, {
      hint: `${installation}. A script of that name runs with lode run ${name}.`,
    })
  }
  return new LodeError('COMMAND_NOT_IMPLEMENTED', `"${name}" is a pnpm command lode does not have yet.`, {
    hint: `Run pnpm ${name} for now (lode's node_modules and pnpm-lock.yaml are pnpm's). A script of that name runs with lode run ${name}.`,
  })
}

/** Whether `dir`'s package.json has a script called `name` (a missing or broken file has none). */
function hasScript (dir: string, name: string): boolean {
  try {
    // A byte order mark is skipped, as everywhere a package.json is read (see @lode/fs.package-json, not loaded on this path).
    const manifest = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8').replace(/^\uFEFF/, '')) as { scripts?: Record<string, unknown> }
    return typeof manifest.scripts?.[name] === 'string'
  } catch {
    return false
  }
}
