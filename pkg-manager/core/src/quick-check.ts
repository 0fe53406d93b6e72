// The no-op fast path. `lode install` with nothing to do should cost little more than starting
// Node: before any setting is parsed or any module beyond Node's own is loaded, the CLI asks this
// module whether the last complete install had exactly these inputs. Only Node's own modules are
// used here, on purpose, and they come through process.getBuiltinModule, not `import`: an ESM
// import of a builtin builds a facade that runs every lazy getter (~3 ms for node:fs).
import { CI_ENV_VARS } from '@lode/pkg-manager.config/ci'

const { createHash, randomBytes } = process.getBuiltinModule('node:crypto')
const fs = process.getBuiltinModule('node:fs')
const os = process.getBuiltinModule('node:os')
const path = process.getBuiltinModule('node:path')

/** Where lode records the inputs of the last complete install (its own file; pnpm keeps `.pnpm-workspace-state-v1.json`). */
export const STATE_FILE = '.lode-state.json'
/** Present while node_modules is being changed: an install cut short must not look done. */
export const INSTALLING_MARKER = '.lode-installing'
export const WANTED_LOCKFILE = 'pnpm-lock.yaml'
/** The lockfile of what node_modules holds, relative to the install's directory. */
export const INSTALLED_LOCKFILE = path.join('node_modules', '.pnpm', 'lock.yaml')

/** What the CLI knows before loading anything, in one digest, and the directory the install runs in. */
export interface QuickKey {
  /** The workspace root, or the project's directory outside a workspace. */
  dir: string
  key: string
}

/**
 * The quick record of the last complete install: the key it ran with, the files whose content
 * decides it (manifests, lockfile, `.modules.yaml`) with their digest, and the modification times
 * of the directories the workspace's `packages` globs look through (a project added or removed
 * changes one of them).
 */
export interface QuickState {
  key: string
  files: string[]
  digest: string
  dirs: Array<[string, number]>
  /**
   * frozen-lockfile as settings and CI set it (the key covers both; `--frozen-lockfile` overrides
   * it). A frozen install without pnpm-lock.yaml fails instead of restoring it.
   */
  frozenSetting: boolean
}

// Variables that change settings without any file changing (the CI ones decide frozen-lockfile).
// `${VAR}`s in .npmrc files are added.
const SETTINGS_ENV = /^(?:npm_config_|pnpm_config_)|^(?:HOME|XDG_CACHE_HOME|XDG_DATA_HOME|XDG_CONFIG_HOME|NODE_ENV)$/i

// Not `localeCompare`: its first call loads ICU's collator, a few ms of a no-op's budget.
function byCodeUnit (a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0
}

function readOrNull (file: string): Buffer | null {
  try {
    return fs.readFileSync(file)
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT' || (err as NodeJS.ErrnoException).code === 'EISDIR') return null
    throw err
  }
}

/** The nearest directory at or above `dir` with a pnpm-workspace.yaml (as `findWorkspaceDir`), else `dir`. */
function installDir (dir: string): string {
  for (let current = dir; ; current = path.dirname(current)) {
    if (fs.existsSync(path.join(current, 'pnpm-workspace.yaml'))) return current
    if (path.dirname(current) === current) return dir
  }
}

/**
 * The key of an install run from `cwd` with these flags: lode's version, the flags that shape
 * node_modules, the settings variables and the raw settings files (the user's and the workspace's
 * `.npmrc`, `pnpm-workspace.yaml`). Any change makes the key differ, and the install takes the
 * full path, which decides for itself whether anything is to be done.
 */
export function quickKey (opts: { cwd: string, env: Readonly<Record<string, string | undefined>>, flags: Readonly<Record<string, unknown>>, version: string }): QuickKey {
  const dir = installDir(path.resolve(opts.cwd))
  const { env } = opts
  const home = env['HOME'] ?? os.homedir()
  const userconfig = env['npm_config_userconfig'] ?? env['NPM_CONFIG_USERCONFIG'] ?? path.join(home, '.npmrc')
  const hash = createHash('sha256')
  hash.update(JSON.stringify([opts.version, Object.entries(opts.flags).filter(([, v]) => v !== undefined).sort(([a], [b]) => byCodeUnit(a, b))]))
  const names = new Set([...CI_ENV_VARS, ...Object.keys(env).filter((name) => SETTINGS_ENV.test(name))])
  for (const file of [userconfig, path.join(dir, '.npmrc'), path.join(dir, 'pnpm-workspace.yaml')]) {
    const content = readOrNull(file)
    hash.update(`\0${file}\0`).update(content ?? '\0missing')
    if (content !== null && file.endsWith('.npmrc')) {
      for (const match of content.toString('utf8').matchAll(/\$\{([^}]+)\}/g)) names.add(match[1]!)
    }
  }
  for (const name of [...names].sort()) hash.update(`\0${name}=${env[name] ?? ''}`)
  return { dir, key: hash.digest('hex') }
}

/** SHA-256 over the files (relative to `dir`), a missing file counting as such; `standIn` gives a file's content instead of reading it. */
export function filesDigest (dir: string, files: readonly string[], standIn: Readonly<Record<string, Uint8Array>> = {}): string {
  const hash = createHash('sha256')
  for (const file of files) hash.update(`\0${file}\0`).update(standIn[file] ?? readOrNull(path.join(dir, file)) ?? '\0missing')
  return hash.digest('hex')
}

/**
 * The last install's package count when the quick record says nothing changed since, else
 * undefined. `frozenLockfile` is the `--frozen-lockfile` flag, when given.
 */
export function quickUpToDate (quick: QuickKey, opts: { frozenLockfile?: boolean | undefined } = {}): number | undefined {
  const modulesDir = path.join(quick.dir, 'node_modules')
  if (fs.existsSync(path.join(modulesDir, INSTALLING_MARKER))) return undefined
  let state: { packages?: unknown, quick?: QuickState }
  try {
    state = JSON.parse(fs.readFileSync(path.join(modulesDir, STATE_FILE), 'utf8')) as typeof state
  } catch {
    return undefined
  }
  const recorded = state.quick
  if (typeof state.packages !== 'number' || recorded?.key !== quick.key) return undefined
  for (const [dir, mtimeMs] of recorded.dirs) {
    if (fs.statSync(path.join(quick.dir, dir), { throwIfNoEntry: false })?.mtimeMs !== mtimeMs) return undefined
  }
  if (filesDigest(quick.dir, recorded.files) === recorded.digest) return state.packages
  const frozen = opts.frozenLockfile ?? (recorded.frozenSetting !== false)
  return !frozen && restoredLockfile(quick.dir, recorded) ? state.packages : undefined
}

/**
 * pnpm-lock.yaml was deleted and nothing else changed since the last install: the full path would
 * write node_modules' own lockfile back as pnpm-lock.yaml (as pnpm does) and leave node_modules as
 * it is, so this does just that. True when it did.
 */
function restoredLockfile (dir: string, recorded: QuickState): boolean {
  const lockfile = path.join(dir, WANTED_LOCKFILE)
  if (!recorded.files.includes(WANTED_LOCKFILE) || fs.existsSync(lockfile)) return false
  const text = readOrNull(path.join(dir, INSTALLED_LOCKFILE))
  if (text === null || filesDigest(dir, recorded.files, { [WANTED_LOCKFILE]: text }) !== recorded.digest) return false
  // Atomically, named as @lode/fs.write-file-atomic names its temp files (so a killed write is cleaned up).
  const temp = `${lockfile}.${randomBytes(6).toString('hex')}.tmp`
  try {
    fs.writeFileSync(temp, text, { flag: 'wx' })
    fs.renameSync(temp, lockfile)
  } catch (err) {
    fs.rmSync(temp, { force: true })
    throw err
  }
  return true
}

/**
 * The directories a workspace's `packages` globs look through: each pattern's fixed prefix and the
 * directories below it, down to the pattern's depth (all of them under a `**`), never into
 * node_modules or hidden directories. Their mtimes change when a project is added or removed.
 */
export function watchedDirs (dir: string, patterns: readonly string[]): Array<[string, number]> {
  const found = new Map<string, number>()
  const depths = new Map<string, number>()
  const visit = (rel: string, depth: number): void => {
    if ((depths.get(rel) ?? -1) >= depth) return
    const stat = fs.statSync(path.join(dir, rel), { throwIfNoEntry: false })
    if (stat === undefined || !stat.isDirectory()) return
    depths.set(rel, depth)
    found.set(rel, stat.mtimeMs)
    if (depth === 0) return
    for (const entry of fs.readdirSync(path.join(dir, rel), { withFileTypes: true })) {
      if (entry.isDirectory() && entry.name !== 'node_modules' && !entry.name.startsWith('.')) visit(path.join(rel, entry.name), depth - 1)
    }
  }
  for (const pattern of patterns) {
    if (pattern.startsWith('!')) continue
    const segments = pattern.replace(/^\.\//, '').replace(/\/+$/, '').split('/').filter((s) => s !== '' && s !== '.')
    const glob = segments.findIndex((s) => /[*?[\]{}!]/.test(s))
    if (glob === -1) continue
    const rest = segments.slice(glob)
    visit(segments.slice(0, glob).join('/') || '.', rest.includes('**') ? Infinity : rest.length)
  }
  return [...found].sort(([a], [b]) => byCodeUnit(a, b))
}
