import type { Dirent } from 'node:fs'
import fs from 'node:fs/promises'
import path from 'node:path'

/**
 * pnpm's `prune` of direct dependencies: every package in these `node_modules` directories (a
 * name, or `@scope/name`) whose path is not in `keep` (the direct dependencies' links and the
 * publicly hoisted ones) is removed, whatever it is: a link someone made by hand, a directory a
 * tool left. Entries whose names start with a dot (`.bin`, `.pnpm`, lode's and pnpm's records)
 * are not packages; a link is removed, never followed; an emptied scope directory goes too.
 * Returns the paths removed.
 */
export async function removeExtraneous (modulesDirs: readonly string[], keep: ReadonlySet<string>): Promise<string[]> {
  const removed: string[] = []
  for (const modulesDir of modulesDirs) {
    for (const entry of await entriesOf(modulesDir)) {
      if (entry.name.startsWith('.')) continue
      const full = path.join(modulesDir, entry.name)
      if (!entry.name.startsWith('@') || !entry.isDirectory()) {
        if (!keep.has(full)) removed.push(await remove(full))
        continue
      }
      const scoped = await entriesOf(full)
      const gone = []
      for (const inner of scoped) {
        const innerPath = path.join(full, inner.name)
        if (!keep.has(innerPath)) gone.push(await remove(innerPath))
      }
      removed.push(...gone)
      if (gone.length === scoped.length) await fs.rmdir(full).catch(() => {})
    }
  }
  return removed
}

async function entriesOf (dir: string): Promise<Dirent[]> {
  return await fs.readdir(dir, { withFileTypes: true }).catch(() => [])
}

async function remove (file: string): Promise<string> {
  await fs.rm(file, { recursive: true, force: true })
  return file
}
