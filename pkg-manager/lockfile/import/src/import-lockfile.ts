import fs from 'node:fs'
import path from 'node:path'

import { LodeError } from '@lode/core.error'
import { parseSyml } from '@yarnpkg/parsers'

// What `lode import` takes from another package manager's lockfile: the versions it installs, by
// package name, which the resolution then prefers over any other version a range allows (pnpm's
// `import`). Nothing else is carried over: the dependency graph is resolved anew.

/** Package name → the versions the foreign lockfile has of it (a dependency's range too, as pnpm collects them). */
export type ImportedVersions = Map<string, Set<string>>

/**
 * The versions of the lockfile in `dir`, read where pnpm 11 reads them: `yarn.lock` (yarn 1's
 * format or yarn 2+'s YAML), else `package-lock.json`, else `npm-shrinkwrap.json` (any
 * lockfileVersion). None is `ERR_LODE_LOCKFILE_NOT_FOUND`; one that cannot be parsed,
 * `ERR_LODE_IMPORT_LOCKFILE_INVALID`.
 */
export function readImportedVersions (dir: string): ImportedVersions {
  const versions: ImportedVersions = new Map()
  const yarnLock = path.join(dir, 'yarn.lock')
  if (fs.existsSync(yarnLock)) {
    addYarnVersions(parseYarnLock(yarnLock), versions)
    return versions
  }
  const npmLock = ['package-lock.json', 'npm-shrinkwrap.json'].map((name) => path.join(dir, name)).find((file) => fs.existsSync(file))
  if (npmLock === undefined) {
    throw new LodeError('LOCKFILE_NOT_FOUND', 'No lockfile found', {
      hint: `lode import reads yarn.lock, package-lock.json or npm-shrinkwrap.json in ${dir}.`,
    })
  }
  const lock = readJson(npmLock)
  if (typeof lock.lockfileVersion === 'number' && lock.lockfileVersion < 3) addNpmV1Versions(lock, versions)
  else addNpmVersions(lock, versions)
  return versions
}

interface NpmEntry {
  version?: unknown
  dependencies?: unknown
  packages?: unknown
  lockfileVersion?: unknown
}

function readJson (file: string): NpmEntry {
  let parsed: unknown
  try {
    parsed = JSON.parse(fs.readFileSync(file, 'utf8').replace(/^\uFEFF/, ''))
  } catch (err) {
    throw invalid(file, (err as Error).message)
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) throw invalid(file, 'it is not a JSON object')
  return parsed
}

function invalid (file: string, why: string): LodeError {
  return new LodeError('IMPORT_LOCKFILE_INVALID', `${file} cannot be imported: ${why}.`, {
    hint: 'Fix or regenerate it with the package manager that wrote it, then run lode import again.',
  })
}

function entries (value: unknown): Array<[string, NpmEntry]> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return []
  // An entry that is not an object (a forged or broken lockfile) has nothing to give.
  return Object.entries(value as Record<string, unknown>).map(([key, entry]): [string, NpmEntry] =>
    [key, entry !== null && typeof entry === 'object' && !Array.isArray(entry) ? entry as NpmEntry : {}])
}

/** An entry's `dependencies` as name → range (what is not a string is not one). */
function rangesOf (entry: NpmEntry | undefined): Array<[string, unknown]> {
  const dependencies: unknown = entry?.dependencies
  return dependencies !== null && typeof dependencies === 'object' && !Array.isArray(dependencies) ? Object.entries(dependencies) : []
}

function add (versions: ImportedVersions, name: string, version: unknown): void {
  let set = versions.get(name)
  if (set === undefined) versions.set(name, set = new Set())
  if (typeof version === 'string' && version !== '') set.add(version)
}

/**
 * lockfileVersion 1 (and 2's `dependencies`): a tree of `dependencies`, each with its version.
 * Depth first in the file's order, on a stack of its own: the tree nests as deep as it is.
 */
function addNpmV1Versions (lock: NpmEntry, versions: ImportedVersions): void {
  const stack = [entries(lock.dependencies).reverse()]
  while (stack.length > 0) {
    const next = stack[stack.length - 1]!.pop()
    if (next === undefined) {
      stack.pop()
      continue
    }
    const [name, entry] = next
    add(versions, name, entry.version)
    stack.push(entries(entry.dependencies).reverse())
  }
}

/**
 * lockfileVersion 3 (and 2's `packages`): `node_modules/…/<name>` paths, each with its version and
 * its dependencies' ranges (added once the entries nested in it are), walked as addNpmV1Versions.
 */
function addNpmVersions (lock: NpmEntry, versions: ImportedVersions): void {
  const walk = (packages: unknown): void => {
    const frames: Array<{ list: Array<[string, NpmEntry]>, owner?: NpmEntry }> = [{ list: entries(packages).reverse() }]
    while (frames.length > 0) {
      const frame = frames[frames.length - 1]!
      const next = frame.list.pop()
      if (next === undefined) {
        frames.pop()
        for (const [name, range] of rangesOf(frame.owner)) add(versions, name, range)
        continue
      }
      const [key, entry] = next
      const at = key.lastIndexOf('node_modules/')
      add(versions, at === -1 ? key : key.slice(at + 'node_modules/'.length), entry.version)
      frames.push({ list: entries(entry.packages).reverse(), owner: entry })
    }
  }
  walk(lock.dependencies)
  walk(lock.packages)
}

function parseYarnLock (file: string): Record<string, unknown> {
  try {
    const parsed = parseSyml(fs.readFileSync(file, 'utf8')) as Record<string, unknown>
    delete parsed['__metadata']
    return parsed
  } catch (err) {
    throw new LodeError('YARN_LOCKFILE_PARSE_FAILED', `${file} cannot be parsed: ${(err as Error).message}`, {
      hint: 'Fix or regenerate it with yarn, then run lode import again.',
    })
  }
}

/** Each entry's key lists its descriptors (`a@^1.0.0, a@^1.1.0`, yarn 2+: `a@npm:^1.0.0`); the name is what comes before a descriptor's last `@`. */
function addYarnVersions (lock: Record<string, unknown>, versions: ImportedVersions): void {
  for (const [key, entry] of Object.entries(lock)) {
    const version = (entry as { version?: unknown } | null)?.version
    for (const descriptor of key.split(',').map((part) => part.trim().replace(/^"|"$/g, ''))) {
      const at = descriptor.lastIndexOf('@')
      if (at > 0) add(versions, descriptor.slice(0, at), version)
    }
  }
}
