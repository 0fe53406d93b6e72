import fs from 'node:fs/promises'
import path from 'node:path'

import { MODULES_MANIFEST_FILE } from '@lode/core.constants'
import { hasErrno } from '@lode/core.error'
import { writeFileAtomic } from '@lode/fs.write-file-atomic'

import type { HoistedDependency } from './hoist.js'
import type { LaidOutPackage } from './layout.js'

/** `node_modules/.modules.yaml`, the fields pnpm 11 writes, in its order. */
export interface ModulesManifest {
  hoistedDependencies: Record<string, Record<string, 'private' | 'public'>>
  hoistPattern: string[]
  included: { dependencies: boolean, devDependencies: boolean, optionalDependencies: boolean }
  injectedDeps: Record<string, string[]>
  /** Packages that want to build but `allowBuilds` does not mention (pnpm writes it only when there are some). */
  ignoredBuilds?: string[]
  layoutVersion: number
  /** `nodeLinker: hoisted`: where each package was put, relative to the workspace root (`node_modules/a/node_modules/b`). */
  hoistedLocations?: Record<string, string[]>
  nodeLinker: 'isolated' | 'hoisted'
  packageManager: string
  pendingBuilds: string[]
  publicHoistPattern: string[]
  prunedAt: string
  skipped: string[]
  storeDir: string
  virtualStoreDir: string
  virtualStoreDirMaxLength: number
  /** The `allowBuilds` setting, when there is one. */
  allowBuilds?: Record<string, boolean>
}

/** pnpm's layout version of `node_modules`. */
export const LAYOUT_VERSION = 5

export function hoistedDependenciesRecord (hoisted: readonly HoistedDependency[]): ModulesManifest['hoistedDependencies'] {
  const out: ModulesManifest['hoistedDependencies'] = {}
  for (const dep of hoisted) (out[dep.depPath] ??= {})[dep.alias] = dep.type
  return out
}

/**
 * pnpm's `injectedDeps`: each directory package (a `file:` dependency, or an injected workspace
 * project) by its source directory, relative to the lockfile's (`packages/a`), with where its copies
 * are (`node_modules/.pnpm/a@file+packages+a/node_modules/a`, one per peer variant).
 */
export function injectedDepsRecord (packages: ReadonlyArray<Pick<LaidOutPackage, 'pkgId' | 'name' | 'dir' | 'resolution'>>, lockfileDir: string): ModulesManifest['injectedDeps'] {
  const out: ModulesManifest['injectedDeps'] = {}
  for (const pkg of packages) {
    const source = pkg.pkgId.slice(pkg.name.length + 1)
    if (!('directory' in pkg.resolution) || !source.startsWith('file:')) continue
    const targets = out[source.slice('file:'.length)] ??= []
    const target = path.relative(lockfileDir, pkg.dir).split(path.sep).join('/')
    if (!targets.includes(target)) targets.push(target)
  }
  return out
}

// pnpm's key order.
const KEY_ORDER: ReadonlyArray<keyof ModulesManifest> = [
  'hoistedDependencies', 'hoistPattern', 'included', 'injectedDeps', 'ignoredBuilds', 'layoutVersion', 'hoistedLocations', 'nodeLinker',
  'packageManager', 'pendingBuilds', 'publicHoistPattern', 'prunedAt', 'skipped', 'storeDir', 'virtualStoreDir', 'virtualStoreDirMaxLength', 'allowBuilds',
]

/** Writes `.modules.yaml` as pnpm does: JSON (which is YAML), pnpm's key order, two-space indent, no final newline. */
export async function writeModulesManifest (modulesDir: string, manifest: ModulesManifest): Promise<void> {
  const ordered: Record<string, unknown> = {}
  for (const key of KEY_ORDER) if (manifest[key] !== undefined) ordered[key] = key === 'skipped' ? [...manifest.skipped].sort() : manifest[key]
  await writeFileAtomic(path.join(modulesDir, MODULES_MANIFEST_FILE), JSON.stringify(ordered, null, 2))
}

/** The `.modules.yaml` of `modulesDir`, or undefined when there is none (or it is unreadable: the install starts over). */
export async function readModulesManifest (modulesDir: string): Promise<ModulesManifest | undefined> {
  try {
    return JSON.parse(await fs.readFile(path.join(modulesDir, MODULES_MANIFEST_FILE), 'utf8')) as ModulesManifest
  } catch (err) {
    if (hasErrno(err, 'ENOENT') || err instanceof SyntaxError) return undefined
    throw err
  }
}
