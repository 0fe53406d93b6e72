import type { Config } from '@lode/pkg-manager.core'

import type { MainContext } from '../context.js'
import { VERSION } from '../version.js'
import { projectDir } from './paths.js'
import { settingsOf } from './settings.js'
import type { CommandInput } from './types.js'

/**
 * What a command that reads a project needs: its directory (`projectDir`), its workspace's root
 * (undefined outside a workspace) and the settings read there, with the command line's settings
 * (`--registry`, `--store-dir`, … as the command takes them) and `--config.<key>` applied.
 */
export async function projectConfig (
  input: CommandInput,
  ctx: MainContext
): Promise<{ dir: string, workspaceDir: string | undefined, config: Config }> {
  const { values, config: overrides } = input.args!
  const { findWorkspaceDir, getConfig } = await import('@lode/pkg-manager.core')
  const dir = projectDir(values['dir'] as string | undefined, ctx)
  const workspaceDir = await findWorkspaceDir(dir)
  const config = getConfig({
    dir: workspaceDir ?? dir,
    env: ctx.env,
    overrides: { ...settingsOf(values), ...overrides },
    lodeVersion: VERSION,
  })
  return { dir, workspaceDir, config }
}

/**
 * The directories of a workspace's projects, the root's too, in directory order (code units, as
 * pnpm orders a recursive listing); with `filters`, only the projects pnpm's selectors pick.
 */
export async function workspaceProjectDirs (workspaceDir: string, filters: readonly string[], cwd: string): Promise<string[]> {
  const { findWorkspaceProjects, filterProjects, readWorkspacePackages } = await import('@lode/pkg-manager.core')
  const all = (await findWorkspaceProjects(workspaceDir, readWorkspacePackages(workspaceDir) ?? []))
    .sort((a, b) => a.dir < b.dir ? -1 : a.dir > b.dir ? 1 : 0)
  const selected = filters.length > 0 ? new Set(filterProjects(all, [...filters], cwd).selected.map((project) => project.dir)) : undefined
  return all.filter((project) => selected === undefined || selected.has(project.dir)).map((project) => project.dir)
}
