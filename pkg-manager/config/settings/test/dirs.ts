import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'

/** A fresh project directory and a home beside it. */
export function dirs (): { dir: string, home: string } {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'lode-config-'))
  const dir = path.join(root, 'project')
  const home = path.join(root, 'home')
  fs.mkdirSync(dir)
  fs.mkdirSync(home)
  return { dir, home }
}
