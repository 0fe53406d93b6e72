import path from 'node:path'

import { LodeError } from '@lode/core.error'
import validateNpmPackageName from 'validate-npm-package-name'

/**
 * The one rule that lets a name from a manifest, a packument or a lockfile become a path: every
 * dependency alias, package name, bin name and file a package points at goes through here before
 * it is joined to a directory. Packuments, manifests and lockfiles are attacker-controlled: a
 * dependency named `../../x` must stop the install before anything is written.
 */

// Names already checked: the rule runs for every dependency edge of an install.
const validNames = new Set<string>()

/**
 * pnpm's rule for a dependency alias (validate-npm-package-name's `validForOldPackages`): one
 * `name` or `@scope/name` of URL-friendly characters, not starting with `.`, `_` or `-`, not
 * `node_modules`. Upper case and names over 214 characters pass, as old packages have them.
 */
export function isValidPackageName (name: unknown): boolean {
  if (typeof name !== 'string') return false
  if (validNames.has(name)) return true
  // A lone surrogate is no name (and makes the rule's encodeURIComponent throw).
  if (!name.isWellFormed() || !validateNpmPackageName(name).validForOldPackages) return false
  validNames.add(name)
  return true
}

/** `ERR_LODE_INVALID_DEPENDENCY_NAME` unless `alias` is a valid package name; `dependent` says who declared it. */
export function assertValidDependencyName (alias: string, dependent: string): void {
  if (isValidPackageName(alias)) return
  throw new LodeError('INVALID_DEPENDENCY_NAME', `${dependent} has a dependency with an invalid name: ${JSON.stringify(alias)}. lode will not make it a path in node_modules.`, {
    hint: 'A dependency name is a package name: `name` or `@scope/name`, of URL-friendly characters, not starting with ".", "_" or "-", and not "node_modules". If a published package declares it, do not install that version; if it is in your package.json or pnpm-lock.yaml, fix the name.',
  })
}

/** The keys of a dependency map (`dependencies`, `peerDependencies`, …) checked with `assertValidDependencyName`. */
export function assertValidDependencyNames (deps: Readonly<Record<string, unknown>> | undefined, dependent: string): void {
  if (deps === undefined) return
  for (const alias of Object.keys(deps)) assertValidDependencyName(alias, dependent)
}

/**
 * `<modulesDir>/<alias>` for a valid alias, checked to be inside `modulesDir` (as pnpm's
 * safeJoinModulesDir does, for aliases read back from a lockfile or a layout that skipped the
 * resolver's check). Joined by hand: a valid name holds at most one `/`, and the layout joins
 * thousands of these.
 */
export function joinModulesDir (modulesDir: string, alias: string): string {
  if (!isValidPackageName(alias)) {
    throw new LodeError('INVALID_DEPENDENCY_NAME', `Refusing to place a dependency under ${modulesDir} with the invalid name ${JSON.stringify(alias)}.`, {
      hint: 'The name comes from pnpm-lock.yaml or a package\'s manifest; a dependency name is `name` or `@scope/name`. Fix or delete the lockfile entry, or do not install the package that declares it.',
    })
  }
  return `${modulesDir}${path.sep}${path.sep === '/' ? alias : alias.replace('/', path.sep)}`
}

/**
 * `relative` joined to `dir` when it stays inside it (not absolute, no `..` climbing out, no NUL
 * byte), else undefined. For paths a package names inside itself: bin targets, `directories.bin`,
 * files a patch touches.
 */
export function joinInside (dir: string, relative: string): string | undefined {
  if (relative.includes('\0') || path.isAbsolute(relative) || path.win32.isAbsolute(relative)) return undefined
  const normalized = path.normalize(relative)
  if (normalized === '..' || normalized.startsWith(`..${path.sep}`) || normalized.startsWith('../')) return undefined
  return normalized === '.' ? dir : path.join(dir, normalized)
}

/** Whether `child` is `parent` or a path under it (by their names: symlinks are not followed). */
export function isInsideDir (parent: string, child: string): boolean {
  const relative = path.relative(parent, child)
  return relative === '' || (relative !== '..' && !relative.startsWith(`..${path.sep}`) && !path.isAbsolute(relative))
}

/**
 * A command name a `.bin` directory may hold: one file name, with no separator or character a
 * file system refuses, not `.` or `..`. (A scope is stripped before: `@scope/cmd` is `cmd`.)
 */
export function isSafeBinName (command: string): boolean {
  return /^[^/\\:*?"<>|\0]+$/.test(command) && command !== '.' && command !== '..'
}

/**
 * `record[key]` when `key` is the record's own property, else undefined: dependency maps are plain
 * objects keyed by untrusted names, and a dependency named `constructor` or `toString` must not
 * find Object.prototype's members.
 */
export function own<T> (record: Readonly<Record<string, T>> | undefined, key: string): T | undefined {
  return record !== undefined && Object.hasOwn(record, key) ? record[key] : undefined
}
