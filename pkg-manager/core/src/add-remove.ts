import path from 'node:path'

import { LodeError } from '@lode/fs.error'
import type { DependencyGroup } from '@lode/pkg-manager.lockfile'

import type { InstallOptions, InstallResult } from './full-install.js'
import { installAndRecord } from './install.js'
import { readProjectManifest } from './project-manifest.js'

export interface AddOptions extends Omit<InstallOptions, 'edit' | 'frozenLockfile' | 'preferFrozenLockfile'> {
  /** What to add, as on pnpm's command line: `name`, `name@range`, `name@tag`, `alias@npm:name@range`, `name@workspace:*`. */
  dependencies: readonly string[]
  /** The project to add to (a workspace project's directory); the root (`config.dir`) by default. */
  projectDir?: string
  /** `devDependencies` (`-D`), `optionalDependencies` (`-O`); without it, `dependencies` unless the package is already in another group. */
  group?: DependencyGroup
  /** Save the picked version without `savePrefix` (`-E`). */
  exact?: boolean
}

/**
 * pnpm's `add`: resolves each dependency, saves it in the project's package.json with pnpm's
 * specifier (`^1.2.3` for a picked version; a range or version as written), updates the
 * lockfile, and installs. Nothing is written when resolution fails.
 */
export async function add (opts: AddOptions): Promise<InstallResult> {
  const dependencies = opts.dependencies.map(parseAddSpec)
  const importerId = importerIdOf(opts.config.dir, path.resolve(opts.config.dir, opts.projectDir ?? '.'))
  return await installAndRecord({
    ...opts,
    edit: { importerId, dependencies, group: opts.group, exact: opts.exact === true, savePrefix: opts.config.savePrefix },
  })
}

export interface RemoveOptions extends Omit<InstallOptions, 'edit' | 'frozenLockfile' | 'preferFrozenLockfile'> {
  /** The names to remove, from every dependency group. */
  dependencies: readonly string[]
  /** The project to remove from (a workspace project's directory); the root (`config.dir`) by default. */
  projectDir?: string
}

/**
 * pnpm's `remove`: takes the names out of every dependency group of the project's package.json,
 * updates the lockfile and node_modules. A name the project does not depend on is
 * `ERR_LODE_CANNOT_REMOVE_MISSING_DEPS`, and nothing is written.
 */
export async function remove (opts: RemoveOptions): Promise<InstallResult> {
  const dir = path.resolve(opts.config.dir, opts.projectDir ?? '.')
  const manifest = await readProjectManifest(dir)
  const groups = ['dependencies', 'devDependencies', 'optionalDependencies', 'peerDependencies'] as const
  const missing = opts.dependencies.filter((name) => groups.every((group) => (manifest[group])?.[name] === undefined))
  if (missing.length > 0) {
    throw new LodeError('CANNOT_REMOVE_MISSING_DEPS', `Cannot remove ${missing.map((name) => `'${name}'`).join(', ')}: no such ${missing.length === 1 ? 'dependency' : 'dependencies'} found in ${path.join(dir, 'package.json')}.`, {
      hint: `Available dependencies: ${[...new Set(groups.flatMap((group) => Object.keys(manifest[group] ?? {})))].join(', ') || 'none'}.`,
    })
  }
  return await installAndRecord({ ...opts, edit: { importerId: importerIdOf(opts.config.dir, dir), dependencies: [], remove: opts.dependencies, exact: false, savePrefix: opts.config.savePrefix } })
}

export interface UpdateOptions extends Omit<InstallOptions, 'edit' | 'frozenLockfile' | 'preferFrozenLockfile'> {
  /** The direct dependencies to update; every one of the project's when empty. */
  dependencies: readonly string[]
  projectDir?: string
}

/**
 * pnpm's `update` within ranges: the named direct dependencies (all when none is named) resolve
 * again to the newest version their range allows, wherever they occur, and package.json keeps
 * each range's prefix with the new version (`^1.0.0` becomes `^1.1.0`).
 */
export async function update (opts: UpdateOptions): Promise<InstallResult> {
  const dir = path.resolve(opts.config.dir, opts.projectDir ?? '.')
  const manifest = await readProjectManifest(dir)
  const groups = ['dependencies', 'devDependencies', 'optionalDependencies'] as const
  const specs = new Map(groups.flatMap((group) => Object.entries(manifest[group] ?? {})))
  const names = opts.dependencies.length === 0 ? [...specs.keys()] : opts.dependencies.filter((name) => specs.has(name))
  const dependencies = names.map((alias) => ({ alias, bareSpecifier: specs.get(alias)! }))
  return await installAndRecord({ ...opts, edit: { importerId: importerIdOf(opts.config.dir, dir), dependencies, update: names, exact: false, savePrefix: opts.config.savePrefix } })
}

function importerIdOf (rootDir: string, dir: string): string {
  return path.relative(rootDir, dir).split(path.sep).join('/') || '.'
}

/**
 * `name`, `name@spec`, `@scope/name@spec` and `alias@npm:name@spec`, as given to `lode add`.
 * Anything else is `ERR_LODE_INVALID_SPEC`.
 */
export function parseAddSpec (raw: string): { alias: string, bareSpecifier?: string } {
  const at = raw.indexOf('@', 1)
  const alias = at === -1 ? raw : raw.slice(0, at)
  if (!/^(?:@[a-z0-9-~][a-z0-9-._~]*\/)?[a-z0-9-~][a-z0-9-._~]*$/.test(alias)) {
    throw new LodeError('INVALID_SPEC', `"${raw}" is not a package name with an optional version, range, tag or alias.`, {
      hint: 'For example: lode add react, lode add react@^18, lode add my-react@npm:react@18.',
    })
  }
  return at === -1 ? { alias } : { alias, bareSpecifier: raw.slice(at + 1) }
}
