import path from 'node:path'

import type { DependencyGroup } from '@lode/core.constants'
import { splitNameAt } from '@lode/core.dep-path'
import { LodeError } from '@lode/core.error'
import { createMatcher } from '@lode/core.matcher'
import { own } from '@lode/core.safe-name'
import { parseWantedSpec } from '@lode/resolving.npm-resolver/spec'

import type { InstallOptions, InstallResult } from './install-types.js'
import { installAndRecord } from './install.js'
import { readProjectManifest } from './project-manifest.js'

/** What `add`, `remove` and `update` share: the install's options, and the projects they change. */
export interface ProjectEditOptions extends Omit<InstallOptions, 'edits' | 'frozenLockfile' | 'preferFrozenLockfile'> {
  /** The project to change (a workspace project's directory); the root (`config.dir`) by default. */
  projectDir?: string
  /** Several projects to change at once (`--filter`, `-r`); takes the place of `projectDir`. */
  projectDirs?: readonly string[]
}

export interface AddOptions extends ProjectEditOptions {
  /** What to add, as on pnpm's command line: `name`, `name@range`, `name@tag`, `alias@npm:name@range`, `name@workspace:*`. */
  dependencies: readonly string[]
  /** `devDependencies` (`-D`), `optionalDependencies` (`-O`); without it, `dependencies` unless the package is already in another group. */
  group?: DependencyGroup
  /** Save the picked version without `savePrefix` (`-E`). */
  exact?: boolean
  /** `--save-peer`: save in `peerDependencies` too, and install as a dev dependency. */
  peer?: boolean
}

/**
 * pnpm's `add`: resolves each dependency, saves it in each project's package.json with pnpm's
 * specifier (`^1.2.3` for a picked version; a range or version as written), updates the
 * lockfile, and installs. Nothing is written when resolution fails.
 */
export async function add (opts: AddOptions): Promise<InstallResult> {
  // A name given alone that the default catalog has is saved as `catalog:`, as pnpm saves it.
  const dependencies = opts.dependencies.map(parseAddSpec).map((dep) => dep.bareSpecifier === undefined && own(opts.config.catalogs['default'], dep.alias) !== undefined ? { ...dep, bareSpecifier: 'catalog:' } : dep)
  const group = opts.peer === true ? 'devDependencies' : opts.group
  return await installAndRecord({
    ...opts,
    edits: targetsOf(opts).map(({ importerId }) => ({
      importerId,
      dependencies,
      group,
      peer: opts.peer === true,
      exact: opts.exact === true,
      savePrefix: opts.config.savePrefix,
    })),
  })
}

export interface RemoveOptions extends ProjectEditOptions {
  /** The names to remove, from every dependency group. */
  dependencies: readonly string[]
}

/**
 * pnpm's `remove`: takes the names out of every dependency group of the projects' package.json,
 * updates the lockfile and node_modules. A name no project depends on is
 * `ERR_LODE_CANNOT_REMOVE_MISSING_DEPS`, and nothing is written.
 */
export async function remove (opts: RemoveOptions): Promise<InstallResult> {
  const targets = await Promise.all(targetsOf(opts).map(async (target) => ({ ...target, specs: await specsOf(target.dir, true) })))
  const missing = opts.dependencies.filter((name) => targets.every(({ specs }) => !specs.has(name)))
  if (missing.length > 0) {
    const where = targets.length === 1 ? path.join(targets[0]!.dir, 'package.json') : `any of the ${targets.length} projects`
    throw new LodeError('CANNOT_REMOVE_MISSING_DEPS', `Cannot remove ${missing.map((name) => `'${name}'`).join(', ')}: no such ${missing.length === 1 ? 'dependency' : 'dependencies'} found in ${where}.`, {
      hint: `Available dependencies: ${[...new Set(targets.flatMap(({ specs }) => [...specs.keys()]))].join(', ') || 'none'}.`,
    })
  }
  return await installAndRecord({
    ...opts,
    edits: targets.map(({ importerId, specs }) => ({
      importerId,
      dependencies: [],
      remove: opts.dependencies.filter((name) => specs.has(name)),
      exact: false,
      savePrefix: opts.config.savePrefix,
    })),
  })
}

export interface UpdateOptions extends ProjectEditOptions {
  /** Names or patterns (`@babel/*`, `!eslint`) of the direct dependencies to update; every one when empty. */
  dependencies: readonly string[]
  /** `--latest`: take each dependency's `latest` version, whatever its range, keeping the range's prefix. */
  latest?: boolean
}

/**
 * pnpm's `update`: the named direct dependencies (all when none is named) resolve again to the
 * newest version their range allows, wherever they occur, and package.json keeps each range's
 * prefix with the new version (`^1.0.0` becomes `^1.1.0`). With `latest`, the ranges are rewritten
 * to the `latest` version (`^1.0.0` becomes `^2.0.0`); `workspace:`, `catalog:`, paths and URLs are
 * left alone. A name that no project depends on is `ERR_LODE_NO_PACKAGE_IN_DEPENDENCIES`.
 */
export async function update (opts: UpdateOptions): Promise<InstallResult> {
  const matches = opts.dependencies.length === 0 ? () => true : createMatcher(opts.dependencies)
  const targets = await Promise.all(targetsOf(opts).map(async (target) => ({ ...target, specs: await specsOf(target.dir, false) })))
  const named = opts.dependencies.filter((pattern) => !pattern.startsWith('!'))
  const unmatched = named.filter((pattern) => {
    const one = createMatcher([pattern])
    return targets.every(({ specs }) => ![...specs.keys()].some(one))
  })
  if (named.length > 0 && unmatched.length === named.length) {
    throw new LodeError('NO_PACKAGE_IN_DEPENDENCIES', `None of the specified packages were found in the dependencies of ${targets.length === 1 ? path.join(targets[0]!.dir, 'package.json') : `any of the ${targets.length} projects`}: ${unmatched.join(', ')}.`, {
      hint: 'Check the names; lode update updates direct dependencies (and wherever else they occur).',
    })
  }
  return await installAndRecord({
    ...opts,
    edits: targets.map(({ importerId, specs }) => {
      const names = [...specs.keys()].filter(matches)
      const dependencies = names.flatMap((alias) => {
        const spec = specs.get(alias)!
        if (opts.latest !== true) return [{ alias, bareSpecifier: spec }]
        // --latest: a registry spec is resolved at `latest` (an alias at its target's) and saved with its range's prefix.
        const wanted = safeRegistrySpec(alias, spec)
        if (wanted === undefined) return []
        return [{ alias, bareSpecifier: wanted.aliased ? `npm:${wanted.name}` : undefined }]
      })
      return { importerId, dependencies, update: opts.dependencies.length === 0 ? 'all' as const : names, latest: opts.latest === true, exact: false, savePrefix: opts.config.savePrefix }
    }),
  })
}

/** The projects an edit changes: `projectDirs`, else `projectDir`, else the root. */
function targetsOf (opts: ProjectEditOptions): Array<{ dir: string, importerId: string }> {
  return [...new Set(opts.projectDirs ?? [opts.projectDir ?? '.'])].map((projectDir) => {
    const dir = path.resolve(opts.config.dir, projectDir)
    return { dir, importerId: path.relative(opts.config.dir, dir).split(path.sep).join('/') || '.' }
  })
}

/** The project's direct dependencies and their specs, from every group (with peers when asked). */
async function specsOf (dir: string, withPeers: boolean): Promise<Map<string, string>> {
  const manifest = await readProjectManifest(dir)
  const groups = ['dependencies', 'devDependencies', 'optionalDependencies', ...withPeers ? ['peerDependencies'] as const : []] as const
  return new Map(groups.flatMap((group) => Object.entries(manifest[group] ?? {})))
}

/** A registry spec (`^1.0.0`, `latest`, `npm:x@1`), or undefined for anything else (`workspace:`, `catalog:`, paths, URLs). */
function safeRegistrySpec (alias: string, spec: string): { name: string, aliased: boolean } | undefined {
  if (spec.startsWith('catalog:') || spec.startsWith('workspace:')) return undefined
  try {
    const wanted = parseWantedSpec(alias, spec, 'package.json')
    return wanted.kind === 'registry' ? wanted : undefined
  } catch {
    return undefined
  }
}

/**
 * `name`, `name@spec`, `@scope/name@spec` and `alias@npm:name@spec`, as given to `lode add`.
 * Anything else is `ERR_LODE_INVALID_SPEC`.
 */
export function parseAddSpec (raw: string): { alias: string, bareSpecifier?: string } {
  const { name: alias, rest } = splitNameAt(raw)
  if (!/^(?:@[a-z0-9-~][a-z0-9-._~]*\/)?[a-z0-9-~][a-z0-9-._~]*$/.test(alias)) {
    throw new LodeError('INVALID_SPEC', `"${raw}" is not a package name with an optional version, range, tag or alias.`, {
      hint: 'For example: lode add react, lode add react@^18, lode add my-react@npm:react@18.',
    })
  }
  return rest === undefined ? { alias } : { alias, bareSpecifier: rest }
}
