// The no-op fast path. `lode install` with nothing to do should cost little more than starting
// Node: before any setting is parsed or any module beyond Node's own is loaded, the CLI asks this
// module whether the last complete install had exactly these inputs. Only Node's own modules are
// used here, on purpose, and they come through process.getBuiltinModule, not `import`: an ESM
// import of a builtin builds a facade that runs every lazy getter (~3 ms for node:fs).
const { createHash } = process.getBuiltinModule('node:crypto')
const fs = process.getBuiltinModule('node:fs')
const os = process.getBuiltinModule('node:os')
const path = process.getBuiltinModule('node:path')

/** Where lode records the inputs of the last complete install (its own file; pnpm keeps `.pnpm-workspace-state-v1.json`). */
export const STATE_FILE = '.lode-state.json'
/** Present while node_modules is being changed: an install cut short must not look done. */
export const INSTALLING_MARKER = '.lode-installing'

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
}

// Variables that change settings without any file changing. `${VAR}`s in .npmrc files are added.
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
  const names = new Set(Object.keys(env).filter((name) => SETTINGS_ENV.test(name)))
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

/** SHA-256 over the files (relative to `dir`), a missing file counting as such. */
export function filesDigest (dir: string, files: readonly string[]): string {
  const hash = createHash('sha256')
  for (const file of files) hash.update(`\0${file}\0`).update(readOrNull(path.join(dir, file)) ?? '\0missing')
  return hash.digest('hex')
}

/** The last install's package count when the quick record says nothing changed since, else undefined. */
export function quickUpToDate (quick: QuickKey): number | undefined {
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
  return filesDigest(quick.dir, recorded.files) === recorded.digest ? state.packages : undefined
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
