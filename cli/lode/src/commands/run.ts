import { isLodeError, LodeError } from '@lode/core.error'

import type { MainContext } from '../context.js'
import { writeLodeError } from '../report-error.js'
import { selectedProjects, selectsProjects, takeSelection, type Selection } from '../selection.js'
import { VERSION } from '../version.js'

// Node's modules through process.getBuiltinModule (see index.ts); child_process only when a command runs.
const path = process.getBuiltinModule('node:path')

/**
 * `lode run <script> [args…]`: the project's script with its `pre` and `post` scripts (pnpm's
 * `enablePrePostScripts`), arguments passed to the script itself, `node_modules/.bin` on `PATH`,
 * and the script's exit code as lode's. Without a name, the scripts are listed.
 */
export async function runCommand (argv: readonly string[], ctx: MainContext): Promise<number> {
  const { selection, rest } = takeSelection(argv)
  if (selectsProjects(selection)) return await runInProjects(rest, selection, ctx)
  const [{ findWorkspaceDir, lodeUserAgent, readProjectManifest }, { runProjectScript, scriptsOf }] = await Promise.all([import('@lode/pkg-manager.core'), import('@lode/pkg-manager.lifecycle')])
  const userAgent = lodeUserAgent(VERSION)
  const dir = selection.workspaceRoot ? await findWorkspaceDir(ctx.cwd) ?? ctx.cwd : ctx.cwd
  let manifest
  try {
    manifest = await readProjectManifest(dir)
  } catch (err) {
    if (!isLodeError(err)) throw err
    ctx.stderr.write(`[${err.code}] ${err.message}\n`)
    return 1
  }
  const scripts = scriptsOf(manifest)
  const name = rest[0]
  if (name === undefined) {
    const entries = Object.entries(scripts)
    ctx.stdout.write(entries.length === 0 ? 'There are no scripts in package.json.\n' : `Commands available via "lode run":\n${entries.map(([script, command]) => `  ${script}\n    ${command}`).join('\n')}\n`)
    return 0
  }
  if (!Object.hasOwn(scripts, name)) {
    if (selection.ifPresent) return 0
    return writeLodeError(new LodeError('NO_SCRIPT', `Missing script: ${name}`, { hint: `Command "${name}" not found. Run lode run to list the scripts in package.json.` }), ctx.stderr)
  }
    try {
    for (const [event, args] of [[`pre${name}`, []], [name, rest.slice(1)], [`post${name}`, []]] as const) {
      await runProjectScript(event, { dir, manifest, args, stdio: 'inherit', userAgent })
    }
  } catch (err) {
    if (!isLodeError(err)) throw err
    const exitCode = (err as { exitCode?: number }).exitCode ?? 1
    ctx.stderr.write(`[ELIFECYCLE] Command failed with exit code ${exitCode}.\n`)
    return exitCode
  }
  return 0
}

/**
 * `lode exec <command> [args…]`: a command with the project's `node_modules/.bin` first on `PATH`;
 * its exit code is lode's. With `-r` or `--filter`, it runs in each selected project in turn.
 */
export async function execCommand (argv: readonly string[], ctx: MainContext): Promise<number> {
  const { selection, rest } = takeSelection(argv)
  const [command, ...args] = rest
  if (command === undefined) {
    return writeLodeError(new LodeError('BAD_ARGUMENTS', 'lode exec needs a command to run.', { hint: 'For example: lode exec tsc --version' }), ctx.stderr)
  }
  if (!selectsProjects(selection)) {
    const { findWorkspaceDir } = await import('@lode/pkg-manager.core')
    return await execIn(selection.workspaceRoot ? await findWorkspaceDir(ctx.cwd) ?? ctx.cwd : ctx.cwd, command, args, ctx)
  }
  const projects = await selectedProjects(selection, ctx)
  if (typeof projects === 'number') return projects
  for (const project of projects) {
    const code = await execIn(project.dir, command, args, ctx)
    if (code !== 0) return code
  }
  return 0
}

async function execIn (dir: string, command: string, args: readonly string[], ctx: MainContext): Promise<number> {
  const bin = path.join(dir, 'node_modules', '.bin')
  const env = { ...ctx.env, PATH: [bin, ctx.env['PATH'] ?? ''].join(path.delimiter) }
  return await new Promise<number>((resolve) => {
    const { spawn } = process.getBuiltinModule('node:child_process')
    const child = spawn(command, args, { cwd: dir, env, stdio: 'inherit' })
    child.on('error', (err: NodeJS.ErrnoException) => {
      resolve(writeLodeError(err.code === 'ENOENT'
        ? new LodeError('EXEC_NOT_FOUND', `Command "${command}" not found in ${bin} or on PATH.`, { hint: 'Install the package that provides it, or check its name.' })
        : new LodeError('EXEC_FAILED', `${command}: ${err.message}`), ctx.stderr))
    })
    // A command killed by a signal exits as a shell reports it: 128 + the signal's number.
    child.on('exit', (code, signal) => { resolve(code ?? 128 + (signal === null ? 0 : process.getBuiltinModule('node:os').constants.signals[signal])) })
  })
}

/**
 * `lode -r run <script>` / `lode --filter <selector> run <script>`: the script in every selected
 * project that has it, each after the projects it depends on, stopping at the first failure.
 */
async function runInProjects (argv: readonly string[], selection: Selection, ctx: MainContext): Promise<number> {
  const [name, ...args] = argv
  if (name === undefined) {
    return writeLodeError(new LodeError('BAD_ARGUMENTS', 'lode run -r needs the name of a script.', { hint: 'For example: lode -r run build' }), ctx.stderr)
  }
  const [{ lodeUserAgent }, { runProjectScript, scriptsOf }] = await Promise.all([import('@lode/pkg-manager.core'), import('@lode/pkg-manager.lifecycle')])
  const userAgent = lodeUserAgent(VERSION)
  const projects = await selectedProjects(selection, ctx)
  if (typeof projects === 'number') return projects
  const withScript = projects.filter((project) => Object.hasOwn(scriptsOf(project.manifest), name))
  if (withScript.length === 0) {
    if (selection.ifPresent) return 0
    return writeLodeError(new LodeError('RECURSIVE_RUN_NO_SCRIPT', `None of the selected projects has a "${name}" script.`), ctx.stderr)
  }
  for (const project of withScript) {
    const where = project.id === '.' ? (project.manifest['name'] as string | undefined ?? '.') : project.id
    try {
      for (const [event, eventArgs] of [[`pre${name}`, []], [name, args], [`post${name}`, []]] as const) {
        const script = scriptsOf(project.manifest)[event]
        if (script === undefined) continue
        ctx.stdout.write(`${where} ${event}$ ${script}\n`)
        await runProjectScript(event, { dir: project.dir, manifest: project.manifest, args: eventArgs, stdio: 'inherit', userAgent })
      }
    } catch (err) {
      if (!isLodeError(err)) throw err
      const exitCode = (err as { exitCode?: number }).exitCode ?? 1
      writeLodeError(new LodeError('RECURSIVE_RUN_FIRST_FAIL', `${where}: ${err.message}`), ctx.stderr)
      return exitCode
    }
  }
  return 0
}
