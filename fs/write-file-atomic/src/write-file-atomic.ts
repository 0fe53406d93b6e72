import { randomBytes } from 'node:crypto'
import fsSync from 'node:fs'
import fs from 'node:fs/promises'
import path from 'node:path'

import { hasErrno } from '@lode/core.error'

/**
 * Writes `data` to `file` atomically: to a temp file beside it, then renamed over it, so a reader
 * (or a crash) sees the old file or the new one, never a part. Creates the parent directory if
 * needed; a failed write removes its temp file. No fsync: files written this way are either
 * regenerated (lockfile, caches) or checked when read. `mode` (a file of credentials: 0o600) is
 * the new file's from the start, never widened for a moment. Run as root, a file replaced keeps its owner.
 */
export async function writeFileAtomic (file: string, data: string | Uint8Array, mode?: number): Promise<void> {
  const temp = `${file}.${randomBytes(6).toString('hex')}.tmp`
  try {
    await writeNew(temp, data, mode)
    await keepOwner(file, temp)
    await fs.rename(temp, file)
  } catch (err) {
    await fs.rm(temp, { force: true })
    throw err
  }
}

/** `writeFileAtomic`, blocking: for a thread whose task is to write the file (a metadata cache entry). */
export function writeFileAtomicSync (file: string, data: Uint8Array): void {
  const temp = `${file}.${randomBytes(6).toString('hex')}.tmp`
  try {
    try {
      fsSync.writeFileSync(temp, data, { flag: 'wx' })
    } catch (err) {
      if (!hasErrno(err, 'ENOENT')) throw err
      fsSync.mkdirSync(path.dirname(temp), { recursive: true })
      fsSync.writeFileSync(temp, data, { flag: 'wx' })
    }
    fsSync.renameSync(temp, file)
  } catch (err) {
    fsSync.rmSync(temp, { force: true })
    throw err
  }
}

/** A file written beside its place, not yet in it: `commit()` renames it into place, `discard()` removes it. */
export interface PreparedFile {
  commit: () => Promise<void>
  discard: () => Promise<void>
}

/**
 * The first half of `writeFileAtomic`: `data` is written to a temp file beside `file` now, and
 * only `commit()` replaces `file` with it. For a file written while other work goes on that may
 * still fail (an install's `.pnpm/lock.yaml` while its packages are imported): a failure then
 * discards it and `file` stays as it was.
 */
export async function prepareFileAtomic (file: string, data: string | Uint8Array): Promise<PreparedFile> {
  const temp = `${file}.${randomBytes(6).toString('hex')}.tmp`
  const discard = async (): Promise<void> => { await fs.rm(temp, { force: true }) }
  try {
    await writeNew(temp, data)
  } catch (err) {
    await discard()
    throw err
  }
  return {
    commit: async () => {
      try {
        await keepOwner(file, temp)
        await fs.rename(temp, file)
      } catch (err) {
        await discard()
        throw err
      }
    },
    discard,
  }
}

async function writeNew (file: string, data: string | Uint8Array, mode?: number): Promise<void> {
  const options = { flag: 'wx', ...mode === undefined ? {} : { mode } }
  try {
    await fs.writeFile(file, data, options)
  } catch (err) {
    if (!hasErrno(err, 'ENOENT')) throw err
    await fs.mkdir(path.dirname(file), { recursive: true })
    await fs.writeFile(file, data, options)
  }
  // The umask narrows a mode given at creation; a credentials file keeps exactly its own.
  if (mode !== undefined) await fs.chmod(file, mode)
}

/**
 * Run as root, the file replaced keeps its owner (as npm's write-file-atomic keeps it): a project of
 * another user stays theirs after `sudo lode install`. Nothing to do for a new file, or as anyone else.
 */
async function keepOwner (file: string, temp: string): Promise<void> {
  if (process.getuid?.() !== 0) return
  let stats: { uid: number, gid: number }
  try {
    stats = await fs.stat(file)
  } catch (err) {
    if (hasErrno(err, 'ENOENT')) return
    throw err
  }
  if (stats.uid !== 0 || stats.gid !== 0) await fs.chown(temp, stats.uid, stats.gid)
}

const TEMP_SUFFIX = /^\.[0-9a-f]{12}\.tmp$/

/**
 * Removes the temp files a killed `writeFileAtomic` left beside `file`. Only for where no other
 * process may be writing `file` at the same time (it would lose its temp file).
 */
export async function removeAtomicTemps (file: string): Promise<void> {
  const dir = path.dirname(file)
  const base = path.basename(file)
  let entries: string[]
  try {
    entries = await fs.readdir(dir)
  } catch (err) {
    if (hasErrno(err, 'ENOENT')) return
    throw err
  }
  await Promise.all(entries
    .filter((entry) => entry.startsWith(base) && TEMP_SUFFIX.test(entry.slice(base.length)))
    .map(async (entry) => { await fs.rm(path.join(dir, entry), { force: true }) }))
}
