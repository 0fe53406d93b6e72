import fs from 'node:fs'
import path from 'node:path'

import type { DependencyGroup } from '@lode/core.constants'
import { DEPENDENCY_GROUPS, MODULES_DIR, VIRTUAL_STORE_DIR, WANTED_LOCKFILE } from '@lode/core.constants'
import { nameOf } from '@lode/core.dep-path'
import { LodeError } from '@lode/core.error'
import { PNPM_VERSION, mergeReleaseAgeExcludes, updateWorkspaceYaml } from '@lode/pkg-manager.config'
import type { Config } from '@lode/pkg-manager.config'
import { runProjectScript } from '@lode/pkg-manager.lifecycle'
import { readInstalledLockfile, readLockfile, writeLockfile, writeLockfileText } from '@lode/pkg-manager.lockfile'
import type { Lockfile } from '@lode/pkg-manager.lockfile'
import { currentPlatform, checkProjects, skippedPackages } from '@lode/pkg-manager.package-is-installable'
import { PackageFetcher, PipelineTrace } from '@lode/pkg-manager.package-requester'
import { loadPatches } from '@lode/pkg-manager.patching'
import { createReadPackageHooks, overridesMap, packageExtensionsChecksum, parseOverrides, replaceVersionReferences } from '@lode/pkg-manager.read-package-hook'
import type { ProjectManifest } from '@lode/pkg-manager.resolve-dependencies'
import { catalogSpecifier } from '@lode/pkg-manager.resolve-dependencies/catalogs'
import { findWorkspaceProjects, sortProjects, type WorkspaceProject } from '@lode/pkg-manager.workspace'
import type { ReleaseAgeViolation } from '@lode/resolving.npm-resolver'
import { registryFor } from '@lode/resolving.npm-resolver/registries'
import { RegistryClient, createAuthHeaderLookup } from '@lode/resolving.registry-client'
import { storePath } from '@lode/store.cafs'
import { LinkPool } from '@lode/worker.pools'

import { pruneUnusedCatalogs } from './catalog-prune.js'
import { applyEdit, savedSpecifiers, writeEditedManifest } from './dependency-edit.js'
import type { InstallEvent, InstallOptions, InstallResult } from './install-types.js'
import { linkAndBuild } from './link-and-build.js'
import { outdatedLockfileReason } from './lockfile-satisfies.js'
import { applyPeerDependencyRules, peerIssuesError } from './peer-rules.js'
import { writePnpmWorkspaceState } from './pnpm-workspace-state.js'
import { readProjectManifest } from './project-manifest.js'
import { recordVerifiedLockfile, verifyLockfile } from './verify-lockfile.js'

/**
 * Installs the project in `config.dir`: resolves every dependency (reusing the lockfile where it
 * still satisfies), writes `pnpm-lock.yaml`, then (unless `lockfileOnly`) fetches what the store
 * lacks and links pnpm's isolated `node_modules`. Never exits the process; errors are
 * `LodeError`s, and resolution errors leave the lockfile as it was.
 */
export async function installFull (opts: InstallOptions): Promise<InstallResult> {
  // Into an empty node_modules there will be packages to import: the link threads start first, and
  // boot while the lockfile is read and checked.
  const linkPool = opts.lockfileOnly !== true && !fs.existsSync(path.join(opts.config.dir, MODULES_DIR, VIRTUAL_STORE_DIR))
    ? new LinkPool()
    : undefined
  try {
    return await installWith(opts, linkPool)
  } finally {
    await linkPool?.close()
  }
}

async function installWith (opts: InstallOptions, linkPool: LinkPool | undefined): Promise<InstallResult> {
  const started = performance.now()
  const { config } = opts
  const emit = opts.onEvent ?? (() => {})
  const workspace = config.workspacePackages !== undefined && config.workspacePackages.length > 0
  const rawManifest = await readProjectManifest(config.dir)
  // `lockfile: false` (pnpm's): pnpm-lock.yaml is neither read nor written; node_modules' own lockfile stands in.
  if (!config.useLockfile && opts.lockfileOnly === true) {
    throw new LodeError('CONFIG_CONFLICT_LOCKFILE_ONLY_WITH_NO_LOCKFILE', 'Cannot generate a pnpm-lock.yaml because lockfile is set to false.', {
      hint: 'Remove lockfile: false from pnpm-workspace.yaml, or install without --lockfile-only.',
    })
  }
  const wanted = config.useLockfile ? await readLockfile(config.dir) : undefined
  if (!config.useLockfile && ((await fs.promises.stat(path.join(config.dir, WANTED_LOCKFILE)).catch(() => undefined))?.size ?? 0) > 0) {
    emit({ type: 'warning', message: 'A pnpm-lock.yaml file exists. The current configuration prohibits to read or write a lockfile' })
  }
  const edits = opts.edits ?? []
  const editing = edits.length > 0
  const frozen = !editing && (opts.frozenLockfile ?? config.frozenLockfile)
  // As pnpm does: without pnpm-lock.yaml, the lockfile of what node_modules holds stands in for it,
  // so a deleted lockfile brings back the versions installed (not newer ones), with nothing fetched.
  const installed = wanted === undefined && !frozen ? await readInstalledLockfile(config.dir).catch(() => undefined) : undefined
  const current = wanted ?? installed
  const overrides = parseOverrides(replaceVersionReferences(catalogOverrides(config.overrides, config.catalogs), rawManifest))
  const hooks = createReadPackageHooks({
    ignoreCompatibilityDb: config.ignoreCompatibilityDb,
    packageExtensions: config.packageExtensions,
    overrides,
    rootDir: config.dir,
    ignoredOptionalDependencies: config.ignoredOptionalDependencies,
  })
  // Every project of a workspace is an importer of the one lockfile; a single project is the only one.
  const found: WorkspaceProject[] = workspace ? await findWorkspaceProjects(config.dir, config.workspacePackages ?? []) : [{ id: '.', dir: config.dir, manifest: rawManifest as Record<string, unknown> }]
  checkProjects(found, { engineStrict: config.engineStrict, current: { node: config.nodeVersion, pnpm: PNPM_VERSION }, platform: currentPlatform(), onWarning: (message) => { emit({ type: 'warning', message }) } })
  const edited = edits.map((edit) => {
    const project = found.find((candidate) => candidate.id === edit.importerId)
    if (project === undefined) {
      throw new LodeError('PROJECT_NOT_FOUND', `There is no project "${edit.importerId}" in the workspace at ${config.dir}.`, { hint: 'Check the packages globs in pnpm-workspace.yaml.' })
    }
    return { edit, project }
  })
  const projects = found.map((project) => {
    const edit = edited.find((entry) => entry.project === project)?.edit
    return edit === undefined ? project : { ...project, manifest: applyEdit(project.manifest, edit) }
  })
  // pnpm installs the workspace root in every filtered install too.
  const selected = opts.projects === undefined ? undefined : new Set(['.', ...opts.projects])
  if (workspace) emit({ type: 'info', message: selected === undefined ? `Scope: all ${projects.length} workspace projects` : `Scope: ${new Set(opts.projects).size} of ${projects.length} workspace projects` })
  const importers = projects.map((project) => ({
    id: project.id,
    dir: project.dir,
    manifest: hooks.project(project.manifest as ProjectManifest, project.dir),
  }))
  const patches = loadPatches(config.patchedDependencies, config.dir)
  const lockfileSettings = {
    overrides: overridesMap(overrides),
    packageExtensionsChecksum: packageExtensionsChecksum(config.packageExtensions),
    ignoredOptionalDependencies: config.ignoredOptionalDependencies,
    patchedDependencies: Object.fromEntries(patches.map((patch) => [patch.key, patch.hash])),
  }
  // As pnpm: a frozen install needs pnpm-lock.yaml as soon as any project has dependencies (one
  // without resolves nothing and writes it).
  if (frozen && wanted === undefined
    && importers.some(({ manifest }) => DEPENDENCY_GROUPS.some((group) => Object.keys(manifest[group] ?? {}).length > 0))) {
    throw new LodeError('NO_LOCKFILE', 'Cannot install with "frozen-lockfile" because pnpm-lock.yaml is absent.', {
      hint: 'Note that in CI environments this setting is true by default. If you still need to run install in such cases, use "lode install --no-frozen-lockfile".',
    })
  }
  const outdated = outdatedLockfileReason(current?.lockfile, importers, {
    autoInstallPeers: config.autoInstallPeers,
    dedupePeers: config.dedupePeers,
    catalogs: config.catalogs,
    injectWorkspacePackages: config.injectWorkspacePackages,
    ...lockfileSettings,
  })
  const client = new RegistryClient({
    authHeader: createAuthHeaderLookup(config.rawNpmrc, config.registry),
    networkConcurrency: config.networkConcurrency,
    retry: {
      retries: config.fetchRetries,
      factor: config.fetchRetryFactor,
      minTimeout: config.fetchRetryMintimeout,
      maxTimeout: config.fetchRetryMaxtimeout,
    },
    timeout: config.fetchTimeout,
    strictSsl: config.strictSsl,
    ca: config.ca,
    proxy: { httpProxy: config.httpProxy, httpsProxy: config.httpsProxy, noProxy: config.noProxy },
    userAgent: config.userAgent,
    onWarning: (message) => { emit({ type: 'warning', message }) },
    signal: opts.signal,
  })
  const trace = opts.tracePipeline === undefined ? undefined : new PipelineTrace(opts.tracePipeline)
  // `add`: once resolved, each added dependency gets its saved specifier in the lockfile, then in package.json.
  const saveEdit = !editing
    ? undefined
    : async (lockfile: Lockfile, writeLockfileNow: () => Promise<boolean>): Promise<boolean> => {
      const manifests = edited.map(({ edit, project }) => {
        const saved = savedSpecifiers(lockfile, edit, project.manifest)
        const snapshot = lockfile.importers[edit.importerId]
        for (const group of DEPENDENCY_GROUPS) {
          for (const [alias, entry] of Object.entries(snapshot?.[group] ?? {})) {
            const specifier = saved.get(alias)
            if (specifier !== undefined) entry.specifier = specifier
          }
        }
        return { dir: project.dir, manifest: applyEdit(project.manifest, edit, (dep) => saved.get(dep.alias) ?? dep.bareSpecifier ?? 'latest') }
      })
      const written = await writeLockfileNow()
      for (const { dir, manifest } of manifests) await writeEditedManifest(dir, manifest)
      return written
    }
  const registries = { default: config.registry, scoped: config.scopedRegistries }
  const fetcher = new PackageFetcher({ config, client, registryFor: (name) => registryFor(registries, name), trace, signal: opts.signal, onWarning: (message) => { emit({ type: 'warning', message }) }, ignoreScripts: opts.ignoreScripts })
  try {
    // pnpm 11 checks the lockfile it starts from against the supply-chain policies, frozen or not,
    // before using it; its verdict comes first, before whether the lockfile is up to date.
    if (current !== undefined) await verifyLockfile({ config, lockfile: current.lockfile, text: wanted?.text, client, now: opts.now, onEvent: emit, onWarning: (message) => { emit({ type: 'warning', message }) } })
    if (frozen && wanted !== undefined && outdated !== undefined) {
      throw new LodeError('OUTDATED_LOCKFILE', `Cannot install with a frozen lockfile because pnpm-lock.yaml is not up to date with ${path.join(config.dir, 'package.json')}: ${outdated}.`, {
        hint: 'Run lode install without --frozen-lockfile (in CI: --no-frozen-lockfile) to update pnpm-lock.yaml, and commit it.',
      })
    }
    // The project's own install scripts (pnpm's order): preinstall before anything is installed, the rest after.
    const runScripts = opts.lockfileOnly !== true && opts.ignoreScripts !== true
    const projectScript = async (
      event: string,
      project: { dir: string, manifest: object } = { dir: config.dir, manifest: rawManifest }
    ): Promise<void> => {
      await runProjectScript(event, {
        dir: project.dir,
        manifest: project.manifest,
        stdio: opts.scriptsStdio ?? 'pipe',
        userAgent: config.userAgent,
        onOutput: (script, output) => { emit({ type: 'script-output', script, output }) },
      })
    }
    const rootSelected = selected === undefined || selected.has('.')
    if (runScripts && rootSelected) await projectScript('preinstall')
    // An up-to-date lockfile is installed as it is (pnpm's frozen and prefer-frozen installs): nothing
    // is resolved. With --lockfile-only, it is kept as it is, byte for byte, as pnpm keeps it.
    const useLockfileAsIs = !editing && current !== undefined && outdated === undefined && (frozen || (opts.preferFrozenLockfile ?? true))
    if (useLockfileAsIs) {
      // The projects' optional dependencies the lockfile left out (the registry could not resolve them), said again as pnpm says them.
      for (const { id, manifest } of importers) {
        for (const [alias, specifier] of Object.entries(manifest.optionalDependencies ?? {})) {
          if (!Object.hasOwn(current.lockfile.importers[id]?.optionalDependencies ?? {}, alias)) emit({ type: 'info', message: `info: ${alias}@${specifier} is an optional dependency that could not be resolved. Excluding it from installation.` })
        }
      }
      if (opts.lockfileOnly !== true) emit({ type: 'info', message: 'Lockfile is up to date, resolution step is skipped' })
    }
    // Fetching during resolution takes every package resolved; with groups left out (--prod), only the linked ones are fetched.
    const include = opts.include
    const prefetching = opts.lockfileOnly !== true && selected === undefined
      && (include === undefined || (include.dependencies && include.devDependencies && include.optionalDependencies))
    const resolveStart = performance.now()
    // Installed as it is, the lockfile is written only where pnpm writes it: restored from node_modules'
    // own, or (--lockfile-only) as pnpm serializes what it read (an older pnpm's forms in today's).
    const commitAsIs = async (): Promise<boolean> => {
      if (!config.useLockfile || current === undefined) return false
      if (installed !== undefined) return await writeLockfileText(config.dir, installed.text)
      return opts.lockfileOnly === true && await writeLockfile(config.dir, current.lockfile, current.envDocument)
    }
    const resolved = useLockfileAsIs
      // The lockfile of node_modules standing in is written back as it is (lode or pnpm wrote it).
      ? { lockfile: current.lockfile, commit: async () => await commitAsIs(), peerIssues: [], immature: [] }
      // The resolver's modules load only when there is something to resolve.
      : await (await import('./resolve.js')).resolve({ config, opts, importers, current, hooks, lockfileSettings, patches, client, emit, trace, fetcher: prefetching ? fetcher : undefined, gitFetcher: fetcher, saveEdit })
    opts.signal?.throwIfAborted()
    // What a resolution finds (not the re-resolution of an up-to-date lockfile under --lockfile-only, which pnpm skips)
    // fails before anything is written: with engineStrict, a package this machine cannot run; with
    // strictPeerDependencies, peer issues in a plain install (pnpm's add, remove and update never
    // fail on them; pnpm fails once everything is written).
    const resolvedNow = !useLockfileAsIs && (opts.lockfileOnly !== true || outdated !== undefined)
    if (config.engineStrict && resolvedNow) {
      skippedPackages(resolved.lockfile, { engineStrict: true, nodeVersion: config.nodeVersion, platform: currentPlatform() })
    }
    const peerIssues = applyPeerDependencyRules(resolved.peerIssues, config.peerDependencyRules)
    if (config.strictPeerDependencies && resolvedNow && !editing && peerIssues.length > 0) {
      throw peerIssuesError(peerIssues, { autoInstallPeers: config.autoInstallPeers })
    }
    const packages = Object.keys(resolved.lockfile.packages ?? {}).length
    if (useLockfileAsIs) trace?.count('resolved', packages)
    emit({ type: 'progress', resolved: packages, added: 0, reused: 0, downloaded: 0, done: false })
    const resolveMs = useLockfileAsIs ? 0 : performance.now() - resolveStart
    const linkStart = performance.now()
    const linked = opts.lockfileOnly === true
      ? { added: 0, reused: 0, downloaded: 0, removed: 0, changes: [], committed: await resolved.commit() }
      : await linkAndBuild({
        config,
        now: opts.now,
        lockfile: resolved.lockfile,
        fetcher,
        packageManager: `lode@${config.lodeVersion}`,
        include: opts.include ?? { dependencies: true, devDependencies: true, optionalDependencies: true },
        importers: importers.map(({ id, dir, manifest }) => ({ id, dir, name: manifest.name, version: manifest.version })),
        importersWithInstallScripts: projects.filter((project) => hasInstallScripts(project.manifest)).map((project) => project.id),
        onProgress: (counts) => { emit({ type: 'progress', resolved: packages, ...counts, done: false }) },
        onWarning: (message) => { emit({ type: 'warning', message }) },
        trace,
        signal: opts.signal,
        resolved: !useLockfileAsIs,
        ignoreScripts: opts.ignoreScripts === true,
        patches,
        selectedImporters: selected,
        installedLockfile: useLockfileAsIs ? installed?.lockfile : undefined,
        lockfileText: useLockfileAsIs && current.envDocument === undefined ? current.text : undefined,
        linkPool,
        onInfo: (message) => { emit({ type: 'info', message }) },
      }, resolved.commit)
    // A lockfile resolved under the policies passes them: recorded so, as pnpm records it.
    if (!useLockfileAsIs) recordVerifiedLockfile(config, opts.now)
    if (linked.added > 0 || linked.removed > 0) emit({ type: 'packages', added: linked.added, removed: linked.removed, storeDir: storePath(config.storeDir), virtualStoreDir: path.relative(config.dir, config.virtualStoreDir).split(path.sep).join('/') })
    emit({ type: 'progress', resolved: packages, added: linked.added, reused: linked.reused, downloaded: linked.downloaded, done: true })
    if (runScripts) {
      // Each project after the projects it depends on; the root's preinstall already ran.
      const devToo = opts.include?.devDependencies !== false
      for (const project of sortProjects(projects).filter((candidate) => selected === undefined || selected.has(candidate.id))) {
        const events = devToo ? ['preinstall', 'install', 'postinstall', 'preprepare', 'prepare', 'postprepare'] : ['preinstall', 'install', 'postinstall']
        for (const event of project.id === '.' ? events.slice(1) : events) await projectScript(event, project)
      }
    }
    if (peerIssues.length > 0) emit({ type: 'peer-issues', issues: peerIssues })
    emit({ type: 'lockfile', written: linked.committed, file: path.join(config.dir, WANTED_LOCKFILE) })
    if (linked.changes.length > 0) emit({ type: 'summary', changes: linked.changes })
    if (resolved.immature.length > 0) await excludeFromReleaseAge(config, resolved.immature, emit)
    if (config.catalogPrune) {
      await pruneUnusedCatalogs(config.dir, {
        manifests: projects.map((project) => project.manifest),
        overrides: config.overrides,
        lockfileCatalogs: config.useLockfile ? resolved.lockfile.catalogs : undefined,
      })
    }
    // pnpm's record of the install, for pnpm's repeat install and verifyDepsBeforeRun.
    if (opts.lockfileOnly !== true) await writePnpmWorkspaceState({ config, projects, selected, include: include ?? ALL_GROUPS, lockfile: resolved.lockfile, now: opts.now }, (message) => { emit({ type: 'warning', message }) })
    const linkMs = performance.now() - linkStart
    return {
      lockfileChanged: linked.committed,
      packages,
      added: linked.added,
      reused: linked.reused,
      downloaded: linked.downloaded,
      removed: linked.removed,
      changes: linked.changes,
      timings: { resolveMs: Math.round(resolveMs), linkMs: Math.round(linkMs), totalMs: Math.round(performance.now() - started) },
    }
  } finally {
    try {
      await fetcher.close()
    } finally {
      try {
        await client.close()
      } finally {
        await trace?.finish()
      }
    }
  }
}

const ALL_GROUPS: Readonly<Record<DependencyGroup, boolean>> = { dependencies: true, devDependencies: true, optionalDependencies: true }

/** Override values `catalog:` and `catalog:name` become the catalog's specifier for the overridden package, as pnpm records them. */
function catalogOverrides (overrides: Readonly<Record<string, string>>, catalogs: Config['catalogs']): Record<string, string> {
  return Object.fromEntries(Object.entries(overrides).map(([selector, value]) => {
    if (!value.startsWith('catalog:')) return [selector, value]
    const target = selector.slice(selector.lastIndexOf('>') + 1)
    return [selector, catalogSpecifier(nameOf(target), value, catalogs)!.specifier]
  }))
}

/**
 * The default (loose) `minimumReleaseAge`: versions picked although too young (nothing fitting was
 * old enough) are added to `minimumReleaseAgeExclude` in pnpm-workspace.yaml, as pnpm 11 does, so
 * the choice is visible in review and the next install accepts them knowingly.
 */
async function excludeFromReleaseAge (config: Config, immature: ReleaseAgeViolation[], emit: (event: InstallEvent) => void): Promise<void> {
  const added = mergeReleaseAgeExcludes(immature.map((v) => `${v.name}@${v.version}`))
  await updateWorkspaceYaml(config.dir, {
    minimumReleaseAgeExclude: mergeReleaseAgeExcludes([...config.minimumReleaseAgeExclude, ...added]),
  })
  emit({
    type: 'info',
    message: `Added ${added.length} ${added.length === 1 ? 'entry' : 'entries'} to minimumReleaseAgeExclude in pnpm-workspace.yaml (set minimumReleaseAgeStrict to true to fail on these instead):\n  ${added.join('\n  ')}`,
  })
}

/** Whether a project has scripts pnpm runs on install (with --ignore-scripts, `.modules.yaml` records it as a pending build, as pnpm does). */
function hasInstallScripts (manifest: Record<string, unknown>): boolean {
  const scripts = manifest['scripts']
  return typeof scripts === 'object' && scripts !== null && ['preinstall', 'install', 'postinstall', 'prepublish', 'prepare'].some((event) => typeof (scripts as Record<string, unknown>)[event] === 'string')
}
