import path from 'node:path'

import type { WorkspaceProject } from '@lode/pkg-manager.core'

/** Which workspace projects a command runs in: `-r`, `--filter`/`-F`, `-w`, `--fail-if-no-match`. */
export interface Selection {
  recursive: boolean
  filters: string[]
  workspaceRoot: boolean
  failIfNoMatch: boolean
}

/**
 * Takes the selection flags from the front of `argv` (before the script or command name, where
 * pnpm reads them); returns them and the rest, which belongs to the command.
 */
export function takeSelection (argv: readonly string[]): { selection: Selection, rest: string[] } {
  const selection: Selection = { recursive: false, filters: [], workspaceRoot: false, failIfNoMatch: false }
  let i = 0
  for (; i < argv.length; i++) {
    const arg = argv[i]!
    if (arg === '-r' || arg === '--recursive') selection.recursive = true
    else if (arg === '-w' || arg === '--workspace-root') selection.workspaceRoot = true
    else if (arg === '--fail-if-no-match') selection.failIfNoMatch = true
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
 * The projects a selection names, each after the projects it depends on. `-r` alone takes every
 * project but the root, as pnpm does; filters may select the root. Errors are `LodeError`s.
 */
export async function selectProjects (selection: Selection, cwd: string): Promise<{ projects: WorkspaceProject[], total: number, unmatched: string[], rootDir: string } | undefined> {
  const { findWorkspaceDir, findWorkspaceProjects, filterProjects, readWorkspacePackages, sortProjects } = await import('@lode/pkg-manager.core')
  const rootDir = await findWorkspaceDir(cwd)
  if (rootDir === undefined) return undefined
  const all = await findWorkspaceProjects(rootDir, readWorkspacePackages(rootDir) ?? [])
  const { selected, unmatched } = selection.filters.length > 0
    ? filterProjects(all, selection.filters, path.resolve(cwd))
    : { selected: all.filter((project) => project.id !== '.'), unmatched: [] }
  return { projects: sortProjects(selected), total: all.length, unmatched, rootDir }
}
