import fs from 'node:fs'
import path from 'node:path'

import {
  INSTALLING_MARKER, LODE_STATE_FILE, MODULES_DIR, MODULES_MANIFEST_FILE, PNPM_WORKSPACE_STATE_FILE, VIRTUAL_STORE_DIR, WANTED_LOCKFILE,
} from '@lode/core.constants'
import { hasErrno, LodeError } from '@lode/core.error'

// What an install writes into node_modules under a dot name; other dot entries (a tool's `.cache`,
// pnpm's `.ignored`, lode's install lock) stay, as pnpm's clean leaves them.
const INSTALL_DOT_ENTRIES = new Set(['.bin', MODULES_MANIFEST_FILE, VIRTUAL_STORE_DIR, PNPM_WORKSPACE_STATE_FILE, LODE_STATE_FILE, INSTALLING_MARKER])

export interface CleanOptions {
  /** The projects whose node_modules are emptied: the workspace's, or the one project. */
  projectDirs: readonly string[]
  /** The workspace's root (or the project): a virtual store outside node_modules goes only when it is inside. */
  rootDir: string
  /** `virtualStoreDir`, absolute. */
  virtualStoreDir: string
  /** `--lockfile`: each project's pnpm-lock.yaml goes too. */
  removeLockfile: boolean
  /** Told each path before it goes (pnpm prints `Removing <path>`). */
  onRemove: (target: string) => void
}

interface Removal {
  /** What is printed. */
  target: string
  /** What is removed: the target, or the entries of a node_modules. */
  paths: string[]
}

/**
 * pnpm 11's `clean`: what installs wrote into each project's node_modules (every entry but dot
 * entries an install does not write), each pnpm-lock.yaml with `removeLockfile`, and a
 * `virtualStoreDir` of the workspace's that lies outside node_modules. Everything is looked at
 * before anything goes: a node_modules that is a link or a file is refused
 * (`ERR_LODE_CLEAN_NOT_A_DIRECTORY`: emptying it would empty what it points to), with nothing removed.
 */
export async function cleanProjects (opts: CleanOptions): Promise<void> {
  const removals: Removal[] = []
  for (const dir of opts.projectDirs) {
    const modulesDir = path.join(dir, MODULES_DIR)
    const entries = installedEntries(modulesDir)
    if (entries.length > 0) removals.push({ target: modulesDir, paths: entries.map((entry) => path.join(modulesDir, entry)) })
    const lockfile = path.join(dir, WANTED_LOCKFILE)
    if (opts.removeLockfile && lstat(lockfile) !== undefined) removals.push({ target: lockfile, paths: [lockfile] })
  }
  if (outsideModulesInsideRoot(opts.virtualStoreDir, opts.rootDir)) {
    removals.push({ target: opts.virtualStoreDir, paths: [opts.virtualStoreDir] })
  }
  for (const removal of removals) {
    opts.onRemove(removal.target)
    // A link among the entries goes itself: fs.rm never follows one.
    await Promise.all(removal.paths.map(async (entry) => { await fs.promises.rm(entry, { recursive: true, force: true }) }))
  }
}

/** The entries of a node_modules an install wrote; none when there is no node_modules. */
function installedEntries (modulesDir: string): string[] {
  const stat = lstat(modulesDir)
  if (stat === undefined) return []
  if (!stat.isDirectory()) {
    throw new LodeError('CLEAN_NOT_A_DIRECTORY', `${modulesDir} is ${stat.isSymbolicLink() ? 'a symbolic link' : 'not a directory'}: lode clean empties only a node_modules directory of the project's own.`, {
      hint: 'Remove it by hand if it should go (rm, not rm -r, for a link), then run lode clean again.',
    })
  }
  return fs.readdirSync(modulesDir).filter((entry) => !entry.startsWith('.') || INSTALL_DOT_ENTRIES.has(entry))
}

function lstat (file: string): fs.Stats | undefined {
  try {
    return fs.lstatSync(file)
  } catch (err) {
    if (hasErrno(err, 'ENOENT') || hasErrno(err, 'ENOTDIR')) return undefined
    throw err
  }
}

/**
 * Whether a virtual store set apart from node_modules is the workspace's to remove: it exists, and
 * it lies below the root, also once links are followed (a linked parent would take the removal
 * elsewhere); never the root itself.
 */
function outsideModulesInsideRoot (virtualStoreDir: string, rootDir: string): boolean {
  if (isBelow(path.join(rootDir, MODULES_DIR), virtualStoreDir) || virtualStoreDir === path.join(rootDir, MODULES_DIR)) return false
  if (!isBelow(rootDir, virtualStoreDir) || lstat(virtualStoreDir) === undefined) return false
  return isBelow(fs.realpathSync(rootDir), path.join(fs.realpathSync(path.dirname(virtualStoreDir)), path.basename(virtualStoreDir)))
}

function isBelow (parent: string, child: string): boolean {
  const relative = path.relative(parent, child)
  return relative !== '' && relative !== '..' && !relative.startsWith(`..${path.sep}`) && !path.isAbsolute(relative)
}
