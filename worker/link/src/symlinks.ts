import fs from 'node:fs'
import path from 'node:path'

import { LodeError, fileSystemError, hasErrno } from '@lode/core.error'

/** A symlink to write: where it goes and what it points at, both absolute (written relative). */
export type LinkToWrite = readonly [path: string, target: string]

/**
 * Writes the symlinks, relative (so a moved project keeps working), parents as needed. A link
 * already pointing at its target is left alone; anything else in its place is replaced. A link
 * that cannot be written is, on a link thread or on the main thread alike, the file-system error
 * the machine causes (`ERR_LODE_EACCES`, `ERR_LODE_ENOSPC`, … naming the path) or else
 * `ERR_LODE_LINK_FAILED`.
 */
export function writeSymlinks (links: readonly LinkToWrite[]): void {
  try {
    writeEach(links)
  } catch (err) {
    // symlink's error gives the target as its path and the link as its dest.
    const { dest, path: file } = err as NodeJS.ErrnoException & { dest?: string }
    throw fileSystemError(err, dest ?? file) ?? new LodeError('LINK_FAILED', `Could not write a symlink in node_modules: ${(err as Error).message}`, {
      hint: 'Check that node_modules is writable and the disk has room, then run lode install again.',
      cause: err,
    })
  }
}

function writeEach (links: readonly LinkToWrite[]): void {
  for (const [link, target] of links) {
    const relative = path.relative(path.dirname(link), target)
    try {
      fs.symlinkSync(relative, link, 'dir')
    } catch (err) {
      if (hasErrno(err, 'ENOENT')) {
        fs.mkdirSync(path.dirname(link), { recursive: true })
      } else {
        if (!hasErrno(err, 'EEXIST')) throw err
        if (readlinkOrUndefined(link) === relative) continue
        removeInModulesDir(link)
      }
      fs.symlinkSync(relative, link, 'dir')
    }
  }
}

/**
 * Clears the place of a link: a link or file is unlinked; a directory (a package npm installed
 * there, say) is removed with what it holds only inside a `node_modules` directory, so a path
 * that escaped it can never take a user's directory with it.
 */
function removeInModulesDir (link: string): void {
  if (!fs.lstatSync(link).isDirectory()) {
    fs.unlinkSync(link)
    return
  }
  if (!link.includes(`${path.sep}node_modules${path.sep}`)) {
    throw new Error(`refusing to remove the directory ${link}, which is not inside a node_modules directory, to put a symlink there`)
  }
  fs.rmSync(link, { recursive: true, force: true })
}

function readlinkOrUndefined (link: string): string | undefined {
  try {
    return fs.readlinkSync(link)
  } catch {
    return undefined
  }
}
