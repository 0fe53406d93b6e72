import crypto from 'node:crypto'
import fs from 'node:fs'
import path from 'node:path'
import { threadId } from 'node:worker_threads'

import { STORE_HASH_ALGORITHM, STORE_TMP_DIR } from '@lode/core.constants'
import { fileSystemError, hasErrno } from '@lode/core.error'

import { casFilePath, contentPathFromHex, modeIsExecutable, storePath } from './layout.js'

export { packFiles } from './file-list.js'
export { casFilePath, contentPathFromHex, modeIsExecutable, storePath } from './layout.js'

/** One file of a package as the store index records it (pnpm's `PackageFileInfo`). */
export interface CasFileInfo {
  /** When the CAS file was last known to hold this content (ms since the epoch). */
  checkedAt: number
  /** SHA-512 of the content, lowercase hex. */
  digest: string
  /** The mode from the tarball entry, e.g. 0o644 or 0o755. */
  mode: number
  size: number
}

export interface CasWriterOptions {
  /** The clock for `checkedAt`. */
  now: () => number
}

export interface CasWriter {
  /** Hashes `content`, stores it under its digest unless it is already there, and describes it. */
  addFile: (content: Uint8Array, mode: number) => CasFileInfo
  /**
   * `addFile` for content too large to hold in memory: it is written to a temp file in
   * `<store>/v11/tmp/` and hashed as it comes, then renamed to its digest name, so a reader never
   * sees part of it under that name. Call `abort()` when the content cannot be finished.
   */
  openFile: (mode: number) => CasFileStream
}

/** One file being added to the CAS piece by piece (`CasWriter.openFile`). */
export interface CasFileStream {
  /** Appends to the file's content. */
  write: (chunk: Uint8Array) => void
  /** Stores the content under its digest unless it is already there, and describes it. */
  finish: () => CasFileInfo
  /** Removes the temp file; does nothing once the file is finished, or when called again. */
  abort: () => void
}

/**
 * A writer of one store's CAS, for one thread. Synchronous on purpose: it runs in a store-pool
 * thread, where blocking calls are the cheapest way to write thousands of small files.
 *
 * A new digest name is written in place, as pnpm writes it: one exclusive create and one write,
 * no stat, no temp file, no rename (those cost a cold install about half its extraction time).
 * Content already in the store costs a failed create and a `stat`, and no write. Crash safety: a
 * write cut short leaves a file shorter than its content, which no index row names (rows are
 * written after their files) and which the next write of that content replaces, through a temp
 * file in `<store>/v11/tmp/` renamed over it. `openFile`'s content, streamed rather than held in
 * memory, always goes through such a temp file: only large files pay its rename. Its methods are
 * closures over one thread's state (buffers, the directories made), hence one long factory.
 *
 * A write that fails (a full disk, a read-only directory) removes what it created, so no digest
 * name ever holds part of its content because of it, and throws a `LodeError` naming the file
 * (`ERR_LODE_ENOSPC`, `ERR_LODE_EACCES`, … from `fileSystemError`); any other error as it is.
 */
export function createCasWriter (storeDir: string, opts: CasWriterOptions): CasWriter {
  const root = storePath(storeDir)
  const tmpDir = path.join(root, STORE_TMP_DIR)
  const tmpPrefix = path.join(tmpDir, `${process.pid}-${threadId}-`)
  // Digests this writer already wrote or found, apart and `-exec`: a dependency tree repeats
  // licences and the like. Digests, not paths: the file records hold the same strings.
  const known = { plain: new Set<string>(), exec: new Set<string>() }
  let counter = 0

  /** A new temp file, created exclusively, open for writing. */
  function openTemp (fileMode: number): { temp: string, fd: number } {
    for (;;) {
      const temp = `${tmpPrefix}${counter++}`
      try {
        return { temp, fd: fs.openSync(temp, 'wx', fileMode) }
      } catch (err) {
        // EEXIST: a leftover of a killed process that had our pid; take the next name.
        if (hasErrno(err, 'EEXIST')) continue
        if (!hasErrno(err, 'ENOENT')) throw err
        fs.mkdirSync(tmpDir, { recursive: true })
      }
    }
  }

  function writeTemp (content: Uint8Array, fileMode: number): string {
    const { temp, fd } = openTemp(fileMode)
    writeAllOrRemove(fd, temp, content)
    return temp
  }

  function write (dest: string, content: Uint8Array, fileMode: number): void {
    try {
      writeNew(dest, content, fileMode)
    } catch (err) {
      if (!hasErrno(err, 'EEXIST')) throw err
      if (fs.statSync(dest).size !== content.byteLength) publish(writeTemp(content, fileMode), dest)
    }
  }

  /** One exclusive create and one write (what `writeFileSync` does), the file removed again when the write fails. */
  function writeNew (dest: string, content: Uint8Array, fileMode: number): void {
    let fd: number
    try {
      fd = fs.openSync(dest, 'wx', fileMode)
    } catch (err) {
      if (!hasErrno(err, 'ENOENT')) throw err
      fs.mkdirSync(path.dirname(dest), { recursive: true })
      fd = fs.openSync(dest, 'wx', fileMode)
    }
    writeAllOrRemove(fd, dest, content)
  }

  function publish (temp: string, dest: string): void {
    try {
      fs.renameSync(temp, dest)
    } catch (err) {
      if (!hasErrno(err, 'ENOENT')) throw err
      fs.mkdirSync(path.dirname(dest), { recursive: true })
      fs.renameSync(temp, dest)
    }
  }

  function destOf (digest: string, executable: boolean): string {
    return `${root}${path.sep}${contentPathFromHex(digest, executable)}`
  }

  function openFile (mode: number): CasFileStream {
    const executable = modeIsExecutable(mode)
    const { temp, fd } = openTemp(executable ? 0o755 : 0o644)
    const hash = crypto.createHash(STORE_HASH_ALGORITHM)
    let size = 0
    let open = true
    let done = false
    function close (): void {
      if (!open) return
      open = false
      fs.closeSync(fd)
    }
    function abort (): void {
      if (done) return
      done = true
      try {
        close()
      } finally {
        fs.rmSync(temp, { force: true })
      }
    }
    return {
      write (chunk) {
        try {
          writeAll(fd, chunk)
        } catch (err) {
          throw named(err, temp)
        }
        hash.update(chunk)
        size += chunk.byteLength
      },
      finish () {
        const digest = hash.digest('hex')
        const dest = destOf(digest, executable)
        const knownDigests = executable ? known.exec : known.plain
        try {
          close()
          // Content already there in full stays as it is (its inode, its mtime), as `addFile` leaves it.
          if (knownDigests.has(digest) || sizeOf(dest) === size) {
            abort()
          } else {
            publish(temp, dest)
            done = true
          }
        } catch (err) {
          abort()
          throw named(err, dest)
        }
        knownDigests.add(digest)
        return { checkedAt: opts.now(), digest, mode, size }
      },
      abort,
    }
  }

  return {
    addFile (content, mode) {
      const digest = crypto.hash(STORE_HASH_ALGORITHM, content, 'hex')
      const executable = modeIsExecutable(mode)
      const knownDigests = executable ? known.exec : known.plain
      if (!knownDigests.has(digest)) {
        const dest = destOf(digest, executable)
        try {
          write(dest, content, executable ? 0o755 : 0o644)
        } catch (err) {
          throw named(err, dest)
        }
        knownDigests.add(digest)
      }
      return { checkedAt: opts.now(), digest, mode, size: content.byteLength }
    },
    openFile: (mode) => {
      try {
        return openFile(mode)
      } catch (err) {
        throw named(err, tmpDir)
      }
    },
  }
}

function writeAll (fd: number, content: Uint8Array): void {
  for (let offset = 0; offset < content.byteLength;) {
    offset += fs.writeSync(fd, content, offset, content.byteLength - offset)
  }
}

/** Writes `content` to the new file `file` (open as `fd`) and closes it; a write that fails takes the file away with it. */
function writeAllOrRemove (fd: number, file: string, content: Uint8Array): void {
  try {
    writeAll(fd, content)
  } catch (err) {
    fs.closeSync(fd)
    fs.rmSync(file, { force: true })
    throw err
  }
  fs.closeSync(fd)
}

/**
 * A file-system error the machine causes as `fileSystemError`'s `LodeError`, naming the path the
 * failed call was on, else `file` (a write on an open file has no path of its own); anything else as it is.
 */
function named (err: unknown, file: string): unknown {
  return fileSystemError(err, (err as NodeJS.ErrnoException | undefined)?.path ?? file) ?? err
}

function sizeOf (file: string): number | undefined {
  try {
    return fs.statSync(file).size
  } catch (err) {
    if (hasErrno(err, 'ENOENT')) return undefined
    throw err
  }
}

/**
 * Checks that the CAS file for `file` exists and that its content hashes to its name.
 * Reads the whole file: meant for verification, not for the install path.
 */
export function casFileMatches (storeDir: string, file: Pick<CasFileInfo, 'digest' | 'mode'>): boolean {
  let content: Buffer
  try {
    content = fs.readFileSync(casFilePath(storeDir, file.digest, file.mode))
  } catch (err) {
    if (hasErrno(err, 'ENOENT')) return false
    throw err
  }
  return crypto.hash(STORE_HASH_ALGORITHM, content, 'hex') === file.digest
}
