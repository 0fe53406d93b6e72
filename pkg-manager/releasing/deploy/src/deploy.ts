import fs from 'node:fs'
import path from 'node:path'

import type { DependencyGroup } from '@lode/core.constants'
import { LodeError } from '@lode/core.error'
import { packedFiles } from '@lode/fs.packlist'
import type { Config } from '@lode/pkg-manager.config.settings'
import { readWorkspacePackages } from '@lode/pkg-manager.config.settings'
import { findWorkspaceProjects } from '@lode/pkg-manager.config.workspace'
import type { InstallEvent, InstallOptions, InstallResult } from '@lode/pkg-manager.installing.installer'
import { readLockfile, writeLockfile } from '@lode/pkg-manager.lockfile.format'
import { yaml } from '@lode/pkg-manager.lockfile.format/yaml'


import { createDeployFiles } from './deploy-files.js'
import { prepareDeployDir, validateDeployTarget } from './deploy-target.js'

export interface DeployOptions {
  /** The workspace's settings (read at its root). */
  config: Config
  /** The settings of the deploy directory, once its files are written (its pnpm-workspace.yaml makes it a workspace of its own). */
  configFor: (deployDir: string) => Config
  /** The project to deploy. */
  projectDir: string
  deployDir: string
  /** Where the command runs (the target may not contain it). */
  cwd: string
  /** `--force`: an existing target (inside the workspace) is emptied first. */
  force: boolean
  include: Readonly<Record<DependencyGroup, boolean>>
  /** `--ignore-scripts`: no package's build runs. */
  ignoreScripts?: boolean | undefined
  now: () => number
  signal?: AbortSignal | undefined
  onEvent?: ((event: InstallEvent) => void) | undefined
}

/**
 * pnpm 11's `deploy` (its shared-lockfile form): the project's files as `npm pack` would pack
 * them copied into the target, with a package.json, a pnpm-lock.yaml cut down from the
 * workspace's to what the project reaches (its workspace dependencies become copies) and a
 * pnpm-workspace.yaml that makes the target a workspace of its own; then a frozen install there.
 * Nothing is resolved. A failed deploy removes the target it made. `install` is the install the
 * target gets (core's, which records its state).
 */
export async function deploy (opts: DeployOptions, install: (opts: InstallOptions) => Promise<InstallResult>): Promise<InstallResult> {
  const { config, projectDir, deployDir } = opts
  const workspaceDir = config.dir
  validateDeployTarget(deployDir, { dir: opts.cwd, projectDir, workspaceDir, force: opts.force })
  const read = await readLockfile(workspaceDir)
  if (read === undefined) {
    throw new LodeError('DEPLOY_NO_LOCKFILE', `There is no pnpm-lock.yaml in ${workspaceDir}: lode deploy takes the deployed dependencies from it.`, {
      hint: 'Run lode install in the workspace first (pnpm deploys without a lockfile by resolving anew; lode does not yet).',
    })
  }
  const projects = (await findWorkspaceProjects(workspaceDir, readWorkspacePackages(workspaceDir) ?? []))
    .map((project) => ({ dir: fs.realpathSync(project.dir), manifest: project.manifest }))
  const realProjectDir = fs.realpathSync(projectDir)
  const manifest = projects.find((project) => project.dir === realProjectDir)?.manifest
  if (manifest === undefined) throw new LodeError('DEPLOY_NOT_A_PROJECT', `${projectDir} is not a project of the workspace at ${workspaceDir}.`)
  const files = createDeployFiles({
    lockfile: read.lockfile,
    lockfileDir: fs.realpathSync(workspaceDir),
    projectId: path.relative(fs.realpathSync(workspaceDir), realProjectDir).split(path.sep).join('/') || '.',
    projects,
    deployDir: path.resolve(deployDir),
    include: opts.include,
    manifest,
    patchedDependencies: config.patchedDependencies,
    allowBuilds: config.allowBuilds,
  })
  prepareDeployDir(deployDir, { workspaceDir, force: opts.force })
  try {
    await copyPackedFiles(projectDir, deployDir, manifest, workspaceDir)
    fs.writeFileSync(path.join(deployDir, 'package.json'), `${JSON.stringify(files.manifest, undefined, 2)}\n`)
    await writeLockfile(deployDir, files.lockfile)
    fs.writeFileSync(path.join(deployDir, 'pnpm-workspace.yaml'), yaml().stringify(files.workspaceManifest))
    return await install({
      config: opts.configFor(deployDir),
      frozenLockfile: true,
      include: opts.include,
      ...opts.ignoreScripts === true ? { ignoreScripts: true } : {},
      now: opts.now,
      ...opts.signal === undefined ? {} : { signal: opts.signal },
      ...opts.onEvent === undefined ? {} : { onEvent: opts.onEvent },
    })
  } catch (err) {
    fs.rmSync(deployDir, { recursive: true, force: true })
    throw err
  }
}

/** The project's files as `npm pack` would pack them, copied (never linked) into the target, with their modes. */
async function copyPackedFiles (
  projectDir: string,
  deployDir: string,
  manifest: Record<string, unknown>,
  workspaceDir: string
): Promise<void> {
  for (const file of await packedFiles(projectDir, manifest, { workspaceDir })) {
    const target = path.join(deployDir, file)
    fs.mkdirSync(path.dirname(target), { recursive: true })
    fs.copyFileSync(path.join(projectDir, file), target)
    fs.chmodSync(target, fs.statSync(path.join(projectDir, file)).mode & 0o777)
  }
}
