import { createHash } from 'node:crypto'
import fs from 'node:fs'
import path from 'node:path'

/** Every path under `root` with its type, mode and content hash (symlinks with their target). */
export function snapshot (root: string): Map<string, string> {
  const out = new Map<string, string>()
  const walk = (dir: string): void => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name)
      const rel = path.relative(root, full)
      const stat = fs.lstatSync(full)
      if (entry.isSymbolicLink()) out.set(rel, `link ${fs.readlinkSync(full)}`)
      else if (entry.isDirectory()) {
        out.set(rel, `dir ${(stat.mode & 0o7777).toString(8)}`)
        walk(full)
      } else out.set(rel, `file ${(stat.mode & 0o7777).toString(8)} ${createHash('sha256').update(fs.readFileSync(full)).digest('hex')}`)
    }
  }
  walk(root)
  return out
}
