import { LodeError } from '@lode/core.error'

import { completionCandidates } from '../completion/candidates.js'
import { renderCandidates } from '../completion/render.js'
import { SHELLS, completionScript, isShell } from '../completion/shell-scripts.js'
import type { Shell } from '../completion/shell-scripts.js'
import type { MainContext } from '../context.js'
import type { CommandInput, CommandSpec } from './types.js'

/** `lode completion <bash|fish|pwsh|zsh>`: the shell's completion script, to source (pnpm's words for a wrong shell). */
export function completionCommand (input: CommandInput, ctx: MainContext): number {
  const [shell, ...extra] = input.args!.positionals
  if (extra.length > 0) throw new LodeError('REDUNDANT_PARAMETERS', `The ${extra.length} parameters after shell is not necessary`)
  const name = shell?.trim()
  if (name === undefined || name === '') throw new LodeError('MISSING_SHELL_NAME', '`lode completion` requires a shell name', { hint: `Supported shells are: ${SHELLS.join(', ')}` })
  if (!isShell(name)) throw new LodeError('UNSUPPORTED_SHELL', `'${name}' is not supported`, { hint: `Supported shells are: ${SHELLS.join(', ')}` })
  ctx.stdout.write(completionScript(name))
  return 0
}

/**
 * `lode completion-server`, which the completion scripts run: the candidates for the command line
 * in COMP_LINE (cut at the cursor), in the format of the shell in SHELL. Prints nothing rather than
 * fail: an error would land in the user's command line.
 */
export async function completionServer (
  ctx: MainContext,
  commands: readonly CommandSpec[],
  valueOptions: ReadonlySet<string>
): Promise<number> {
  const line = ctx.env['COMP_LINE']
  if (line === undefined) return 0
  const shell: Shell = isShell(ctx.env['SHELL'] ?? '') ? ctx.env['SHELL'] as Shell : 'bash'
  try {
    const projects = async (): Promise<string[]> => await projectNames(ctx.cwd)
    const candidates = await completionCandidates(line, { commands, valueOptions, cwd: ctx.cwd, projectNames: projects })
    ctx.stdout.write(renderCandidates(candidates, shell))
  } catch {
    // Nothing to offer.
  }
  return 0
}

/** The names of the projects of the workspace around `cwd` (the project's own outside one). */
async function projectNames (cwd: string): Promise<string[]> {
  const { findWorkspaceDir, findWorkspaceProjects, readWorkspacePackages } = await import('@lode/pkg-manager.core')
  const root = await findWorkspaceDir(cwd) ?? cwd
  const projects = await findWorkspaceProjects(root, readWorkspacePackages(root) ?? ['.'])
  return projects.map((project) => project.manifest['name']).filter((name): name is string => typeof name === 'string' && name !== '')
}
