import fs from 'node:fs/promises'
import path from 'node:path'

import { hasErrno } from '@lode/fs.error'

import type { Symlink } from './layout.js'

/**
 * Creates the symlinks, relative (so a moved project keeps working), parents as needed. A link
 * already pointing at its target is left alone; anything else in its place is replaced.
 */
export async function writeSymlinks (symlinks: readonly Symlink[]): Promise<void> {
  const parents = new Map<string, Promise<unknown>>()
  await Promise.all(symlinks.map(async (link) => {
    const parent = path.dirname(link.path)
    const relative = path.relative(parent, link.target)
    let made = parents.get(parent)
    if (made === undefined) parents.set(parent, made = fs.mkdir(parent, { recursive: true }))
    await made
    try {
      await fs.symlink(relative, link.path, 'dir')
    } catch (err) {
      if (!hasErrno(err, 'EEXIST')) throw err
      if (await fs.readlink(link.path).catch(() => undefined) === relative) return
      await fs.rm(link.path, { recursive: true, force: true })
      await fs.symlink(relative, link.path, 'dir')
    }
  }))
}
