import fs from 'node:fs'
import path from 'node:path'

import type { DependencyGroup } from '@lode/core.constants'
import { WANTED_LOCKFILE } from '@lode/core.constants'
import { LodeError } from '@lode/core.error'
import { own } from '@lode/core.safe-name'
import { allowBuildKeyOf, hasInstallScripts, projectScriptsPlan, runInstallScripts, runProjectScript, scriptsOf } from '@lode/pkg-manager.building.lifecycle'
import type { ProjectMutation } from '@lode/pkg-manager.building.lifecycle'
import type { Config } from '@lode/pkg-manager.config.settings'
import { sortProjects, workspaceDependencies } from '@lode/pkg-manager.config.workspace'
import {
  catalogPins, excludeFromReleaseAge, forgetAllResolutions, forgetCatalogUsers, forgetUpdated, pruneReleaseAgeExcludes, pruneUnusedCatalogs,
  editedImporters, saveEdits, updatedImporters, updatedNames,
  addUndecidedBuilds, writeCatalogAdditions, writeEditedManifest,
} from '@lode/pkg-manager.deps.manifest-edit'
import type { DependencyEdit, SavedEdits } from '@lode/pkg-manager.deps.manifest-edit'
import type { PeerIssue } from '@lode/pkg-manager.deps.resolve-dependencies'
import { applyPeerDependencyRules, peerIssuesError } from '@lode/pkg-manager.deps.resolve-dependencies/peer-rules'
import { readInstallContext } from '@lode/pkg-manager.installing.install-context'
import type { InstallContext } from '@lode/pkg-manager.installing.install-context'
import { writePnpmWorkspaceState } from '@lode/pkg-manager.installing.install-state/pnpm-workspace-state'
import type { InstallEvent, InstallOptions, InstallResult } from '@lode/pkg-manager.installing.installer'
import { Installer } from '@lode/pkg-manager.installing.installer'
import { refreshInjectedCopies } from '@lode/pkg-manager.installing.linker'
import type { DirectDependencyChange, InjectedCopy, LinkCounts, LinkPackagesOptions } from '@lode/pkg-manager.installing.linker'
import { packagesCheck, skippedPackages } from '@lode/pkg-manager.installing.package-is-installable'
import { localSources, stringifyLockfile, withEnvDocument } from '@lode/pkg-manager.lockfile.format'
import type { Lockfile } from '@lode/pkg-manager.lockfile.format'
import { recordVerifiedLockfile, verifyLockfile } from '@lode/pkg-manager.lockfile.verification'
import { checkUnusedPatches, patchFor } from '@lode/pkg-manager.patching.patches'
import type { ReleaseAgeViolation } from '@lode/resolving.npm-resolver'
import { storePath } from '@lode/store.cafs'
import { registerProject } from '@lode/store.controller'

import { BackgroundCheck } from './background-check.js'
import { linkAndBuild } from './link-and-build.js'
import { checkWantedLockfileWrite, writeWantedLockfile } from './lockfile-commit.js'
import type { WantedLockfile } from './lockfile-commit.js'

/**
 * Installs the project in `config.dir`, as a pipeline: the install's inputs read once
 * (`readInstallContext`), the lockfile checked, the dependencies resolved unless the lockfile is
 * up to date, then (unless `lockfileOnly`) linked and built (`linkAndBuild`), pnpm-lock.yaml written
 * once node_modules is complete, the projects' own scripts run and the records written. Never exits
 * the process; errors are `LodeError`s, and a failure leaves the lockfile as it was.
 */
export async function installFull (given: InstallOptions): Promise<InstallResult> {
  const started = performance.now()
  // pnpm's `ignoreScripts` setting, unless the caller (`--ignore-scripts`, `--no-ignore-scripts`) said.
  const opts = given.ignoreScripts === undefined && given.config.ignoreScripts ? { ...given, ignoreScripts: true } : given
  const installer = new Installer({
    config: opts.config,
    linking: opts.lockfileOnly !== true,
    ignoreScripts: opts.ignoreScripts,
    tracePipeline: opts.tracePipeline,
    timeline: opts.timeline,
    signal: opts.signal,
    onWarning: (message) => { opts.onEvent?.({ type: 'warning', message }) },
  })
  try {
    const emit = opts.onEvent ?? (() => {})
    const inputs = await phase(installer, 'read', async () => await readInstallContext({
      ...opts,
      onWarning: (message) => { emit({ type: 'warning', message }) },
      onInfo: (message) => { emit({ type: 'info', message }) },
    }))
    return await installWith({ ...inputs, opts, emit }, installer, started)
  } finally {
    await installer.close()
  }
}

/** A step of the install, on the timeline when one is recorded. */
async function phase<T> (installer: Installer, label: string, step: () => Promise<T>): Promise<T> {
  return installer.trace === undefined ? await step() : await installer.trace.phase(label, step)
}

/** What every step is given: the install's inputs (read once), its options and where its events go. */
interface InstallRun extends InstallContext {
  opts: InstallOptions
  emit: (event: InstallEvent) => void
}

async function installWith (ctx: InstallRun, installer: Installer, started: number): Promise<InstallResult> {
  const { config, opts, emit } = ctx
  if (opts.lockfileOnly !== true && config.formerDefaultStoreDir !== undefined && fs.existsSync(config.formerDefaultStoreDir)) {
    emit({ type: 'warning', message: `The store at ${config.formerDefaultStoreDir} is no longer used: lode now shares pnpm's store (${storePath(config.storeDir)}). Remove ${config.formerDefaultStoreDir} to free its space.` })
  }
  // The lockfile's supply-chain check runs beside resolution and downloads; its verdict still comes first.
  const check = new BackgroundCheck(async () => { await phase(installer, 'check', async () => { await verifyCurrentLockfile(ctx, installer) }) })
  return await check.first(async () => await installChecked(ctx, installer, started, check.passed))
}

/** The install, with the lockfile's check (`verified`) running beside it: awaited before anything is written or run. */
async function installChecked (ctx: InstallRun, installer: Installer, started: number, verified: Promise<void>): Promise<InstallResult> {
  const { config, opts, emit } = ctx
  refuseOutdatedFrozenLockfile(ctx)
  const scripts = projectScripts(ctx)
  // pnpm's `pnpm:devPreinstall` of the root: first, in every install that does not skip scripts.
  if (opts.ignoreScripts !== true) {
    // The root's own scripts run only once the lockfile passed (a failed install has run nothing).
    const rootScripts = scriptsOf(ctx.rootManifest)
    if (Object.hasOwn(rootScripts, DEV_PREINSTALL) || (scripts?.plan.rootPreinstall === true && Object.hasOwn(rootScripts, 'preinstall'))) await verified
    await runProjectScript(DEV_PREINSTALL, { ...scriptOptions(ctx), dir: config.dir, manifest: ctx.rootManifest })
  }
  if (scripts?.plan.rootPreinstall === true) await scripts.run('preinstall')
  const resolveStart = performance.now()
  const plan = await phase(installer, 'resolve', async () => await resolveOrReuse(ctx, installer))
  opts.signal?.throwIfAborted()
  const resolveMs = plan.asIs ? 0 : performance.now() - resolveStart
  const peerIssues = checkResolution(ctx, plan)
  const packages = Object.keys(plan.lockfile.packages ?? {}).length
  if (opts.lockfileCheck !== undefined) {
    await verified
    opts.lockfileCheck(ctx.current?.lockfile, plan.lockfile)
    const timings = { resolveMs: Math.round(resolveMs), linkMs: 0, totalMs: Math.round(performance.now() - started) }
    return { lockfileChanged: false, packages, added: 0, reused: 0, downloaded: 0, removed: 0, changes: [], timings }
  }
  if (plan.asIs) installer.trace?.count('resolved', packages)
  emit({ type: 'progress', resolved: packages, added: 0, reused: 0, downloaded: installer.fetcher.downloaded, done: false })
  // The specifiers `add`/`update` save go into the lockfile before anything records it (node_modules' copy too).
  const saved = saveEdits(plan.lockfile, ctx.edited, {
    catalogs: ctx.config.catalogs,
    onWarning: (message) => { ctx.emit({ type: 'warning', message }) },
    workspace: { projects: ctx.projects, saveWorkspaceProtocol: ctx.config.saveWorkspaceProtocol },
    overrides: ctx.config.overrides,
  })
  const toWrite = lockfileToWrite(ctx, plan)
  if (toWrite !== undefined) await checkWantedLockfileWrite(config.dir, toWrite)
  const text = planText(ctx, plan)
  const linkStart = performance.now()
  const commit = async (ignoredBuilds: readonly string[] = []): Promise<boolean> => {
    await verified
    return await commitInstall(ctx, plan, { saved, ignoredBuilds, text })
  }
  const linked: LinkCounts & { committed: boolean, partial: boolean, injectedCopies: readonly InjectedCopy[] } = opts.lockfileOnly === true
    ? { added: 0, reused: 0, downloaded: 0, removed: 0, changes: [], committed: await commit(), partial: false, injectedCopies: [] }
    : await linkAndBuild({ ...linkOptions(ctx, installer, plan, packages), lockfileText: text, verified }, commit, (log) => {
      emit({ type: 'lifecycle', ...log, dir: path.relative(config.dir, log.dir).split(path.sep).join('/') || '.' })
    }, installer.trace)
  // A lockfile resolved under the policies passes them: recorded so, as pnpm records it.
  if (!plan.asIs) recordVerifiedLockfile(config, opts.now)
  if (linked.added > 0 || linked.removed > 0) {
    emit({ type: 'packages', added: linked.added, removed: linked.removed, storeDir: storePath(config.storeDir), virtualStoreDir: path.relative(config.dir, config.virtualStoreDir).split(path.sep).join('/') })
  }
  emit({ type: 'progress', resolved: packages, added: linked.added, reused: linked.reused, downloaded: linked.downloaded, done: true })
  await scripts?.runAll(linked.injectedCopies, async (copies) => {
    await refreshInjectedCopies(copies, { config, fetcher: installer.fetcher, linkThreads: installer.linkThreads })
  })
  if (peerIssues.length > 0) emit({ type: 'peer-issues', issues: peerIssues })
  emit({ type: 'lockfile', written: linked.committed, file: path.join(config.dir, WANTED_LOCKFILE) })
  if (linked.changes.length > 0) emit({ type: 'summary', changes: linked.changes.map((change) => withLatest(change, plan.latest)) })
  await phase(installer, 'records', async () => { await writeRecords(ctx, plan, { partial: linked.partial, catalogAdditions: saved.catalogAdditions }) })
  // As pnpm, after the install (pnpm registers before it; a failed lode install writes nothing): `store prune` keeps what the project uses.
  if (opts.lockfileOnly !== true) await registerProject(config.storeDir, config.dir)
  return {
    lockfileChanged: linked.committed,
    packages,
    added: linked.added,
    reused: linked.reused,
    downloaded: linked.downloaded,
    removed: linked.removed,
    changes: linked.changes,
    ...hasLocalSources(plan.lockfile, config.dir) ? { readsLocalSources: true } : {},
    ...linked.partial ? { filtered: true } : {},
    timings: {
      resolveMs: Math.round(resolveMs),
      linkMs: Math.round(performance.now() - linkStart),
      totalMs: Math.round(performance.now() - started),
    },
  }
}

/**
 * pnpm 11 checks the lockfile it starts from against the supply-chain policies, frozen or not,
 * before using it; its verdict comes first, before whether the lockfile is up to date.
 */
async function verifyCurrentLockfile (ctx: InstallRun, installer: Installer): Promise<void> {
  const { config, opts, emit, current, wanted } = ctx
  // `import` resolves anew, whatever pnpm-lock.yaml says: pnpm moves it aside first.
  if (current === undefined || opts.importedVersions !== undefined) return
  await verifyLockfile({
    config,
    lockfile: current.lockfile,
    text: wanted?.text,
    client: installer.client,
    now: opts.now,
    onEvent: emit,
    onWarning: (message) => { emit({ type: 'warning', message }) },
  })
}

function refuseOutdatedFrozenLockfile (ctx: InstallRun): void {
  const { config, wanted, outdated } = ctx
  if (ctx.frozen && wanted !== undefined && outdated !== undefined) {
    throw new LodeError('OUTDATED_LOCKFILE', `Cannot install with a frozen lockfile because pnpm-lock.yaml is not up to date with ${path.join(config.dir, 'package.json')}: ${outdated}.`, {
      hint: 'Run lode install without --frozen-lockfile (in CI: --no-frozen-lockfile) to update pnpm-lock.yaml, and commit it.',
    })
  }
}

/** The lockfile to install, and where it came from. */
interface InstallPlan {
  lockfile: Lockfile
  /** The lockfile was up to date and is installed as it is (nothing resolved). */
  asIs: boolean
  peerIssues: PeerIssue[]
  /** Versions picked although younger than `minimumReleaseAge` (the loose default). */
  immature: ReleaseAgeViolation[]
  /** Direct dependencies below the registry's `latest` tag (package id → the tag); none when nothing was resolved. */
  latest?: Record<string, string>
  /** The peers the resolution hoisted to each importer (pnpm links and hoists from them; the lockfile does not list them); none when nothing was resolved. */
  hoistedPeers?: LinkPackagesOptions['hoistedPeers']
}

/**
 * An up-to-date lockfile is installed as it is (pnpm's frozen and prefer-frozen installs): nothing
 * is resolved, and the resolver's modules are not even loaded. Otherwise the dependencies are
 * resolved (`resolveInstall`, loaded only then), fetching starting as packages are resolved, unless
 * only some packages will be linked or nothing will be (--lockfile-only).
 */
async function resolveOrReuse (ctx: InstallRun, installer: Installer): Promise<InstallPlan> {
  const { opts, emit, current } = ctx
  const resolvesAnew = opts.dedupe === true || opts.importedVersions !== undefined
  const asIs = ctx.edited.length === 0 && current !== undefined && ctx.outdated === undefined && !resolvesAnew
    && (ctx.frozen || (opts.preferFrozenLockfile ?? true))
  if (asIs) {
    // The projects' optional dependencies the lockfile left out (the registry could not resolve them), said again as pnpm says them.
    for (const { id, manifest } of ctx.importers) {
      for (const [alias, specifier] of Object.entries(manifest.optionalDependencies ?? {})) {
        if (!Object.hasOwn(current.lockfile.importers[id]?.optionalDependencies ?? {}, alias)) {
          emit({ type: 'info', message: `info: ${alias}@${specifier} is an optional dependency that could not be resolved. Excluding it from installation.` })
        }
      }
    }
    if (opts.lockfileOnly !== true) emit({ type: 'info', message: 'Lockfile is up to date, resolution step is skipped' })
    return { lockfile: withEmptyImporters(current.lockfile, ctx.importers), asIs, peerIssues: [], immature: [] }
  }
  // Fetching during resolution takes every package resolved; with groups left out (--prod), only the linked ones are fetched.
  const include = opts.include
  const prefetch = opts.lockfileOnly !== true && ctx.selected === undefined
    && (include === undefined || (include.dependencies && include.devDependencies && include.optionalDependencies))
  const fetcher = prefetch ? installer.fetcher : undefined
  const { resolveInstall } = await import('@lode/pkg-manager.deps.resolve-dependencies/install')
  // Progress while resolving (pnpm's "resolved N" counting up): CI logs show the install moving.
  let resolved = 0
  installer.beginResolution()
  // A version `add`/`update` asked of a catalog entry is every taker's of that entry (pnpm prefers it).
  const pins = catalogPins(opts.edits ?? [])
  const config = Object.keys(pins).length === 0 ? ctx.config : { ...ctx.config, catalogs: pinnedCatalogs(ctx.config.catalogs, pins) }
  const resolving = resolveInstall({
    config,
    now: opts.now,
    signal: opts.signal,
    client: installer.client,
    packuments: installer.packuments,
    importers: ctx.importers,
    lockfile: current === undefined || opts.importedVersions !== undefined
      ? undefined
      : opts.dedupe === true
        ? forgetAllResolutions(current.lockfile)
        : forgetCatalogUsers(forgetUpdated(current.lockfile, opts.edits ?? []), pins),
    updating: updatedNames(opts.edits ?? []),
    updatingImporters: updatedImporters(opts.edits ?? [], ctx.importers.map((importer) => importer.id)),
    importedVersions: opts.importedVersions,
    readPackageHook: ctx.hooks.dependency,
    staleConvergence: ctx.hooks.staleConvergence,
    lockfileSettings: ctx.lockfileSettings,
    patchHashOf: (pkgId) => patchFor(ctx.patches, pkgId)?.hash,
    // Git packages are fetched in any case: their manifests are needed.
    fetchGit: async (source) => await installer.fetcher.fetchGit(source),
    onPackageResolved: (pkg) => {
      installer.trace?.count('resolved', 1)
      emit({ type: 'progress', resolved: ++resolved, reused: 0, downloaded: installer.fetcher.downloaded, added: 0, done: false })
      fetcher?.prefetch({ pkgId: pkg.id, resolution: pkg.resolution, platform: pkg.lockfileFields })
    },
    onWarning: (message) => { emit({ type: 'warning', message }) },
    onInfo: (message) => { emit({ type: 'info', message }) },
    onDeprecated: (deprecated) => { emit({ type: 'deprecated', ...deprecated }) },
  })
  const resolution = await resolving.finally(() => { installer.endResolution() })
  return { ...resolution, asIs }
}

/** The catalogs with these entries set to the versions pinned. */
function pinnedCatalogs (catalogs: Config['catalogs'], pins: Readonly<Record<string, Readonly<Record<string, string>>>>): Config['catalogs'] {
  return Object.fromEntries([...new Set([...Object.keys(catalogs), ...Object.keys(pins)])]
    .map((name) => [name, { ...own(catalogs, name), ...own(pins, name) }]))
}

/**
 * What a resolution finds (not the re-resolution of an up-to-date lockfile under --lockfile-only,
 * which pnpm skips) fails before anything is written: with engineStrict, a package this machine
 * cannot run; a patch no package took (unless allowUnusedPatches); with strictPeerDependencies, peer issues in a plain install (pnpm's add, remove and
 * update never fail on them). Returns the peer issues `peerDependencyRules` leaves.
 */
function checkResolution (ctx: InstallRun, plan: InstallPlan): PeerIssue[] {
  const { config, opts } = ctx
  const resolvedNow = !plan.asIs && (opts.lockfileOnly !== true || ctx.outdated !== undefined)
  if (config.engineStrict && resolvedNow) {
    skippedPackages(plan.lockfile, packagesCheck(config, true, { resolvedNow: true }))
  }
  // As pnpm, after a resolution of every project (pnpm 11 resolves the whole graph again then).
  if (resolvedNow && ctx.selected === undefined && ctx.patches.length > 0) {
    // By the manifests' versions: a git package's key has its URL instead.
    const packages = Object.entries(plan.lockfile.packages ?? {})
    checkUnusedPatches(ctx.patches, packages.map(([pkgId, info]) => info.version === undefined ? pkgId : `${pkgId.slice(0, pkgId.indexOf('@', 1))}@${info.version}`), {
      allowUnusedPatches: config.allowUnusedPatches,
      onWarning: (message) => { ctx.emit({ type: 'warning', message }) },
    })
  }
  const peerIssues = applyPeerDependencyRules(plan.peerIssues, config.peerDependencyRules)
  if (config.strictPeerDependencies && resolvedNow && ctx.edited.length === 0 && peerIssues.length > 0) {
    throw peerIssuesError(peerIssues, { autoInstallPeers: config.autoInstallPeers })
  }
  return peerIssues
}

/**
 * The text of the lockfile installed, serialized at most once: read as it is, or resolved now (then
 * pnpm-lock.yaml and node_modules' copy say the same). Undefined for a lockfile installed with changes.
 */
function planText (ctx: InstallRun, plan: InstallPlan): (() => string) | undefined {
  const { current } = ctx
  if (plan.asIs) {
    const asRead = current?.envDocument === undefined && plan.lockfile === current?.lockfile ? current.text : undefined
    return asRead === undefined ? undefined : () => asRead
  }
  let text: string | undefined
  return () => (text ??= stringifyLockfile(plan.lockfile))
}

function linkOptions (ctx: InstallRun, installer: Installer, plan: InstallPlan, packages: number): LinkPackagesOptions {
  const { config, opts, emit } = ctx
  return {
    config,
    now: opts.now,
    lockfile: plan.lockfile,
    fetcher: installer.fetcher,
    packageManager: `lode@${config.lodeVersion}`,
    include: opts.include ?? ALL_GROUPS,
    importers: ctx.importers.map(({ id, dir, manifest }) => ({ id, dir, name: manifest.name, version: manifest.version })),
    importersWithInstallScripts: ctx.projects.filter((project) => hasInstallScripts(project.manifest)).map((project) => project.id),
    onProgress: (counts) => { emit({ type: 'progress', resolved: packages, ...counts, done: false }) },
    onWarning: (message) => { emit({ type: 'warning', message }) },
    onInfo: (message) => { emit({ type: 'info', message }) },
    trace: installer.trace,
    signal: opts.signal,
    // pnpm installs some groups (--prod, --dev) from the lockfile it resolved, as it is.
    resolved: !plan.asIs && Object.values(opts.include ?? ALL_GROUPS).every(Boolean),
    edits: ctx.edited.length > 0,
    ignoreScripts: opts.ignoreScripts === true,
    patches: ctx.patches,
    selectedImporters: ctx.selected,
    installedLockfile: plan.asIs ? ctx.installed?.lockfile : undefined,
    // Conflict markers merged: the text is not what the merge would write, nor what .pnpm/lock.yaml holds.
    lockfileAsRead: ctx.current?.mergedConflicts === true ? undefined : ctx.current,
    hoistedPeers: plan.hoistedPeers,
    linkThreads: installer.linkThreads,
    pruneDirectDependencies: opts.pruneDirectDependencies,
    // pnpm mutates only the projects an `add`, `update` or `remove` names.
    hoistFrom: editedImporters(ctx.edited.map(({ edit }) => edit), ctx.importers.map((importer) => importer.id)),
    reportsIgnoredBuilds: !(ctx.edited.length > 0 && ctx.edited.every(({ edit }) => (edit.remove ?? []).length > 0)),
  }
}

/**
 * What the install writes outside node_modules, once node_modules is complete (at once with
 * --lockfile-only): pnpm-lock.yaml, then for `add`/`update` each edited package.json with the
 * specifiers saved (`saved`; the lockfile records them too). Resolves with whether the lockfile was written.
 */
async function commitInstall (
  ctx: InstallRun,
  plan: InstallPlan,
  { saved, ignoredBuilds, text }: { saved: SavedEdits, ignoredBuilds: readonly string[], text: (() => string) | undefined }
): Promise<boolean> {
  const { manifests, catalogAdditions } = saved
  const toWrite = lockfileToWrite(ctx, plan)
  // The resolved lockfile's text, when node_modules' copy was serialized from it already.
  const wanted = toWrite !== undefined && 'lockfile' in toWrite && toWrite.lockfile === plan.lockfile && !plan.asIs && text !== undefined
    ? { text: withEnvDocument(text(), toWrite.envDocument) }
    : toWrite
  const written = wanted !== undefined && await writeWantedLockfile(ctx.config.dir, wanted)
  for (const { dir, manifest } of manifests) await writeEditedManifest(dir, manifest)
  await writeCatalogAdditions(ctx.config.dir, catalogAdditions)
  // pnpm 11 on a terminal (not in CI): the builds left out go into allowBuilds, to be decided there.
  if (ctx.opts.recordIgnoredBuilds === true && ignoredBuilds.length > 0) {
    await addUndecidedBuilds(ctx.config.dir, ignoredBuilds.map(allowBuildKeyOf))
  }
  return written
}

/**
 * pnpm-lock.yaml as pnpm writes it: a resolved lockfile; installed as it is, only node_modules'
 * lockfile standing in for a missing one (byte for byte: lode or pnpm wrote it), or under
 * --lockfile-only the lockfile read, as pnpm serializes it (an older pnpm's forms in today's).
 */
function lockfileToWrite (ctx: InstallRun, plan: InstallPlan): WantedLockfile | undefined {
  const { config, opts, current } = ctx
  if (!config.useLockfile) return undefined
  if (!plan.asIs) return { lockfile: plan.lockfile, envDocument: current?.envDocument }
  if (current === undefined) return undefined
  // Projects without dependencies the lockfile lacked get their empty entry, as pnpm writes it.
  if (plan.lockfile !== current.lockfile) return { lockfile: plan.lockfile, envDocument: current.envDocument }
  if (ctx.installed !== undefined) return { text: ctx.installed.text }
  return opts.lockfileOnly === true ? { lockfile: current.lockfile, envDocument: current.envDocument } : undefined
}

/**
 * The projects' own install scripts, in pnpm's order (`projectScriptsPlan`): the root's preinstall
 * before anything is installed, the rest project by project, each after the projects it depends
 * on. Undefined when no script runs (--lockfile-only, --ignore-scripts).
 */
function projectScripts (ctx: InstallRun): ProjectScripts | undefined {
  const { config, opts } = ctx
  if (opts.lockfileOnly === true || opts.ignoreScripts === true) return undefined
  const options = scriptOptions(ctx)
  const input = {
    projects: sortProjects(ctx.projects, workspaceDependencies(ctx.projects, {
      linkWorkspacePackages: config.linkWorkspacePackages,
      catalogs: config.catalogs,
    })),
    selected: ctx.selected,
    mutations: new Map(ctx.edited.map(({ edit, project }) => [project.id, mutationOf(edit)])),
    workspace: (config.workspacePackages ?? []).length > 0,
    prepare: opts.include?.devDependencies !== false,
  }
  const plan = projectScriptsPlan(input)
  return {
    plan,
    run: async (event) => { await runProjectScript(event, { ...options, dir: config.dir, manifest: ctx.rootManifest }) },
    // A project injected somewhere runs pnpm's events for it, and its copies are refreshed after them.
    runAll: async (injectedCopies, refresh) => {
      const injected = new Set(injectedCopies.map((copy) => copy.projectId))
      const runs = injected.size === 0 ? plan.runs : projectScriptsPlan({ ...input, injected }).runs
      await runInstallScripts(runs, options, async (project) => {
        await refresh(injectedCopies.filter((copy) => copy.projectId === project.id))
      })
    },
  }
}

const DEV_PREINSTALL = 'pnpm:devPreinstall'

/** How the projects' own scripts run: their output to the terminal, or as events. */
function scriptOptions (ctx: InstallRun): { stdio: 'inherit' | 'pipe', userAgent: string, onOutput: (script: string, output: string) => void } {
  return {
    stdio: ctx.opts.scriptsStdio ?? 'pipe',
    userAgent: ctx.config.userAgent,
    onOutput: (script, output) => { ctx.emit({ type: 'script-output', script, output }) },
  }
}

interface ProjectScripts {
  plan: ReturnType<typeof projectScriptsPlan>
  run: (event: string) => Promise<void>
  runAll: (injectedCopies: readonly InjectedCopy[], refresh: (copies: readonly InjectedCopy[]) => Promise<void>) => Promise<void>
}

/** A bare `update` installs the project as a whole (pnpm's `install` mutation); add and named or `--latest` updates change some dependencies. */
function mutationOf (edit: DependencyEdit): ProjectMutation {
  if ((edit.remove ?? []).length > 0) return 'remove'
  return edit.update === 'all' && edit.latest !== true ? 'install' : 'some'
}

/**
 * The records an install leaves besides the lockfile: versions excused from `minimumReleaseAge`
 * (pnpm-workspace.yaml), catalogs no project uses pruned (`catalogPrune`), and pnpm's own record
 * of node_modules, for pnpm's repeat install and `verifyDepsBeforeRun` (`partial`: see `linkAndBuild`),
 * with the settings as the install left them (the catalog entries it wrote).
 */
async function writeRecords (
  ctx: InstallRun,
  plan: InstallPlan,
  done: { partial: boolean, catalogAdditions: SavedEdits['catalogAdditions'] }
): Promise<void> {
  const { config, opts, emit } = ctx
  let excludes = config.minimumReleaseAgeExclude
  if (plan.immature.length > 0) {
    const added = await excludeFromReleaseAge(config.dir, config.minimumReleaseAgeExclude, plan.immature)
    excludes = [...excludes, ...added]
    emit({
      type: 'info',
      message: `Added ${added.length} ${added.length === 1 ? 'entry' : 'entries'} to minimumReleaseAgeExclude in pnpm-workspace.yaml (set minimumReleaseAgeStrict to true to fail on these instead):\n  ${added.join('\n  ')}`,
    })
  }
  // pnpm prunes them after an install of every project: add, remove, update and a filtered install leave them.
  if (config.minimumReleaseAgeExcludePrune && config.useLockfile && ctx.selected === undefined && ctx.edited.length === 0) {
    await pruneReleaseAgeExcludes(config.dir, excludes, plan.lockfile)
  }
  if (config.catalogPrune) {
    await pruneUnusedCatalogs(config.dir, {
      manifests: ctx.projects.map((project) => project.manifest),
      overrides: config.overrides,
      lockfileCatalogs: config.useLockfile ? plan.lockfile.catalogs : undefined,
    })
  }
  if (opts.lockfileOnly !== true) {
    const include = opts.include ?? ALL_GROUPS
    // As pnpm: a filtered install that left every project as the lockfile has it is recorded as a full one.
    const selected = done.partial ? ctx.selected : undefined
    // The settings as this install left them: the catalog entries it wrote, the versions it excused.
    const catalogs = Object.fromEntries([...new Set([...Object.keys(config.catalogs), ...Object.keys(done.catalogAdditions)])]
      .map((name) => [name, { ...own(config.catalogs, name), ...own(done.catalogAdditions, name) }]))
    const written = { ...config, catalogs, minimumReleaseAgeExclude: excludes }
    const state = { config: written, projects: ctx.projects, selected, include, lockfile: plan.lockfile, now: opts.now }
    await writePnpmWorkspaceState(state, (message) => { emit({ type: 'warning', message }) })
  }
}

const ALL_GROUPS: Readonly<Record<DependencyGroup, boolean>> = { dependencies: true, devDependencies: true, optionalDependencies: true }

/** A direct dependency added below the registry's `latest` tag names the tag, as pnpm's summary does. */
function withLatest (change: DirectDependencyChange, latest: Readonly<Record<string, string>> | undefined): DirectDependencyChange {
  const tag = change.change === '+' ? latest?.[`${change.name ?? change.alias}@${change.version}`] : undefined
  return tag === undefined ? change : { ...change, latest: tag }
}

function hasLocalSources (lockfile: Lockfile, dir: string): boolean {
  const { tarballs, directories } = localSources(lockfile, dir)
  return tarballs.length > 0 || directories.length > 0
}

/** `lockfile` with an empty entry for each project it lacks (one without dependencies: it is up to date without it); itself when none lacks one. */
function withEmptyImporters (lockfile: Lockfile, importers: ReadonlyArray<{ id: string }>): Lockfile {
  const missing = importers.filter(({ id }) => !Object.hasOwn(lockfile.importers, id))
  if (missing.length === 0) return lockfile
  return { ...lockfile, importers: { ...lockfile.importers, ...Object.fromEntries(missing.map(({ id }) => [id, {}])) } }
}
