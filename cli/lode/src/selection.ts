import path from 'node:path'

import { LodeError } from '@lode/core.error'
import type { WorkspaceGraphOptions, WorkspaceProject } from '@lode/pkg-manager.core'

import type { MainContext } from './context.js'
import { writeLodeError } from './report-error.js'

/** Which workspace projects a command runs in: `-r`, `--filter`/`-F`, `-w`, `--fail-if-no-match`. */
export interface Selection {
  recursive: boolean
  filters: string[]
  workspaceRoot: boolean
  failIfNoMatch: boolean
  /** `run --if-present`: a missing script is no error (read with the selection flags, before the script's name, as pnpm reads it). */
  ifPresent: boolean
}

/**
 * Takes the selection flags from the front of `argv` (before the script or command name, where
 * pnpm reads them); returns them and the rest, which belongs to the command. `takeOther` takes the
 * command's own flags there: it returns how many arguments it took (0: none, the flag is not its).
 */
export function takeSelection (
  argv: readonly string[],
  takeOther: (arg: string, next: string | undefined) => number = () => 0
): { selection: Selection, rest: string[] } {
  const selection: Selection = { recursive: false, filters: [], workspaceRoot: false, failIfNoMatch: false, ifPresent: false }
  let i = 0
  for (; i < argv.length; i++) {
    const arg = argv[i]!
    const taken = takeOther(arg, argv[i + 1])
    if (taken > 0) i += taken - 1
    else if (arg === '-r' || arg === '--recursive') selection.recursive = true
    else if (arg === '-w' || arg === '--workspace-root') selection.workspaceRoot = true
    else if (arg === '--fail-if-no-match') selection.failIfNoMatch = true
    else if (arg === '--if-present') selection.ifPresent = true
    else if ((arg === '--filter' || arg === '-F') && i + 1 < argv.length) selection.filters.push(argv[++i]!)
    else if (arg.startsWith('--filter=')) selection.filters.push(arg.slice('--filter='.length))
    else break
  }
  return { selection, rest: argv.slice(i) }
}

export function selectsProjects (selection: Selection): boolean {
  return selection.recursive || selection.filters.length > 0
}

/**
 * The projects a selection names, each after the projects it depends on, as pnpm selects them.
 * Without a pnpm-workspace.yaml above `cwd`, the workspace is `cwd` and every project under it
 * (pnpm's default patterns `.` and `**`). With no positive filter, `skipsRoot` commands (pnpm's
 * run, exec, add, test) leave the workspace root out; the others take it too. Errors are `LodeError`s.
 */
export async function selectProjects (
  selection: Selection,
  cwd: string,
  opts: { skipsRoot?: boolean } = {}
): Promise<{ projects: WorkspaceProject[], total: number, unmatched: string[], rootDir: string, inWorkspace: boolean }> {
  const { findWorkspaceDir, findWorkspaceProjects, filterProjects, readWorkspacePackages, sortProjects, workspaceDependencies } = await import('@lode/pkg-manager.core')
  const workspaceDir = await findWorkspaceDir(cwd)
  const rootDir = workspaceDir ?? path.resolve(cwd)
  const patterns = workspaceDir === undefined ? ['.', '**'] : readWorkspacePackages(workspaceDir) ?? []
  const all = await findWorkspaceProjects(rootDir, patterns)
  const graph = workspaceDependencies(all, await graphOptionsIn(workspaceDir))
  const filtered = selection.filters.length > 0
    ? filterProjects(all, selection.filters, path.resolve(cwd), graph)
    : { selected: all, unmatched: [] }
  const { unmatched } = filtered
  // pnpm's --workspace-root beside --filter: the root is selected too.
  const root = all.find((project) => project.id === '.')
  const selected = selection.workspaceRoot && selection.filters.length > 0 && root !== undefined && !filtered.selected.includes(root)
    ? [root, ...filtered.selected]
    : filtered.selected
  // A pnpm-workspace.yaml without projects (none listed, or only `.`) has the root alone.
  const rootOnly = patterns.length === 0 || (patterns.length === 1 && patterns[0] === '.')
  const skipRoot = opts.skipsRoot === true && workspaceDir !== undefined && !rootOnly && !selection.filters.some((filter) => !filter.startsWith('!'))
  const projects = skipRoot ? selected.filter((project) => project.id !== '.') : selected
  return { projects: sortProjects(projects, graph), total: all.length, unmatched, rootDir, inWorkspace: workspaceDir !== undefined }
}

/**
 * The settings of the workspace's pnpm-workspace.yaml that make a dependency one on a project, as
 * pnpm's projects graph follows them (`linkWorkspacePackages`, the catalogs); none outside a workspace.
 */
async function graphOptionsIn (workspaceDir: string | undefined): Promise<WorkspaceGraphOptions> {
  if (workspaceDir === undefined) return {}
  const [{ readWorkspaceYaml }, { workspaceGraphOptions }] = await Promise.all([import('@lode/pkg-manager.config.settings'), import('@lode/pkg-manager.core')])
  return workspaceGraphOptions(readWorkspaceYaml(workspaceDir))
}

/** The projects graph of the workspace `cwd` is in (see `graphOptionsIn`). */
export async function projectsGraph (projects: readonly WorkspaceProject[], cwd: string): Promise<Map<string, string[]>> {
  const { findWorkspaceDir, workspaceDependencies } = await import('@lode/pkg-manager.core')
  return workspaceDependencies(projects, await graphOptionsIn(await findWorkspaceDir(cwd)))
}

/**
 * A command that lode runs on one lockfile's projects, given -r or --filter outside a workspace,
 * where pnpm would take every project under the directory with a lockfile each.
 */
export function notAWorkspace (command: string, dir: string): LodeError {
  return new LodeError('NOT_A_WORKSPACE', `lode ${command} with -r or --filter needs a workspace, and there is no pnpm-workspace.yaml in ${dir} or above.`, {
    hint: `Run lode ${command} in each project, or add a pnpm-workspace.yaml listing the projects.`,
  })
}

/** pnpm's "Scope: …" line: none for a single project. */
function scopeLine (selected: number, total: number, inWorkspace: boolean): string | undefined {
  if (selected === 1) return undefined
  return `Scope: ${selected === total ? `all ${total}` : `${selected} of ${total}`} ${inWorkspace ? 'workspace projects' : 'projects'}`
}

/** The projects a selection names, in dependency order, with "Scope: …" printed (when asked); or the exit code when there is nothing to do. */
export async function selectedProjects (
  selection: Selection,
  ctx: Pick<MainContext, 'cwd' | 'stdout' | 'stderr'>,
  opts: { showScope?: boolean, skipsRoot?: boolean } = {}
): Promise<WorkspaceProject[] | number> {
  let found
  try {
    found = await selectProjects(selection, ctx.cwd, opts)
  } catch (err) {
    return writeLodeError(err, ctx.stderr)
  }
  if (found.total === 0) {
    ctx.stdout.write(`No projects found in "${found.rootDir}"\n`)
    return selection.failIfNoMatch ? 1 : 0
  }
  if (found.unmatched.length > 0 && selection.failIfNoMatch) {
    return writeLodeError(new LodeError('FILTER_NO_MATCH', `No projects matched the filters ${found.unmatched.map((f) => `"${f}"`).join(', ')} in "${found.rootDir}".`), ctx.stderr)
  }
  if (found.projects.length === 0) {
    ctx.stdout.write(`No projects matched the filters in "${found.rootDir}"\n`)
    return 0
  }
  const scope = opts.showScope === true ? scopeLine(found.projects.length, found.total, found.inWorkspace) : undefined
  if (scope !== undefined) ctx.stdout.write(`${scope}\n`)
  return found.projects
}

/** The projects in the order pnpm runs one-at-a-time `-r` commands (`exec`, `pack`): chunk by chunk of its graph sequencer, each chunk in directory order. */
export async function inChunkOrder (projects: readonly WorkspaceProject[], cwd: string): Promise<WorkspaceProject[]> {
  const { projectChunks } = await import('@lode/pkg-manager.core')
  const byDir = [...projects].sort((a, b) => a.dir < b.dir ? -1 : a.dir > b.dir ? 1 : 0)
  return projectChunks(byDir, await projectsGraph(byDir, cwd)).flat()
}
