import path from 'node:path'

import { MANIFEST_DEPENDENCY_FIELDS } from '@lode/core.constants'
import { splitNameAt } from '@lode/core.dep-path'
import semver from 'semver'

import type { WorkspaceProject } from './types.js'


/** What else makes a dependency one on a workspace project, as pnpm 11's projects graph reads it. */
export interface WorkspaceGraphOptions {
  /** pnpm's `linkWorkspacePackages`: a version or range (an `npm:` alias's too) a project's version satisfies. */
  linkWorkspacePackages?: boolean | 'deep' | undefined
  /** `catalog:` specifiers stand for their catalog's entry. */
  catalogs?: Readonly<Record<string, Readonly<Record<string, string>>>> | undefined
}

/**
 * Which projects each project depends on inside the workspace: `workspace:` specifiers (by name,
 * `workspace:name@range` or `workspace:../path`), `link:`/`file:` paths to a project, and with
 * `linkWorkspacePackages` a version or range a project of that name satisfies (the highest one).
 * Keyed by project id; a project never lists itself.
 */
export function workspaceDependencies (projects: readonly WorkspaceProject[], opts: WorkspaceGraphOptions = {}): Map<string, string[]> {
  const byName = new Map<string, WorkspaceProject>()
  const allByName = new Map<string, WorkspaceProject[]>()
  const byDir = new Map<string, WorkspaceProject>()
  for (const project of projects) {
    const name = project.manifest['name']
    if (typeof name === 'string') {
      byName.set(name, project)
      allByName.set(name, [...allByName.get(name) ?? [], project])
    }
    byDir.set(path.resolve(project.dir), project)
  }
  const linksByVersion = opts.linkWorkspacePackages !== undefined && opts.linkWorkspacePackages !== false
  const edges = new Map<string, string[]>()
  for (const project of projects) {
    const found = new Set<string>()
    for (const group of MANIFEST_DEPENDENCY_FIELDS) {
      const deps = project.manifest[group]
      if (deps === null || typeof deps !== 'object') continue
      for (const [alias, specifier] of Object.entries(deps as Record<string, unknown>)) {
        if (typeof specifier !== 'string') continue
        const spec = catalogEntry(alias, specifier, opts.catalogs) ?? specifier
        const target = targetOf(alias, spec, project.dir, byName, byDir)
          ?? (linksByVersion ? byVersion(alias, spec, allByName) : undefined)
        if (target !== undefined && target !== project) found.add(target.id)
      }
    }
    edges.set(project.id, [...found])
  }
  return edges
}

function targetOf (
  alias: string,
  specifier: string,
  dir: string,
  byName: Map<string, WorkspaceProject>,
  byDir: Map<string, WorkspaceProject>
): WorkspaceProject | undefined {
  for (const protocol of ['link:', 'file:']) {
    if (specifier.startsWith(protocol)) return byDir.get(path.resolve(dir, specifier.slice(protocol.length)))
  }
  if (!specifier.startsWith('workspace:')) return undefined
  const body = specifier.slice('workspace:'.length)
  if (body.startsWith('.')) return byDir.get(path.resolve(dir, body))
  const { name, rest } = splitNameAt(body)
  return byName.get(rest === undefined ? alias : name)
}

function catalogEntry (alias: string, specifier: string, catalogs: WorkspaceGraphOptions['catalogs']): string | undefined {
  if (!specifier.startsWith('catalog:')) return undefined
  const entries = catalogs?.[specifier.slice('catalog:'.length) || 'default']
  return entries !== undefined && Object.hasOwn(entries, alias) ? entries[alias] : undefined
}

/** The project of that name (an `npm:` alias's target) whose version the range takes: the version itself, else the highest in range. */
function byVersion (
  alias: string,
  specifier: string,
  allByName: ReadonlyMap<string, readonly WorkspaceProject[]>
): WorkspaceProject | undefined {
  let name = alias
  let range = specifier
  if (specifier.startsWith('npm:')) {
    const at = specifier.lastIndexOf('@')
    if (at <= 'npm:'.length) return undefined
    name = specifier.slice('npm:'.length, at)
    range = specifier.slice(at + 1)
  }
  if (semver.validRange(range, { loose: true }) === null) return undefined
  const candidates = (allByName.get(name) ?? []).filter((project) => typeof project.manifest['version'] === 'string')
  const versions = candidates.map((project) => project.manifest['version'] as string)
  const picked = ['*', '^', '~', ''].includes(range)
    ? semver.maxSatisfying(versions, '*', { includePrerelease: true })
    : versions.includes(range) ? range : semver.maxSatisfying(versions, range, { loose: true })
  return picked === null ? undefined : candidates.find((project) => project.manifest['version'] === picked)
}

/**
 * The projects ordered so that each comes after the projects it depends on inside the workspace
 * (pnpm's order for `-r` commands and install scripts); the given order otherwise. In a cycle, the
 * project reached first stays first.
 */
export function sortProjects<T extends WorkspaceProject> (projects: readonly T[], edges = workspaceDependencies(projects)): T[] {
  const byId = new Map(projects.map((project) => [project.id, project]))
  const ordered: T[] = []
  const seen = new Set<string>()
  // A depth-first walk with a stack of its own: a chain of thousands of projects overflows none.
  for (const start of projects) {
    if (seen.has(start.id)) continue
    seen.add(start.id)
    const stack = [{ project: start, next: 0 }]
    while (stack.length > 0) {
      const top = stack.at(-1)!
      const dependencies = edges.get(top.project.id) ?? []
      if (top.next < dependencies.length) {
        const dependency = byId.get(dependencies[top.next++]!)
        if (dependency !== undefined && !seen.has(dependency.id)) {
          seen.add(dependency.id)
          stack.push({ project: dependency, next: 0 })
        }
        continue
      }
      ordered.push(top.project)
      stack.pop()
    }
  }
  return ordered
}

/**
 * pnpm's graph sequencer: the projects in chunks, each chunk the projects whose dependencies inside
 * the selection are all in earlier chunks, in the order given. When a cycle leaves none ready, its
 * first project in that order goes alone. `-r` commands that run one project at a time (`exec`,
 * `pack`) go chunk by chunk, as pnpm does.
 */
export function projectChunks<T extends WorkspaceProject> (projects: readonly T[], edges = workspaceDependencies(projects)): T[][] {
  const ids = new Set(projects.map((project) => project.id))
  const done = new Set<string>()
  const chunks: T[][] = []
  let left = [...projects]
  while (left.length > 0) {
    let chunk = left.filter((project) => (edges.get(project.id) ?? []).every((id) => done.has(id) || !ids.has(id)))
    if (chunk.length === 0) chunk = [left[0]!]
    for (const project of chunk) done.add(project.id)
    left = left.filter((project) => !done.has(project.id))
    chunks.push(chunk)
  }
  return chunks
}

/** The settings of a pnpm-workspace.yaml (as read) that the projects graph follows: `linkWorkspacePackages`, the catalogs. */
export function workspaceGraphOptions (settings: Readonly<Record<string, unknown>>): WorkspaceGraphOptions {
  const link = settings['linkWorkspacePackages']
  const entries = (value: unknown): Record<string, string> => value !== null && typeof value === 'object'
    ? Object.fromEntries(Object.entries(value).filter((entry): entry is [string, string] => typeof entry[1] === 'string'))
    : {}
  const named = settings['catalogs'] !== null && typeof settings['catalogs'] === 'object' ? settings['catalogs'] as Record<string, unknown> : {}
  return {
    linkWorkspacePackages: link === true || link === 'deep' ? link : false,
    catalogs: { ...Object.fromEntries(Object.entries(named).map(([name, value]) => [name, entries(value)])), default: entries(settings['catalog']) },
  }
}
