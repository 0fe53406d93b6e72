import fs from 'node:fs'
import path from 'node:path'

import { hasErrno } from '@lode/fs.error'
import { checkDependencyGroups, parsePackageJson } from '@lode/fs.package-json'

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
      await fs.promises.access(path.join(current, 'pnpm-workspace.yaml'))
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
  // Read one after the other: small files, read faster so than through the thread pool's promises.
  const projects = dirs.map((rel): WorkspaceProject | undefined => {
    const dir = path.join(rootDir, rel)
    const file = path.join(dir, 'package.json')
    let text: string
    try {
      text = fs.readFileSync(file, 'utf8')
    } catch (err) {
      if (hasErrno(err, 'ENOENT')) return undefined
      throw err
    }
    const manifest = parsePackageJson(text, file)
    checkDependencyGroups(manifest, file)
    return { dir, id: rel === '' || rel === '.' ? '.' : rel.split(path.sep).join('/'), manifest }
  })
  return projects.filter((project) => project !== undefined).sort((a, b) => a.id === '.' ? -1 : b.id === '.' ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0)
}

/** The package.json files of the workspace's projects, relative to `rootDir` (the root's included), sorted: globbing only, nothing read. */
export async function findWorkspaceManifests (rootDir: string, patterns: readonly string[]): Promise<string[]> {
  const listed = listManifests(rootDir, patterns)
  if (listed !== undefined) return listed
  const manifestGlobs = patterns.map((pattern) => {
    const negated = pattern.startsWith('!')
    const body = (negated ? pattern.slice(1) : pattern).replace(/\/+$/, '')
    return `${negated ? '!' : ''}${body === '' || body === '.' ? '' : `${body}/`}package.json`
  })
  const { glob } = await import('tinyglobby')
  const files = await glob([...manifestGlobs, 'package.json'], { cwd: rootDir, ignore: IGNORED, dot: false, onlyFiles: true, expandDirectories: false })
  return files.sort()
}

// A pattern that is a directory, or a directory's children (`packages/*`), with no glob syntax
// and no segment a glob would skip (dot directories, node_modules): what most workspaces use.
const GLOB_SYNTAX = /[*?[\]{}()!+@\\]/
const SKIPPED_DIRS = new Set(['node_modules', 'bower_components'])

function plainDir (body: string): string[] | undefined {
  const segments = body === '' ? [] : body.split('/')
  return segments.every((segment) => segment !== '' && segment !== '..' && !segment.startsWith('.') && !GLOB_SYNTAX.test(segment) && !SKIPPED_DIRS.has(segment)) ? segments : undefined
}

/**
 * The manifests of `findWorkspaceManifests` when every pattern is a plain directory or a plain
 * directory's `*`: one readdir per listed directory and a stat per candidate, where the glob
 * library (loaded then) reads every project's directory. Undefined for any other pattern.
 */
function listManifests (rootDir: string, patterns: readonly string[]): string[] | undefined {
  const candidates = new Set<string>(['package.json'])
  for (const pattern of patterns) {
    const body = pattern.replace(/\/+$/, '')
    const children = body === '*' || body.endsWith('/*')
    const dir = plainDir(children ? body.slice(0, -2).replace(/\/$/, '') : body === '.' ? '' : body)
    if (dir === undefined) return undefined
    if (!children) {
      candidates.add([...dir, 'package.json'].join('/'))
      continue
    }
    let entries: fs.Dirent[]
    try {
      entries = fs.readdirSync(path.join(rootDir, ...dir), { withFileTypes: true })
    } catch (err) {
      if (hasErrno(err, 'ENOENT') || hasErrno(err, 'ENOTDIR')) continue
      throw err
    }
    for (const entry of entries) {
      // A symlink may lead to a directory: the stat below decides.
      if ((entry.isDirectory() || entry.isSymbolicLink()) && !entry.name.startsWith('.') && !SKIPPED_DIRS.has(entry.name)) {
        candidates.add([...dir, entry.name, 'package.json'].join('/'))
      }
    }
  }
  const found = [...candidates].filter((file) => fs.statSync(path.join(rootDir, file), { throwIfNoEntry: false })?.isFile() === true)
  return found.sort()
}

export { filterProjects, parseProjectSelector, type FilterResult, type ProjectSelector } from './filter.js'
export { sortProjects, workspaceDependencies } from './graph.js'
