import { spawnSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'

import { loadFixture } from './fixtures.js'
import type { Fixture } from './fixtures.js'
import { generateMany } from './gen-many.js'
import type { Tool } from './tools.js'

/** The project count of a generated fixture's name (`many-1000`), or undefined for a fixture of the repository. */
export function generatedCount (name: string): number | undefined {
  const match = /^many-([1-9]\d*)$/.exec(name)
  return match === null ? undefined : Number(match[1])
}

/**
 * `many-<count>`: gen-many's workspace of `count` projects, written once into `dir` (the bench's
 * cache, not the repository: thousands of projects), with the lockfile pnpm 12 resolves for it
 * (`install --lockfile-only`) against the mirror, as the `many` fixture's was made.
 */
export function generatedFixture (
  name: string,
  count: number,
  dir: string,
  { pnpm12, registry, log }: { pnpm12: Tool, registry: string, log: (line: string) => void }
): Fixture {
  const root = path.join(dir, name)
  if (!fs.existsSync(path.join(root, 'pnpm-lock.yaml'))) {
    log(`writing ${name}: ${count} projects, and its lockfile by pnpm ${pnpm12.version}`)
    generateMany(count, root)
    const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-lockfile-'))
    // pnpm 12 takes the registry from .npmrc, not from npm_config_registry.
    const npmrc = path.join(root, '.npmrc')
    fs.writeFileSync(npmrc, `registry=${registry}\n`)
    try {
      const c = pnpm12.command('install', { project: root, cache: scratch, store: path.join(scratch, 'store') }, ['--lockfile-only'])
      const result = spawnSync(c.file, c.args, { cwd: root, env: { ...process.env, ...c.env, npm_config_registry: registry }, stdio: 'inherit' })
      if (result.status !== 0) {
        fs.rmSync(path.join(root, 'pnpm-lock.yaml'), { force: true })
        throw new Error(`pnpm ${pnpm12.version} could not write the lockfile of ${name} (exit ${String(result.status)})`)
      }
    } finally {
      fs.rmSync(npmrc, { force: true })
      fs.rmSync(scratch, { recursive: true, force: true })
    }
  }
  return loadFixture(dir, name)
}
