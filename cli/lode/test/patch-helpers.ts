import fs from 'node:fs'
import path from 'node:path'

import { snapshot } from './helpers.js'
import type { Project, RunResult } from './helpers.js'

// What the patch tests compare between pnpm 11 and lode: output with the project's directory (and
// the directory around it) named alike, files read from the project, a directory's files.

/** What a command printed (errors with pnpm's code prefix), with the project's directory as `<dir>`, its parent as `<up>` and pnpm's name as lode's. */
export function output (result: RunResult, dir: string): string {
  return (result.stdout + result.stderr).replace(/ERR_(?:PNPM|LODE)_/g, 'ERR_')
    .split(dir).join('<dir>').split(path.dirname(dir)).join('<up>').replace(/\bpnpm (patch)/g, 'lode $1')
}

export function firstLine (result: RunResult, dir: string): string {
  return output(result, dir).split('\n')[0]!
}

export function read (project: Project, file: string): string | undefined {
  const full = path.join(project.dir, file)
  return fs.existsSync(full) ? fs.readFileSync(full, 'utf8') : undefined
}

/** A directory's files with their modes and contents. */
export function tree (dir: string): Record<string, string> {
  return Object.fromEntries([...snapshot(dir)])
}
