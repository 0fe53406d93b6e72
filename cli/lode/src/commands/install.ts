import { LodeError } from '@lode/core.error'
import { isCI } from '@lode/pkg-manager.config.settings/ci'
import type { ConfigOverrides, InstallEvent } from '@lode/pkg-manager.core'
import type { QuickKey } from '@lode/pkg-manager.installing.install-state/quick-check'

import type { ParsedArgs } from '../args.js'
import type { MainContext } from '../context.js'
import { writeLodeError } from '../report-error.js'
import { createReporter, formatDuration } from '../reporter.js'
import type { Reporter, ReporterName } from '../reporter.js'
import { notAWorkspace, selectProjects, selectedProjects, selectsProjects } from '../selection.js'
import { VERSION } from '../version.js'
import { settingsOf } from './settings.js'
import type { CommandInput } from './types.js'

const fs = process.getBuiltinModule('node:fs')
const path = process.getBuiltinModule('node:path')

type Values = ParsedArgs['values']
type Kind = 'install' | 'add' | 'remove' | 'update'

const KINDS: Readonly<Record<string, Kind>> = {
  // `prune` is an install: what package.json no longer names (and with --prod, the dev dependencies) leaves node_modules and the lockfile.
  install: 'install', i: 'install', prune: 'install', add: 'add', remove: 'remove', rm: 'remove', uninstall: 'remove', un: 'remove', update: 'update', up: 'update', upgrade: 'update',
  // `dedupe` is an install that resolves everything again, preferring the versions the lockfile has.
  dedupe: 'install',
  // `import` is a lockfile-only install that prefers the versions of yarn.lock or package-lock.json.
  import: 'install',
}

/**
 * `install`, `add`, `remove` and `update`: the settings read (the command line's win), the
 * projects selected, then the install API called; its events go to the reporter. `install` first
 * asks the quick check, which answers "up to date" before the installer is even loaded.
 */
export async function installCommand (input: CommandInput, ctx: MainContext): Promise<number> {
  const values = input.args!.values
  const positionals = input.args!.positionals
  // `install <name>...` is `add`, as in pnpm.
  const kind = KINDS[input.name] === 'install' && ['install', 'i'].includes(input.name) && positionals.length > 0 ? 'add' : KINDS[input.name]!
  const reporter = createReporter((values['reporter'] ?? 'default') as ReporterName, ctx)
  const started = Date.now()
  try {
    const tracePipeline = values['trace-pipeline'] as string | undefined ?? ctx.env['LODE_TRACE_PIPELINE']
    // The no-op: answered from the last install's record before any setting is parsed or the
    // installer is loaded. Anything it cannot vouch for takes the full path, which decides itself.
    let quick: QuickKey | undefined
    const prune = input.name === 'prune'
    const dedupe = input.name === 'dedupe'
    const quickCheck = kind === 'install' && !prune && !dedupe && input.name !== 'import' && values['lockfile-only'] !== true && values['filter'] === undefined
      && tracePipeline === undefined && values['timeline'] === undefined && Object.keys(input.args!.config).length === 0
    if (quickCheck) {
      const { quickKey, quickUpToDate } = await import('@lode/pkg-manager.installing.install-state/quick-check')
      quick = quickKey({ cwd: path.resolve(ctx.cwd, values['dir'] as string | undefined ?? '.'), env: ctx.env, flags: quickFlags(values), version: VERSION })
      if (quickUpToDate(quick, { frozenLockfile: values['frozen-lockfile'] as boolean | undefined }) !== undefined) {
        reporter.print('Already up to date')
        reporter.print(`Done in ${formatDuration(Date.now() - started)} using lode v${VERSION}`)
        return 0
      }
      // node_modules deleted under the global virtual store: written back as the last install made it.
      const { replayInstall } = await import('@lode/pkg-manager.installing.install-state/replay')
      const events = replayInstall(quick, ctx.env) as InstallEvent[] | undefined
      if (events !== undefined) {
        for (const event of events) reporter.onEvent(event)
        reporter.print(`Done in ${formatDuration(Date.now() - started)} using lode v${VERSION}`)
        return 0
      }
    }
    const importing = input.name === 'import'
    const installInput = { values, positionals, config: input.args!.config, quick, tracePipeline, reporter, prune, dedupe, importing }
    const code = await runInstall(kind, installInput, ctx)
    if (code !== 0) return code
    // pnpm's import ends with the progress line.
    if (importing) return 0
    reporter.print(`Done in ${formatDuration(Date.now() - started)} using lode v${VERSION}`)
    return 0
  } catch (err) {
    return writeLodeError(err, ctx.stderr, reporter.style().error)
  }
}

interface InstallInput {
  values: Values
  positionals: string[]
  config: ConfigOverrides
  quick: QuickKey | undefined
  tracePipeline: string | undefined
  reporter: Reporter
  /** `lode prune`: the virtual store is pruned now. */
  prune: boolean
  /** `lode dedupe`: everything resolved again, the lockfile's versions preferred (`--check`: only compared). */
  dedupe: boolean
  /** `lode import`: pnpm-lock.yaml resolved from another package manager's lockfile. */
  importing: boolean
}

async function runInstall (kind: Kind, input: InstallInput, ctx: MainContext): Promise<number> {
  const { values, positionals, reporter } = input
  // Loaded only for a command that needs it, so `lode --version` stays instant.
  const { add, checkPackageManager, dedupe, findWorkspaceDir, getConfig, importLockfile, install, readProjectManifest, remove, update } = await import('@lode/pkg-manager.core')
  // Inside a project of a workspace, the whole workspace is installed from its root, as pnpm does.
  const projectDir = path.resolve(ctx.cwd, values['dir'] as string | undefined ?? '.')
  const workspaceDir = await findWorkspaceDir(projectDir)
  const read = getConfig({
    dir: workspaceDir ?? projectDir,
    env: ctx.env,
    overrides: { ...settingsOf(values), ...input.config },
    lodeVersion: VERSION,
    command: kind === 'add' || kind === 'update' ? kind : 'install',
  })
  // `prune` also clears `.pnpm` of what nothing uses now, as pnpm's does, not after modulesCacheMaxAge.
  const config = input.prune ? { ...read, modulesCacheMaxAge: 0 } : read
  for (const warning of config.warnings) reporter.warn(warning)
  // As pnpm: the root package.json's packageManager (or devEngines.packageManager) naming another package manager.
  const otherPackageManager = checkPackageManager(await readProjectManifest(config.dir, { missingIsEmpty: kind === 'add' || workspaceDir !== undefined }), config.pmOnFail)
  if (otherPackageManager !== undefined) reporter.warn(otherPackageManager)
  const common = {
    config,
    ...typeof values['ignore-scripts'] === 'boolean' ? { ignoreScripts: values['ignore-scripts'] } : {},
    scriptsStdio: reporter.silent ? 'pipe' as const : 'inherit' as const,
    // pnpm 11 on a terminal, not in CI: the builds left out are added to allowBuilds, to be decided.
    recordIgnoredBuilds: ctx.stdin?.().isTTY === true && !isCI(ctx.env),
    now: () => Date.now(),
    onEvent: reporter.onEvent,
    ...(input.tracePipeline !== undefined ? { tracePipeline: path.resolve(ctx.cwd, input.tracePipeline) } : {}),
    ...(values['timeline'] !== undefined ? { timeline: path.resolve(ctx.cwd, values['timeline'] as string) } : {}),
  }
  const workspaceRoot = values['workspace-root'] === true
  // add/remove/update with -r or --filter change every selected project (pnpm's recursive forms).
  const selection = {
    recursive: values['recursive'] === true,
    filters: values['filter'] as string[] | undefined ?? [],
    workspaceRoot,
    failIfNoMatch: values['fail-if-no-match'] === true,
    ifPresent: false,
  }
  // install: the whole workspace (also with -r or -w), or with --filter only the projects selected.
  let projectDirs: string[] = [workspaceRoot ? config.dir : projectDir]
  let projectIds: string[] | undefined
  // Outside a workspace, -r where the project is the only one under the directory is the project
  // itself, as with pnpm; with more projects there, each would need a lockfile of its own (refused below).
  const recursiveAlone = kind !== 'install' && workspaceDir === undefined && selection.filters.length === 0 && !workspaceRoot &&
    await onlyProjectUnder(projectDir)
  if (kind === 'install' ? selection.filters.length > 0 : selectsProjects(selection) && !recursiveAlone) {
    // pnpm installs each project under the directory on its own (a lockfile each); lode installs one lockfile's projects at a time.
    if (workspaceDir === undefined) throw notAWorkspace(kind, projectDir)
    const selected = await selectedProjects(selection, { ...ctx, cwd: projectDir }, { skipsRoot: kind === 'add' })
    if (typeof selected === 'number') return selected
    projectDirs = selected.map((project) => project.dir)
    projectIds = selected.map((project) => project.id)
  }
  const names = positionals
  if (kind === 'remove') {
    if (names.length === 0) throw new LodeError('MISSING_PACKAGE_NAME', '`lode remove` requires the package name.', { hint: 'For example: lode remove react.' })
    await remove({ ...common, dependencies: names, projectDirs })
  } else if (kind === 'update') {
    await update({ ...common, dependencies: names, projectDirs, latest: values['latest'] === true })
  } else if (kind === 'add') {
    if (names.length === 0) throw new LodeError('MISSING_PACKAGE_NAME', '`lode add` requires the package name.', { hint: 'For example: lode add react, or lode add -D typescript.' })
    // As in pnpm, adding to a workspace's root must be asked for (not where the root is its only project).
    const inWorkspace = (config.workspacePackages ?? []).some((pattern) => pattern !== '.' && pattern !== './')
    const onlyRoot = workspaceDir !== undefined && projectDirs.length === 1 && projectDirs[0] === workspaceDir
    const rootCheck = !config.ignoreWorkspaceRootCheck && values['ignore-workspace-root-check'] !== true
    if (inWorkspace && onlyRoot && !workspaceRoot && !selectsProjects(selection) && rootCheck) {
      throw new LodeError('ADDING_TO_ROOT', 'Running this command will add the dependency to the workspace root, which might not be what you want.', {
        hint: 'If you really meant it, make it explicit by running this command again with the -w flag (or --workspace-root). If you don\'t want to see this warning anymore, you may set the ignoreWorkspaceRootCheck setting to true.',
      })
    }
    const group = saveGroup(values)
    const exact = values['save-exact'] === true
    const saveCatalogName = saveCatalog(values)
    // pnpm's `add` prints no "Scope: …" line, whatever it selects.
    await add({
      ...common, announceScope: false, dependencies: names, projectDirs, exact, peer: values['save-peer'] === true, lockfileOnly: values['lockfile-only'] === true,
      ...(group === undefined ? {} : { group }), ...(saveCatalogName === undefined ? {} : { saveCatalogName }),
    })
  } else if (input.importing) {
    await importLockfile(common)
  } else if (input.dedupe) {
    await dedupe({ ...common, include: includedGroups(values), check: values['check'] === true })
  } else {
    // An install that makes node_modules from nothing under the global virtual store leaves a
    // record for the quick path to write it back from (see @lode/pkg-manager.installing.install-state/replay).
    const replayable = input.quick !== undefined && input.quick.dir === config.dir && projectIds === undefined && !input.prune &&
      values['lockfile-only'] !== true && config.enableGlobalVirtualStore && config.nodeLinker !== 'hoisted' &&
      !fs.existsSync(path.join(config.dir, 'node_modules'))
    const events: Array<{ event: InstallEvent, at: number }> = []
    await install({
      ...common,
      ...(replayable ? { onEvent: (event: InstallEvent) => { events.push({ event, at: Date.now() }); common.onEvent(event) } } : {}),
      lockfileOnly: values['lockfile-only'] === true,
      ...(values['frozen-lockfile'] !== undefined ? { frozenLockfile: values['frozen-lockfile'] as boolean } : {}),
      ...(values['prefer-frozen-lockfile'] !== undefined ? { preferFrozenLockfile: values['prefer-frozen-lockfile'] as boolean } : {}),
      include: includedGroups(values),
      ...(projectIds !== undefined ? { projects: projectIds } : {}),
      ...(input.quick !== undefined && input.quick.dir === config.dir ? { quickKey: input.quick.key } : {}),
      ...(input.prune ? { pruneDirectDependencies: true } : {}),
    })
    const replayEvents = replayable ? eventsToReplay(events) : undefined
    if (replayEvents !== undefined) {
      const { writeReplay } = await import('@lode/pkg-manager.installing.install-state/replay')
      writeReplay(input.quick!, ctx.env, replayEvents)
    }
  }
  return 0
}

/**
 * What a written-back node_modules reports: what a full install over a warm global virtual store
 * reports (every slot there already: nothing downloaded or added; the lockfile's supply-chain
 * verdict from its cache), from what the install that made it reported. Undefined for an install
 * whose report would not be the same again: one that ran a build or wrote the lockfile.
 */
function eventsToReplay (events: ReadonlyArray<{ event: InstallEvent, at: number }>): InstallEvent[] | undefined {
  const replayed: InstallEvent[] = []
  for (const { event, at } of events) {
    switch (event.type) {
      case 'lifecycle':
      case 'script-output':
        return undefined
      case 'lockfile':
        if (event.written) return undefined
        replayed.push(event)
        break
      case 'progress':
        if (replayed.some((earlier) => earlier.type === 'progress') && !event.done) break
        replayed.push({ ...event, reused: 0, downloaded: 0, added: 0 })
        break
      case 'packages':
        break
      case 'lockfile-verification':
        if (event.status === 'cached') replayed.push(event)
        else if (event.status === 'done') replayed.push({ type: 'lockfile-verification', status: 'cached', verifiedAt: new Date(at).toISOString() })
        break
      default:
        replayed.push(event)
    }
  }
  return replayed
}

/** `add`'s group: -D, -O, -P (or pnpm's --dev, --prod); undefined keeps a dependency where it is. */
/** `--save-catalog-name <name>`, or `default` for `--save-catalog` (pnpm's alias); undefined for neither. */
function saveCatalog (values: Values): string | undefined {
  const name = typeof values['save-catalog-name'] === 'string' ? values['save-catalog-name'] : values['save-catalog'] === true ? 'default' : undefined
  if (name !== undefined && !/^[^\s:\p{Cc}]+$/u.test(name)) {
    throw new LodeError('BAD_ARGUMENTS', `--save-catalog-name ${JSON.stringify(name)} is not a catalog name.`, {
      hint: 'A catalog name is a word without spaces or ":" (as in catalog:<name>), for example: --save-catalog-name=react17.',
    })
  }
  return name
}

function saveGroup (values: Values): 'dependencies' | 'devDependencies' | 'optionalDependencies' | undefined {
  if (values['save-dev'] === true || values['dev'] === true) return 'devDependencies'
  if (values['save-optional'] === true) return 'optionalDependencies'
  if (values['save-prod'] === true || values['prod'] === true) return 'dependencies'
  return undefined
}

/**
 * The flags that shape what an install puts in node_modules, for the quick check's key. Not among
 * them: `--frozen-lockfile` (a recorded install's lockfile satisfied its manifests), the reporter,
 * and how the network is used.
 */
function quickFlags (values: Values): Record<string, unknown> {
  const names = [
    'prod', 'production', 'dev', 'optional', 'ignore-scripts', 'prefer-frozen-lockfile', 'registry', 'cache-dir', 'store-dir',
    'recursive', 'workspace-root', 'node-linker', 'shamefully-hoist', 'virtual-store-dir',
  ]
  return Object.fromEntries(names.map((name) => [name, values[name]]))
}

/** pnpm's `--prod` (no devDependencies), `--dev` (only devDependencies) and `--no-optional`. */
function includedGroups (values: Values): { dependencies: boolean, devDependencies: boolean, optionalDependencies: boolean } {
  const prod = values['prod'] === true || values['production'] === true
  const dev = values['dev'] === true
  return {
    dependencies: !dev || prod,
    devDependencies: !prod || dev,
    optionalDependencies: values['optional'] !== false,
  }
}

/** Whether `dir`'s own project is the only one `-r` finds under it. */
async function onlyProjectUnder (dir: string): Promise<boolean> {
  const everyProject = { recursive: true, filters: [], workspaceRoot: false, failIfNoMatch: false, ifPresent: false }
  const { projects } = await selectProjects(everyProject, dir)
  return projects.length === 1 && projects[0]!.dir === dir
}
