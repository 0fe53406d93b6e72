import fs from 'node:fs'
import path from 'node:path'

import { LodeError } from '@lode/core.error'

/** The pnpmfiles pnpm 11 loads from the workspace root unless told not to (`.mjs` first). */
const DEFAULT_PNPMFILES = ['.pnpmfile.mjs', '.pnpmfile.cjs']

/**
 * pnpm 11 loads `.pnpmfile.mjs` (else `.pnpmfile.cjs`) from the workspace root, and its hooks can
 * change every package's manifest. lode runs no pnpmfile, so a project with one is refused rather
 * than installed differently; `ignorePnpmfile: true` installs without it, as pnpm would.
 */
export function refuseDefaultPnpmfile (dir: string, workspace: Readonly<Record<string, unknown>>): void {
  if (workspace['ignorePnpmfile'] === true || workspace['tryLoadDefaultPnpmfile'] === false) return
  for (const name of DEFAULT_PNPMFILES) {
    const file = path.join(dir, name)
    if (!fs.existsSync(file)) continue
    throw new LodeError('UNSUPPORTED_PNPMFILE', `${file} would be loaded by pnpm, and lode runs no pnpmfile hooks yet.`, {
      hint: 'Use pnpm for this project, or set ignorePnpmfile: true in pnpm-workspace.yaml to install without the pnpmfile (pnpm then ignores it too).',
    })
  }
}
