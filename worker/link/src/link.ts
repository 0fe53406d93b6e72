import fs from 'node:fs'
import path from 'node:path'
import { threadId } from 'node:worker_threads'

import { LodeError, fileSystemError, hasErrno, toLodeErrorData } from '@lode/core.error'
import type { LodeErrorData } from '@lode/core.error'
import { contentPathFromHex, modeIsExecutable, storePath } from '@lode/store.cafs/layout'

import type { applyPatchFile } from './apply-patch.js'
import { writeSymlinks } from './symlinks.js'
import type { LinkToWrite } from './symlinks.js'

/** pnpm's `packageImportMethod`. */
export type ImportMethod = 'auto' | 'hardlink' | 'clone' | 'copy' | 'clone-or-copy'

/** One package to import: its directory and its files. */
export interface PackageToImport {
  dir: string
  /** Path inside the package, CAS digest and mode of each file, as `packFiles` writes them. */
  files: string
  /** A patch to apply (pnpm's `patchedDependencies`), before the package is renamed into place. */
  patch?: { file: string, label: string }
  /**
   * Its install scripts may run (its row says it builds): files are cloned or copied, never hardlinked,
   * so a build that rewrites one of them cannot write through the link into the store (pnpm's too).
   */
  builds?: boolean
  /**
   * Put it in place even when `dir` exists (the hoisted layout, where a directory can hold another
   * version): what is there is replaced, but its `node_modules` (the packages nested in it) moves
   * into the new one.
   */
  replace?: boolean
}

/** A batch of packages, imported by one link-pool thread (see `@lode/worker.pools`), then symlinks. */
export interface LinkTask {
  storeDir: string
  method: ImportMethod
  packages: PackageToImport[]
  /** Written once the packages are in place: theirs, beside them, or any others (see `writeSymlinks`). */
  links?: LinkToWrite[]
  /** The caller found every package's directory absent just now: they are not looked for again. */
  absent?: boolean
}

export interface LinkOutcome {
  /** Packages written now (the others were already complete). */
  imported: number
  /** The method that ended up used for files, after fallbacks (`auto`: hardlink → clone → copy). */
  used: 'hardlink' | 'clone' | 'copy' | undefined
  /** Set when hardlinking failed because the store is on another device. */
  crossDevice: boolean
}

export type LinkResult = { ok: true, value: LinkOutcome } | { ok: false, error: LodeErrorData }

// What worked so far in this thread, per store: a failed hardlink across devices is not retried per file.
const workingMethod = new Map<string, 'hardlink' | 'clone' | 'copy'>()
// Temp directory names: unique per process, thread and package.
let temps = 0

/**
 * Imports each package of the batch from the CAS into its directory. A package is built in a
 * temp directory beside its target and renamed into place, so its directory, once there, is
 * complete: an interrupted install leaves temp directories (removed on the next run), never a
 * half-filled package. A package whose directory exists is skipped.
 */
export async function link (task: LinkTask): Promise<LinkResult> {
  try {
    // The patch code (and its diff library) loads only for a task with a patch to apply.
    const patcher = task.packages.some((pkg) => pkg.patch !== undefined) ? (await import('./apply-patch.js')).applyPatchFile : undefined
    const outcome = importPackages(task, patcher)
    if (task.links !== undefined) writeSymlinks(task.links)
    return { ok: true, value: outcome }
  } catch (err) {
    // Handed back as data (a thrown Error reaches the main thread without its code and path): a
    // LodeError, or a file-system error the machine causes as `fileSystemError`'s. Anything else is a bug.
    const coded = err instanceof LodeError ? err : fileSystemError(err)
    if (coded === undefined) throw err
    return { ok: false, error: toLodeErrorData(coded) }
  }
}

export function importPackages (task: LinkTask, patcher?: typeof applyPatchFile): LinkOutcome {
  const outcome: LinkOutcome = { imported: 0, used: undefined, crossDevice: false }
  const store = storePath(task.storeDir) + path.sep
  for (const pkg of task.packages) {
    if (pkg.replace !== true && task.absent !== true && fs.existsSync(pkg.dir)) continue
    const temp = `${pkg.dir}_tmp_${process.pid}_${threadId}_${temps++}`
    // The first directory this import creates (its parents may not exist yet): removed again on failure.
    const created = makeDirs(path.dirname(temp))
    // Only a directory that was there can hold what a killed install left.
    if (created === undefined) removeStaleTemps(pkg.dir)
    try {
      importInto(temp, pkg, store, pkg.builds === true ? { ...task, method: 'clone-or-copy' } : task, outcome)
      if (pkg.patch !== undefined) patcher!(temp, pkg.patch.file, pkg.patch.label)
      if (pkg.replace === true) replaceInPlace(temp, pkg.dir)
      else renameIntoPlace(temp, pkg.dir)
    } catch (err) {
      fs.rmSync(temp, { recursive: true, force: true })
      if (created !== undefined) {
        removeEmptyUpTo(path.dirname(temp), created)
        knownDirs.clear()
      }
      if (err instanceof LodeError) throw err
      // A full disk, a read-only directory: ERR_LODE_ENOSPC, ERR_LODE_EACCES, … naming the file
      // being written where it will be, not in the temp directory.
      const { dest, path: file } = err as NodeJS.ErrnoException & { dest?: string }
      const failed = dest ?? file
      throw fileSystemError(err, failed?.startsWith(temp) === true ? pkg.dir + failed.slice(temp.length) : failed ?? pkg.dir) ??
        new LodeError('LINK_FAILED', `Could not write ${pkg.dir}: ${(err as Error).message}`, {
          hint: 'Check that node_modules is writable and the disk has room, then run lode install again.',
          cause: err,
        })
    }
    outcome.imported++
  }
  return outcome
}

// Directories this thread made or found: a package's parents (`.pnpm/<id>/node_modules`) are made
// with one mkdir each, not with mkdir -p, which first tries the deepest and fails on it
// (ENOENT) for every package, or fails on every parent that exists (EEXIST).
const knownDirs = new Set<string>()

/** `mkdir -p dir`: returns the first directory it created, undefined when `dir` was there (as `mkdirSync`'s `recursive`). */
function makeDirs (dir: string): string | undefined {
  if (knownDirs.has(dir)) return undefined
  const parent = path.dirname(dir)
  const first = parent === dir ? undefined : makeDirs(parent)
  try {
    fs.mkdirSync(dir)
  } catch (err) {
    if (hasErrno(err, 'ENOENT')) {
      // A parent this thread knew of was removed since: forget them all, and make the path whole.
      knownDirs.clear()
      return fs.mkdirSync(dir, { recursive: true })
    }
    if (!hasErrno(err, 'EEXIST')) throw err
    knownDirs.add(dir)
    return first
  }
  knownDirs.add(dir)
  return first ?? dir
}

/** Removes `dir` and its parents up to `top`, as long as they are empty. */
function removeEmptyUpTo (dir: string, top: string): void {
  for (let current = dir; current.startsWith(top); current = path.dirname(current)) {
    try {
      fs.rmdirSync(current)
    } catch {
      return // not empty: the rest stays
    }
    if (current === top) return
  }
}

/** Temp directories of this package left by an install that was killed (they are never complete); another live process's are kept. */
function removeStaleTemps (dir: string): void {
  const prefix = `${path.basename(dir)}_tmp_`
  let entries: string[]
  try {
    entries = fs.readdirSync(path.dirname(dir))
  } catch {
    return
  }
  for (const entry of entries) {
    if (!entry.startsWith(prefix)) continue
    const pid = Number(entry.slice(prefix.length).split('_')[0])
    if (Number.isInteger(pid) && isAlive(pid)) continue
    fs.rmSync(path.join(path.dirname(dir), entry), { recursive: true, force: true })
  }
}

function isAlive (pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (err) {
    return hasErrno(err, 'EPERM')
  }
}

// Paths are joined by hand, not with path.join (a tenth of the thread's time): the files' paths come
// from the store index, relative, `/`-separated and checked when the tarball was extracted.
function importInto (root: string, pkg: PackageToImport, store: string, task: LinkTask, outcome: LinkOutcome): void {
  fs.mkdirSync(root)
  const made = new Set<string>([''])
  const fields = pkg.files.split('\0')
  for (let i = 0; i + 2 < fields.length; i += 3) {
    const file = fields[i]!
    const digest = fields[i + 1]!
    const mode = Number(fields[i + 2])
    const target = `${root}${path.sep}${file}`
    const dir = file.slice(0, Math.max(0, file.lastIndexOf('/')))
    if (!made.has(dir)) makeSubdir(root, dir, made)
    const source = store + contentPathFromHex(digest, modeIsExecutable(mode))
    try {
      outcome.used = importFile(source, target, task, outcome)
    } catch (err) {
      if (hasErrno(err, 'ENOENT') && !fs.existsSync(source)) {
        throw new LodeError('STORE_FILE_MISSING', `The store file ${source} for ${file} in ${pkg.dir} is missing.`, {
          hint: 'The store was changed under lode; run lode install again (it will download the package anew), or run lode store prune.',
        })
      }
      throw err
    }
  }
}

/** Makes `dir` (relative, `/`-separated) under the new package's `root`, its parents first, each once. */
function makeSubdir (root: string, dir: string, made: Set<string>): void {
  const parent = dir.slice(0, Math.max(0, dir.lastIndexOf('/')))
  if (!made.has(parent)) makeSubdir(root, parent, made)
  fs.mkdirSync(`${root}${path.sep}${dir}`)
  made.add(dir)
}

function importFile (source: string, target: string, task: LinkTask, outcome: LinkOutcome): 'hardlink' | 'clone' | 'copy' {
  const start = task.method === 'auto' || task.method === 'hardlink' ? workingMethod.get(task.storeDir) ?? 'hardlink' : task.method === 'copy' ? 'copy' : 'clone'
  if (start === 'hardlink') {
    try {
      fs.linkSync(source, target)
      return 'hardlink'
    } catch (err) {
      // Another device, or a file system without hard links: fall back for the rest of this store.
      if (!(hasErrno(err, 'EXDEV') || hasErrno(err, 'EPERM') || hasErrno(err, 'EMLINK')) || task.method === 'hardlink') throw err
      if (hasErrno(err, 'EXDEV')) outcome.crossDevice = true
      workingMethod.set(task.storeDir, 'clone')
    }
  }
  if (start !== 'copy' && task.method !== 'copy') {
    try {
      // A reflink where the file system has them; `clone-or-copy` and `auto` accept a copy instead.
      fs.copyFileSync(source, target, task.method === 'clone' ? fs.constants.COPYFILE_FICLONE_FORCE : fs.constants.COPYFILE_FICLONE)
      return task.method === 'clone' ? 'clone' : 'copy'
    } catch (err) {
      if (task.method === 'clone') throw err
    }
  }
  fs.copyFileSync(source, target)
  return 'copy'
}

/**
 * Puts the built directory in the place of whatever is at `dir`, keeping the `node_modules` there
 * (the package's own bundled ones win over an entry of the same name). The old directory is
 * renamed aside under a temp name first, so `dir` is at every moment the old package or the new.
 */
function replaceInPlace (temp: string, dir: string): void {
  const old = fs.lstatSync(dir, { throwIfNoEntry: false })
  if (old === undefined) {
    fs.renameSync(temp, dir)
    return
  }
  if (!old.isDirectory()) {
    fs.unlinkSync(dir)
    fs.renameSync(temp, dir)
    return
  }
  const nested = path.join(dir, 'node_modules')
  if (fs.lstatSync(nested, { throwIfNoEntry: false })?.isDirectory() === true) {
    const into = path.join(temp, 'node_modules')
    if (!fs.existsSync(into)) {
      fs.renameSync(nested, into)
    } else {
      for (const entry of fs.readdirSync(nested)) {
        if (!fs.existsSync(path.join(into, entry))) fs.renameSync(path.join(nested, entry), path.join(into, entry))
      }
    }
  }
  const aside = `${dir}_tmp_${process.pid}_${threadId}_${temps++}`
  fs.renameSync(dir, aside)
  fs.renameSync(temp, dir)
  fs.rmSync(aside, { recursive: true, force: true })
}

/** Renames the built directory into place; when another process finished the same package first, its copy is kept. */
function renameIntoPlace (temp: string, dir: string): void {
  try {
    fs.renameSync(temp, dir)
  } catch (err) {
    if (!(hasErrno(err, 'ENOTEMPTY') || hasErrno(err, 'EEXIST'))) throw err
    fs.rmSync(temp, { recursive: true, force: true })
  }
}
