import path from 'node:path'

import type { DependencyGroup } from '@lode/core.constants'
import { addEdits, removeEdits, updateEdits } from '@lode/pkg-manager.deps.manifest-edit'
import type { EditTarget } from '@lode/pkg-manager.deps.manifest-edit'
import { readProjectManifest } from '@lode/pkg-manager.installing.install-context/project-manifest'
import type { InstallOptions, InstallResult } from '@lode/pkg-manager.installing.installer'

import { namedAddSpecs } from './add-spec-names.js'
import { installAndRecord } from './install.js'

/** What `add`, `remove` and `update` share: the install's options, and the projects they change. */
export interface ProjectEditOptions extends Omit<InstallOptions, 'edits' | 'frozenLockfile' | 'preferFrozenLockfile'> {
  /** The project to change (a workspace project's directory); the root (`config.dir`) by default. */
  projectDir?: string
  /** Several projects to change at once (`--filter`, `-r`); takes the place of `projectDir`. */
  projectDirs?: readonly string[]
}

export interface AddOptions extends ProjectEditOptions {
  /**
   * What to add, as on pnpm's command line: `name`, `name@range`, `name@tag`, `alias@npm:name@range`,
   * `name@workspace:*`; a path (`../pkg`, `file:./pkg`, `link:../pkg`, `./x.tgz`) or a tarball URL,
   * saved under the name in its package.json.
   */
  dependencies: readonly string[]
  /** `devDependencies` (`-D`), `optionalDependencies` (`-O`); without it, `dependencies` unless the package is already in another group. */
  group?: DependencyGroup
  /** Save the picked version without `savePrefix` (`-E`). */
  exact?: boolean
  /** `--save-peer`: save in `peerDependencies` too, and install as a dev dependency. */
  peer?: boolean
  /** `--save-catalog-name` (`--save-catalog`: `default`): save new dependencies to this catalog; `config.saveCatalogName` by default. */
  saveCatalogName?: string
}

/**
 * pnpm's `add`: resolves each dependency, saves it in each project's package.json with pnpm's
 * specifier (`^1.2.3` for a picked version; a range or version as written), updates the
 * lockfile, and installs. Nothing is written when resolution fails.
 */
export async function add (opts: AddOptions): Promise<InstallResult> {
  const targets = targetsOf(opts)
  // Paths and tarball URLs name no package: their package's name is read first, as pnpm does.
  const specs = await namedAddSpecs(opts.dependencies, {
    projectDir: targets[0]!.dir,
    config: opts.config,
    signal: opts.signal,
    onWarning: (message) => { opts.onEvent?.({ type: 'warning', message }) },
  })
  // Each project's package.json, for the catalog it takes a dependency from (none yet: `add` writes one).
  const edits = addEdits(await withManifests(targets, { missingIsEmpty: true }), specs, {
    group: opts.group,
    exact: opts.exact === true,
    peer: opts.peer === true,
    savePrefix: opts.config.savePrefix,
    catalogs: opts.config.catalogs,
    saveCatalogName: opts.saveCatalogName ?? opts.config.saveCatalogName,
    catalogMode: opts.config.catalogMode,
    onWarning: (message) => { opts.onEvent?.({ type: 'warning', message }) },
  })
  return await installAndRecord({ ...opts, ...installProjects(opts, targets), edits, createManifest: true })
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
  const targets = await withManifests(targetsOf(opts))
  const edits = removeEdits(targets, opts.dependencies, opts.config.savePrefix)
  return await installAndRecord({ ...opts, ...installProjects(opts, targets), edits })
}

export interface UpdateOptions extends ProjectEditOptions {
  /** Names or patterns (`@babel/*`, `!eslint`) of the direct dependencies to update; every one when empty. */
  dependencies: readonly string[]
  /** `--latest`: take each dependency's `latest` version, whatever its range, keeping the range's prefix. */
  latest?: boolean
}

/**
 * pnpm's `update` (see `updateEdits`): the dependencies named or matched (all when none is named)
 * resolve again wherever they occur, to the newest version their range allows, and package.json
 * keeps each range's style with the new version (`^1.0.0` becomes `^1.1.0`); `name@spec` takes that
 * spec. With `latest`, the ranges move to the `latest` version (`^1.0.0` becomes `^2.0.0`), a
 * `catalog:` dependency's catalog entry too; `workspace:` specs take pnpm's forms
 * (`saveWorkspaceProtocol`); paths and URLs are left alone. `update.ignoreDeps` are left alone
 * unless named.
 */
export async function update (opts: UpdateOptions): Promise<InstallResult> {
  const targets = await withManifests(targetsOf(opts))
  const edits = updateEdits(targets, opts.dependencies, {
    latest: opts.latest === true,
    savePrefix: opts.config.savePrefix,
    ignoreDependencies: opts.config.updateIgnoreDependencies,
    catalogs: opts.config.catalogs,
    catalogMode: opts.config.catalogMode,
    onWarning: (message) => { opts.onEvent?.({ type: 'warning', message }) },
  })
  return await installAndRecord({ ...opts, ...installProjects(opts, targets), edits })
}

/** The projects an edit changes: `projectDirs`, else `projectDir`, else the root. */
function targetsOf (opts: ProjectEditOptions): Array<{ dir: string, importerId: string }> {
  return [...new Set(opts.projectDirs ?? [opts.projectDir ?? '.'])].map((projectDir) => {
    const dir = path.resolve(opts.config.dir, projectDir)
    return { dir, importerId: path.relative(opts.config.dir, dir).split(path.sep).join('/') || '.' }
  })
}

/**
 * As pnpm: an edit installs the projects it changes and the root only (`projects`, unless given); the
 * workspace's other projects keep their node_modules as they are until the next full install.
 */
function installProjects (opts: ProjectEditOptions, targets: ReadonlyArray<{ importerId: string }>): { projects: readonly string[] } {
  return { projects: opts.projects ?? targets.map((target) => target.importerId) }
}

async function withManifests (
  targets: ReadonlyArray<{ dir: string, importerId: string }>,
  opts: { missingIsEmpty?: boolean } = {}
): Promise<EditTarget[]> {
  return await Promise.all(targets.map(async (target) => {
    const manifest = await readProjectManifest(target.dir, opts) as Record<string, unknown>
    return { ...target, manifest }
  }))
}
