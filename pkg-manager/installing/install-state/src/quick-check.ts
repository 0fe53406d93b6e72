// The no-op fast path. `lode install` with nothing to do should cost little more than starting
// Node: before any setting is parsed or any module beyond Node's own is loaded, the CLI asks this
// module whether the last complete install had exactly these inputs. Only Node's own modules are
// used here, on purpose, and they come through process.getBuiltinModule, not `import`: an ESM
// import of a builtin builds a facade that runs every lazy getter (~3 ms for node:fs). node:crypto
// (~6 ms to load) is left for when a file's stamp changed: the no-op compares stamps and hashes
// its key in JS.
import type { Stats } from 'node:fs'

import { CURRENT_LOCKFILE, INSTALLING_MARKER, LODE_STATE_FILE, MODULES_DIR, VIRTUAL_STORE_DIR, WANTED_LOCKFILE } from '@lode/core.constants'
import { CI_ENV_VARS } from '@lode/pkg-manager.config.settings/ci'
import { globalAuthFile, globalConfigFile } from '@lode/pkg-manager.config.settings/global-config-file'

const fs = process.getBuiltinModule('node:fs')
const os = process.getBuiltinModule('node:os')
const path = process.getBuiltinModule('node:path')

/** The lockfile of what node_modules holds, relative to the install's directory. */
export const INSTALLED_LOCKFILE = path.join(MODULES_DIR, VIRTUAL_STORE_DIR, CURRENT_LOCKFILE)

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
  /** Each file's stamp when the digest was taken: while they all hold, the files are unchanged. */
  stamps: FileStamp[]
  dirs: Array<[string, number]>
  /**
   * frozen-lockfile as settings and CI set it (the key covers both; `--frozen-lockfile` overrides
   * it). A frozen install without pnpm-lock.yaml fails instead of restoring it.
   */
  frozenSetting: boolean
}

/** lode's record of the last complete install (`node_modules/.lode-state.json`), as `parseInstallState` read it. */
export interface InstallState {
  /** SHA-256 over the settings, the options that shape node_modules, and the input files. */
  inputs: string
  packages: number
  /**
   * The workspace projects' node_modules the install left (relative; the root's aside): one
   * removed since makes the next install a full one, which puts it back (pnpm's).
   */
  modulesDirs?: string[]
  /** For the CLI's check before it loads anything. */
  quick?: QuickState
}

/**
 * The bytes of a `.lode-state.json` as a record, or undefined when they are not one lode writes:
 * not JSON, a field missing or of another type, or a recorded path that is absolute or climbs. A
 * repository can carry the file, so nothing of it is used before this; an undefined record means
 * "not up to date", as a missing one does, and the full install writes a new one.
 */
export function parseInstallState (bytes: Uint8Array | string | null): InstallState | undefined {
  if (bytes === null) return undefined
  let value: unknown
  try {
    value = JSON.parse(typeof bytes === 'string' ? bytes : Buffer.from(bytes).toString('utf8'))
  } catch {
    return undefined
  }
  if (!isRecord(value) || typeof value['inputs'] !== 'string' || !isCount(value['packages'])) return undefined
  const state: InstallState = { inputs: value['inputs'], packages: value['packages'] }
  const modulesDirs = value['modulesDirs']
  if (modulesDirs !== undefined) {
    if (!Array.isArray(modulesDirs) || !modulesDirs.every(isRecordedPath)) return undefined
    state.modulesDirs = modulesDirs
  }
  if (value['quick'] === undefined) return state
  const quick = parseQuickState(value['quick'])
  return quick === undefined ? undefined : { ...state, quick }
}

function parseQuickState (value: unknown): QuickState | undefined {
  if (!isRecord(value)) return undefined
  const { key, files, digest, stamps, dirs, frozenSetting } = value
  if (typeof key !== 'string' || typeof digest !== 'string' || typeof frozenSetting !== 'boolean') return undefined
  if (!Array.isArray(files) || !files.every(isRecordedPath)) return undefined
  if (!Array.isArray(stamps) || stamps.length !== files.length || !stamps.every(isStamp)) return undefined
  if (!Array.isArray(dirs) || !dirs.every(isWatchedDir)) return undefined
  return { key, files, digest, stamps: stamps as FileStamp[], dirs: dirs as Array<[string, number]>, frozenSetting }
}

/** A plain JSON object (not an array, not null). */
export function isRecord (value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

function isCount (value: unknown): value is number {
  return Number.isSafeInteger(value) && (value as number) >= 0
}

function isStamp (value: unknown): boolean {
  return value === null || (Array.isArray(value) && value.length === 4 && value.every(Number.isFinite))
}

function isWatchedDir (value: unknown): boolean {
  return Array.isArray(value) && value.length === 2 && (value[0] === '.' || isRecordedPath(value[0])) && Number.isFinite(value[1])
}

/**
 * `@lode/core.safe-name`'s `recordedSegments` rule, written here because this module loads nothing
 * but Node's own (importing safe-name costs the no-op ~12 ms): a recorded path is relative and each
 * segment an ordinary name (not empty, `.` or `..`, no NUL). test/state-files.test.ts holds the two
 * to the same answers.
 */
export function isRecordedPath (relative: unknown): relative is string {
  if (typeof relative !== 'string' || relative === '' || relative.includes('\0')) return false
  if (path.posix.isAbsolute(relative) || path.win32.isAbsolute(relative)) return false
  return relative.split(path.sep === '\\' ? /[/\\]/ : '/').every((segment) => segment !== '' && segment !== '.' && segment !== '..')
}

/**
 * Whether every directory from `root` (not itself) down to `target`'s parent is there and a real
 * directory, no symlink: what is written at `target` then lands where its name says. Synchronous
 * and stricter than safe-name's `hasRealParents` (a missing parent fails): the quick paths write
 * only beside what an install made.
 */
export function realParents (root: string, target: string): boolean {
  const relative = path.relative(root, target)
  if (relative === '' || relative === '..' || relative.startsWith(`..${path.sep}`) || path.isAbsolute(relative)) return false
  let dir = root
  for (const segment of relative.split(path.sep).slice(0, -1)) {
    dir = path.join(dir, segment)
    if (lstatOrUndefined(dir)?.isDirectory() !== true) return false
  }
  return true
}

// Variables that change settings without any file changing (the CI ones decide frozen-lockfile).
// `${VAR}`s in .npmrc files are added.
const SETTINGS_ENV = /^(?:npm_config_|pnpm_config_)|^(?:HOME|XDG_CACHE_HOME|XDG_DATA_HOME|XDG_CONFIG_HOME|NODE_ENV)$/i

// Not `localeCompare`: its first call loads ICU's collator, a few ms of a no-op's budget.
function byCodeUnit (a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0
}

// Errors that say a path names nothing that can be there: a recorded path (from a file a repository
// can carry) through a file, too long, or through a symlink loop is as missing as an absent one.
const NOTHING_THERE = new Set(['ENOENT', 'ENOTDIR', 'ENAMETOOLONG', 'ELOOP'])

function nothingThere (err: unknown): boolean {
  return NOTHING_THERE.has((err as NodeJS.ErrnoException).code ?? '')
}

/** A file's bytes, or null when there is none (or it is a directory). */
export function readOrNull (file: string): Buffer | null {
  try {
    return fs.readFileSync(file)
  } catch (err) {
    if (nothingThere(err) || (err as NodeJS.ErrnoException).code === 'EISDIR') return null
    throw err
  }
}

/** What `fs.statSync` says of `file`, or undefined when nothing can be there. */
export function statOrUndefined (file: string): Stats | undefined {
  try {
    return fs.statSync(file, { throwIfNoEntry: false })
  } catch (err) {
    if (nothingThere(err)) return undefined
    throw err
  }
}

function lstatOrUndefined (file: string): Stats | undefined {
  try {
    return fs.lstatSync(file, { throwIfNoEntry: false })
  } catch (err) {
    if (nothingThere(err)) return undefined
    throw err
  }
}

/**
 * A file's inode, size, mtime and ctime, or null when it does not exist. Every write to a file
 * moves its ctime (which no tool sets back) and replacing it changes the inode, so an equal stamp
 * means equal content, without reading it.
 */
export type FileStamp = [ino: number, size: number, mtimeMs: number, ctimeMs: number] | null

export function fileStamp (file: string): FileStamp {
  const stat = statOrUndefined(file)
  return stat === undefined ? null : [stat.ino, stat.size, stat.mtimeMs, stat.ctimeMs]
}

export function sameStamps (now: readonly FileStamp[], then: readonly FileStamp[] | undefined): boolean {
  return then?.length === now.length && now.every((stamp, i) => {
    const old = then[i]!
    return stamp === null ? old === null : old !== null && stamp.every((value, j) => value === old[j])
  })
}

/**
 * A 64-bit FNV-1a hash, in two 32-bit halves with different seeds. The key only has to change
 * when its inputs do; node:crypto would cost the no-op more than the hashing.
 */
export class KeyHash {
  private a = 0x811c9dc5
  private b = 0x050c5d1f

  update (data: string | Uint8Array): this {
    let { a, b } = this
    for (let i = 0; i < data.length; i++) {
      const c = typeof data === 'string' ? data.charCodeAt(i) : data[i]!
      a = Math.imul(a ^ c, 0x01000193)
      b = Math.imul(b ^ c, 0x01000193) ^ (a >>> 15)
    }
    this.a = a
    this.b = b
    return this
  }

  digest (): string {
    return (this.a >>> 0).toString(16).padStart(8, '0') + (this.b >>> 0).toString(16).padStart(8, '0')
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
 * `.npmrc`, pnpm's global `auth.ini` and `config.yaml`, `pnpm-workspace.yaml`). Any change makes the key differ,
 * and the install takes the full path, which decides for itself whether anything is to be done.
 */
export function quickKey (
  opts: { cwd: string, env: Readonly<Record<string, string | undefined>>, flags: Readonly<Record<string, unknown>>, version: string }
): QuickKey {
  const dir = installDir(path.resolve(opts.cwd))
  const { env } = opts
  const home = env['HOME'] ?? os.homedir()
  const userconfig = env['npm_config_userconfig'] ?? env['NPM_CONFIG_USERCONFIG'] ?? path.join(home, '.npmrc')
  const hash = new KeyHash()
  hash.update(JSON.stringify([
    opts.version,
    Object.entries(opts.flags).filter(([, v]) => v !== undefined).sort(([a], [b]) => byCodeUnit(a, b)),
  ]))
  const names = new Set([...CI_ENV_VARS, ...Object.keys(env).filter((name) => SETTINGS_ENV.test(name))])
  for (const file of [userconfig, globalAuthFile(env, home), path.join(dir, '.npmrc'), globalConfigFile(env, home), path.join(dir, 'pnpm-workspace.yaml')]) {
    const content = readOrNull(file)
    hash.update(`\0${file}\0`).update(content ?? '\0missing')
    if (content !== null && (file.endsWith('.npmrc') || file.endsWith('auth.ini'))) {
      for (const match of content.toString('utf8').matchAll(/\$\{([^}]+)\}/g)) names.add(match[1]!)
    }
  }
  for (const name of [...names].sort()) hash.update(`\0${name}=${env[name] ?? ''}`)
  return { dir, key: hash.digest() }
}

/** SHA-256 over the files (relative to `dir`), a missing file counting as such; `standIn` gives a file's content instead of reading it. */
export function filesDigest (dir: string, files: readonly string[], standIn: Readonly<Record<string, Uint8Array>> = {}): string {
  const hash = process.getBuiltinModule('node:crypto').createHash('sha256')
  for (const file of files) hash.update(`\0${file}\0`).update((Object.hasOwn(standIn, file) ? standIn[file] : undefined) ?? readOrNull(path.join(dir, file)) ?? '\0missing')
  return hash.digest('hex')
}

/**
 * The last install's package count when the quick record says nothing changed since, else
 * undefined. `frozenLockfile` is the `--frozen-lockfile` flag, when given.
 */
export function quickUpToDate (quick: QuickKey, opts: { frozenLockfile?: boolean | undefined } = {}): number | undefined {
  const modulesDir = path.join(quick.dir, MODULES_DIR)
  const stateFile = path.join(modulesDir, LODE_STATE_FILE)
  // The record is written back below: only in the project's own node_modules, not through a link.
  if (fs.existsSync(path.join(modulesDir, INSTALLING_MARKER)) || !realParents(quick.dir, stateFile)) return undefined
  let state: InstallState | undefined
  try {
    state = parseInstallState(fs.readFileSync(stateFile))
  } catch {
    return undefined
  }
  const recorded = state?.quick
  if (state === undefined || recorded?.key !== quick.key) return undefined
  // The recorded paths are relative and normalized: joined by hand, since path.join's normalizing
  // is the larger part of a stat here, over a hundred projects.
  const at = (rel: string): string => `${quick.dir}${path.sep}${rel}`
  if (!modulesDirsThere(state, at)) return undefined
  for (const [dir, mtimeMs] of recorded.dirs) {
    if (statOrUndefined(at(dir))?.mtimeMs !== mtimeMs) return undefined
  }
  // Stamped before the content is read: a write in between shows in the next run's stamps.
  const stamps = recorded.files.map((file) => fileStamp(at(file)))
  if (sameStamps(stamps, recorded.stamps)) return state.packages
  if (filesDigest(quick.dir, recorded.files) === recorded.digest) {
    // Touched, not changed (a checkout, an editor's save): the new stamps spare the next run the reading.
    writeAtomic(stateFile, JSON.stringify({ ...state, quick: { ...recorded, stamps } }))
    return state.packages
  }
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
  writeAtomic(lockfile, text)
  return true
}

/**
 * Written atomically, with a temp name shaped as @lode/fs.write-file-atomic's (so a killed write is
 * cleaned up); created exclusively, so a clash fails instead of mixing two writes.
 */
export function writeAtomic (file: string, data: string | Uint8Array): void {
  const temp = `${file}.${Math.random().toString(16).slice(2, 14).padEnd(12, '0')}.tmp`
  try {
    fs.writeFileSync(temp, data, { flag: 'wx' })
    fs.renameSync(temp, file)
  } catch (err) {
    fs.rmSync(temp, { force: true })
    throw err
  }
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

/** Whether every project node_modules the record names is still a directory. */
export function modulesDirsThere (state: InstallState, at: (relative: string) => string): boolean {
  return (state.modulesDirs ?? []).every((dir) => statOrUndefined(at(dir))?.isDirectory() === true)
}
