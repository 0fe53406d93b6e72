// Where the store is: pnpm 11's rules (`getDataDir` of @pnpm/config.reader, `getStorePath` of
// @pnpm/store.path), so that lode and pnpm pick the same store for the same settings and pnpm
// accepts the node_modules lode made (`.modules.yaml#storeDir` must name its store).
import { randomBytes } from 'node:crypto'
import fs from 'node:fs'
import path from 'node:path'

import { STORE_VERSION } from '@lode/core.constants'
import { hasErrno } from '@lode/core.error'

type Env = Readonly<Record<string, string | undefined>>

/**
 * pnpm 11's data directory: `$PNPM_HOME`, else `$XDG_DATA_HOME/pnpm` (any platform), else
 * `~/Library/pnpm` on macOS, `%LOCALAPPDATA%/pnpm` (or `~/.pnpm`) on Windows and
 * `~/.local/share/pnpm` elsewhere. An empty variable counts as unset, as in pnpm.
 */
export function pnpmDataDir (env: Env, home: string, platform: NodeJS.Platform): string {
  const fromEnv = (name: string): string | undefined => env[name] === '' ? undefined : env[name]
  const pnpmHome = fromEnv('PNPM_HOME')
  if (pnpmHome !== undefined) return pnpmHome
  const xdgData = fromEnv('XDG_DATA_HOME')
  if (xdgData !== undefined) return path.join(xdgData, 'pnpm')
  if (platform === 'darwin') return path.join(home, 'Library', 'pnpm')
  if (platform !== 'win32') return path.join(home, '.local', 'share', 'pnpm')
  const localAppData = fromEnv('LOCALAPPDATA')
  return localAppData !== undefined ? path.join(localAppData, 'pnpm') : path.join(home, '.pnpm')
}

export interface StorePathOptions {
  /** The `storeDir` setting as given (flag, pnpm-workspace.yaml, pnpm's global config.yaml); undefined or empty for the default. */
  setting: string | undefined
  /** The workspace root (pnpm's `workspaceDir ?? dir`): a relative setting is resolved from it, and the default probes hard links from it. */
  dir: string
  home: string
  /** `pnpmDataDir`. */
  dataDir: string
}

/**
 * What `pnpm store path` prints: the versioned store directory (`…/v11`).
 *
 * - A setting: `~/` is the home directory, a relative path is resolved from the workspace root,
 *   and `v11` is appended unless the path already ends in `/v11` (so `/x/store` and
 *   `/x/store/v11` are one store).
 * - No setting: `<dataDir>/store/v11` when a file in the workspace root can be hard-linked into
 *   the data directory (one filesystem; packages are hard-linked from the store), else
 *   `.pnpm-store/v11` at the top of the root's filesystem (the first directory from `/` down that
 *   a file can be linked into, or its parent when that works too). As pnpm, this creates the
 *   workspace root and the data directory when missing, and falls back to the data directory
 *   when the root cannot be written.
 */
export function pnpmStorePath (opts: StorePathOptions): string {
  if (opts.setting === undefined || opts.setting === '') return defaultStorePath(opts.dir, opts.dataDir)
  const setting = /^~[/\\]/.test(opts.setting) ? path.join(opts.home, opts.setting.slice(2)) : opts.setting
  const base = path.isAbsolute(setting) ? setting : path.join(opts.dir, setting)
  return base.endsWith(`${path.sep}${STORE_VERSION}`) ? base : path.join(base, STORE_VERSION)
}

function defaultStorePath (dir: string, dataDir: string): string {
  const inDataDir = path.join(dataDir, 'store', STORE_VERSION)
  const probe = tempPath(dir)
  try {
    if (path.parse(dir).root !== dir) fs.mkdirSync(dir, { recursive: true })
    fs.closeSync(fs.openSync(probe, 'a'))
  } catch (err) {
    if (hasErrno(err, 'EACCES') || hasErrno(err, 'EPERM') || hasErrno(err, 'EROFS')) return inDataDir
    throw err
  }
  try {
    if (canLinkIntoNewDir(probe, dataDir)) return inDataDir
    let mountpoint = rootLinkTarget(probe)
    const parent = path.join(mountpoint, '..')
    if (path.relative(parent, mountpoint) !== '' && canLinkIntoNewDir(probe, parent)) mountpoint = parent
    return path.join(mountpoint, '.pnpm-store', STORE_VERSION)
  } catch {
    return inDataDir
  } finally {
    fs.rmSync(probe, { force: true })
  }
}

/** pnpm's `canLinkToSubdir`: a link into a new temp directory in `dir` (created with its parents, then removed). */
function canLinkIntoNewDir (file: string, dir: string): boolean {
  const tempDir = tempPath(dir)
  try {
    fs.mkdirSync(tempDir, { recursive: true })
    return canLink(file, tempPath(tempDir))
  } catch {
    return false
  } finally {
    fs.rmSync(tempDir, { recursive: true, force: true })
  }
}

/** The `root-link-target` package: the first directory from the filesystem's root down to `file`'s that `file` can be linked into. */
function rootLinkTarget (file: string): string {
  const end = path.dirname(file)
  for (let dir = path.parse(end).root; ; dir = nextDirTowards(dir, end)) {
    if (canLink(file, tempPath(dir))) return dir
    if (dir === end) throw new Error(`${file} cannot be linked to anywhere`)
  }
}

function nextDirTowards (from: string, to: string): string {
  const rest = path.relative(from, to)
  const sep = rest.indexOf(path.sep)
  return path.join(from, sep >= 0 ? rest.slice(0, sep) : rest)
}

/** The `can-link` package: false where the filesystem or permissions refuse a hard link, any other error thrown. */
function canLink (existing: string, link: string): boolean {
  try {
    fs.linkSync(existing, link)
  } catch (err) {
    if (hasErrno(err, 'EXDEV') || hasErrno(err, 'EACCES') || hasErrno(err, 'EPERM')) return false
    throw err
  }
  fs.rmSync(link, { force: true })
  return true
}

/** pnpm's `path-temp` name: unique to the process and the call. */
function tempPath (dir: string): string {
  return path.join(dir, `_tmp_${process.pid}_${randomBytes(8).toString('hex')}`)
}
