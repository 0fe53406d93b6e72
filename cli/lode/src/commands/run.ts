import { isLodeError, LodeError } from '@lode/core.error'

import type { MainContext } from '../context.js'
import { writeLodeError } from '../report-error.js'
import { createReporter } from '../reporter.js'
import { inChunkOrder, projectsGraph, selectedProjects, selectsProjects, takeSelection, type Selection } from '../selection.js'
import { VERSION } from '../version.js'

// Node's modules through process.getBuiltinModule (see index.ts); child_process only when a command runs.
const path = process.getBuiltinModule('node:path')

/**
 * `lode run <script> [args…]`: the project's script with its `pre` and `post` scripts (pnpm's
 * `enablePrePostScripts`), arguments passed to the script itself, `node_modules/.bin` on `PATH`,
 * and the script's exit code as lode's. Without a name, the scripts are listed.
 */
export async function runCommand (argv: readonly string[], ctx: MainContext): Promise<number> {
  const { selection, flags, rest } = takeRunFlags(argv)
  if (selectsProjects(selection)) return await runInProjects(rest, selection, flags, ctx)
  const [{ findWorkspaceDir, lodeUserAgent, readProjectManifest }, { commandLine, isSkippedScript, runProjectScript, scriptsOf }] = await Promise.all([import('@lode/pkg-manager.core'), import('@lode/pkg-manager.building.lifecycle')])
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
  let env: Record<string, string>
  try {
    env = await nodeOptionsEnvOf(ctx.cwd)
  } catch (err) {
    return writeLodeError(err, ctx.stderr)
  }
  try {
    for (const [event, args] of [[`pre${name}`, []], [name, rest.slice(1)], [`post${name}`, []]] as const) {
      const script = scripts[event]
      // pnpm's echo of what runs, on stderr: `$ <command>`.
      if (script !== undefined && !isSkippedScript(script)) ctx.stderr.write(`$ ${commandLine(script, args)}\n`)
      await runProjectScript(event, { dir, manifest, args, stdio: 'inherit', userAgent, env })
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
  let selection: Selection
  let flags: RunFlags
  let rest: string[]
  try {
    ({ selection, flags, rest } = takeRunFlags(argv))
  } catch (err) {
    return writeLodeError(err, ctx.stderr)
  }
  const [command, ...args] = rest
  if (command === undefined) {
    return writeLodeError(new LodeError('BAD_ARGUMENTS', 'lode exec needs a command to run.', { hint: 'For example: lode exec tsc --version' }), ctx.stderr)
  }
  if (!selectsProjects(selection)) {
    const { findWorkspaceDir } = await import('@lode/pkg-manager.core')
    return await execIn(selection.workspaceRoot ? await findWorkspaceDir(ctx.cwd) ?? ctx.cwd : ctx.cwd, command, args, ctx)
  }
  // pnpm prints no "Scope:" line for exec.
  const projects = await selectedProjects(selection, ctx, { skipsRoot: true })
  if (typeof projects === 'number') return projects
  const { commandLine } = await import('@lode/pkg-manager.building.lifecycle')
  const failures: Array<{ dir: string, code: number }> = []
  let passes = 0
  // With --no-bail, a project whose dependency failed (or was skipped) is skipped, as pnpm's scheduler skips it.
  const dependencies = await projectsGraph(projects, ctx.cwd)
  const notDone = new Set<string>()
  const ordered = await inChunkOrder(projects, ctx.cwd)
  for (const project of flags.reverse ? ordered.reverse() : ordered) {
    if (!flags.reverse && (dependencies.get(project.id) ?? []).some((id) => notDone.has(id))) {
      notDone.add(project.id)
      continue
    }
    const code = await execIn(project.dir, command, args, ctx, project.manifest)
    if (code === 0) {
      passes++
      continue
    }
    notDone.add(project.id)
    failures.push({ dir: project.dir, code })
    if (flags.bail) break
  }
  if (failures.length === 0) return 0
  // pnpm's account of a failure: the project's directory, then the command and its exit code.
  const line = (code: number): string => `Command failed with exit code ${code}: ${commandLine(command, args)}`
  if (flags.bail) {
    ctx.stderr.write(`${failures[0]!.dir}:\n[ERR_LODE_RECURSIVE_EXEC_FIRST_FAIL] ${line(failures[0]!.code)}\n`)
  } else {
    const summary = `Summary: ${failures.length} fails, ${passes} passes`
    ctx.stderr.write(`[ERR_LODE_RECURSIVE_FAIL] \n\n\n${summary}\n\n${failures.map(({ dir, code }) => `${dir}:\n[ERROR] ${line(code)}`).join('\n\n')}\n`)
  }
  return 1
}

/**
 * pnpm's `nodeOptions` from the workspace's pnpm-workspace.yaml, as the scripts' `NODE_OPTIONS`
 * (pnpm's `run` sets it; `exec` does not). The file is parsed only when it names the setting: a
 * run reads no configuration besides.
 */
async function nodeOptionsEnvOf (cwd: string): Promise<Record<string, string>> {
  const { findWorkspaceDir } = await import('@lode/pkg-manager.core')
  const workspaceDir = await findWorkspaceDir(cwd)
  if (workspaceDir === undefined) return {}
  const file = path.join(workspaceDir, 'pnpm-workspace.yaml')
  const text = await process.getBuiltinModule('node:fs/promises').readFile(file, 'utf8').catch(() => '')
  if (!text.includes('nodeOptions')) return {}
  const [{ readWorkspaceYaml }, { nodeOptionsEnv }] = await Promise.all([import('@lode/pkg-manager.config.settings'), import('@lode/pkg-manager.building.lifecycle')])
  const value = readWorkspaceYaml(workspaceDir)['nodeOptions']
  if (value !== undefined && typeof value !== 'string') {
    throw new LodeError('INVALID_SETTING', `nodeOptions in ${file} has the wrong type (${typeof value}).`, { hint: 'nodeOptions is a string of Node.js options, as in NODE_OPTIONS.' })
  }
  return nodeOptionsEnv(value)
}

async function execIn (dir: string, command: string, args: readonly string[], ctx: MainContext, manifest?: object): Promise<number> {
  const bin = path.join(dir, 'node_modules', '.bin')
  const name = (manifest as { name?: unknown } | undefined)?.name
  // The workspace root's bins come after the project's (pnpm's extraBinPaths).
  const bins = [...new Set([bin, ...await workspaceBins(dir)])]
  // In a workspace, pnpm tells the command which project it runs in.
  const env = { ...ctx.env, PATH: [...bins, ctx.env['PATH'] ?? ''].join(path.delimiter), ...typeof name === 'string' ? { PNPM_PACKAGE_NAME: name } : {} }
  const { exitCodeOf } = await import('@lode/pkg-manager.building.lifecycle')
  return await new Promise<number>((resolve) => {
    const { spawn } = process.getBuiltinModule('node:child_process')
    const child = spawn(command, args, { cwd: dir, env, stdio: 'inherit' })
    child.on('error', (err: NodeJS.ErrnoException) => {
      resolve(writeLodeError(err.code === 'ENOENT'
        ? new LodeError('EXEC_NOT_FOUND', `Command "${command}" not found in ${bin} or on PATH.`, { hint: 'Install the package that provides it, or check its name.' })
        : new LodeError('EXEC_FAILED', `${command}: ${err.message}`), ctx.stderr))
    })
    // A command killed by a signal exits as a shell reports it: 128 + the signal's number.
    child.on('exit', (code, signal) => { resolve(exitCodeOf(code, signal)) })
  })
}

/** The workspace root's `node_modules/.bin` when `dir` is in a workspace: pnpm puts it on a command's PATH after the project's own. */
export async function workspaceBins (dir: string): Promise<string[]> {
  const { findWorkspaceDir } = await import('@lode/pkg-manager.core')
  const workspaceDir = await findWorkspaceDir(dir)
  return workspaceDir === undefined ? [] : [path.join(workspaceDir, 'node_modules', '.bin')]
}

/** `lode -r run`'s own flags, read before the script's name (after it they are the script's), as pnpm reads them. */
interface RunFlags {
  parallel: boolean
  stream: boolean
  aggregateOutput: boolean
  bail: boolean
  reverse: boolean
  sequential: boolean
  workspaceConcurrency: number | undefined
  resumeFrom: string | undefined
}

/** The selection flags and `run`'s own from the front of `argv`; the script's name and its arguments follow. */
export function takeRunFlags (argv: readonly string[]): { selection: Selection, flags: RunFlags, rest: string[] } {
  const flags: RunFlags = {
    parallel: false, stream: false, aggregateOutput: false, bail: true, reverse: false, sequential: false,
    workspaceConcurrency: undefined, resumeFrom: undefined,
  }
  const switches: Record<string, (on: boolean) => void> = {
    '--parallel': (on) => { flags.parallel = on },
    '--stream': (on) => { flags.stream = on },
    '--aggregate-output': (on) => { flags.aggregateOutput = on },
    '--bail': (on) => { flags.bail = on },
    '--reverse': (on) => { flags.reverse = on },
    '--sequential': (on) => { flags.sequential = on },
  }
  const { selection, rest } = takeSelection(argv, (arg, next) => {
    const eq = arg.indexOf('=')
    const [name, value] = arg.startsWith('--') && eq !== -1 ? [arg.slice(0, eq), arg.slice(eq + 1)] : [arg, undefined]
    const toggle = switches[name] ?? (name.startsWith('--no-') ? switches[`--${name.slice(5)}`] : undefined)
    if (toggle !== undefined) {
      toggle(!name.startsWith('--no-') && value !== 'false')
      return 1
    }
    if (name !== '--workspace-concurrency' && name !== '--resume-from') return 0
    const given = value ?? next
    if (given === undefined) throw new LodeError('BAD_ARGUMENTS', `${name} needs a value.`, { hint: `For example: lode -r ${name}=${name === '--resume-from' ? 'my-package' : '2'} run build` })
    if (name === '--resume-from') flags.resumeFrom = given
    else if (/^-?\d+$/.test(given)) flags.workspaceConcurrency = Number(given)
    else throw new LodeError('BAD_ARGUMENTS', `--workspace-concurrency takes a whole number, not "${given}".`, { hint: 'A number of scripts at a time; 0 or less: the cores minus that many.' })
    return value === undefined ? 2 : 1
  })
  return { selection, flags, rest }
}

/** pnpm's `workspaceConcurrency`: at most 4 by default (fewer with fewer cores); 0 or less, the cores minus that many. */
function workspaceConcurrency (flags: RunFlags): number {
  if (flags.sequential) return 1
  const cores = process.getBuiltinModule('node:os').availableParallelism()
  if (flags.workspaceConcurrency === undefined) return Math.min(4, cores)
  return flags.workspaceConcurrency <= 0 ? Math.max(1, cores + flags.workspaceConcurrency) : flags.workspaceConcurrency
}

/**
 * `lode -r run <script>` / `lode --filter <selector> run <script>`: the script in every selected
 * project that has it, each after the projects it depends on, as many at a time as
 * `--workspace-concurrency` allows (pnpm's flags: `--parallel`, `--stream`, `--aggregate-output`,
 * `--no-bail`, `--reverse`, `--resume-from`, `--sequential`).
 */
async function runInProjects (argv: readonly string[], selection: Selection, flags: RunFlags, ctx: MainContext): Promise<number> {
  const [name, ...args] = argv
  if (name === undefined) {
    return writeLodeError(new LodeError('BAD_ARGUMENTS', 'lode run -r needs the name of a script.', { hint: 'For example: lode -r run build' }), ctx.stderr)
  }
  const [{ findWorkspaceDir, lodeUserAgent }, { runWorkspaceScript, notInstalled }] = await Promise.all([
    import('@lode/pkg-manager.core'),
    import('@lode/pkg-manager.building.lifecycle'),
  ])
  const projects = await selectedProjects(selection, ctx, { showScope: true, skipsRoot: true })
  if (typeof projects === 'number') return projects
  const rootDir = await findWorkspaceDir(ctx.cwd) ?? ctx.cwd
  const reporter = createReporter('append-only', ctx)
  let result
  try {
    result = await runWorkspaceScript(projects, {
      script: name,
      args,
      dependencies: await projectsGraph(projects, ctx.cwd),
      concurrency: workspaceConcurrency(flags),
      parallel: flags.parallel,
      stream: flags.stream,
      aggregateOutput: flags.aggregateOutput,
      bail: flags.bail,
      reverse: flags.reverse,
      resumeFrom: flags.resumeFrom,
      userAgent: lodeUserAgent(VERSION),
      initCwd: ctx.cwd,
      env: { ...ctx.env, ...await nodeOptionsEnvOf(rootDir) },
      onLifecycle: (log) => { reporter.onEvent({ type: 'lifecycle', ...log, dir: path.relative(rootDir, log.dir).split(path.sep).join('/') || '.' }) },
      onCommand: (command) => { ctx.stderr.write(`$ ${command}\n`) },
    })
  } catch (err) {
    return writeLodeError(err, ctx.stderr)
  }
  if (result.ran === 0 && name !== 'test' && !selection.ifPresent) {
    return writeLodeError(new LodeError('RECURSIVE_RUN_NO_SCRIPT', `None of the selected packages has a "${name}" script`), ctx.stderr)
  }
  const [failure] = result.failures
  if (failure === undefined) return 0
  // pnpm's account of a failure: the project's directory, its name@version, the script, the exit status.
  const described = result.failures.map(({ project, event, command, exitCode }) => {
    const { name: pkgName, version } = project.manifest as { name?: string, version?: string }
    return { dir: project.dir, line: `${pkgName ?? ''}${version === undefined ? '' : `@${version}`} ${event}: \`${command}\`\nExit status ${exitCode}` }
  })
  if (notInstalled(failure.project.dir)) reporter.warn(' Local package.json exists, but node_modules missing, did you mean to install?')
  if (flags.bail) {
    ctx.stderr.write(`${described[0]!.dir}:\n[ERR_LODE_RECURSIVE_RUN_FIRST_FAIL] ${described[0]!.line}\n`)
    return failure.exitCode
  }
  ctx.stderr.write(`[ERR_LODE_RECURSIVE_FAIL] \n\n\nSummary: ${result.failures.length} fails, ${result.passed} passes\n\n${described.map(({ dir, line }) => `${dir}:\n[ERROR] ${line}`).join('\n\n')}\n`)
  return 1
}
