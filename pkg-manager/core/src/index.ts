import type { ApproveBuildsOptions, RebuildOptions } from '@lode/pkg-manager.building.rebuild'
import type { Config } from '@lode/pkg-manager.config.settings'
import type { DlxOptions } from '@lode/pkg-manager.exec.dlx'
import type { InstallOptions, InstallResult } from '@lode/pkg-manager.installing.installer'
import type { DeployOptions } from '@lode/pkg-manager.releasing.deploy'

import type { AddOptions, RemoveOptions, UpdateOptions } from './add-remove.js'
import type { DedupeOptions } from './dedupe.js'
import type { FetchOptions } from './fetch.js'

export { install } from './install.js'
export type { AddOptions, ProjectEditOptions, RemoveOptions, UpdateOptions } from './add-remove.js'
export type { InstallEvent, InstallOptions, InstallResult } from '@lode/pkg-manager.installing.installer'
export type { DeployOptions } from '@lode/pkg-manager.releasing.deploy'
export type { DlxOptions } from '@lode/pkg-manager.exec.dlx'
export type { DirectDependencyChange } from '@lode/pkg-manager.installing.linker'
export { readProjectManifest } from '@lode/pkg-manager.installing.install-context/project-manifest'
export { PNPM_SETTINGS, PROJECT_REFUSED_KEYS, checkPackageManager, getConfig, lodeUserAgent, readWorkspacePackages } from '@lode/pkg-manager.config.settings'
export type { Config, ConfigOverrides } from '@lode/pkg-manager.config.settings'
export type { ApproveBuildsOptions, RebuildOptions } from '@lode/pkg-manager.building.rebuild'
export type { DedupeOptions } from './dedupe.js'
export type { FetchOptions } from './fetch.js'
export { filterProjects, findWorkspaceDir, findWorkspaceProjects, projectChunks, sortProjects, workspaceDependencies, workspaceGraphOptions } from '@lode/pkg-manager.config.workspace'
export type { WorkspaceGraphOptions } from '@lode/pkg-manager.config.workspace'
export type { WorkspaceProject } from '@lode/pkg-manager.config.workspace'

// The commands below load the resolver, the store index and the pools; they are imported when
// called, so that an up-to-date `install` (the no-op) loads none of them.

export async function add (opts: AddOptions): Promise<InstallResult> {
  return await (await import('./add-remove.js')).add(opts)
}

export async function remove (opts: RemoveOptions): Promise<InstallResult> {
  return await (await import('./add-remove.js')).remove(opts)
}

export async function update (opts: UpdateOptions): Promise<InstallResult> {
  return await (await import('./add-remove.js')).update(opts)
}

export async function rebuild (opts: RebuildOptions): Promise<string[]> {
  return await (await import('@lode/pkg-manager.building.rebuild')).rebuild(opts)
}

export async function dedupe (opts: DedupeOptions): Promise<InstallResult> {
  return await (await import('./dedupe.js')).dedupe(opts)
}

export async function fetchPackages (opts: FetchOptions): Promise<{ packages: number, downloaded: number, reused: number }> {
  return await (await import('./fetch.js')).fetchPackages(opts)
}

export async function approveBuilds (opts: ApproveBuildsOptions): Promise<string[] | undefined> {
  return await (await import('@lode/pkg-manager.building.rebuild')).approveBuilds(opts)
}

export async function buildsAwaitingApproval (config: Config): Promise<string[]> {
  return await (await import('@lode/pkg-manager.building.rebuild')).buildsAwaitingApproval(config)
}

export async function importLockfile (opts: InstallOptions): Promise<InstallResult> {
  return await (await import('./import.js')).importLockfile(opts)
}

/** pnpm's `deploy`: `@lode/pkg-manager.releasing.deploy`'s, the target installed by this package's install. */
export async function deploy (opts: DeployOptions): Promise<InstallResult> {
  const [{ deploy }, { installAndRecord }] = await Promise.all([import('@lode/pkg-manager.releasing.deploy'), import('./install.js')])
  return await deploy(opts, installAndRecord)
}

/** pnpm's `dlx` install: `@lode/pkg-manager.exec.dlx`'s, the packages added by this package's `add`. */
export async function dlxInstall (opts: DlxOptions): Promise<{ dir: string, cached: boolean }> {
  const [{ dlxInstall }, { add }] = await Promise.all([import('@lode/pkg-manager.exec.dlx'), import('./add-remove.js')])
  return await dlxInstall(opts, add)
}
