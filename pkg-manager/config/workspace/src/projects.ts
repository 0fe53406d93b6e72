import fs from 'node:fs'
import path from 'node:path'

import { LodeError, fileSystemError, hasErrno } from '@lode/core.error'
import { checkDependencyGroups, parsePackageJson } from '@lode/fs.package-json'

import type { WorkspaceProject } from './types.js'

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
      throw fileSystemError(err, file) ?? err
    }
    const manifest = parsePackageJson(text, file)
    checkDependencyGroups(manifest, file)
    return { dir, id: rel === '' || rel === '.' ? '.' : rel.split(path.sep).join('/'), manifest }
  })
  return projects.filter((project) => project !== undefined).sort((a, b) => a.id === '.' ? -1 : b.id === '.' ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0)
}

/**
 * The package.json files of the workspace's projects, relative to `rootDir` (the root's always
 * included, as pnpm includes it whatever the patterns exclude), sorted: globbing only, nothing read.
 * A pattern the glob library cannot match is `ERR_LODE_INVALID_SETTING` naming pnpm-workspace.yaml.
 */
export async function findWorkspaceManifests (rootDir: string, patterns: readonly string[]): Promise<string[]> {
  for (const pattern of patterns) {
    if (pattern.includes('\0')) throw unmatchable(rootDir, pattern, 'it has a NUL character')
    if (pattern.length > MAX_PATTERN_LENGTH) throw unmatchable(rootDir, pattern, `it is longer than ${MAX_PATTERN_LENGTH} characters`)
    if (pattern.split('/').length > MAX_PATTERN_SEGMENTS) throw unmatchable(rootDir, pattern, `it has more than ${MAX_PATTERN_SEGMENTS} path segments`)
  }
  const listed = listManifests(rootDir, patterns)
  if (listed !== undefined) return listed
  const manifestGlobs = patterns.map((pattern) => {
    const negated = pattern.startsWith('!')
    const body = (negated ? pattern.slice(1) : pattern).replace(/\/+$/, '')
    return `${negated ? '!' : ''}${body === '' || body === '.' ? '' : `${body}/`}package.json`
  })
  const { globSync } = await import('tinyglobby')
  const negations = manifestGlobs.filter((glob) => glob.startsWith('!'))
  const files = new Set<string>()
  try {
    // One crawl per pattern: the glob library crawls from the common ancestor of the patterns (the
    // negations too), so one pattern above the root (`../../../../x`, `!/**`) would make it walk the
    // whole file system for another. A negation above the root can only exclude what a pattern above
    // the root finds: only such patterns get it. Synchronous: the async crawl runs a pattern's
    // regular expression in a callback, where an expression V8 cannot compile is an uncaught exception.
    for (const glob of manifestGlobs.filter((g) => !g.startsWith('!'))) {
      const applying = aboveRoot(glob) ? negations : negations.filter((negation) => !aboveRoot(negation.slice(1)))
      for (const file of globSync([glob, ...applying], {
        cwd: rootDir,
        ignore: IGNORED,
        dot: false,
        onlyFiles: true,
        expandDirectories: false,
      })) files.add(file)
    }
  } catch (err) {
    // The glob library's own failures on a pattern: a regular expression V8 cannot compile, and a
    // TypeError on a segment of dots (`....`) it takes for parent directories.
    if (!(err instanceof SyntaxError) && !(err instanceof RangeError) && !(err instanceof TypeError)) throw err
    throw unmatchable(rootDir, undefined, err.message.slice(0, 200), err)
  }
  if (isFile(path.join(rootDir, 'package.json'))) files.add('package.json')
  return [...files].sort()
}

/** Whether a glob names paths outside the directory it is relative to: absolute, or climbing out with `..`. */
function aboveRoot (glob: string): boolean {
  if (/^(?:[/\\]|[A-Za-z]:)/.test(glob)) return true
  const normalized = path.posix.normalize(glob)
  return normalized === '..' || normalized.startsWith('../')
}

function unmatchable (rootDir: string, pattern: string | undefined, why: string, cause?: unknown): LodeError {
  const file = path.join(rootDir, 'pnpm-workspace.yaml')
  const which = pattern === undefined ? 'A pattern' : `The pattern ${JSON.stringify(pattern.slice(0, 100))}`
  return new LodeError('INVALID_SETTING', `${which} of packages in ${file} cannot be matched: ${why}.`, {
    hint: `Write the packages of ${file} as directories or simple globs (packages/*, apps/**).`,
    cause,
  })
}

/** Whether `file` is a file; a path that cannot exist (a name too long, a file as a directory) is not one. */
function isFile (file: string): boolean {
  try {
    return fs.statSync(file, { throwIfNoEntry: false })?.isFile() === true
  } catch (err) {
    if (hasErrno(err, 'ENAMETOOLONG') || hasErrno(err, 'ENOTDIR')) return false
    throw fileSystemError(err, file) ?? err
  }
}

// The glob library's time grows with the square of a pattern's length in places (a run of `(`
// takes a second at 10,000 characters); real patterns are a few dozen characters.
const MAX_PATTERN_LENGTH = 4096
// The glob's crawl goes as deep as a pattern has segments, through a directory link back up the
// tree as often (`**/**/…` of 400 segments with such a link: 4.5 s; of 1000: two minutes).
const MAX_PATTERN_SEGMENTS = 32

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
      if (hasErrno(err, 'ENOENT') || hasErrno(err, 'ENOTDIR') || hasErrno(err, 'ENAMETOOLONG')) continue
      throw fileSystemError(err, path.join(rootDir, ...dir)) ?? err
    }
    for (const entry of entries) {
      // A symlink may lead to a directory: the stat below decides.
      if ((entry.isDirectory() || entry.isSymbolicLink()) && !entry.name.startsWith('.') && !SKIPPED_DIRS.has(entry.name)) {
        candidates.add([...dir, entry.name, 'package.json'].join('/'))
      }
    }
  }
  const found = [...candidates].filter((file) => isFile(path.join(rootDir, file)))
  return found.sort()
}
