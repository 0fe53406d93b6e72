import path from 'node:path'

import { isValidPackageName } from './names.js'

// Through process.getBuiltinModule, not `import`: the no-op's quick check loads this module, and an
// ESM import of node:fs builds a facade that runs its lazy getters (fs streams: ~19 ms).
const fs = process.getBuiltinModule('node:fs')

/*
 * Paths read back from files on disk (`.modules.yaml`, `.pnpm/lock.yaml`, state files, the store's
 * project links). A repository can carry any of them, even one lode wrote itself, so a recorded
 * path is input like a dependency name: it becomes a path only through these.
 */

/**
 * The segments of a recorded relative path (`/`-separated; `\` too on Windows), or undefined unless
 * each is an ordinary name: not empty, `.` or `..`, no NUL, and the path not absolute. Stricter than
 * `joinInside`, which allows `a/../b`: lode and pnpm never record such a path, so one is forged.
 */
export function recordedSegments (relative: unknown): string[] | undefined {
  if (typeof relative !== 'string' || relative === '' || relative.includes('\0')) return undefined
  if (path.posix.isAbsolute(relative) || path.win32.isAbsolute(relative)) return undefined
  const segments = relative.split(path.sep === '\\' ? /[/\\]/ : '/')
  return segments.every((segment) => segment !== '' && segment !== '.' && segment !== '..') ? segments : undefined
}

/** `root` joined with a recorded relative path that passes `recordedSegments`, else undefined. */
export function joinRecorded (root: string, relative: unknown): string | undefined {
  const segments = recordedSegments(relative)
  return segments === undefined ? undefined : path.join(root, ...segments)
}

/**
 * A place in a `node_modules` tree as `.modules.yaml`'s `hoistedLocations` records it, relative to
 * the workspace root: a project's directory (`''` for the root) and the chain of package names
 * below it (`packages/a/node_modules/b/node_modules/@s/c` is `packages/a`, `['b', '@s/c']`).
 * Undefined for anything else: a segment that climbs, a name that is not a package name, a path
 * that does not end in a package under `node_modules`.
 */
export function parseModulesLocation (location: unknown): { project: string, names: string[] } | undefined {
  const segments = recordedSegments(location)
  if (segments === undefined) return undefined
  const first = segments.indexOf('node_modules')
  if (first === -1) return undefined
  const names: string[] = []
  let i = first
  while (i < segments.length) {
    if (segments[i] !== 'node_modules') return undefined
    const scoped = segments[i + 1]?.startsWith('@') === true
    const name = segments.slice(i + 1, i + (scoped ? 3 : 2)).join('/')
    if (!isValidPackageName(name) || (scoped && i + 3 > segments.length)) return undefined
    names.push(name)
    i += scoped ? 3 : 2
  }
  return { project: segments.slice(0, first).join('/'), names }
}

/**
 * Whether every directory between `root` (itself not checked) and `target` (not checked either)
 * is a real directory or absent: none is a symlink or a file. A recorded place inside the project
 * by name is outside it in fact when a directory on the way is a symlink a repository carried
 * (`node_modules/a` → `/home/user`); removing or writing it then would follow the link.
 * Synchronous: a few lstat calls, made where a place is about to be trusted.
 */
export function hasRealParents (root: string, target: string): boolean {
  const relative = path.relative(root, target)
  if (relative === '' || relative === '..' || relative.startsWith(`..${path.sep}`) || path.isAbsolute(relative)) return false
  const segments = relative.split(path.sep)
  let dir = root
  for (const segment of segments.slice(0, -1)) {
    dir = path.join(dir, segment)
    const stats = fs.lstatSync(dir, { throwIfNoEntry: false })
    if (stats === undefined) return true
    if (!stats.isDirectory()) return false
  }
  return true
}
