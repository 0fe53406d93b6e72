import fs from 'node:fs'
import path from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'

import { INSTALL_LOCK_FILE, VIRTUAL_STORE_DIR } from '@lode/core.constants'
import { LodeError, fileSystemError, hasErrno } from '@lode/core.error'
import { assertOwnModulesDir } from '@lode/core.safe-name/modules-dir'

/** The lock file in node_modules that one install of a project holds at a time. */

// How often a waiting install looks at the lock again.
const POLL_MS = 100
// An empty lock is one being written; still empty after this many looks, its writer died before writing.
const EMPTY_POLLS = 20
// A pid, as lode writes it: decimal digits, no more than a pid_t holds.
const PID = /^[1-9][0-9]{0,9}$/

export interface InstallLock {
  /**
   * Lets the next install in. After a failed install, a node_modules this one created goes too
   * when nothing is left in it (the install took its new packages out again).
   */
  release: (opts: { failed: boolean }) => Promise<void>
}

export interface LockOptions {
  /** Said once when another install holds the lock. */
  onWait: (message: string) => void
  signal?: AbortSignal | undefined
}

/**
 * Takes the project's install lock (`node_modules/.lode-install.lock`, created exclusively, holding
 * the holder's pid), waiting for another install of the same project to finish first. Two installs
 * at once would otherwise undo each other's renames and links; the second one then starts from
 * what the first left. A lock whose process is gone (killed) is taken over.
 */
export async function lockProject (modulesDir: string, opts: LockOptions): Promise<InstallLock> {
  assertOwnModulesDir(modulesDir)
  const file = path.join(modulesDir, INSTALL_LOCK_FILE)
  let created: string | undefined
  let waited = false
  let empty = 0
  for (;;) {
    opts.signal?.throwIfAborted()
    try {
      created ??= fs.mkdirSync(modulesDir, { recursive: true })
    } catch (err) {
      // A recursive mkdir fails so only for a file in the way, or a symlink on the way that leads nowhere (a repository can carry either).
      const why = hasErrno(err, 'EEXIST') ? 'a file stands there' : hasErrno(err, 'ENOENT') ? 'a symlink on the way to it leads nowhere' : undefined
      if (why === undefined) throw fileSystemError(err, modulesDir) ?? err
      throw new LodeError('INVALID_MODULES_DIR', `${modulesDir} cannot be made: ${why}.`, {
        hint: `Remove it (lode makes ${path.basename(modulesDir)} itself), then install again.`,
      })
    }
    try {
      fs.writeFileSync(file, String(process.pid), { flag: 'wx' })
      break
    } catch (err) {
      // The holder removed the node_modules it had created (its install failed): make it again.
      if (hasErrno(err, 'ENOENT')) continue
      if (!hasErrno(err, 'EEXIST')) throw err
    }
    const holder = readHolder(file)
    if (holder === 'gone') continue
    empty = holder === 'empty' ? empty + 1 : 0
    // A lock lode did not write (a repository can carry one), one left empty, or its holder's process gone: taken over.
    if (holder === 'foreign' || empty > EMPTY_POLLS || (typeof holder === 'number' && !isAlive(holder))) {
      fs.rmSync(file, { force: true })
      continue
    }
    if (!waited) {
      waited = true
      opts.onWait(`Waiting for another install in ${path.dirname(modulesDir)}${typeof holder === 'number' ? ` (process ${holder})` : ''} to finish`)
    }
    await sleep(POLL_MS, undefined, opts.signal === undefined ? {} : { signal: opts.signal })
  }
  return {
    release: async ({ failed }) => {
      await fs.promises.rm(file, { force: true })
      if (!failed || created === undefined) return
      for (const dir of [path.join(modulesDir, VIRTUAL_STORE_DIR), modulesDir]) {
        try {
          await fs.promises.rmdir(dir)
        } catch (err) {
          if (!hasErrno(err, 'ENOENT') && !hasErrno(err, 'ENOTEMPTY')) throw err
        }
      }
    },
  }
}

/**
 * What holds the lock: a pid, `empty` (being written), `gone` (just released), or `foreign` when it
 * is not a lock lode writes: a symlink (never followed: it could lead to a FIFO that blocks or a
 * device that never ends), or a file of anything but a pid. Something other than a file or a
 * symlink there is refused: lode removes only what it could have made.
 */
function readHolder (file: string): number | 'empty' | 'gone' | 'foreign' {
  let fd: number
  try {
    const stats = fs.lstatSync(file)
    if (stats.isSymbolicLink()) return 'foreign'
    if (!stats.isFile()) throw notALock(file)
    // No following a link put there since, no waiting on a FIFO.
    fd = fs.openSync(file, fs.constants.O_RDONLY | (fs.constants.O_NOFOLLOW ?? 0) | (fs.constants.O_NONBLOCK ?? 0))
  } catch (err) {
    if (hasErrno(err, 'ENOENT')) return 'gone'
    if (hasErrno(err, 'ELOOP')) return 'foreign'
    throw fileSystemError(err, file) ?? err
  }
  try {
    const stats = fs.fstatSync(fd)
    if (!stats.isFile()) throw notALock(file)
    if (stats.size > 16) return 'foreign'
    const text = fs.readFileSync(fd, 'utf8')
    if (text === '') return 'empty'
    return PID.test(text) && Number(text) <= 2 ** 31 - 1 ? Number(text) : 'foreign'
  } finally {
    fs.closeSync(fd)
  }
}

function notALock (file: string): LodeError {
  return new LodeError('INVALID_INSTALL_LOCK', `${file} is not a lock lode writes: something other than a file stands there.`, {
    hint: `Remove ${file} (lode makes it while an install runs), then install again.`,
  })
}

function isAlive (pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (err) {
    return hasErrno(err, 'EPERM')
  }
}
