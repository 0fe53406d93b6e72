import { LodeError } from '@lode/core.error'
import type { ConfigOverrides, InstallEvent } from '@lode/pkg-manager.core'
import type { QuickKey } from '@lode/pkg-manager.install-state/quick-check'

import type { MainContext } from './context.js'
import { writeLodeError } from './report-error.js'
import { selectedProjects, selectsProjects, takeSelection } from './selection.js'
import { VERSION } from './version.js'

// Node's modules through process.getBuiltinModule, not `import`: an ESM import of a builtin builds
// a facade that runs every lazy getter (~3 ms for node:util), and a no-op install counts in ms.
const fs = process.getBuiltinModule('node:fs')
const path = process.getBuiltinModule('node:path')
const { parseArgs } = process.getBuiltinModule('node:util')


const HELP = `Usage: lode <command> [options]

Commands:
  install, i            Install the project's dependencies (pnpm-lock.yaml and node_modules)
  add <pkg[@spec]>...   Add dependencies to package.json and install: -D (devDependencies),
                        -O (optionalDependencies), -E (exact version), --save-peer (peer and
                        dev dependency), -w (the workspace root)
  remove, rm <pkg>...   Remove dependencies from package.json and node_modules
  update, up [pkg]...   Update dependencies to the newest version their ranges allow (names or
                        patterns like "@babel/*"); -L, --latest: to their latest versions
  run <script> [args]   Run a script of package.json (with its pre and post scripts); also
                        lode <script> [args] when no command has that name
  exec <cmd> [args]     Run a command with node_modules/.bin on PATH
  rebuild, rb [names]   Run the build scripts of installed packages (after --ignore-scripts, say)

In a workspace (for run and exec before the script's name; for add, remove and update anywhere):
  -r, --recursive       In every project but the root, each after the projects it depends on
  -F, --filter <sel>    In the projects pnpm's selector picks: name, @scope/*, {dir}, ./dir,
                        name... (with dependencies), ...name (with dependents), ^, ! (exclude)
      --fail-if-no-match
                        Fail when a selector matches no project
  -w, --workspace-root  In the workspace root
  install installs every project of the workspace, from its root; with --filter, only those selected.

Options for install:
      --lockfile-only   Only resolve and write pnpm-lock.yaml
      --frozen-lockfile Install pnpm-lock.yaml as it is; fail if it is out of date (default in CI)
      --prefer-frozen-lockfile
                        Install an up-to-date pnpm-lock.yaml without resolving (default)
  -P, --prod            Skip devDependencies
  -D, --dev             Only devDependencies
      --no-optional     Skip optionalDependencies
      --ignore-scripts  Run no scripts
      --trace-pipeline <file>
                        Record packages resolved, downloaded, extracted and linked per 100 ms
                        (JSON lines; also LODE_TRACE_PIPELINE)
      --offline         Use only the metadata cache; fail on a cache miss
      --prefer-offline  Use cached metadata when it can answer, ask the registry otherwise
      --registry <url>  The default registry
      --cache-dir <dir> Where registry metadata is cached
      --store-dir <dir> The content-addressable store
      --node-linker <isolated|hoisted>
                        How node_modules is laid out (also nodeLinker in pnpm-workspace.yaml)
      --shamefully-hoist
                        Hoist every dependency into node_modules (publicHoistPattern *)
      --virtual-store-dir <dir>
                        Where the packages of the isolated layout go (default node_modules/.pnpm)
      --reporter <name> default, append-only or silent

  -v, --version         Print lode's version
  -h, --help            Print this help
`

const COMMANDS = ['install', 'i', 'add', 'remove', 'rm', 'uninstall', 'un', 'update', 'up', 'upgrade', 'rebuild', 'rb', 'run', 'run-script', 'exec']

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

/** Runs the CLI; returns the exit code. */
export async function main (argv: string[], ctx: MainContext): Promise<number> {
  // Everything after `run <script>` or `exec <command>` belongs to the script or command.
  // Selection flags may come first, as in `lode -r run build` or `lode --filter app exec tsc`.
  const { rest } = takeSelection(argv)
  const selectionFlags = argv.slice(0, argv.length - rest.length)
  // run.js (and child_process) load only for these commands: a no-op install is counted in ms.
  if (rest[0] === 'run' || rest[0] === 'run-script') return await (await import('./run.js')).runCommand([...selectionFlags, ...rest.slice(1)], ctx)
  if (rest[0] === 'exec') return await (await import('./run.js')).execCommand([...selectionFlags, ...rest.slice(1)], ctx)
  // `lode build` runs package.json's build script, as `pnpm build` does, when no command has that name.
  if (rest[0] !== undefined && !rest[0].startsWith('-') && !COMMANDS.includes(rest[0]) && rest[0] !== 'help' && hasScript(path.resolve(ctx.cwd), rest[0])) {
    return await (await import('./run.js')).runCommand([...selectionFlags, ...rest], ctx)
  }
  let parsed
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      allowNegative: true,
      options: {
        'lockfile-only': { type: 'boolean' },
        'frozen-lockfile': { type: 'boolean' },
        'prefer-frozen-lockfile': { type: 'boolean' },
        prod: { type: 'boolean', short: 'P' },
        production: { type: 'boolean' },
        dev: { type: 'boolean', short: 'D' },
        optional: { type: 'boolean' },
        'ignore-scripts': { type: 'boolean' },
        'trace-pipeline': { type: 'string' },
        offline: { type: 'boolean' },
        'prefer-offline': { type: 'boolean' },
        registry: { type: 'string' },
        'cache-dir': { type: 'string' },
        'store-dir': { type: 'string' },
        'node-linker': { type: 'string' },
        'shamefully-hoist': { type: 'boolean' },
        'virtual-store-dir': { type: 'string' },
        reporter: { type: 'string' },
        dir: { type: 'string', short: 'C' },
        recursive: { type: 'boolean', short: 'r' },
        'workspace-root': { type: 'boolean', short: 'w' },
        filter: { type: 'string', short: 'F', multiple: true },
        'save-dev': { type: 'boolean' },
        'save-optional': { type: 'boolean', short: 'O' },
        'save-exact': { type: 'boolean', short: 'E' },
        'save-prod': { type: 'boolean' },
        'save-peer': { type: 'boolean' },
        latest: { type: 'boolean', short: 'L' },
        'fail-if-no-match': { type: 'boolean' },
        version: { type: 'boolean', short: 'v' },
        help: { type: 'boolean', short: 'h' },
      },
    })
  } catch (err) {
    return writeLodeError(new LodeError('BAD_ARGUMENTS', (err as Error).message, { hint: 'Run lode --help for the options.' }), ctx.stderr)
  }
  const { values, positionals } = parsed
  if (values.version === true) {
    ctx.stdout.write(`${VERSION}\n`)
    return 0
  }
  const command = positionals[0]
  if (values.help === true || command === undefined || command === 'help') {
    ctx.stdout.write(HELP)
    return command === undefined && values.help !== true ? 1 : 0
  }
  if (!COMMANDS.includes(command)) {
    return writeLodeError(new LodeError('UNKNOWN_COMMAND', `Unknown command "${command}", and package.json has no script of that name.`, { hint: 'Run lode --help for the commands, or lode run for the scripts.' }), ctx.stderr)
  }
  const reporterName = values.reporter ?? 'default'
  if (!['default', 'append-only', 'silent'].includes(reporterName)) {
    return writeLodeError(new LodeError('BAD_ARGUMENTS', `Unknown reporter "${reporterName}".`, { hint: 'Use default, append-only or silent.' }), ctx.stderr)
  }
  const silent = reporterName === 'silent'
  // On a terminal the progress line is rewritten in place; elsewhere only the final one is printed.
  // Asked on first progress: the no-op prints without looking at what stdout is.
  let live: boolean | undefined
  const isLive = (): boolean => (live ??= reporterName === 'default' && ctx.stdout.isTTY === true && ctx.env['CI'] === undefined)
  let progressLine: string | undefined
  let progressShownAt = 0
  const print = (line: string): void => {
    if (silent) return
    ctx.stdout.write(progressLine !== undefined ? `\r\x1b[2K${line}\n${progressLine}` : `${line}\n`)
  }
  const showProgress = (line: string, done: boolean): void => {
    if (silent) return
    if (done) {
      if (progressLine !== undefined) ctx.stdout.write('\r\x1b[2K')
      progressLine = undefined
      ctx.stdout.write(`${line}\n`)
      return
    }
    if (!isLive() || Date.now() - progressShownAt < 100) return
    progressShownAt = Date.now()
    progressLine = line
    ctx.stdout.write(`\r\x1b[2K${line}`)
  }
  // Also asked when first needed (it looks at whether stdout is a terminal).
  let labels: LabelStyle | undefined
  const style = (): LabelStyle => (labels ??= labelStyle(ctx))
  if (command === 'rebuild' || command === 'rb') return await rebuildCommand(positionals.slice(1), values, ctx, print, style())
  const started = Date.now()
  try {
    const tracePipeline = values['trace-pipeline'] ?? ctx.env['LODE_TRACE_PIPELINE']
    const installing = command === 'install' || command === 'i'
    // The no-op: answered from the last install's record before any setting is parsed or the
    // installer is loaded. Anything it cannot vouch for takes the full path, which decides itself.
    let quick: QuickKey | undefined
    if (installing && values['lockfile-only'] !== true && values.filter === undefined && tracePipeline === undefined) {
      const { quickKey, quickUpToDate } = await import('@lode/pkg-manager.install-state/quick-check')
      quick = quickKey({ cwd: path.resolve(ctx.cwd, values.dir ?? '.'), env: ctx.env, flags: quickFlags(values), version: VERSION })
      if (quickUpToDate(quick, { frozenLockfile: values['frozen-lockfile'] }) !== undefined) {
        print('Already up to date')
        print(`Done in ${formatDuration(Date.now() - started)} using lode v${VERSION}`)
        return 0
      }
    }
    // Loaded only for a command that needs it, so `lode --version` stays instant.
    const { add, checkPackageManager, findWorkspaceDir, getConfig, install, readProjectManifest, remove, update } = await import('@lode/pkg-manager.core')
    const overrides: ConfigOverrides = {}
    if (values.registry !== undefined) overrides.registry = values.registry
    if (values['cache-dir'] !== undefined) overrides.cacheDir = values['cache-dir']
    if (values['store-dir'] !== undefined) overrides.storeDir = values['store-dir']
    if (values.offline === true) overrides.offline = true
    if (values['prefer-offline'] === true) overrides.preferOffline = true
    if (values['node-linker'] !== undefined) overrides.nodeLinker = values['node-linker']
    if (values['shamefully-hoist'] !== undefined) overrides.shamefullyHoist = values['shamefully-hoist']
    if (values['virtual-store-dir'] !== undefined) overrides.virtualStoreDir = values['virtual-store-dir']
    // Inside a project of a workspace, the whole workspace is installed from its root, as pnpm does.
    const projectDir = path.resolve(ctx.cwd, values.dir ?? '.')
    const workspaceDir = await findWorkspaceDir(projectDir)
    const settingsFor = command === 'add' ? 'add' : command === 'update' || command === 'up' || command === 'upgrade' ? 'update' : 'install'
    const config = getConfig({ dir: workspaceDir ?? projectDir, env: ctx.env, overrides, lodeVersion: VERSION, command: settingsFor })
    for (const warning of config.warnings) print(`${style().warn} ${warning}`)
    // As pnpm: the root package.json's packageManager (or devEngines.packageManager) naming another package manager.
    const otherPackageManager = checkPackageManager(await readProjectManifest(config.dir), config.pmOnFail)
    if (otherPackageManager !== undefined) print(`${style().warn} ${otherPackageManager}`)
    const common = {
      config,
      ignoreScripts: values['ignore-scripts'] === true,
      scriptsStdio: silent ? 'pipe' as const : 'inherit' as const,
      now: () => Date.now(),
      onEvent: (event: InstallEvent) => { report(event, print, showProgress, style()) },
    }
    const target = values['workspace-root'] === true ? config.dir : projectDir
    // add/remove/update with -r or --filter change every selected project (pnpm's recursive forms).
    const selection = { recursive: values.recursive === true, filters: values.filter ?? [], workspaceRoot: values['workspace-root'] === true, failIfNoMatch: values['fail-if-no-match'] === true }
    // install: the whole workspace (also with -r or -w), or with --filter only the projects selected.
    let projectDirs: string[] = [target]
    let projectIds: string[] | undefined
    if (installing ? selection.filters.length > 0 : selectsProjects(selection)) {
      const selected = await selectedProjects(selection, { ...ctx, cwd: projectDir }, false)
      if (typeof selected === 'number') return selected
      projectDirs = selected.map((project) => project.dir)
      projectIds = selected.map((project) => project.id)
    }
    if (command === 'remove' || command === 'rm' || command === 'uninstall' || command === 'un') {
      const names = positionals.slice(1)
      if (names.length === 0) throw new LodeError('MISSING_PACKAGE_NAME', '`lode remove` requires the package name.', { hint: 'For example: lode remove react.' })
      await remove({ ...common, dependencies: names, projectDirs })
    } else if (command === 'update' || command === 'up' || command === 'upgrade') {
      await update({ ...common, dependencies: positionals.slice(1), projectDirs, latest: values.latest === true })
    } else if (command === 'add') {
      const specs = positionals.slice(1)
      if (specs.length === 0) throw new LodeError('MISSING_PACKAGE_NAME', '`lode add` requires the package name.', { hint: 'For example: lode add react, or lode add -D typescript.' })
      // As in pnpm, adding to a workspace's root must be asked for.
      if (workspaceDir !== undefined && projectDirs.length === 1 && projectDirs[0] === workspaceDir && values['workspace-root'] !== true && !selectsProjects(selection) && config.workspacePackages !== undefined && config.workspacePackages.length > 0) {
        throw new LodeError('ADDING_TO_ROOT', 'Running this command will add the dependency to the workspace root, which might not be what you want.', { hint: 'If you really meant it, make it explicit by running this command again with the -w flag (or --workspace-root).' })
      }
      const group = values['save-dev'] === true || values.dev === true ? 'devDependencies' : values['save-optional'] === true ? 'optionalDependencies' : values['save-prod'] === true || values.prod === true ? 'dependencies' : undefined
      await add({ ...common, dependencies: specs, projectDirs, exact: values['save-exact'] === true, peer: values['save-peer'] === true, ...(group === undefined ? {} : { group }) })
    } else {
      await install({
        ...common,
        lockfileOnly: values['lockfile-only'] === true,
        ...(values['frozen-lockfile'] !== undefined ? { frozenLockfile: values['frozen-lockfile'] } : {}),
        ...(values['prefer-frozen-lockfile'] !== undefined ? { preferFrozenLockfile: values['prefer-frozen-lockfile'] } : {}),
        include: includedGroups(values),
        ...(tracePipeline !== undefined ? { tracePipeline: path.resolve(ctx.cwd, tracePipeline) } : {}),
        ...(projectIds !== undefined ? { projects: projectIds } : {}),
        ...(quick !== undefined && quick.dir === config.dir ? { quickKey: quick.key } : {}),
      })
    }
    print(`Done in ${formatDuration(Date.now() - started)} using lode v${VERSION}`)
    return 0
  } catch (err) {
    return writeLodeError(err, ctx.stderr, style().error)
  }
}

/**
 * The flags that shape what an install puts in node_modules, for the quick check's key. Not among
 * them: `--frozen-lockfile` (a recorded install's lockfile satisfied its manifests), the reporter,
 * and how the network is used.
 */
function quickFlags (values: Record<string, unknown>): Record<string, unknown> {
  const names = ['prod', 'production', 'dev', 'optional', 'ignore-scripts', 'prefer-frozen-lockfile', 'registry', 'cache-dir', 'store-dir', 'recursive', 'workspace-root', 'node-linker', 'shamefully-hoist', 'virtual-store-dir']
  return Object.fromEntries(names.map((name) => [name, values[name]]))
}

/** pnpm's `--prod` (no devDependencies), `--dev` (only devDependencies) and `--no-optional`. */
function includedGroups (
  values: { prod?: boolean, production?: boolean, dev?: boolean, optional?: boolean }
): { dependencies: boolean, devDependencies: boolean, optionalDependencies: boolean } {
  const prod = values.prod === true || values.production === true
  const dev = values.dev === true
  return {
    dependencies: !dev || prod,
    devDependencies: !prod || dev,
    optionalDependencies: values.optional !== false && (!dev || prod),
  }
}

/** `lode rebuild [names…]`: the build scripts of installed packages (all that have them and are allowed, or the named ones). */
async function rebuildCommand (names: string[], values: { dir?: string | undefined, 'store-dir'?: string | undefined }, ctx: MainContext, print: (line: string) => void, style: LabelStyle): Promise<number> {
  const { checkPackageManager, getConfig, readProjectManifest, rebuild } = await import('@lode/pkg-manager.core')
  const started = Date.now()
  try {
    const config = getConfig({ dir: path.resolve(ctx.cwd, values.dir ?? '.'), env: ctx.env, overrides: values['store-dir'] === undefined ? {} : { storeDir: values['store-dir'] }, lodeVersion: VERSION })
    for (const warning of config.warnings) print(`${style.warn} ${warning}`)
    const otherPackageManager = checkPackageManager(await readProjectManifest(config.dir), config.pmOnFail)
    if (otherPackageManager !== undefined) print(`${style.warn} ${otherPackageManager}`)
    const built = await rebuild({ config, names, onWarning: (message) => { print(`${style.warn} ${message}`) } })
    print(built.length === 0 ? 'Nothing to rebuild' : `Rebuilt ${built.length} ${built.length === 1 ? 'package' : 'packages'}: ${built.join(', ')}`)
    print(`Done in ${formatDuration(Date.now() - started)} using lode v${VERSION}`)
    return 0
  } catch (err) {
    return writeLodeError(err, ctx.stderr, style.error)
  }
}

interface LabelStyle {
  warn: string
  error: (code: string) => string
}

/** pnpm's labels: ` WARN ` on yellow and ` ERR_… ` on red where colours show, `[WARN]` and `[ERR_…]` otherwise. */
function labelStyle (ctx: MainContext): LabelStyle {
  const colors = ctx.env['FORCE_COLOR'] !== undefined && ctx.env['FORCE_COLOR'] !== '0'
    ? true
    : ctx.stdout.isTTY === true && ctx.env['NO_COLOR'] === undefined && ctx.env['TERM'] !== 'dumb'
  return colors
    ? { warn: '\x1b[30;43m WARN \x1b[39;49m', error: (code) => `\x1b[41m\x1b[30m ${code} \x1b[39m\x1b[49m` }
    : { warn: '[WARN]', error: (code) => `[${code}]` }
}

/** pnpm's `++++--` bar: one sign per package, scaled down to 80 columns when there are more. */
function changeBar (added: number, removed: number, width = 80): string {
  const total = added + removed
  if (total <= width) return '+'.repeat(added) + '-'.repeat(removed)
  const plus = Math.round(width * added / total)
  return '+'.repeat(plus) + '-'.repeat(width - plus)
}

/** `500ms`, `2s`, `5m`, `1h`, `3d`: pnpm's age of a cached verdict (pretty-ms, compact: the largest unit only). */
export function formatAgo (ms: number): string {
  const elapsed = Math.max(0, Number.isNaN(ms) ? 0 : ms)
  const units: Array<[string, number]> = [['y', 365 * 86_400_000], ['d', 86_400_000], ['h', 3_600_000], ['m', 60_000], ['s', 1000]]
  for (const [unit, size] of units) if (elapsed >= size) return `${Math.floor(elapsed / size)}${unit}`
  return `${Math.round(elapsed)}ms`
}

/** `564ms`, `3.2s`, `1m 5.3s`: pnpm's "Done in" duration (pretty-ms). */
export function formatDuration (ms: number): string {
  if (ms < 1000) return `${Math.round(ms)}ms`
  const minutes = Math.floor(ms / 60_000)
  const seconds = Math.floor((ms - minutes * 60_000) / 100) / 10
  return minutes > 0 ? `${minutes}m${seconds > 0 ? ` ${seconds}s` : ''}` : `${seconds}s`
}

function report (
  event: InstallEvent,
  print: (line: string) => void,
  showProgress: (line: string, done: boolean) => void,
  style: LabelStyle
): void {
  switch (event.type) {
    case 'warning': print(`${style.warn} ${event.message}`); break
    case 'info': print(event.message); break
    case 'deprecated':
      for (const id of event.direct) print(`${style.warn} deprecated ${id}`)
      if (event.subdependencies.length > 0) print(`${style.warn} ${event.subdependencies.length} deprecated subdependencies found: ${[...event.subdependencies].sort().join(', ')}`)
      break
    case 'progress': showProgress(`Progress: resolved ${event.resolved}, reused ${event.reused}, downloaded ${event.downloaded}, added ${event.added}${event.done ? ', done' : ''}`, event.done); break
    case 'peer-issues':
      // pnpm points at `pnpm peers check` here; lode lists the issues instead.
      print(`${style.warn} Issues with peer dependencies found:`)
      for (const issue of event.issues) {
        print(issue.kind === 'unmet'
          ? `  ✕ unmet peer ${issue.peer}@${issue.range}: found ${issue.installed} (wanted by ${issue.wantedBy})`
          : `  ✕ missing peer ${issue.peer}@${issue.range} (wanted by ${issue.wantedBy})`)
      }
      break
    case 'lockfile': print(''); break
    case 'lockfile-verification':
      if (event.status === 'cached') print(`✓ Lockfile passes supply-chain policies (verified ${formatAgo(Date.now() - Date.parse(event.verifiedAt))} ago)`)
      else {
        const entries = `${event.entries} ${event.entries === 1 ? 'entry' : 'entries'}`
        if (event.status === 'started') print(`? Verifying lockfile against supply-chain policies (${entries})...`)
        else if (event.status === 'done') print(`✓ Lockfile passes supply-chain policies (${entries} in ${formatDuration(event.elapsedMs)})`)
        else print(`✗ Lockfile failed supply-chain policy check (${entries} in ${formatDuration(event.elapsedMs)})`)
      }
      break
    case 'up-to-date': print('Already up to date'); break
    case 'script-output': break
    case 'packages':
      print(`Packages: ${[event.added > 0 ? `+${event.added}` : '', event.removed > 0 ? `-${event.removed}` : ''].filter(Boolean).join(' ')}`)
      print(changeBar(event.added, event.removed))
      if (event.added > 0) {
        print('Packages are hard linked from the content-addressable store to the virtual store.')
        print(`  Content-addressable store is at: ${event.storeDir}`)
        print(`  Virtual store is at:             ${event.virtualStoreDir}`)
      }
      break
    case 'summary':
      for (const group of ['dependencies', 'optionalDependencies', 'devDependencies'] as const) {
        const changes = event.changes.filter((change) => change.group === group)
        if (changes.length === 0) continue
        print(`${group}:`)
        for (const change of changes) {
          const from = change.linkedFrom !== undefined ? ` <- ${change.linkedFrom}` : ''
          print(`${change.change} ${change.alias}${change.name !== undefined && change.name !== change.alias ? ` <- ${change.name}` : ''} ${change.version}${from}`)
        }
        print('')
      }
      break
  }
}
