import fs from 'node:fs'
import fsp from 'node:fs/promises'
import path from 'node:path'

import { joinModulesDir } from '@lode/core.safe-name'

import type { ImporterLayout } from './layout.js'

// pnpm's hideAlienModules: a directory another package manager (npm, yarn) installed where a
// project's direct dependency is to be linked is not deleted but moved to `node_modules/.ignored`,
// with a warning, so that nothing the user had is lost.

/** A directory moved aside: where it was (the link's place), and where it went. */
export interface AlienMove {
  from: string
  to: string
}

/**
 * Moves each real directory standing where an importer's direct dependency goes to
 * `<node_modules>/.ignored/<alias>` (an older copy there is replaced, as pnpm replaces it), warning
 * as pnpm warns. Returns the moves, for `restoreAlienModules` should the install fail.
 */
export async function hideAlienModules (
  importers: readonly ImporterLayout[],
  onWarning: ((message: string) => void) | undefined
): Promise<AlienMove[]> {
  const moves: AlienMove[] = []
  for (const importer of importers) {
    for (const { alias } of importer.direct) {
      const from = joinModulesDir(importer.modulesDir, alias)
      const stats = fs.lstatSync(from, { throwIfNoEntry: false })
      if (stats?.isDirectory() !== true) continue
      const to = joinModulesDir(path.join(importer.modulesDir, '.ignored'), alias)
      onWarning?.(`Moving ${alias} that was installed by a different package manager to "node_modules/.ignored"`)
      await fsp.rm(to, { recursive: true, force: true })
      await fsp.mkdir(path.dirname(to), { recursive: true })
      await fsp.rename(from, to)
      moves.push({ from, to })
    }
  }
  return moves
}

/** A failed install puts the directories it moved aside back (the links written at their places go). */
export async function restoreAlienModules (moves: readonly AlienMove[]): Promise<void> {
  for (const { from, to } of [...moves].reverse()) {
    await fsp.rm(from, { force: true })
    await fsp.rename(to, from)
  }
}
