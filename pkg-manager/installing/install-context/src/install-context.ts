import fs from 'node:fs'
import path from 'node:path'

import { DEPENDENCY_GROUPS, WANTED_LOCKFILE } from '@lode/core.constants'
import { nameOf } from '@lode/core.dep-path'
import { LodeError, printable } from '@lode/core.error'
import { own } from '@lode/core.safe-name'
import { PNPM_VERSION } from '@lode/pkg-manager.config.settings'
import type { Config } from '@lode/pkg-manager.config.settings'
import { findWorkspaceProjects, workspaceCycles } from '@lode/pkg-manager.config.workspace'
import type { WorkspaceProject } from '@lode/pkg-manager.config.workspace'
import { applyEdit } from '@lode/pkg-manager.deps.manifest-edit'
import type { DependencyEdit } from '@lode/pkg-manager.deps.manifest-edit'
import { createReadPackageHooks, overridesMap, packageExtensionsChecksum, parseOverrides, replaceVersionReferences } from '@lode/pkg-manager.deps.read-package-hook'
import type { ReadPackageHooks } from '@lode/pkg-manager.deps.read-package-hook'
import type { ProjectManifest } from '@lode/pkg-manager.deps.resolve-dependencies'
import { catalogSpecifier } from '@lode/pkg-manager.deps.resolve-dependencies/catalogs'
import { checkProjects, currentPlatform } from '@lode/pkg-manager.installing.package-is-installable'
import { UnreadableLockfileError, readInstalledLockfile, readLockfile } from '@lode/pkg-manager.lockfile.format'
import type { ReadLockfile } from '@lode/pkg-manager.lockfile.format'
import { localSourcesOutdated, outdatedLockfileReason } from '@lode/pkg-manager.lockfile.verification'
import { loadPatches } from '@lode/pkg-manager.patching.patches'
import type { Patch } from '@lode/pkg-manager.patching.patches'

import { readProjectManifest } from './project-manifest.js'

/** What the install's inputs depend on besides the files: the install's options, as far as reading goes. */
export interface InstallContextOptions {
  config: Config
  /** `add`, `remove`, `update`: edits to the projects' package.json (the lockfile is then never frozen). */
  edits?: readonly DependencyEdit[]
  /** pnpm's `install --filter`: the importer ids installed (the root's always with them). */
  projects?: readonly string[]
  /** Print pnpm's "Scope: …" line in a workspace when several projects are selected (true by default; pnpm's `add` prints none). */
  announceScope?: boolean
  lockfileOnly?: boolean
  frozenLockfile?: boolean
  /** `add` outside a workspace: a project without package.json is taken as `{}`, and the file written with what is added (pnpm's). */
  createManifest?: boolean
  /** `--prefer-frozen-lockfile`, when given: then CI's default freezes a missing lockfile too, as in pnpm. */
  preferFrozenLockfile?: boolean
  onWarning: (message: string) => void
  onInfo: (message: string) => void
}

/** Everything an install reads before it changes anything: read once, then passed down the steps. */
export interface InstallContext {
  config: Config
  /** The root's package.json as read (its own scripts run from it). */
  rootManifest: ProjectManifest
  /** pnpm-lock.yaml as read (undefined without one, or with `lockfile: false`). */
  wanted: ReadLockfile | undefined
  /** node_modules' own lockfile, standing in for a missing pnpm-lock.yaml (pnpm's behaviour, when not frozen). */
  installed: ReadLockfile | undefined
  /** The lockfile the install starts from: `wanted`, else `installed`. */
  current: ReadLockfile | undefined
  /** `add`, `remove`, `update`: the edits, each with the project it changes. */
  edited: ReadonlyArray<{ edit: DependencyEdit, project: WorkspaceProject }>
  frozen: boolean
  /** The workspace's projects (one for a single project), their manifests edited. */
  projects: WorkspaceProject[]
  /** The importers as the resolver sees them: manifests through the read-package hooks. */
  importers: Array<{ id: string, dir: string, manifest: ProjectManifest }>
  /** pnpm's `install --filter` (or an edit of some projects): the importer ids installed, the root's always with them; undefined when every project is. */
  selected: ReadonlySet<string> | undefined
  hooks: ReadPackageHooks
  patches: Patch[]
  /** The settings recorded in the lockfile (an outdated lockfile differs in them). */
  lockfileSettings: {
    overrides: Record<string, string> | undefined
    packageExtensionsChecksum: string | undefined
    ignoredOptionalDependencies: readonly string[]
    patchedDependencies: Record<string, string>
  }
  /** Why `current` does not satisfy the projects (undefined when it does). */
  outdated: string | undefined
}

/**
 * Reads what the install depends on, as pnpm reads it, failing before anything is written: the
 * root's package.json, pnpm-lock.yaml (or node_modules' lockfile standing in), the workspace's
 * projects (checked for this platform and engines), the edits applied to their manifests, the
 * read-package hooks, the patches, and whether the lockfile is up to date with all of them.
 */
export async function readInstallContext (opts: InstallContextOptions): Promise<InstallContext> {
  const { config } = opts
  // A workspace's root needs no package.json (it is then no project, as in pnpm); `add` outside a workspace writes one.
  const rootManifest = await readProjectManifest(config.dir, { missingIsEmpty: isWorkspace(config) || opts.createManifest === true })
  const { wanted, installed, frozen } = await readLockfiles(opts)
  const current = wanted ?? installed
  const overrides = parseOverrides(replaceVersionReferences(catalogOverrides(config.overrides, config.catalogs), rootManifest))
  const hooks = createReadPackageHooks({
    ignoreCompatibilityDb: config.ignoreCompatibilityDb,
    packageExtensions: config.packageExtensions,
    overrides,
    rootDir: config.dir,
    ignoredOptionalDependencies: config.ignoredOptionalDependencies,
  })
  const { projects, edited } = await readProjects(opts, rootManifest)
  // pnpm installs the workspace root in every filtered install too; one that selects every project is a full install.
  const chosen = opts.projects === undefined ? undefined : new Set(['.', ...opts.projects])
  const selected = chosen === undefined || projects.every((project) => chosen.has(project.id)) ? undefined : chosen
  if (isWorkspace(config)) {
    // As pnpm: one project selected (a filter, `add` in a project) says nothing; the root installed with any selection is not counted.
    const count = opts.projects === undefined ? projects.length : projects.filter((project) => opts.projects!.includes(project.id)).length
    if (opts.announceScope !== false && count > 1) opts.onInfo(`Scope: ${count === projects.length ? 'all' : `${count} of`} ${projects.length} workspace projects`)
    // As pnpm: projects that depend on each other install, with a warning naming them.
    const cycles = workspaceCycles(selected === undefined ? projects : projects.filter((project) => selected.has(project.id)))
    if (cycles.length > 0 && !config.ignoreWorkspaceCycles) opts.onWarning(`There are cyclic workspace dependencies: ${cycles.map((cycle) => cycle.map(({ dir }) => printable(dir)).join(', ')).join('; ')}`)
  }
  const importers = projects.map((project) => {
    const entry = edited.find((candidate) => candidate.project.id === project.id)
    return {
      id: project.id,
      dir: project.dir,
      manifest: withAskedSpecs(hooks.project(project.manifest, project.dir), project.manifest, entry?.edit),
      ...importerSpecs(entry),
    }
  })
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
  // A merged lockfile is resolved again (pnpm's), unless frozen: then it must fit package.json as merged.
  const outdated = wanted?.mergedConflicts === true && !frozen ? `${WANTED_LOCKFILE} had merge conflicts` : outdatedLockfileReason(current?.lockfile, importers, {
    autoInstallPeers: config.autoInstallPeers,
    dedupePeers: config.dedupePeers,
    catalogs: config.catalogs,
    injectWorkspacePackages: config.injectWorkspacePackages,
    linkWorkspacePackages: config.linkWorkspacePackages,
    ...lockfileSettings,
  }) ?? localSourcesOutdated(current!.lockfile, importers, config.dir, { frozen })
  return {
    config, rootManifest, wanted, installed, current, edited, frozen,
    projects, importers, selected, hooks, patches, lockfileSettings, outdated,
  }
}

/**
 * The specs package.json had for the dependencies an edit changes (under `update --latest` also as
 * `latestOver`), and the dependencies it adds.
 */
function importerSpecs (
  entry: { edit: DependencyEdit, project: WorkspaceProject } | undefined
): { replacedSpecs?: Record<string, string>, latestOver?: Record<string, string>, addedAliases?: string[] } {
  const replaced = replacedSpecs(entry)
  if (replaced === undefined) return {}
  const added = entry!.edit.dependencies.map(({ alias }) => alias).filter((alias) => !Object.hasOwn(replaced, alias))
  return {
    replacedSpecs: replaced,
    ...entry?.edit.latest === true ? { latestOver: replaced } : {},
    ...added.length > 0 ? { addedAliases: added } : {},
  }
}

/**
 * A project's manifest as resolved: through the read-package hooks (overrides), except the
 * dependencies an edit gives a spec for (`add name@1.0.0`), which resolve as asked, as with pnpm.
 */
function withAskedSpecs (hooked: ProjectManifest, edited: Record<string, unknown>, edit: DependencyEdit | undefined): ProjectManifest {
  const asked = (edit?.dependencies ?? []).filter((dep) => dep.bareSpecifier !== undefined)
  if (asked.length === 0) return hooked
  const manifest: Record<string, unknown> = { ...hooked }
  for (const group of DEPENDENCY_GROUPS) {
    const given = edited[group] as Record<string, string> | undefined
    for (const { alias } of asked) {
      const spec = own(given, alias)
      if (spec !== undefined) manifest[group] = { ...manifest[group] as Record<string, string>, ...Object.fromEntries([[alias, spec]]) }
    }
  }
  return manifest
}

/** The specs package.json had for the dependencies an edit changes. */
function replacedSpecs (entry: { edit: DependencyEdit, project: WorkspaceProject } | undefined): Record<string, string> | undefined {
  if (entry === undefined) return undefined
  const groups = DEPENDENCY_GROUPS.map((group) => (entry.project.manifest[group] ?? {}) as Record<string, string>)
  return Object.fromEntries(entry.edit.dependencies.flatMap(({ alias }) => {
    const spec = groups.map((deps) => own(deps, alias)).find((found) => found !== undefined)
    return spec === undefined ? [] : [[alias, spec]]
  }))
}

function isWorkspace (config: Config): boolean {
  return config.workspacePackages !== undefined && config.workspacePackages.length > 0
}

/**
 * pnpm-lock.yaml, and without it (unless frozen) node_modules' own lockfile, which stands in for it
 * as in pnpm: a deleted lockfile brings back the versions installed (not newer ones), with nothing
 * fetched. With `lockfile: false` (pnpm's), pnpm-lock.yaml is neither read nor written.
 */
async function readLockfiles (
  opts: InstallContextOptions
): Promise<{ wanted: ReadLockfile | undefined, installed: ReadLockfile | undefined, frozen: boolean }> {
  const { config } = opts
  if (!config.useLockfile && opts.lockfileOnly === true) {
    throw new LodeError('CONFIG_CONFLICT_LOCKFILE_ONLY_WITH_NO_LOCKFILE', 'Cannot generate a pnpm-lock.yaml because lockfile is set to false.', {
      hint: 'Remove lockfile: false from pnpm-workspace.yaml, or install without --lockfile-only.',
    })
  }
  let frozen = (opts.edits ?? []).length === 0 && (opts.frozenLockfile ?? config.frozenLockfile)
  // Frozen only by CI's default: pnpm freezes a lockfile that exists, and writes one that does not.
  const byCIOnly = config.frozenLockfileIfExists && opts.frozenLockfile === undefined && opts.preferFrozenLockfile === undefined
    && opts.lockfileOnly !== true
  if (frozen && byCIOnly && !fs.existsSync(path.join(config.dir, WANTED_LOCKFILE))) frozen = false
  const wanted = config.useLockfile ? await readWantedLockfile(opts, frozen) : undefined
  if (!config.useLockfile && ((await fs.promises.stat(path.join(config.dir, WANTED_LOCKFILE)).catch(() => undefined))?.size ?? 0) > 0) {
    opts.onWarning('A pnpm-lock.yaml file exists. The current configuration prohibits to read or write a lockfile')
  }
  const installed = wanted === undefined && !frozen ? await readInstalledLockfile(config.dir).catch(() => undefined) : undefined
  return { wanted, installed, frozen }
}

/**
 * pnpm-lock.yaml as pnpm 11 reads it for an install: git's conflict markers merged (said, and the
 * install then resolves, unless frozen); a lockfile of another major version (pnpm 8's 6.0), or one
 * that is no YAML (a syntax error, a duplicated key), refused when frozen, otherwise ignored with
 * pnpm's warning and resolved afresh.
 */
async function readWantedLockfile (opts: InstallContextOptions, frozen: boolean): Promise<ReadLockfile | undefined> {
  let wanted: ReadLockfile | undefined
  try {
    wanted = await readLockfile(opts.config.dir)
  } catch (err) {
    const ignorable = err instanceof UnreadableLockfileError || (err instanceof LodeError && err.code === 'ERR_LODE_LOCKFILE_BREAKING_CHANGE')
    if (frozen || !ignorable) throw err
    opts.onWarning(`Ignoring broken lockfile at ${opts.config.dir}: ${err.message}`)
    return undefined
  }
  if (wanted?.mergedConflicts === true) opts.onInfo(`Merge conflict detected in ${WANTED_LOCKFILE} and successfully merged`)
  return wanted
}

/**
 * The importers of the one lockfile: every project of a workspace, or the single project, checked
 * as pnpm checks them when it reads them, with the edits of `add`/`remove`/`update` applied.
 */
async function readProjects (
  opts: InstallContextOptions,
  rootManifest: ProjectManifest
): Promise<{ projects: WorkspaceProject[], edited: Array<{ edit: DependencyEdit, project: WorkspaceProject }> }> {
  const { config } = opts
  const found: WorkspaceProject[] = isWorkspace(config)
    ? await findWorkspaceProjects(config.dir, config.workspacePackages ?? [])
    : [{ id: '.', dir: config.dir, manifest: rootManifest as Record<string, unknown> }]
  checkProjects(found, {
    engineStrict: config.engineStrict,
    current: { node: config.nodeVersion, pnpm: PNPM_VERSION },
    platform: currentPlatform(config.supportedArchitectures),
    onWarning: opts.onWarning,
  })
  const edited = (opts.edits ?? []).map((edit) => {
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
  return { projects, edited }
}

/** Override values `catalog:` and `catalog:name` become the catalog's specifier for the overridden package, as pnpm records them. */
function catalogOverrides (overrides: Readonly<Record<string, string>>, catalogs: Config['catalogs']): Record<string, string> {
  return Object.fromEntries(Object.entries(overrides).map(([selector, value]) => {
    if (!value.startsWith('catalog:')) return [selector, value]
    const target = selector.slice(selector.lastIndexOf('>') + 1)
    return [selector, catalogSpecifier(nameOf(target), value, catalogs)!.specifier]
  }))
}
