import type { Config } from '@lode/pkg-manager.core'

import type { MainContext } from '../context.js'
import { VERSION } from '../version.js'
import { projectDir } from './paths.js'
import type { CommandInput } from './types.js'

/**
 * What a command that reads a project needs: its directory (`projectDir`), its workspace's root
 * (undefined outside a workspace) and the settings read there, with `--store-dir` and
 * `--config.<key>` applied.
 */
export async function projectConfig (
  input: CommandInput,
  ctx: MainContext
): Promise<{ dir: string, workspaceDir: string | undefined, config: Config }> {
  const { values, config: overrides } = input.args!
  const { findWorkspaceDir, getConfig } = await import('@lode/pkg-manager.core')
  const dir = projectDir(values['dir'] as string | undefined, ctx)
  const workspaceDir = await findWorkspaceDir(dir)
  const storeDir = values['store-dir'] as string | undefined
  const config = getConfig({
    dir: workspaceDir ?? dir,
    env: ctx.env,
    overrides: { ...storeDir === undefined ? {} : { storeDir }, ...overrides },
    lodeVersion: VERSION,
  })
  return { dir, workspaceDir, config }
}
