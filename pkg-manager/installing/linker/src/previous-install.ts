import fsp from 'node:fs/promises'
import path from 'node:path'

import { CURRENT_LOCKFILE, DEPENDENCY_GROUPS, VIRTUAL_STORE_DIR } from '@lode/core.constants'
import { parseLockfile } from '@lode/pkg-manager.lockfile.format'
import type { Lockfile } from '@lode/pkg-manager.lockfile.format'

import { planLayout } from './layout.js'
import type { Layout, LayoutOptions } from './layout.js'
import type { ModulesManifest } from './modules-manifest.js'

/**
 * `.pnpm/lock.yaml`, what the last install put on disk; undefined when there is none (or it is
 * unreadable). Text equal to `asRead`'s (pnpm-lock.yaml as this install read it) is its lockfile.
 */
export async function readInstalledLockfile (
  modulesDir: string,
  asRead?: { readonly text: string, readonly lockfile: Lockfile }
): Promise<Lockfile | undefined> {
  const file = path.join(modulesDir, VIRTUAL_STORE_DIR, CURRENT_LOCKFILE)
  try {
    const text = await fsp.readFile(file, 'utf8')
    return text === asRead?.text ? asRead.lockfile : parseLockfile(text, file).lockfile
  } catch {
    return undefined
  }
}

/** What the last install put in node_modules. */
export interface PreviousInstall {
  lockfile: Lockfile
  layout: Layout
  hoisted: ModulesManifest['hoistedDependencies']
  prunedAt: string | undefined
  ignoredBuilds: string[]
}

/**
 * The layout the last install made, from its `.pnpm/lock.yaml` (read by the caller) and
 * `.modules.yaml`; undefined when there was none (or it is unreadable). When that lockfile is the
 * one installed now (it stood in for a missing pnpm-lock.yaml) with the same groups, the layout
 * planned now is the last one too.
 */
export function readPreviousInstall (
  manifest: ModulesManifest | undefined,
  layoutOptions: LayoutOptions & { skipped: ReadonlySet<string> },
  lockfile: Lockfile | undefined,
  now: { lockfile: Lockfile, layout: Layout }
): PreviousInstall | undefined {
  if (lockfile === undefined) return undefined
  const include = manifest?.included ?? layoutOptions.include
  const sameGroups = DEPENDENCY_GROUPS.every((group) => include[group] === layoutOptions.include[group])
  // What the last install skipped (another supportedArchitectures, another machine): its layout had no links to them.
  const skipped = manifest?.skipped === undefined ? layoutOptions.skipped : new Set(manifest.skipped)
  const sameSkipped = skipped.size === layoutOptions.skipped.size && [...skipped].every((depPath) => layoutOptions.skipped.has(depPath))
  try {
    const same = lockfile === now.lockfile && sameGroups && sameSkipped
    const layout = same ? now.layout : planLayout(lockfile, { ...layoutOptions, include, skipped })
    return {
      lockfile,
      layout,
      hoisted: manifest?.hoistedDependencies ?? {},
      prunedAt: manifest?.prunedAt,
      ignoredBuilds: manifest?.ignoredBuilds ?? [],
    }
  } catch {
    return undefined
  }
}
