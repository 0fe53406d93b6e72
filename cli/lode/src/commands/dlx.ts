import { LodeError } from '@lode/core.error'

import type { MainContext } from '../context.js'
import { changeBar, createReporter } from '../reporter.js'
import { VERSION } from '../version.js'
import type { CommandInput } from './types.js'

const path = process.getBuiltinModule('node:path')

interface DlxArgs {
  packages: string[]
  allowBuild: string[]
  shellMode: boolean
  /** The command, then its arguments (passed on untouched). */
  rest: string[]
}

/** dlx's own options, before the command's name (after it, everything is the command's). */
function parseDlxArgs (argv: readonly string[]): DlxArgs {
  const parsed: DlxArgs = { packages: [], allowBuild: [], shellMode: false, rest: [] }
  let i = 0
  for (; i < argv.length; i++) {
    const arg = argv[i]!
    if (arg === '-c' || arg === '--shell-mode') {
      parsed.shellMode = true
      continue
    }
    const eq = arg.indexOf('=')
    const name = arg.startsWith('--') && eq !== -1 ? arg.slice(0, eq) : arg
    if (name !== '--package' && name !== '--allow-build') break
    const value = eq !== -1 && arg.startsWith('--') ? arg.slice(eq + 1) : argv[++i]
    if (value === undefined) throw new LodeError('BAD_ARGUMENTS', `${name} needs a value.`, { hint: `For example: lode ${name}=some-package dlx some-command` })
    if (name === '--package') parsed.packages.push(value)
    else parsed.allowBuild.push(value)
  }
  parsed.rest = argv.slice(i)
  return parsed
}

/**
 * `lode dlx <pkg> [args…]`: the package installed in lode's dlx cache (reused for a day), then its
 * command run in the current directory with its arguments; its exit code is lode's. With
 * `--package <spec>` (several allowed), those are installed and `<command>` is run as given;
 * `-c` runs the command line in a shell. `lode create <name>` runs `create-<name>` so.
 */
export async function dlxCommand (input: CommandInput, ctx: MainContext): Promise<number> {
  const argv = [...input.leading, ...input.rest]
  const { packages, allowBuild, shellMode, rest } = input.name === 'create' ? await createArgs(argv) : parseDlxArgs(argv)
  const [command, ...args] = rest
  if (command === undefined) {
    throw packages.length > 0
      ? new LodeError('DLX_MISSING_COMMAND', '\'lode dlx\' requires a command to run', { hint: 'For example: lode --package=typescript dlx tsc --version' })
      : new LodeError('MISSING_ARGS', input.name === 'create' ? 'Missing the template package name.' : 'lode dlx needs a package to run.', {
        hint: input.name === 'create' ? 'The correct usage is `lode create <name>` with <name> substituted for a package name.' : 'For example: lode dlx cowsay hello',
      })
  }
  if (shellMode && packages.length === 0) throw new LodeError('BAD_ARGUMENTS', 'lode dlx -c needs --package: the command line is run in a shell, not installed.', { hint: 'For example: lode --package=cowsay dlx -c "echo hi | cowsay"' })
  const [{ dlxInstall, getConfig }, { dlxBin }] = await Promise.all([import('@lode/pkg-manager.core'), import('@lode/pkg-manager.exec.dlx')])
  const config = getConfig({ dir: ctx.cwd, env: ctx.env, overrides: {}, lodeVersion: VERSION })
  // pnpm prints dlx's install on stderr (stdout is the command's): the progress and the count of packages.
  const reporter = createReporter('default', { ...ctx, stdout: ctx.stderr })
  const { dir } = await dlxInstall({
    packages: packages.length > 0 ? packages : [command],
    allowBuild,
    config,
    env: ctx.env,
    overrides: {},
    now: Date.now,
    onEvent: (event) => {
      if (event.type === 'packages') {
        reporter.print(`Packages: +${event.added}`)
        reporter.print(changeBar(event.added, 0))
      } else if (event.type === 'progress' || event.type === 'warning' || event.type === 'lifecycle') reporter.onEvent(event)
    },
  })
  const bin = packages.length > 0 ? command : dlxBin(dir)
  const binDir = path.join(dir, 'node_modules', '.bin')
  const env = { ...ctx.env, PATH: [binDir, ctx.env['PATH'] ?? ''].join(path.delimiter) }
  const { spawn } = process.getBuiltinModule('node:child_process')
  const { exitCodeOf } = await import('@lode/pkg-manager.building.lifecycle')
  return await new Promise<number>((resolve, reject) => {
    const child = shellMode
      ? spawn([command, ...args].join(' '), { cwd: ctx.cwd, env, stdio: 'inherit', shell: true })
      : spawn(bin, args, { cwd: ctx.cwd, env, stdio: 'inherit' })
    child.on('error', (err: NodeJS.ErrnoException) => {
      reject(err.code === 'ENOENT' ? new LodeError('DLX_COMMAND_NOT_FOUND', `Command "${bin}" not found in ${binDir} or on PATH.`, { hint: 'Check the command\'s name, or name its package with --package.' }) : err)
    })
    child.on('exit', (code, signal) => { resolve(exitCodeOf(code, signal)) })
  })
}

/** `lode create <name> [args…]`: dlx of the name's create package, its arguments passed on. */
async function createArgs (argv: readonly string[]): Promise<DlxArgs> {
  const parsed = parseDlxArgs(argv)
  const [name, ...args] = parsed.rest
  if (name === undefined) return parsed
  const { createPackageName } = await import('@lode/pkg-manager.exec.dlx')
  const pkg = createPackageName(name)
  // The package's own command runs (no --package), its name the create package's.
  return { ...parsed, rest: [pkg, ...args] }
}
