import fs from 'node:fs/promises'
import path from 'node:path'

import { DEPENDENCY_GROUPS, MODULES_MANIFEST_FILE } from '@lode/core.constants'
import { LodeError, hasErrno } from '@lode/core.error'
import { isValidPackageName, parseModulesLocation } from '@lode/core.safe-name'
import { writeFileAtomic } from '@lode/fs.write-file-atomic'
import { YAML_OPTIONS, overlongFlowLine, yaml } from '@lode/pkg-manager.lockfile.format/yaml'

import type { HoistedDependency } from './hoist.js'
import { injectedCopiesOf } from './injected-copies.js'
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
  for (const copy of injectedCopiesOf(packages)) {
    const targets = out[copy.projectId] ??= []
    const target = path.relative(lockfileDir, copy.dir).split(path.sep).join('/')
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

/**
 * The `.modules.yaml` of `modulesDir`, or undefined when there is none or it is neither JSON nor
 * YAML. pnpm writes JSON; an older pnpm wrote YAML, read to tell its layout apart (`layoutChange`).
 * Checked as untrusted input (see `parseModulesManifest`).
 */
export async function readModulesManifest (modulesDir: string): Promise<ModulesManifest | undefined> {
  const file = path.join(modulesDir, MODULES_MANIFEST_FILE)
  let text: string
  try {
    text = await fs.readFile(file, 'utf8')
  } catch (err) {
    if (hasErrno(err, 'ENOENT')) return undefined
    throw err
  }
  const parsed = parsedJson(text) ?? parsedYaml(text)
  // An empty file (pnpm reads it as none) too.
  return parsed === undefined || parsed.value === null ? undefined : parseModulesManifest(parsed.value, file)
}

function parsedJson (text: string): { value: unknown } | undefined {
  try {
    return { value: JSON.parse(text) }
  } catch {
    return undefined
  }
}

/** An older pnpm's YAML (never a line the yaml library would take long over). */
function parsedYaml (text: string): { value: unknown } | undefined {
  if (overlongFlowLine(text) !== undefined) return undefined
  try {
    return { value: yaml().parse(text, YAML_OPTIONS) }
  } catch {
    return undefined
  }
}

/**
 * A parsed `.modules.yaml` as lode trusts it: pnpm's fields, each of its type (absent ones stay
 * absent), others dropped. A repository can carry node_modules/.modules.yaml, so its paths are
 * input: each place in `hoistedLocations` is a path under a `node_modules`
 * inside the workspace (`parseModulesLocation`), each hoisted alias a package name. Anything else is
 * `ERR_LODE_INVALID_MODULES_MANIFEST` naming the field, before anything is removed or written.
 */
export function parseModulesManifest (value: unknown, file: string): ModulesManifest {
  const invalid = (field: string, what: string): LodeError => new LodeError('INVALID_MODULES_MANIFEST', `${file} is not as lode or pnpm writes it: ${field} ${what}. lode does not act on it.`, {
    hint: 'node_modules is not something to commit or copy from elsewhere. Remove node_modules and run the install again.',
  })
  if (!isRecord(value)) throw invalid('the file', 'is not an object')
  const out: Record<string, unknown> = {}
  const field = <T>(key: keyof ModulesManifest, check: (v: unknown) => v is T, what: string): void => {
    if (!Object.hasOwn(value, key) || value[key] === undefined) return
    if (!check(value[key])) throw invalid(key, what)
    out[key] = value[key]
  }
  field('hoistedDependencies', (v): v is ModulesManifest['hoistedDependencies'] => isRecordOf(v, (aliases) => isRecord(aliases) &&
    Object.entries(aliases).every(([alias, type]) => isValidPackageName(alias) && (type === 'private' || type === 'public'))), 'must map each package to package names, each "private" or "public"')
  field('hoistPattern', isStringArray, 'must be a list of strings')
  field('included', (v): v is ModulesManifest['included'] => isRecord(v) && DEPENDENCY_GROUPS.every((group) => typeof v[group] === 'boolean'), 'must say true or false for each dependency group')
  // Only written back, never acted on (lode re-imports directory packages from their lockfile entries).
  field('injectedDeps', (v): v is ModulesManifest['injectedDeps'] => isRecordOf(v, isStringArray), 'must map each directory to a list of places')
  field('ignoredBuilds', isStringArray, 'must be a list of strings')
  field('layoutVersion', (v): v is number => typeof v === 'number', 'must be a number')
  field('hoistedLocations', (v): v is Record<string, string[]> => isRecordOf(v, (places) => isStringArray(places) && places.every((place) => parseModulesLocation(place) !== undefined)),
    'must map each package to places under a node_modules inside the workspace')
  field('nodeLinker', (v): v is ModulesManifest['nodeLinker'] => v === 'isolated' || v === 'hoisted', 'must be "isolated" or "hoisted"')
  for (const key of ['packageManager', 'prunedAt', 'storeDir', 'virtualStoreDir'] as const) {
    field(key, (v): v is string => typeof v === 'string' && !v.includes('\0'), 'must be a string')
  }
  field('pendingBuilds', isStringArray, 'must be a list of strings')
  field('publicHoistPattern', isStringArray, 'must be a list of strings')
  field('skipped', isStringArray, 'must be a list of strings')
  field('virtualStoreDirMaxLength', (v): v is number => Number.isInteger(v) && (v as number) > 0, 'must be a positive whole number')
  field('allowBuilds', (v): v is Record<string, boolean> => isRecordOf(v, (allowed) => typeof allowed === 'boolean'), 'must map package names to true or false')
  return out as unknown as ModulesManifest
}

function isRecord (value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

function isRecordOf (value: unknown, check: (entry: unknown) => boolean): boolean {
  return isRecord(value) && Object.values(value).every(check)
}

function isStringArray (value: unknown): value is string[] {
  return Array.isArray(value) && value.every((item) => typeof item === 'string')
}
