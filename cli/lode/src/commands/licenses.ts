import { LodeError } from '@lode/core.error'

import type { MainContext } from '../context.js'
import { includeOf } from './inspect.js'
import { projectConfig, workspaceProjectDirs } from './project-config.js'
import type { CommandInput } from './types.js'

const path = process.getBuiltinModule('node:path')

/**
 * `lode licenses list`: the licenses of the packages the project installs (in a workspace, with
 * `-r`/`--filter`, the selected projects'), as pnpm 11 prints them: a table, or with `--json`
 * grouped by license.
 */
export async function licensesCommand (input: CommandInput, ctx: MainContext): Promise<number> {
  const { values, positionals } = input.args!
  const sub = positionals[0]
  if (sub !== 'list' && sub !== 'ls') {
    throw new LodeError('BAD_ARGUMENTS', `lode licenses takes a subcommand: list${sub === undefined ? '' : ` (not "${sub}")`}.`, { hint: 'For example: lode licenses list --json' })
  }
  const { dir, workspaceDir, config } = await projectConfig(input, ctx)
  const lockfileDir = workspaceDir ?? dir
  const filters = values['filter'] as string[] | undefined ?? []
  // Not recursive by default (pnpm's licenses is not): from the workspace root, the root's own dependencies.
  const recursive = workspaceDir !== undefined && (values['recursive'] === true || filters.length > 0)
  const projectDirs = workspaceDir !== undefined && recursive ? await workspaceProjectDirs(workspaceDir, filters, dir) : [dir]
  const { licenses } = await import('@lode/pkg-manager.reviewing.inspection')
  const output = await licenses({
    lockfileDir,
    importerIds: projectDirs.map((projectDir) => path.relative(lockfileDir, projectDir).split(path.sep).join('/') || '.'),
    include: includeOf(values),
    resolvePeersFromWorkspaceRoot: config.resolvePeersFromWorkspaceRoot,
    format: values['json'] === true ? 'json' : 'table',
    long: values['long'] === true,
  })
  ctx.stdout.write(output.endsWith('\n') ? output : `${output}\n`)
  return 0
}
