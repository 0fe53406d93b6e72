import path from 'node:path'

// Loaded with lifecycle by every install: child_process and os are taken when a script runs, not before.

/** A child's exit as a shell reports it: its code, or 128 + the number of the signal that ended it. */
export function exitCodeOf (code: number | null, signal: NodeJS.Signals | null): number {
  return code ?? 128 + (signal === null ? 0 : process.getBuiltinModule('node:os').constants.signals[signal])
}

export interface SpawnScriptOptions {
  /** The project directory, where the script runs. */
  dir: string
  manifest: object
  /** The lifecycle event (the script's name). */
  event: string
  /** The script's command line, its arguments already appended (see `commandLine`). */
  command: string
  userAgent: string
  /** Where lode was started (npm's `INIT_CWD`); the project's directory by default. */
  initCwd?: string | undefined
  /** The environment lode runs in: the script gets it, with the variables npm and pnpm add. */
  env: Readonly<Record<string, string | undefined>>
  /** Each line of the script's output (its standard output's and its error output's), as it comes; without it, the script shares lode's terminal. */
  onLine?: ((line: string) => void) | undefined
}

export interface SpawnedScript {
  /** The exit code (128 + the signal's number when a signal ended it). */
  exited: Promise<number>
  kill: () => void
}

/**
 * Runs a project's script, its output shared or piped and split into lines as it comes (run-script
 * gives piped output only once the script ends, and a watch script never ends), in the environment
 * run-script gives it: `node_modules/.bin` of the directory and every one above it and the
 * running Node first on `PATH`, `npm_lifecycle_event`/`_script`, `npm_package_*`, `INIT_CWD`.
 */
export function spawnScript (opts: SpawnScriptOptions): SpawnedScript {
  const { onLine } = opts
  // Piped, a script is the leader of a process group of its own: stopping it stops what it started
  // (`tsc && node x`, a watcher), and its pipes close. Sharing the terminal, it stays in lode's group
  // so that it can read the terminal and Ctrl-C reaches it.
  const child = process.getBuiltinModule('node:child_process').spawn('sh', ['-c', opts.command], {
    cwd: opts.dir,
    env: scriptEnv(opts),
    stdio: onLine === undefined ? 'inherit' : ['ignore', 'pipe', 'pipe'],
    detached: onLine !== undefined,
  })
  if (onLine !== undefined) for (const stream of [child.stdout!, child.stderr!]) forEachLine(stream, onLine)
  const exited = new Promise<number>((resolve) => {
    child.on('error', (err) => {
      onLine?.(err.message)
      resolve(127)
    })
    child.on('close', (code, signal) => { resolve(exitCodeOf(code, signal)) })
  })
  const kill = (): void => {
    if (child.pid === undefined) return
    try {
      if (onLine === undefined) child.kill('SIGTERM')
      else process.kill(-child.pid, 'SIGTERM')
    } catch {
      // Gone already.
    }
  }
  return { exited, kill }
}

/** The script and its arguments, each argument quoted for `sh` as run-script quotes it. */
export function commandLine (script: string, args: readonly string[]): string {
  return [script, ...args.map(quoteForShell)].join(' ')
}

function quoteForShell (arg: string): string {
  return /^[\w@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replaceAll('\'', '\'\\\'\'')}'`
}

function scriptEnv (opts: SpawnScriptOptions): Record<string, string | undefined> {
  // The user's Node on PATH, not the one running lode: pnpm prepends its own only with scriptsPrependNodePath.
  const bins: string[] = []
  for (let dir = path.resolve(opts.dir); ; dir = path.dirname(dir)) {
    bins.push(path.join(dir, 'node_modules', '.bin'))
    if (path.dirname(dir) === dir) break
  }
  const manifest = opts.manifest as { name?: unknown, version?: unknown }
  return {
    ...opts.env,
    PATH: [...bins, opts.env['PATH'] ?? ''].join(path.delimiter),
    INIT_CWD: opts.initCwd ?? opts.dir,
    npm_config_user_agent: opts.userAgent,
    npm_node_execpath: process.execPath,
    npm_package_json: path.join(opts.dir, 'package.json'),
    npm_package_name: typeof manifest.name === 'string' ? manifest.name : undefined,
    npm_package_version: typeof manifest.version === 'string' ? manifest.version : undefined,
    npm_lifecycle_event: opts.event,
    npm_lifecycle_script: opts.command,
  }
}

/**
 * Calls `onLine` with each line of the stream as it comes (a last line without its newline at the
 * end too). The chunks stay as the stream gives them to its other readers (run-script's promise
 * concatenates Buffers): they are decoded here, a character split across two chunks kept whole.
 */
export function forEachLine (stream: NodeJS.ReadableStream, onLine: (line: string) => void): void {
  let rest = ''
  const decoder = new TextDecoder()
  stream.on('data', (chunk: Buffer | string) => {
    const lines = (rest + (typeof chunk === 'string' ? chunk : decoder.decode(chunk, { stream: true }))).split('\n')
    rest = lines.pop()!
    for (const line of lines) onLine(line.replace(/\r$/, ''))
  })
  stream.on('end', () => { if (rest !== '') onLine(rest) })
}

/** pnpm's `nodeOptions` as the scripts' `NODE_OPTIONS` (replacing lode's own, as pnpm's does); nothing when unset. */
export function nodeOptionsEnv (nodeOptions: string | undefined): Record<string, string> {
  return nodeOptions === undefined ? {} : { NODE_OPTIONS: nodeOptions }
}
