import path from 'node:path'

import { LodeError } from '@lode/fs.error'
import type { DependencyGroup } from '@lode/pkg-manager.lockfile'

import type { InstallOptions, InstallResult } from './full-install.js'
import { installAndRecord } from './install.js'
import { readProjectManifest } from './project-manifest.js'

/** What `add`, `remove` and `update` share: the install's options, and the project they change. */
export interface ProjectEditOptions extends Omit<InstallOptions, 'edit' | 'frozenLockfile' | 'preferFrozenLockfile'> {
  /** The project to change (a workspace project's directory); the root (`config.dir`) by default. */
  projectDir?: string
}

export interface AddOptions extends ProjectEditOptions {
  /** What to add, as on pnpm's command line: `name`, `name@range`, `name@tag`, `alias@npm:name@range`, `name@workspace:*`. */
  dependencies: readonly string[]
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
  const { importerId } = targetOf(opts)
  return await installAndRecord({
    ...opts,
    edit: { importerId, dependencies, group: opts.group, exact: opts.exact === true, savePrefix: opts.config.savePrefix },
  })
}

export interface RemoveOptions extends ProjectEditOptions {
  /** The names to remove, from every dependency group. */
  dependencies: readonly string[]
}

/**
 * pnpm's `remove`: takes the names out of every dependency group of the project's package.json,
 * updates the lockfile and node_modules. A name the project does not depend on is
 * `ERR_LODE_CANNOT_REMOVE_MISSING_DEPS`, and nothing is written.
 */
export async function remove (opts: RemoveOptions): Promise<InstallResult> {
  const { dir, importerId } = targetOf(opts)
  const specs = await specsOf(dir, true)
  const missing = opts.dependencies.filter((name) => !specs.has(name))
  if (missing.length > 0) {
    throw new LodeError('CANNOT_REMOVE_MISSING_DEPS', `Cannot remove ${missing.map((name) => `'${name}'`).join(', ')}: no such ${missing.length === 1 ? 'dependency' : 'dependencies'} found in ${path.join(dir, 'package.json')}.`, {
      hint: `Available dependencies: ${[...specs.keys()].join(', ') || 'none'}.`,
    })
  }
  return await installAndRecord({ ...opts, edit: { importerId, dependencies: [], remove: opts.dependencies, exact: false, savePrefix: opts.config.savePrefix } })
}

export interface UpdateOptions extends ProjectEditOptions {
  /** The direct dependencies to update; every one of the project's when empty. */
  dependencies: readonly string[]
}

/**
 * pnpm's `update` within ranges: the named direct dependencies (all when none is named) resolve
 * again to the newest version their range allows, wherever they occur, and package.json keeps
 * each range's prefix with the new version (`^1.0.0` becomes `^1.1.0`).
 */
export async function update (opts: UpdateOptions): Promise<InstallResult> {
  const { dir, importerId } = targetOf(opts)
  const specs = await specsOf(dir, false)
  const names = opts.dependencies.length === 0 ? [...specs.keys()] : opts.dependencies.filter((name) => specs.has(name))
  const dependencies = names.map((alias) => ({ alias, bareSpecifier: specs.get(alias)! }))
  return await installAndRecord({ ...opts, edit: { importerId, dependencies, update: names, exact: false, savePrefix: opts.config.savePrefix } })
}

function targetOf (opts: ProjectEditOptions): { dir: string, importerId: string } {
  const dir = path.resolve(opts.config.dir, opts.projectDir ?? '.')
  return { dir, importerId: path.relative(opts.config.dir, dir).split(path.sep).join('/') || '.' }
}

/** The project's direct dependencies and their specs, from every group (with peers when asked). */
async function specsOf (dir: string, withPeers: boolean): Promise<Map<string, string>> {
  const manifest = await readProjectManifest(dir)
  const groups = ['dependencies', 'devDependencies', 'optionalDependencies', ...withPeers ? ['peerDependencies'] as const : []] as const
  return new Map(groups.flatMap((group) => Object.entries(manifest[group] ?? {})))
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
