import { isDeepStrictEqual } from 'node:util'

import { DEPENDENCY_GROUPS } from '@lode/core.constants'
import type { DependencyGroup } from '@lode/core.constants'
import { pkgIdOf, refToDepPath } from '@lode/core.dep-path'
import { own } from '@lode/core.safe-name'
import { dependenciesMetaOf, importerDependencies, linkableFromWorkspace, publishConfigOf } from '@lode/pkg-manager.deps.resolve-dependencies'
import type { ProjectManifest, WorkspaceProjectVersion } from '@lode/pkg-manager.deps.resolve-dependencies'
import type { Lockfile } from '@lode/pkg-manager.lockfile.format'

import { lockedOutsideRange } from './locked-outside-range.js'

export interface LockfileSettingsToMatch {
  autoInstallPeers: boolean
  dedupePeers: boolean
  overrides: Record<string, string> | undefined
  packageExtensionsChecksum: string | undefined
  ignoredOptionalDependencies: readonly string[]
  patchedDependencies: Record<string, string>
  catalogs: Readonly<Record<string, Readonly<Record<string, string>>>>
  injectWorkspacePackages: boolean
  /** pnpm's `linkWorkspacePackages`: a registry version locked where a workspace project now fits makes the lockfile out of date. */
  linkWorkspacePackages?: boolean | 'deep' | undefined
}

/**
 * Why the lockfile cannot be installed as it is for this manifest (pnpm's frozen-lockfile
 * check): missing, written with other settings, or its importer's specifiers differ from
 * package.json's. Undefined when it is up to date.
 */
export function outdatedLockfileReason (
  lockfile: Lockfile | undefined,
  importers: ReadonlyArray<{ id: string, manifest: ProjectManifest }>,
  settings: LockfileSettingsToMatch
): string | undefined {
  if (lockfile === undefined) return 'there is no pnpm-lock.yaml'
  if ((lockfile.settings?.autoInstallPeers ?? true) !== settings.autoInstallPeers) {
    return `pnpm-lock.yaml was written with autoInstallPeers: ${String(lockfile.settings?.autoInstallPeers)}, the setting is ${String(settings.autoInstallPeers)}`
  }
  if ((lockfile.settings?.dedupePeers ?? false) !== settings.dedupePeers) {
    return `pnpm-lock.yaml was written with dedupePeers: ${String(lockfile.settings?.dedupePeers ?? false)}, the setting is ${String(settings.dedupePeers)}`
  }
  if ((lockfile.settings?.injectWorkspacePackages ?? false) !== settings.injectWorkspacePackages && mayInject(lockfile, importers)) {
    return `pnpm-lock.yaml was written with injectWorkspacePackages: ${String(lockfile.settings?.injectWorkspacePackages ?? false)}, the setting is ${String(settings.injectWorkspacePackages)}`
  }
  if (!isDeepStrictEqual(lockfile.overrides ?? {}, settings.overrides ?? {})) return 'the overrides in pnpm-lock.yaml differ from those in pnpm-workspace.yaml'
  if (lockfile.packageExtensionsChecksum !== settings.packageExtensionsChecksum) return 'packageExtensions in pnpm-workspace.yaml changed since pnpm-lock.yaml was written'
  if (!isDeepStrictEqual([...lockfile.ignoredOptionalDependencies ?? []].sort(), [...settings.ignoredOptionalDependencies].sort())) return 'ignoredOptionalDependencies in pnpm-workspace.yaml changed since pnpm-lock.yaml was written'
  if (!isDeepStrictEqual(lockfile.patchedDependencies ?? {}, settings.patchedDependencies)) return 'patchedDependencies (or a patch file) changed since pnpm-lock.yaml was written'
  const ids = new Set(importers.map((importer) => importer.id))
  for (const id of Object.keys(lockfile.importers)) if (!ids.has(id)) return `pnpm-lock.yaml has the project ${id}, which the workspace no longer has`
  const projects = settings.linkWorkspacePackages === undefined || settings.linkWorkspacePackages === false
    ? []
    : importers.map(({ manifest }) => ({ name: manifest.name, version: manifest.version, dir: '' }))
  for (const { id, manifest } of importers) {
    const reason = importerOutdated(lockfile, id, manifest, settings, projects)
    if (reason !== undefined) return id === '.' ? reason : `in ${id}: ${reason}`
  }
  return brokenLockfileReason(lockfile)
}

/**
 * A lockfile whose references lead nowhere (a snapshot without its `packages` entry, a dependency
 * without its snapshot): edited by hand or cut by a merge. pnpm resolves such a lockfile again
 * instead of installing it; so does lode (and `--frozen-lockfile` refuses it, naming the entry).
 */
function brokenLockfileReason (lockfile: Lockfile): string | undefined {
  const snapshots = lockfile.snapshots ?? {}
  const packages = lockfile.packages ?? {}
  const missing = (alias: string, ref: string): string | undefined => {
    if (ref.startsWith('link:')) return undefined
    const depPath = refToDepPath(alias, ref)
    return Object.hasOwn(snapshots, depPath) ? undefined : `pnpm-lock.yaml has no snapshots entry for ${depPath}`
  }
  for (const importer of Object.values(lockfile.importers)) {
    for (const group of DEPENDENCY_GROUPS) {
      for (const [alias, { version }] of Object.entries(importer[group] ?? {})) {
        const reason = missing(alias, version)
        if (reason !== undefined) return reason
      }
    }
  }
  for (const [depPath, snapshot] of Object.entries(snapshots)) {
    if (!Object.hasOwn(packages, pkgIdOf(depPath))) return `pnpm-lock.yaml has no packages entry for ${pkgIdOf(depPath)}`
    // An empty snapshot may be written with no value at all (null).
    for (const deps of [snapshot?.dependencies, snapshot?.optionalDependencies]) {
      for (const [alias, ref] of Object.entries(deps ?? {})) {
        const reason = missing(alias, ref)
        if (reason !== undefined) return reason
      }
    }
  }
  return undefined
}

/**
 * Whether injectWorkspacePackages can change anything (pnpm's check before it calls a lockfile out
 * of date for it): a link or directory in the lockfile, or a dependency that may be a workspace
 * project's (`workspace:`, `link:`, `file:`, a project's name) or is injected by dependenciesMeta.
 */
function mayInject (lockfile: Lockfile, importers: ReadonlyArray<{ manifest: ProjectManifest }>): boolean {
  const names = new Set(importers.map(({ manifest }) => manifest.name))
  const local = (ref: string): boolean => ref.startsWith('workspace:') || ref.startsWith('link:') || ref.startsWith('file:')
  if (Object.values(lockfile.importers).some((importer) =>
    DEPENDENCY_GROUPS.some((group) => Object.values(importer[group] ?? {}).some(({ version }) => local(version))))) {
    return true
  }
  return importers.some(({ manifest }) => Object.values(dependenciesMetaOf(manifest) ?? {}).some((meta) => meta['injected'] === true) ||
    DEPENDENCY_GROUPS.some((group) => Object.entries(manifest[group] ?? {})
      .some(([alias, specifier]) => local(specifier) || names.has(alias))))
}

function importerOutdated (
  lockfile: Lockfile,
  id: string,
  manifest: ProjectManifest,
  settings: LockfileSettingsToMatch,
  projects: readonly WorkspaceProjectVersion[]
): string | undefined {
  const importer = lockfile.importers[id]
  // A project without dependencies needs no entry (pnpm's: the lockfile is up to date without it).
  if (importer === undefined && importerDependencies(manifest, settings.autoInstallPeers).size === 0) return undefined
  if (importer === undefined) return id === '.' ? 'pnpm-lock.yaml has no entry for the project' : 'pnpm-lock.yaml has no entry for this project'
  const publish = publishConfigOf(manifest)
  if (importer.publishDirectory !== publish.directory) return `"publishDirectory" in the lockfile (${String(importer.publishDirectory)}) doesn't match "publishConfig.directory" in package.json (${String(publish.directory)})`
  const lockedLinkDirectory = importer['linkDirectory'] !== false
  if (lockedLinkDirectory !== (publish.linkDirectory ?? true)) return `"linkDirectory" in the lockfile (${String(lockedLinkDirectory)}) doesn't match "publishConfig.linkDirectory" in package.json (${String(publish.linkDirectory ?? true)})`
  if (!isDeepStrictEqual(dependenciesMetaOf(manifest) ?? {}, importer.dependenciesMeta ?? {})) return `the dependenciesMeta in pnpm-lock.yaml (${JSON.stringify(importer.dependenciesMeta ?? {})}) differ from those in package.json (${JSON.stringify(dependenciesMetaOf(manifest) ?? {})})`
  const wanted = importerDependencies(manifest, settings.autoInstallPeers)
  const locked = new Map<string, { group: DependencyGroup, specifier: string, version: string }>()
  for (const group of DEPENDENCY_GROUPS) {
    for (const [alias, { specifier, version }] of Object.entries(importer[group] ?? {})) locked.set(alias, { group, specifier, version })
  }
  for (const [alias, { group, specifier }] of wanted) {
    const entry = locked.get(alias)
    // An optional dependency the registry could not resolve is left out of the lockfile: pnpm installs the lockfile anyway.
    if (entry === undefined && group === 'optionalDependencies') continue
    if (entry === undefined) return `${group}.${alias} is in package.json but not in pnpm-lock.yaml`
    if (entry.group !== group) return `${alias} is in ${group} in package.json but in ${entry.group} in pnpm-lock.yaml`
    if (entry.specifier !== specifier) return `${group}.${alias} is "${specifier}" in package.json but "${entry.specifier}" in pnpm-lock.yaml`
    // A version edited (or merged) in that its own range does not take, as pnpm checks it.
    const outside = lockedOutsideRange(specifier, entry.version)
    if (outside !== undefined) return `${group}.${alias} is locked at ${outside}, which "${specifier}" does not take`
    if (projects.length > 0 && linkableFromWorkspace(alias, specifier, entry.version, projects)) {
      return `${group}.${alias} is locked from the registry at the version a workspace project now has (linkWorkspacePackages)`
    }
    if (specifier.startsWith('catalog:')) {
      const catalog = specifier.slice('catalog:'.length) || 'default'
      const wantedSpec = own(own(settings.catalogs, catalog), alias)
      const lockedSpec = own(own(lockfile.catalogs, catalog), alias)?.specifier
      if (wantedSpec !== lockedSpec) return `the catalog entry of ${alias} (${catalog}) is "${String(wantedSpec)}" in pnpm-workspace.yaml but "${String(lockedSpec)}" in pnpm-lock.yaml`
    }
  }
  for (const [alias, { group }] of locked) {
    if (!wanted.has(alias)) return `${group}.${alias} is in pnpm-lock.yaml but not in package.json`
  }
  return undefined
}
