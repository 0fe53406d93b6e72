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
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? Object.entries(value as Record<string, NpmEntry>) : []
}

function add (versions: ImportedVersions, name: string, version: unknown): void {
  let set = versions.get(name)
  if (set === undefined) versions.set(name, set = new Set())
  if (typeof version === 'string' && version !== '') set.add(version)
}

/** lockfileVersion 1 (and 2's `dependencies`): a tree of `dependencies`, each with its version. */
function addNpmV1Versions (lock: NpmEntry, versions: ImportedVersions): void {
  for (const [name, entry] of entries(lock.dependencies)) {
    add(versions, name, entry.version)
    addNpmV1Versions(entry, versions)
  }
}

/** lockfileVersion 3 (and 2's `packages`): `node_modules/…/<name>` paths, each with its version and its dependencies' ranges. */
function addNpmVersions (lock: NpmEntry, versions: ImportedVersions): void {
  const walk = (packages: unknown): void => {
    for (const [key, entry] of entries(packages)) {
      const at = key.lastIndexOf('node_modules/')
      add(versions, at === -1 ? key : key.slice(at + 'node_modules/'.length), entry.version)
      walk(entry.packages)
      for (const [name, range] of entries(entry.dependencies)) add(versions, name, range)
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
