import { LodeError } from '@lode/core.error'

import { loadRunScript } from './load-run-script.js'

export interface ProjectScriptOptions {
  /** The project directory (where its package.json is). */
  dir: string
  /** Its package.json, as read. */
  manifest: object
  /** Arguments appended to the script (not to its pre/post scripts). */
  args?: readonly string[]
  /** `inherit` shows the script's output as it runs (the CLI); `pipe` collects it (the API). */
  stdio: 'inherit' | 'pipe'
  userAgent: string
  /** Called with a piped script's output. */
  onOutput?: (event: string, output: string) => void
  /** Variables added to the script's environment. */
  env?: Readonly<Record<string, string>>
}

/** The project's scripts, by name. */
export function scriptsOf (manifest: object): Record<string, string> {
  const scripts = (manifest as { scripts?: unknown }).scripts
  if (typeof scripts !== 'object' || scripts === null) return {}
  return Object.fromEntries(Object.entries(scripts).filter((entry): entry is [string, string] => typeof entry[1] === 'string'))
}

/**
 * The one script pnpm skips wherever it is (a project's or a dependency's, any lifecycle event):
 * it only checks that pnpm runs it, and lode stands in for pnpm. Written otherwise (`npx -y
 * only-allow pnpm`), it runs, and passes: `npm_config_user_agent` starts with `pnpm/`.
 */
export function isSkippedScript (script: string | undefined): boolean {
  return script === 'npx only-allow pnpm'
}

/**
 * Runs one of the project's scripts (when it has it) in its directory, with `node_modules/.bin` on
 * `PATH`, as pnpm does. A failing script is `ERR_LODE_SCRIPT_FAILED` carrying its exit code.
 */
export async function runProjectScript (event: string, opts: ProjectScriptOptions): Promise<void> {
  const script = scriptsOf(opts.manifest)[event]
  if (script === undefined || isSkippedScript(script)) return
  try {
    const result = await (await loadRunScript())({
      event,
      path: opts.dir,
      pkg: opts.manifest as Record<string, unknown>,
      stdio: opts.stdio,
      args: [...opts.args ?? []],
      // The user's Node on PATH, as pnpm (its scriptsPrependNodePath is false).
      binPaths: [],
      env: { ...opts.env, INIT_CWD: opts.dir, npm_config_user_agent: opts.userAgent, npm_node_execpath: process.execPath },
    })
    const output = `${result.stdout ?? ''}${result.stderr ?? ''}`
    if (opts.stdio === 'pipe' && output !== '') opts.onOutput?.(event, output)
  } catch (err) {
    const failure = err as { code?: number | null, signal?: string | null, stdout?: string, stderr?: string }
    const output = `${failure.stdout ?? ''}${failure.stderr ?? ''}`
    if (opts.stdio === 'pipe' && output !== '') opts.onOutput?.(event, output)
    const exitCode = typeof failure.code === 'number' ? failure.code : 1
    throw Object.assign(new LodeError('SCRIPT_FAILED', `The ${event} script of ${projectName(opts)} (\`${script}\`) failed with exit code ${exitCode}.`, {
      hint: 'See its output above.',
      cause: err,
    }), { exitCode })
  }
}

function projectName (opts: ProjectScriptOptions): string {
  const name = (opts.manifest as { name?: unknown }).name
  return typeof name === 'string' ? name : opts.dir
}

/** Whether a project has scripts pnpm runs on install (with --ignore-scripts, `.modules.yaml` records it as a pending build, as pnpm does). */
export function hasInstallScripts (manifest: object): boolean {
  const scripts = scriptsOf(manifest)
  return ['preinstall', 'install', 'postinstall', 'prepublish', 'prepare'].some((event) => scripts[event] !== undefined)
}

/**
 * The projects' own install scripts once their dependencies are installed, in the order planned
 * (`projectScriptsPlan`); `afterScripts` after each project that had one of its events to run.
 */
export async function runInstallScripts<P extends { dir: string, manifest: object }> (
  runs: ReadonlyArray<{ project: P, events: readonly string[] }>,
  opts: Omit<ProjectScriptOptions, 'dir' | 'manifest' | 'args'>,
  afterScripts?: (project: P) => Promise<void>
): Promise<void> {
  for (const { project, events } of runs) {
    for (const event of events) await runProjectScript(event, { ...opts, dir: project.dir, manifest: project.manifest })
    const scripts = scriptsOf(project.manifest)
    const ran = events.some((event) => scripts[event] !== undefined && !isSkippedScript(scripts[event]))
    if (ran && afterScripts !== undefined) await afterScripts(project)
  }
}
