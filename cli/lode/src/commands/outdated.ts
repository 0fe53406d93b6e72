import { LodeError } from '@lode/core.error'

import type { MainContext } from '../context.js'
import { notAWorkspace, selectedProjects, selectsProjects } from '../selection.js'
import type { Selection } from '../selection.js'
import { includeOf } from './inspect.js'
import { projectConfig, workspaceProjectDirs } from './project-config.js'
import type { CommandInput } from './types.js'

const FORMATS = ['table', 'list', 'json'] as const

/**
 * `lode outdated [names…]`: the project's direct dependencies with newer versions, as pnpm 11
 * reports them (a table, `--format list|json`); exits 1 when any is outdated.
 */
export async function outdatedCommand (input: CommandInput, ctx: MainContext): Promise<number> {
  const { values, positionals } = input.args!
  const format = (values['format'] ?? 'table') as string
  if (!(FORMATS as readonly string[]).includes(format)) {
    throw new LodeError('BAD_OUTDATED_FORMAT', `Unsupported format: ${format}`, { hint: 'Use --format table, list or json.' })
  }
  const { outdatedOfProjects, renderOutdated, renderOutdatedRecursive } = await import('@lode/pkg-manager.reviewing.inspection')
  const { dir, workspaceDir, config } = await projectConfig(input, ctx)
  const selection: Selection = {
    recursive: values['recursive'] === true,
    filters: values['filter'] as string[] | undefined ?? [],
    workspaceRoot: values['workspace-root'] === true,
    failIfNoMatch: values['fail-if-no-match'] === true,
    ifPresent: false,
  }
  const recursive = selectsProjects(selection)
  let projectDirs = [dir]
  if (recursive && selection.filters.length === 0 && workspaceDir !== undefined) {
    // pnpm's `outdated -r` reports every project, the workspace root's too.
    projectDirs = await workspaceProjectDirs(workspaceDir, [], dir)
  } else if (recursive) {
    // pnpm reads each project's own lockfile then; lode reads one lockfile's projects.
    if (workspaceDir === undefined) throw notAWorkspace('outdated', dir)
    const selected = await selectedProjects(selection, { ...ctx, cwd: dir })
    if (typeof selected === 'number') return selected
    projectDirs = selected.map((project) => project.dir)
  }
  const projects = await outdatedOfProjects({
    config,
    now: () => Date.now(),
    projectDirs,
    include: includeOf(values),
    names: positionals,
    compatible: values['compatible'] === true,
    long: values['long'] === true,
    onWarning: (message) => { ctx.stderr.write(`WARN  ${message}\n`) },
  })
  const output = recursive
    ? renderOutdatedRecursive(projects, format as typeof FORMATS[number], values['long'] === true)
    : renderOutdated(projects[0]!.packages, format as typeof FORMATS[number], values['long'] === true)
  if (output !== '') ctx.stdout.write(output.endsWith('\n') ? output : `${output}\n`)
  return projects.every((project) => project.packages.length === 0) ? 0 : 1
}
