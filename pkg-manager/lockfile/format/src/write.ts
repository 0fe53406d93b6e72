import fs from 'node:fs/promises'
import path from 'node:path'

import { WANTED_LOCKFILE } from '@lode/core.constants'
import { LodeError } from '@lode/core.error'
import { writeFileAtomic } from '@lode/fs.write-file-atomic'

import type { Lockfile } from './types.js'
import { emitYaml } from './yaml-emit.js'

// pnpm's root key order; other root keys follow, sorted.
const ROOT_KEYS = [
  'lockfileVersion', 'settings', 'catalogs', 'overrides', 'packageExtensionsChecksum', 'pnpmfileChecksum',
  'untrackedPnpmfileReadPackageHook', 'patchedDependencies', 'importers', 'packages',
]
// pnpm's key order inside package and snapshot entries, applied at every depth of an entry.
const ENTRY_KEYS = [
  'resolution', 'id', 'name', 'version', 'engines', 'cpu', 'os', 'libc', 'deprecated', 'hasBin', 'prepare',
  'requiresBuild', 'bundleDependencies', 'peerDependencies', 'peerDependenciesMeta', 'dependencies',
  'optionalDependencies', 'transitivePeerDependencies', 'dev', 'optional',
]

/** Code-unit order, as pnpm sorts (not `localeCompare`). */
export function lexCompare (a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0
}

function byPriority (priority: readonly string[]): (a: string, b: string) => number {
  const rank = new Map(priority.map((key, i) => [key, i]))
  return (a, b) => {
    const ra = rank.get(a)
    const rb = rank.get(b)
    if (ra !== undefined && rb !== undefined) return ra - rb
    if (ra !== undefined) return -1
    if (rb !== undefined) return 1
    return lexCompare(a, b)
  }
}

const isMap = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value)

/** `map[key] = value`, as an own property even for `__proto__` (a key YAML may have), never the object's prototype. */
function setOwn (map: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__') Object.defineProperty(map, key, { value, enumerable: true, writable: true, configurable: true })
  else map[key] = value
}

/** Sorts every map in `value` with `compare`, recursively; lists keep their order. */
function sortDeep (value: unknown, compare: (a: string, b: string) => number): unknown {
  if (!isMap(value)) return value
  const out: Record<string, unknown> = {}
  for (const key of Object.keys(value).sort(compare)) setOwn(out, key, sortDeep(value[key], compare))
  return out
}

function sortKeys<T> (map: Record<string, T>, each: (value: T) => unknown): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  for (const key of Object.keys(map).sort(lexCompare)) setOwn(out, key, each(map[key]!))
  return out
}

const isEmpty = (value: unknown): boolean =>
  value === undefined || value === null || value === '' || value === false ||
  (Array.isArray(value) && value.length === 0) || (isMap(value) && Object.keys(value).length === 0)

/** The lockfile as pnpm lays it out: its sections in pnpm's order, keys sorted its way, empty sections left out. */
export function normalizeLockfile (lockfile: Lockfile): Record<string, unknown> {
  const sections: Record<string, unknown> = { ...lockfile }
  const rootEntry = byPriority(ROOT_KEYS)
  const entry = byPriority(ENTRY_KEYS)
  if (lockfile.catalogs !== undefined) sections['catalogs'] = sortDeep(lockfile.catalogs, lexCompare)
  if (lockfile.patchedDependencies !== undefined) sections['patchedDependencies'] = sortDeep(lockfile.patchedDependencies, lexCompare)
  if (lockfile.time !== undefined) sections['time'] = sortDeep(lockfile.time, lexCompare)
  if (lockfile.ignoredOptionalDependencies !== undefined) sections['ignoredOptionalDependencies'] = [...lockfile.ignoredOptionalDependencies].sort(lexCompare)
  sections['importers'] = sortKeys(lockfile.importers, (project) => sortDeep(project, rootEntry))
  if (lockfile.packages !== undefined) sections['packages'] = sortKeys(lockfile.packages, (pkg) => sortDeep(pkg, entry))
  if (lockfile.snapshots !== undefined) sections['snapshots'] = sortKeys(lockfile.snapshots, (snapshot) => sortDeep(snapshot, entry))
  const out: Record<string, unknown> = {}
  for (const key of Object.keys(sections).sort(rootEntry)) {
    const value = sections[key]
    if (key === 'lockfileVersion' || key === 'importers' || key === 'settings' || !isEmpty(value)) setOwn(out, key, value)
  }
  return out
}

/** `pnpm-lock.yaml`'s text for `lockfile`, byte for byte what pnpm 11 writes for the same content. */
export function stringifyLockfile (lockfile: Lockfile): string {
  return emitYaml(normalizeLockfile(lockfile))
}

/**
 * Writes `<dir>/pnpm-lock.yaml` atomically (temp file, then rename), so an interrupted write
 * leaves the old lockfile. Returns whether the content changed; an unchanged file is not touched.
 */
export async function writeLockfile (dir: string, lockfile: Lockfile, envDocument?: string): Promise<boolean> {
  return await writeLockfileText(dir, lockfileText(lockfile, envDocument))
}

/** The text of pnpm-lock.yaml for this lockfile (and the env document before it, configDependencies'). */
export function lockfileText (lockfile: Lockfile, envDocument?: string): string {
  return withEnvDocument(stringifyLockfile(lockfile), envDocument)
}

/** pnpm-lock.yaml's text: the lockfile's (`stringifyLockfile`), after the env document when there is one. */
export function withEnvDocument (text: string, envDocument: string | undefined): string {
  return (envDocument !== undefined ? `---\n${envDocument}---\n` : '') + text
}

/**
 * Writes `<dir>/pnpm-lock.yaml` with this text (a lockfile as written before); false when it already
 * was. The file keeps its mode (pnpm's, whatever the umask). A change through a symlinked
 * pnpm-lock.yaml is refused (`checkLockfileWrite`), the link and its target left as they are.
 */
export async function writeLockfileText (dir: string, text: string): Promise<boolean> {
  const file = path.join(dir, WANTED_LOCKFILE)
  const current = await checkLockfileWrite(dir, text)
  if (current?.text === text) return false
  await writeFileAtomic(file, text, current?.mode)
  return true
}

/**
 * What pnpm-lock.yaml holds now (its text and mode; undefined when there is none), after checking
 * that `text` may be written there: a pnpm-lock.yaml that is a symlink, to be changed, is
 * `ERR_LODE_LOCKFILE_IS_SYMLINK`, as pnpm refuses it. An install checks this before it changes
 * anything else.
 */
export async function checkLockfileWrite (dir: string, text: string): Promise<{ text: string, mode: number } | undefined> {
  const file = path.join(dir, WANTED_LOCKFILE)
  const stat = await fs.lstat(file).catch((err: NodeJS.ErrnoException) => { if (err.code === 'ENOENT') return undefined; throw err })
  if (stat === undefined) return undefined
  const current = await fs.readFile(file, 'utf8').catch((err: NodeJS.ErrnoException) => { if (err.code === 'ENOENT') return undefined; throw err })
  if (stat.isSymbolicLink() && current !== text) {
    throw new LodeError('LOCKFILE_IS_SYMLINK', `Refusing to write symlinked lockfile at ${file}.`, {
      hint: 'Replace the link with the file itself (or change the file it points to) and run the command again.',
    })
  }
  return current === undefined ? undefined : { text: current, mode: stat.mode & 0o777 }
}
