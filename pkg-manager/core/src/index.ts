import type { Config } from '@lode/pkg-manager.config'
import type { OutdatedPackage } from '@lode/pkg-manager.inspection'
import type { ApproveBuildsOptions, RebuildOptions } from '@lode/pkg-manager.rebuild'

import type { AddOptions, RemoveOptions, UpdateOptions } from './add-remove.js'
import type { AuditOptions } from './audit.js'
import type { DedupeOptions } from './dedupe.js'
import type { DeployOptions } from './deploy.js'
import type { DlxOptions } from './dlx.js'
import type { FetchOptions } from './fetch.js'
import type { InstallOptions, InstallResult } from './install-types.js'
import type { OutdatedOptions } from './outdated.js'
import type { PatchCommit, PatchCommitOptions, PatchOptions } from './patch.js'
import type { PublishOptions } from './publish.js'

export { install } from './install.js'
export type { AddOptions, ProjectEditOptions, RemoveOptions, UpdateOptions } from './add-remove.js'
export type { InstallEvent, InstallOptions, InstallResult } from './install-types.js'
export type { DirectDependencyChange } from '@lode/pkg-manager.linker'
export { readProjectManifest } from '@lode/pkg-manager.install-context/project-manifest'
export { PNPM_SETTINGS, PROJECT_REFUSED_KEYS, checkPackageManager, getConfig, lodeUserAgent, readWorkspacePackages } from '@lode/pkg-manager.config'
export type { Config, ConfigOverrides } from '@lode/pkg-manager.config'
export type { ApproveBuildsOptions, RebuildOptions } from '@lode/pkg-manager.rebuild'
export type { OutdatedOptions } from './outdated.js'
export type { AuditOptions } from './audit.js'
export type { DedupeOptions } from './dedupe.js'
export type { DeployOptions } from './deploy.js'
export type { FetchOptions } from './fetch.js'
export type { DlxOptions } from './dlx.js'
export type { PatchCommit, PatchCommitOptions, PatchOptions } from './patch.js'
export type { PublishOptions } from './publish.js'
export type { OutdatedPackage } from '@lode/pkg-manager.inspection'
export { filterProjects, findWorkspaceDir, findWorkspaceProjects, projectChunks, sortProjects, workspaceDependencies, workspaceGraphOptions } from '@lode/pkg-manager.workspace'
export type { WorkspaceGraphOptions } from '@lode/pkg-manager.workspace'
export type { WorkspaceProject } from '@lode/pkg-manager.workspace'

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
  return await (await import('@lode/pkg-manager.rebuild')).rebuild(opts)
}

export async function outdated (opts: OutdatedOptions): Promise<OutdatedPackage[]> {
  return await (await import('./outdated.js')).outdated(opts)
}

export async function outdatedOfProjects (
  opts: Omit<OutdatedOptions, 'projectDir'> & { projectDirs: readonly string[] }
): Promise<Array<{ dir: string, name: string | undefined, packages: OutdatedPackage[] }>> {
  return await (await import('./outdated.js')).outdatedOfProjects(opts)
}

export async function dedupe (opts: DedupeOptions): Promise<InstallResult> {
  return await (await import('./dedupe.js')).dedupe(opts)
}

export async function audit (opts: AuditOptions): Promise<{ output: string, exitCode: number }> {
  return await (await import('./audit.js')).audit(opts)
}

export async function fetchPackages (opts: FetchOptions): Promise<{ packages: number, downloaded: number, reused: number }> {
  return await (await import('./fetch.js')).fetchPackages(opts)
}

export async function approveBuilds (opts: ApproveBuildsOptions): Promise<string[] | undefined> {
  return await (await import('@lode/pkg-manager.rebuild')).approveBuilds(opts)
}

export async function buildsAwaitingApproval (config: Config): Promise<string[]> {
  return await (await import('@lode/pkg-manager.rebuild')).buildsAwaitingApproval(config)
}

export async function dlxInstall (opts: DlxOptions): Promise<{ dir: string, cached: boolean }> {
  return await (await import('./dlx.js')).dlxInstall(opts)
}

export async function dlxBin (dir: string): Promise<string> {
  return (await import('./dlx.js')).dlxBin(dir)
}

export async function createPackageName (name: string): Promise<string> {
  return (await import('./dlx.js')).createPackageName(name)
}

/** The store's directory with its layout version (pnpm's `store path`). */
export async function storePath (config: Config): Promise<string> {
  return (await import('@lode/store.cafs')).storePath(config.storeDir)
}

/** A size in bytes as pnpm prints it (`store prune`'s summary). */
export async function prettyBytes (bytes: number): Promise<string> {
  return (await import('@lode/store.controller')).prettyBytes(bytes)
}

export async function storeStatus (config: Config): Promise<string[]> {
  return await (await import('./store-commands.js')).storeStatus(config)
}

export async function storePrune (
  config: Config,
  opts: { force: boolean, now: () => number, onInfo: (message: string) => void, onWarning: (message: string) => void }
): Promise<{ files: number, bytes: number, packages: number }> {
  return await (await import('./store-commands.js')).storePrune(config, opts)
}

export async function preparePatch (opts: PatchOptions): Promise<string | undefined> {
  return await (await import('./patch.js')).preparePatch(opts)
}

export async function patchCommitDiff (opts: PatchCommitOptions): Promise<PatchCommit> {
  return await (await import('./patch.js')).patchCommitDiff(opts)
}

export async function writePatchFile (commit: Pick<PatchCommit, 'file' | 'content'>): Promise<void> {
  (await import('./patch.js')).writePatchFile(commit)
}

export async function importLockfile (opts: InstallOptions): Promise<InstallResult> {
  return await (await import('./import.js')).importLockfile(opts)
}

export async function publishPackage (opts: PublishOptions): Promise<void> {
  await (await import('./publish.js')).publishPackage(opts)
}

export async function isPublished (config: Config, manifest: Record<string, unknown>, signal?: AbortSignal): Promise<boolean> {
  return await (await import('./publish.js')).isPublished(config, manifest, signal)
}

export async function deploy (opts: DeployOptions): Promise<InstallResult> {
  return await (await import('./deploy.js')).deploy(opts)
}
