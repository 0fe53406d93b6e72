import { spawn } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'

/** The pnpm every check compares lode with. */
export const PNPM_VERSION = '11.28.11'

export type ToolName = 'lode' | 'pnpm'

export interface Run {
  ok: boolean
  ms: number
  /** stdout and stderr, interleaved, as written to the run's log. */
  output: string
}

export interface RunOptions {
  cwd: string
  /** The tool's own HOME, XDG dirs and metadata cache, made if missing. */
  home: string
  /** Given for `install`: the store, and the metadata cache in `home`, as flags after `args`. */
  store?: string
  log: string
}

export interface Tool {
  name: ToolName
  version: string
  run: (args: string[], opts: RunOptions) => Promise<Run>
}

/** A whole run may take long (a cold install of thousands of packages), but never forever. */
const TIMEOUT_MS = 45 * 60_000

function versionOf (dir: string): string {
  return (JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8')) as { version: string }).version
}

/** pnpm 11 from cli/lode's devDependency, else the one bench/run installed into bench/.cache/tools. */
function findPnpm (lodeRepo: string): string {
  const candidates = [
    path.join(lodeRepo, 'cli', 'lode', 'node_modules', 'pnpm'),
    path.join(lodeRepo, 'bench', '.cache', 'tools', 'node_modules', 'pnpm11'),
  ]
  const found = candidates.find((dir) => fs.existsSync(path.join(dir, 'package.json')) && versionOf(dir) === PNPM_VERSION)
  if (found === undefined) throw new Error(`pnpm ${PNPM_VERSION} not found in ${candidates.join(' or ')}: run 'npm run setup' (or 'npm run bench' once)`)
  return found
}

/**
 * The environment of one run: the developer's settings, CI mode and update checks left out; HOME
 * and the XDG dirs inside `home`, whose .npmrc names the registry (the user's, so every tool asks
 * the same one). pnpm 11 does not switch to the version a project's `packageManager` names
 * (`pmOnFail: ignore`, the setting pnpm itself sets for the commands it runs), nor does corepack.
 */
function environment (home: string, registry: string): Record<string, string | undefined> {
  const env = { ...process.env }
  for (const key of Object.keys(env)) {
    if (/^(npm|pnpm)_config_/i.test(key) || key === 'CI' || key.startsWith('LODE_')) delete env[key]
  }
  const dirs = { HOME: 'home', XDG_CACHE_HOME: 'xdg-cache', XDG_DATA_HOME: 'xdg-data', XDG_STATE_HOME: 'xdg-state', XDG_CONFIG_HOME: 'xdg-config' }
  for (const [key, dir] of Object.entries(dirs)) {
    env[key] = path.join(home, dir)
    fs.mkdirSync(env[key], { recursive: true })
  }
  fs.writeFileSync(path.join(home, 'home', '.npmrc'), `registry=${registry}\n`)
  return {
    ...env,
    npm_config_update_notifier: 'false',
    pnpm_config_update_notifier: 'false',
    pnpm_config_pm_on_fail: 'ignore',
    COREPACK_ENABLE_STRICT: '0',
  }
}

function spawnLogged (file: string, args: string[], env: Record<string, string | undefined>, opts: RunOptions): Promise<Run> {
  fs.mkdirSync(path.dirname(opts.log), { recursive: true })
  const started = performance.now()
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, { cwd: opts.cwd, env, stdio: ['ignore', 'pipe', 'pipe'], timeout: TIMEOUT_MS })
    const chunks: Buffer[] = []
    child.stdout.on('data', (chunk: Buffer) => chunks.push(chunk))
    child.stderr.on('data', (chunk: Buffer) => chunks.push(chunk))
    child.on('error', reject)
    child.on('close', (code, signal) => {
      const ms = performance.now() - started
      const output = Buffer.concat(chunks).toString('utf8')
      const status = signal === null ? `exit ${String(code)}` : `killed by ${signal}`
      fs.writeFileSync(opts.log, `$ ${path.basename(file)} ${args.join(' ')}\n# in ${opts.cwd}\n${output}\n# ${status} after ${(ms / 1000).toFixed(1)} s\n`)
      resolve({ ok: code === 0, ms, output })
    })
  })
}

/** lode (the CLI of this checkout, built) and pnpm 11, each run by the toolchain's Node. */
export function loadTools (lodeRepo: string, registry: string): Record<ToolName, Tool> {
  const lodeBin = path.join(lodeRepo, 'cli', 'lode', 'bin', 'lode')
  const pnpmDir = findPnpm(lodeRepo)
  const run = (entry: string[]) => (args: string[], opts: RunOptions): Promise<Run> => spawnLogged(
    process.execPath,
    [...entry, ...args, ...(opts.store === undefined ? [] : ['--store-dir', opts.store, '--cache-dir', path.join(opts.home, 'cache')])],
    environment(opts.home, registry),
    opts,
  )
  return {
    lode: { name: 'lode', version: versionOf(path.join(lodeRepo, 'cli', 'lode')), run: run([lodeBin]) },
    pnpm: { name: 'pnpm', version: versionOf(pnpmDir), run: run([path.join(pnpmDir, 'bin', 'pnpm.mjs')]) },
  }
}

/** The error code a failed run printed (`ERR_LODE_…`, `ERR_PNPM_…`), or its last line. */
export function failure (run: Run): string {
  const code = /\b(ERR_[A-Z0-9_]+)/.exec(run.output)?.[1]
  return code ?? run.output.trim().split('\n').at(-1)?.slice(0, 80) ?? 'failed'
}
