import fs from 'node:fs/promises'
import path from 'node:path'

import { hasErrno } from '@lode/fs.error'
import { checkDependencyGroups, parsePackageJson } from '@lode/fs.package-json'
import { glob } from 'tinyglobby'

/** A project of a workspace: its directory, its id in the lockfile (`.`, `packages/a`) and its package.json. */
export interface WorkspaceProject {
  dir: string
  /** The path from the workspace root, `/`-separated: the project's key in `importers`. */
  id: string
  manifest: Record<string, unknown>
}

/**
 * The workspace root `dir` belongs to: the nearest directory, `dir` or above, with a
 * pnpm-workspace.yaml (pnpm installs the whole workspace from any of its projects). Undefined
 * outside a workspace.
 */
export async function findWorkspaceDir (dir: string): Promise<string | undefined> {
  for (let current = path.resolve(dir); ; current = path.dirname(current)) {
    try {
      await fs.access(path.join(current, 'pnpm-workspace.yaml'))
      return current
    } catch {
      // not here: look above
    }
    if (path.dirname(current) === current) return undefined
  }
}

// Never searched, as in pnpm.
const IGNORED = ['**/node_modules/**', '**/bower_components/**']

/**
 * The projects of the workspace at `rootDir`, as pnpm finds them: every directory with a
 * package.json that the `packages` globs of pnpm-workspace.yaml match (`!` patterns exclude),
 * never inside node_modules, plus the root itself. Sorted by id, the root (`.`) first.
 */
export async function findWorkspaceProjects (rootDir: string, patterns: readonly string[]): Promise<WorkspaceProject[]> {
  const dirs = [...new Set((await findWorkspaceManifests(rootDir, patterns)).map((file) => path.dirname(file)))]
  const projects = await Promise.all(dirs.map(async (rel): Promise<WorkspaceProject | undefined> => {
    const dir = path.join(rootDir, rel)
    const file = path.join(dir, 'package.json')
    let text: string
    try {
      text = await fs.readFile(file, 'utf8')
    } catch (err) {
      if (hasErrno(err, 'ENOENT')) return undefined
      throw err
    }
    const manifest = parsePackageJson(text, file)
    checkDependencyGroups(manifest, file)
    return { dir, id: rel === '' || rel === '.' ? '.' : rel.split(path.sep).join('/'), manifest }
  }))
  return projects.filter((project) => project !== undefined).sort((a, b) => a.id === '.' ? -1 : b.id === '.' ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0)
}

/** The package.json files of the workspace's projects, relative to `rootDir` (the root's included), sorted: globbing only, nothing read. */
export async function findWorkspaceManifests (rootDir: string, patterns: readonly string[]): Promise<string[]> {
  const manifestGlobs = patterns.map((pattern) => {
    const negated = pattern.startsWith('!')
    const body = (negated ? pattern.slice(1) : pattern).replace(/\/+$/, '')
    return `${negated ? '!' : ''}${body === '' || body === '.' ? '' : `${body}/`}package.json`
  })
  const files = await glob([...manifestGlobs, 'package.json'], { cwd: rootDir, ignore: IGNORED, dot: false, onlyFiles: true, expandDirectories: false })
  return files.sort()
}

export { filterProjects, parseProjectSelector, type FilterResult, type ProjectSelector } from './filter.js'
export { sortProjects, workspaceDependencies } from './graph.js'
