import fs from 'node:fs'
import path from 'node:path'

import { hasErrno } from '@lode/core.error'
import { isInsideDir, isSafeBinName, joinInside, own } from '@lode/core.safe-name'
import { parsePackageJson } from '@lode/fs.package-json'
import compareVersions from 'semver/functions/compare.js'
import validVersion from 'semver/functions/valid.js'

import { writeShShim } from './sh-shim.js'

/** A package whose executables go into a `.bin` directory. */
export interface BinProvider {
  /** Its directory (with its `package.json`). */
  dir: string
  /** Directories a shim puts on `NODE_PATH`, as pnpm's `extendNodePath` does. */
  nodePath: string[]
  /** A linked directory (a workspace project): its files are the user's, so pnpm leaves their modes alone. */
  linked?: boolean
  /** The package's own bins in its own `node_modules/.bin`: pnpm links only those whose files exist. */
  own?: boolean
  /**
   * The hoisted packages' directory, when NODE_PATH comes from where the package really is (a
   * linked project, as pnpm does it): its own and its parent `node_modules` when it sits in one,
   * then this; only this otherwise. `nodePath` is not used then.
   */
  nodePathFrom?: string
  /**
   * Where a link points (a workspace project's directory): its package.json is read (once per
   * install, however many projects link it) there, while the shims go through the link.
   */
  target?: string
}

/**
 * Writes a shell shim in `binDir` for every executable the providers declare (`bin` as a string or
 * a map, or `directories.bin`), and makes each target executable (a linked one's aside). When two providers declare one
 * name, pnpm's rule picks one (the package named like the command, else the greater package name,
 * else the greater version, else the first); names in `exclude` are left alone. Returns the names written.
 */
export async function linkBins (binDir: string, providers: readonly BinProvider[], opts: LinkBinsOptions = {}): Promise<string[]> {
  const exclude = opts.exclude ?? new Set()
  const chosen = new Map<string, { target: string, provider: BinProvider, command: string, pkgName: string, pkgVersion: string }>()
  for (const provider of providers) {
    // A link may point at a directory with no package.json (or none at all): no bins there.
    const manifest = await readManifest(provider.target ?? provider.dir, opts.manifests).catch((err: unknown): Record<string, unknown> => {
      if (provider.linked === true && hasErrno(err, 'ENOENT')) return {}
      throw err
    })
    const pkgName = typeof manifest['name'] === 'string' ? manifest['name'] : ''
    const pkgVersion = typeof manifest['version'] === 'string' ? manifest['version'] : '0.0.0'
    for (const [command, file, listed] of binsOf(provider.dir, manifest)) {
      if (exclude.has(command)) continue
      const current = chosen.get(command)
      // pnpm lists `directories.bin` in the package's real directory, and its shims point there.
      const from = listed ? realDirOf(provider) : provider.dir
      const candidate = { target: path.join(from, file), provider, command, pkgName, pkgVersion }
      if (current === undefined || preferredCommand(candidate, current)) chosen.set(command, candidate)
    }
  }
  if (chosen.size === 0) return []
  // A .bin made just now has no shim to replace.
  const made = fs.mkdirSync(binDir, { recursive: true }) !== undefined
  for (const [command, { target, provider }] of chosen) {
    const head = targetHead(target, provider.linked === true, opts.heads)
    // A declared file the package does not ship (a build may write it): pnpm writes the shim anyway, marked so.
    if (head === undefined && provider.own === true) continue
    const nodePath = provider.nodePathFrom === undefined
      ? provider.nodePath
      : nodePathOfPackage(head === undefined ? provider.dir : fs.realpathSync(provider.target ?? provider.dir), provider.nodePathFrom)
    writeShShim(target, path.join(binDir, command), { nodePath, head, replaces: !made })
  }
  return [...chosen.keys()]
}

/**
 * A bin target made executable (a linked project's only checked), and its first bytes; undefined
 * when it is missing. Once per target and install (`heads`): a workspace's projects link the same
 * few packages' bins hundreds of times.
 */
function targetHead (target: string, linked: boolean, heads: Map<string, string | null> | undefined): string | undefined {
  const key = `${linked ? 'linked' : 'own'}\0${target}`
  const known = heads?.get(key)
  if (known !== undefined) return known ?? undefined
  let head: string | undefined
  try {
    if (linked) fs.accessSync(target)
    else fs.chmodSync(target, 0o755)
    head = readHead(target)
  } catch (err) {
    if (!hasErrno(err, 'ENOENT') && !hasErrno(err, 'ENOTDIR')) throw err
  }
  heads?.set(key, head ?? null)
  return head
}

/** `<pkg>/node_modules` and the `node_modules` the package is in (scoped or not), then `hoisted`; only `hoisted` outside any. */
function nodePathOfPackage (pkgDir: string, hoisted: string): string[] {
  const parent = path.dirname(pkgDir)
  const modules = path.basename(parent) === 'node_modules' ? parent : path.basename(parent).startsWith('@') && path.basename(path.dirname(parent)) === 'node_modules' ? path.dirname(parent) : undefined
  return modules === undefined ? [hoisted] : [path.join(pkgDir, 'node_modules'), modules, hoisted]
}

export interface ModulesDirBinsOptions {
  /** The importer's own dependencies (its `node_modules`): their commands win over the others'. */
  directAliases?: ReadonlySet<string>
  /** Package directories known (from the lockfile) to declare no commands: their package.json is not read. */
  withoutBins?: ReadonlySet<string>
  manifests?: Map<string, Promise<Record<string, unknown>>>
}

/**
 * The hoisted layout's `.bin` of one `node_modules` (pnpm's `linkBins` of a modules directory):
 * the commands of every package in it (directories and links), an importer's own dependencies
 * first, then by pnpm's rule for a name two packages declare (the package named like the command,
 * else the greater package name, else the greater version). Each is a relative symlink to its file
 * when that is inside a `node_modules` or already executable (pnpm's `preferSymlinkedExecutables`,
 * the hoisted linker's default), else a shell shim. Entries no package declares are removed.
 */
export async function linkModulesDirBins (modulesDir: string, opts: ModulesDirBinsOptions = {}): Promise<void> {
  const binDir = path.join(modulesDir, '.bin')
  // A .bin that is not a directory (a symlink a repository carried) is never written through: it goes.
  if (fs.lstatSync(binDir, { throwIfNoEntry: false })?.isDirectory() === false) fs.rmSync(binDir, { force: true })
  // Files are made executable only inside this node_modules: a link in it (committed, or to a
  // workspace project) can lead anywhere, and what is there is not the install's to change.
  const realModulesDir = realpathOrUndefined(modulesDir)
  const ownsFile = (real: string): boolean => realModulesDir !== undefined && isInsideDir(realModulesDir, real) && path.dirname(real).split(path.sep).includes('node_modules')
  const commands: Array<{ command: string, target: string, pkgName: string, pkgVersion: string, direct: boolean, placed: boolean }> = []
  for (const alias of readModulesDirAliases(modulesDir)) {
    const dir = path.join(modulesDir, alias)
    if (opts.withoutBins?.has(dir) === true) continue
    const manifest = await readManifest(dir, opts.manifests).catch((err: unknown): Record<string, unknown> | undefined => {
      if (hasErrno(err, 'ENOENT') || hasErrno(err, 'ENOTDIR')) return undefined
      throw err
    })
    if (manifest === undefined) continue
    const pkgName = typeof manifest['name'] === 'string' ? manifest['name'] : ''
    const pkgVersion = typeof manifest['version'] === 'string' ? manifest['version'] : '0.0.0'
    const placed = fs.lstatSync(dir).isDirectory()
    for (const [command, file] of binsOf(dir, manifest)) {
      commands.push({ command, target: path.join(dir, file), pkgName, pkgVersion, direct: opts.directAliases?.has(alias) === true, placed })
    }
  }
  const choose = (candidates: typeof commands): Map<string, (typeof commands)[number]> => {
    const chosen = new Map<string, (typeof commands)[number]>()
    for (const cmd of candidates) {
      const current = chosen.get(cmd.command)
      if (current === undefined || preferredCommand(cmd, current)) chosen.set(cmd.command, cmd)
    }
    return chosen
  }
  const directCommands = new Set(commands.filter((cmd) => cmd.direct).map((cmd) => cmd.command))
  const chosen = choose(commands.filter((cmd) => cmd.direct || !directCommands.has(cmd.command)))
  if (directCommands.size > 0) {
    // pnpm links an importer's node_modules twice: first its packages without preference (making
    // those commands' files executable), then with its own dependencies first. The first pass's
    // files stay executable.
    for (const { target } of choose(commands.filter((cmd) => cmd.placed)).values()) {
      const real = realpathOrUndefined(target)
      const mode = real === undefined ? 0 : fs.statSync(real).mode
      if (real !== undefined && ownsFile(real) && (mode & 0o111) !== 0o111) makeExecutable(real, mode)
    }
  }
  const existing = readdirOrNothing(binDir)
  for (const entry of existing) if (!chosen.has(entry)) fs.rmSync(path.join(binDir, entry), { recursive: true, force: true })
  if (chosen.size === 0) {
    if (existing.length > 0) fs.rmSync(binDir, { recursive: true, force: true })
    return
  }
  fs.mkdirSync(binDir, { recursive: true })
  for (const [command, { target }] of chosen) {
    const real = realpathOrUndefined(target)
    // A file the package does not ship (maybe one its build writes): no command, until it exists.
    if (real === undefined) {
      fs.rmSync(path.join(binDir, command), { force: true })
      continue
    }
    const inModules = path.dirname(real).split(path.sep).includes('node_modules')
    const mode = fs.statSync(real).mode
    const runnable = (mode & 0o111) === 0o111 && !hasWindowsShebang(real)
    const link = path.join(binDir, command)
    if (inModules || runnable) {
      const relative = path.relative(binDir, target)
      if (readlinkOrUndefined(link) !== relative) {
        fs.rmSync(link, { force: true })
        fs.symlinkSync(relative, link)
      }
    } else {
      writeShShim(target, link, { nodePath: [], head: readHead(target) })
    }
    // As pnpm: made executable only inside node_modules (a linked project's files are the user's).
    if (inModules && ownsFile(real) && (mode & 0o111) !== 0o111) makeExecutable(real, mode)
  }
}

/**
 * chmod +x of a file that may be hardlinked to the store (and to other packages' copies of the
 * same content): a file with other links is copied first, so the store's file keeps its mode.
 */
function makeExecutable (file: string, mode: number): void {
  if (fs.statSync(file).nlink > 1) {
    const temp = `${file}.${process.pid}.tmp`
    fs.copyFileSync(file, temp)
    fs.renameSync(temp, file)
  }
  fs.chmodSync(file, (mode & 0o777) | 0o111)
}

// Commands pnpm gives to a package of another name.
const BIN_OWNERS: Readonly<Record<string, readonly string[] | undefined>> = { npx: ['npm'], pn: ['pnpm', '@pnpm/exe'], pnpm: ['@pnpm/exe'], pnpx: ['pnpm', '@pnpm/exe'], pnx: ['pnpm', '@pnpm/exe'] }

/** pnpm's choice between two packages declaring one command: the one named as it, else the greater name, else the greater version. */
function preferredCommand (
  candidate: { command: string, pkgName: string, pkgVersion: string },
  current: { command: string, pkgName: string, pkgVersion: string }
): boolean {
  const owns = (cmd: { command: string, pkgName: string }): boolean => cmd.command === cmd.pkgName
    || own(BIN_OWNERS, cmd.command)?.includes(cmd.pkgName) === true
  if (owns(candidate) !== owns(current)) return owns(candidate)
  if (candidate.pkgName !== current.pkgName) return candidate.pkgName.localeCompare(current.pkgName) > 0
  return validVersion(candidate.pkgVersion) !== null
    && validVersion(current.pkgVersion) !== null
    && compareVersions(candidate.pkgVersion, current.pkgVersion) > 0
}

/** The packages of a `node_modules` (`name` and `@scope/name`), dot entries aside. */
function readModulesDirAliases (modulesDir: string): string[] {
  return readdirOrNothing(modulesDir).flatMap((entry) => {
    if (entry.startsWith('.')) return []
    if (!entry.startsWith('@')) return [entry]
    return readdirOrNothing(path.join(modulesDir, entry)).filter((name) => !name.startsWith('.')).map((name) => `${entry}/${name}`)
  })
}

function realpathOrUndefined (file: string): string | undefined {
  try {
    return fs.realpathSync(file)
  } catch (err) {
    if (hasErrno(err, 'ENOENT') || hasErrno(err, 'ENOTDIR')) return undefined
    throw err
  }
}

function readlinkOrUndefined (link: string): string | undefined {
  try {
    return fs.readlinkSync(link)
  } catch {
    return undefined
  }
}

/** A `#!…\r\n` first line: such a script is not run as it is (pnpm writes a shim). */
function hasWindowsShebang (file: string): boolean {
  return /^#![^\n]+\r\n/.test(readHead(file))
}

/** A synchronous call as a settled promise. */
function settled<A extends unknown[], R> (fn: (...args: A) => R): (...args: A) => Promise<R> {
  return async (...args) => await new Promise<R>((resolve) => { resolve(fn(...args)) })
}

export interface LinkBinsOptions {
  /** Commands not to write (already written from a provider that takes precedence). */
  exclude?: ReadonlySet<string>
  /** Manifests already read, by package directory: one install reads each bin package once. */
  manifests?: Map<string, Promise<Record<string, unknown>>>
  /** Bin targets already made executable, with their first bytes (null: missing): each once per install. */
  heads?: Map<string, string | null>
}

function readManifest (dir: string, cache: Map<string, Promise<Record<string, unknown>>> | undefined): Promise<Record<string, unknown>> {
  const file = path.join(dir, 'package.json')
  let manifest = cache?.get(dir)
  if (manifest === undefined) {
    manifest = settled(() => parsePackageJson(fs.readFileSync(file, 'utf8'), file))()
    cache?.set(dir, manifest)
  }
  return manifest
}

/**
 * command → file inside the package, from `bin` or `directories.bin` (then marked `listed`); unsafe
 * names and paths are dropped.
 */
function binsOf (dir: string, manifest: Record<string, unknown>): Array<[string, string, boolean]> {
  const name = typeof manifest['name'] === 'string' ? manifest['name'] : undefined
  const bin = manifest['bin']
  let entries: Array<[string, string]> = []
  let listed = false
  if (typeof bin === 'string' && name !== undefined) entries = [[name.replace(/^@[^/]+\//, ''), bin]]
  else if (typeof bin === 'object' && bin !== null) entries = Object.entries(bin).filter((e): e is [string, string] => typeof e[1] === 'string')
  else {
    const binDir = (manifest['directories'] as { bin?: unknown } | undefined)?.bin
    // A directory outside the package is not listed at all.
    const binPath = typeof binDir === 'string' ? joinInside(dir, binDir) : undefined
    if (binPath !== undefined) entries = readdirOrNothing(binPath).map((file) => [file, path.join(binDir as string, file)])
    listed = true
  }
  return entries
    .map(([command, file]): [string, string, boolean] => [command.replace(/^@[^/]+\//, ''), file, listed])
    .filter(([command, file]) => isSafeBinName(command) && joinInside(dir, file) !== undefined)
}

/** Where a provider's package really is (a link's target), or its directory when that cannot be told. */
function realDirOf (provider: BinProvider): string {
  if (provider.target !== undefined) return provider.target
  try {
    return fs.realpathSync(provider.dir)
  } catch {
    return provider.dir
  }
}

function readdirOrNothing (dir: string): string[] {
  try {
    return fs.readdirSync(dir)
  } catch {
    return []
  }
}

/** The first 4 KiB of a file, as text: a shebang line is in it, and a bin can be a large bundle or a native executable. */
function readHead (file: string): string {
  const fd = fs.openSync(file, 'r')
  try {
    const head = Buffer.allocUnsafe(4096)
    return head.toString('utf8', 0, fs.readSync(fd, head, 0, head.length, 0))
  } finally {
    fs.closeSync(fd)
  }
}
