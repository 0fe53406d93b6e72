import fs from 'node:fs'
import path from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'

import { INSTALL_LOCK_FILE, VIRTUAL_STORE_DIR } from '@lode/core.constants'
import { hasErrno } from '@lode/core.error'

/** The lock file in node_modules that one install of a project holds at a time. */

// How often a waiting install looks at the lock again.
const POLL_MS = 100

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
  const file = path.join(modulesDir, INSTALL_LOCK_FILE)
  let created: string | undefined
  let waited = false
  for (;;) {
    opts.signal?.throwIfAborted()
    try {
      created ??= fs.mkdirSync(modulesDir, { recursive: true })
      fs.writeFileSync(file, String(process.pid), { flag: 'wx' })
      break
    } catch (err) {
      // The holder removed the node_modules it had created (its install failed): make it again.
      if (hasErrno(err, 'ENOENT')) continue
      if (!hasErrno(err, 'EEXIST')) throw err
    }
    const holder = readHolder(file)
    if (holder !== undefined && !isAlive(holder)) {
      fs.rmSync(file, { force: true })
      continue
    }
    if (!waited) {
      waited = true
      opts.onWait(`Waiting for another install in ${path.dirname(modulesDir)}${holder === undefined ? '' : ` (process ${holder})`} to finish`)
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

function readHolder (file: string): number | undefined {
  try {
    const pid = Number(fs.readFileSync(file, 'utf8'))
    return Number.isInteger(pid) && pid > 0 ? pid : undefined
  } catch {
    // Being written, or just released: look again.
    return undefined
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
