import path from 'node:path'

import { LodeError } from '@lode/core.error'
import { createMatcher } from '@lode/core.matcher'

import { workspaceDependencies } from './graph.js'
import type { WorkspaceProject } from './types.js'

/** One `--filter` selector taken apart, as pnpm reads it. */
export interface ProjectSelector {
  raw: string
  /** `!selector`: the matches are removed from the selection. */
  exclude: boolean
  namePattern?: string | undefined
  /** `{dir}` or `./dir`: projects in that directory (absolute; may hold `*` globs). */
  parentDir?: string | undefined
  /** `name...`: with every project it depends on, directly or not. */
  includeDependencies: boolean
  /** `...name`: with every project that depends on it, directly or not. */
  includeDependents: boolean
  /** `name^...` / `...^name`: the dependencies (dependents) only, not the project itself. */
  excludeSelf: boolean
}

/**
 * Reads a `--filter` selector relative to `cwd`: `name` (with `*` globs), `{dir}`, `./dir`,
 * `name{dir}`, with `...` and `^...` on either side and `!` in front.
 */
export function parseProjectSelector (raw: string, cwd: string): ProjectSelector {
  let rest = raw
  const exclude = rest.startsWith('!')
  if (exclude) rest = rest.slice(1)
  let excludeSelf = false
  const includeDependencies = rest.endsWith('...')
  if (includeDependencies) {
    rest = rest.slice(0, -3)
    if (rest.endsWith('^')) {
      excludeSelf = true
      rest = rest.slice(0, -1)
    }
  }
  const includeDependents = rest.startsWith('...')
  if (includeDependents) {
    rest = rest.slice(3)
    if (rest.startsWith('^')) {
      excludeSelf = true
      rest = rest.slice(1)
    }
  }
  const selector = { raw, exclude, includeDependencies, includeDependents, excludeSelf }
  const match = /^(?<name>[^.{}[\]][^{}[\]]*)?(?:\{(?<dir>[^}]+)\})?(?<since>\[.*\])?$/.exec(rest)
  if (match?.groups?.['since'] !== undefined) {
    throw new LodeError('UNSUPPORTED_FILTER', `The filter "${raw}" selects projects changed since a git revision, which lode does not support yet.`, {
      hint: 'Select the projects by name or directory instead.',
    })
  }
  if (match !== null && (match.groups?.['name'] !== undefined || match.groups?.['dir'] !== undefined)) {
    const dir = match.groups['dir']
    return { ...selector, namePattern: match.groups['name'], parentDir: dir === undefined ? undefined : path.resolve(cwd, dir) }
  }
  if (rest.startsWith('.')) return { ...selector, parentDir: path.resolve(cwd, rest) }
  throw new LodeError('INVALID_FILTER', `The filter "${raw}" selects nothing: it has no project name or directory.`, {
    hint: 'Use a project name (@scope/*), a directory ({packages/a} or ./packages/a), with ... for dependencies or dependents.',
  })
}

export interface FilterResult<T extends WorkspaceProject> {
  /** The selected projects, in the order they were given. */
  selected: T[]
  /** The selectors that matched no project. */
  unmatched: string[]
}

/**
 * The projects pnpm's `--filter` selectors pick: the union of the including selectors (every
 * project but the workspace root when there are only excluding ones), less what the excluding
 * selectors match.
 */
export function filterProjects<T extends WorkspaceProject> (
  projects: readonly T[],
  rawSelectors: readonly string[],
  cwd: string,
  dependencies = workspaceDependencies(projects)
): FilterResult<T> {
  const selectors = rawSelectors.map((raw) => parseProjectSelector(raw, cwd))
  const dependents = new Map<string, string[]>(projects.map((project) => [project.id, []]))
  for (const [id, targets] of dependencies) for (const target of targets) dependents.get(target)?.push(id)

  const unmatched: string[] = []
  const include = new Set<string>()
  const exclude = new Set<string>()
  for (const selector of selectors) {
    const picked = select(projects, selector, dependencies, dependents)
    if (picked.size === 0) unmatched.push(selector.raw)
    for (const id of picked) (selector.exclude ? exclude : include).add(id)
  }
  const includesAll = selectors.every((selector) => selector.exclude)
  const selected = projects.filter((project) => (includesAll ? project.id !== '.' : include.has(project.id)) && !exclude.has(project.id))
  return { selected, unmatched }
}

function select (
  projects: readonly WorkspaceProject[],
  selector: ProjectSelector,
  dependencies: Map<string, string[]>,
  dependents: Map<string, string[]>
): Set<string> {
  const nameMatches = nameMatcher(selector.namePattern, projects)
  const seeds = projects.filter((project) => nameMatches(project) && inDir(project, selector.parentDir)).map((project) => project.id)
  const picked = new Set<string>(selector.excludeSelf ? [] : seeds)
  const walk = (edges: Map<string, string[]>): void => {
    const queue = seeds.flatMap((id) => edges.get(id) ?? [])
    for (let id = queue.shift(); id !== undefined; id = queue.shift()) {
      if (picked.has(id)) continue
      picked.add(id)
      queue.push(...edges.get(id) ?? [])
    }
  }
  if (selector.includeDependencies) walk(dependencies)
  if (selector.includeDependents) walk(dependents)
  return picked
}

/** A name pattern; as in pnpm, an unscoped pattern that matches no project's name is tried under any scope. */
function nameMatcher (pattern: string | undefined, projects: readonly WorkspaceProject[]): (project: WorkspaceProject) => boolean {
  if (pattern === undefined) return () => true
  const byName = (match: (name: string) => boolean) => (project: WorkspaceProject): boolean => typeof project.manifest['name'] === 'string' && match(project.manifest['name'])
  const direct = byName(createMatcher([pattern]))
  if (pattern.startsWith('@') || pattern.includes('/') || projects.some(direct)) return direct
  return byName(createMatcher([`@*/${pattern}`]))
}

/** A directory selector: the directory and everything under it, or, with `*` in it, the directories its glob matches. */
function inDir (project: WorkspaceProject, parentDir: string | undefined): boolean {
  if (parentDir === undefined) return true
  const dir = path.resolve(project.dir)
  if (!parentDir.includes('*')) return dir === parentDir || dir.startsWith(parentDir + path.sep)
  return globMatches(parentDir.split(path.sep).join('/'), dir.split(path.sep).join('/'))
}

/**
 * Whether `text` matches `glob`, where `**` is any run of characters and `*` any run without `/`.
 * One pass per character of the glob over the text's positions, never backtracking: a regular
 * expression of `[^/]*` runs (`{*a*a*a*a*a*a*b}`) took seconds on a project's directory.
 */
function globMatches (glob: string, text: string): boolean {
  // reached[j]: the glob so far can match text.slice(0, j).
  let reached = new Array<boolean>(text.length + 1).fill(false)
  reached[0] = true
  for (let i = 0; i < glob.length; i++) {
    const next = new Array<boolean>(text.length + 1).fill(false)
    if (glob[i] === '*') {
      const crossesSlash = glob[i + 1] === '*'
      if (crossesSlash) i++
      let open = false
      for (let j = 0; j <= text.length; j++) {
        if (!crossesSlash && j > 0 && text[j - 1] === '/') open = false
        open ||= reached[j]!
        next[j] = open
      }
    } else {
      for (let j = 0; j < text.length; j++) if (reached[j] === true && text[j] === glob[i]) next[j + 1] = true
    }
    reached = next
  }
  return reached[text.length]!
}
