import fs from 'node:fs/promises'
import path from 'node:path'
import { isDeepStrictEqual } from 'node:util'

import { DEPENDENCY_GROUPS } from '@lode/core.constants'
import type { DependencyGroup } from '@lode/core.constants'
import { hasErrno } from '@lode/core.error'
import { own } from '@lode/core.safe-name'
import { writeFileAtomic } from '@lode/fs.write-file-atomic'
import type { Lockfile } from '@lode/pkg-manager.lockfile.format'
import { parseWantedSpec } from '@lode/resolving.npm-resolver/spec'
import semver from 'semver'

import { followCatalogOverrides } from './catalog-overrides.js'
import { catalogEntry, catalogReference } from './catalog-save.js'
import type { CatalogEntryMove, Catalogs } from './catalog-save.js'
import { defaultRangeStyle, savedRange } from './range-style.js'
import { workspaceSpecifier } from './workspace-specifier.js'
import type { SaveWorkspaceProtocol } from './workspace-specifier.js'


/** Dependencies `lode add` puts in one project's package.json, and those `lode remove` takes out. */
export interface DependencyEdit {
  /** The project's importer id (`.`, `packages/a`). */
  importerId: string
  /**
   * `saveCatalogName`: once resolved, saved to that catalog (`--save-catalog`, `catalogMode`);
   * `catalog`: `update` of a `catalog:` dependency, whose entry in that catalog moves to the version picked.
   */
  dependencies: ReadonlyArray<{
    alias: string
    bareSpecifier?: string | undefined
    saveCatalogName?: string | undefined
    catalog?: CatalogEntryMove | undefined
  }>
  /** Names removed from every group (`lode remove`). */
  remove?: readonly string[] | undefined
  /** Names resolved again, ignoring the versions the lockfile has, wherever they occur (`lode update`); `all`: every package. */
  update?: readonly string[] | 'all' | undefined
  /** `lode update --latest`: a dependency given without a spec keeps its range's prefix around the `latest` version. */
  latest?: boolean | undefined
  /** `--save-peer`: each added dependency also goes to `peerDependencies`, with the same specifier. */
  peer?: boolean | undefined
  /** The group to save to; without one, a dependency stays in the group it is in, else goes to `dependencies`. */
  group?: DependencyGroup | undefined
  /** `-E`: a picked version is saved without `savePrefix`. */
  exact: boolean
  savePrefix: string
}

/**
 * The project's manifest with the edit applied for resolving: removed names gone from every
 * group (peers too), each added dependency in its group (as
 * asked, or the group it is already in) under the spec given, `latest` when none was, and in no
 * other group.
 */
export function applyEdit<T extends Record<string, unknown>> (
  manifest: T,
  edit: DependencyEdit,
  specOf = (dep: DependencyEdit['dependencies'][number]): string => resolutionSpec(dep, edit, manifest)
): T {
  const result: Record<string, unknown> = { ...manifest }
  for (const name of edit.remove ?? []) {
    for (const group of [...DEPENDENCY_GROUPS, 'peerDependencies']) {
      const deps = result[group] as Record<string, string> | undefined
      if (deps === undefined || own(deps, name) === undefined) continue
      const { [name]: _removed, ...rest } = deps
      // A group left empty goes, as pnpm leaves it.
      if (Object.keys(rest).length === 0) delete result[group]
      else result[group] = rest
    }
  }
  for (const dep of edit.dependencies) {
    const current = DEPENDENCY_GROUPS.find((group) => own(result[group] as Record<string, string> | undefined, dep.alias) !== undefined)
    const target = edit.group ?? current ?? 'dependencies'
    for (const group of DEPENDENCY_GROUPS) {
      const deps = result[group] as Record<string, string> | undefined
      if (group !== target && deps !== undefined && own(deps, dep.alias) !== undefined) {
        const { [dep.alias]: _removed, ...rest } = deps
        // A group the move empties goes, as pnpm drops it.
        if (Object.keys(rest).length === 0) delete result[group]
        else result[group] = rest
      }
    }
    result[target] = { ...result[target] as Record<string, string> | undefined, [dep.alias]: specOf(dep) }
    if (edit.peer === true) result['peerDependencies'] = { ...result['peerDependencies'] as Record<string, string> | undefined, [dep.alias]: specOf(dep) }
  }
  // pnpm writes every dependency group of an edited manifest sorted.
  for (const group of [...DEPENDENCY_GROUPS, 'peerDependencies']) {
    if (result[group] !== undefined) result[group] = sortKeys(result[group] as Record<string, string>)
  }
  return result as T
}

/**
 * The spec resolved for an added dependency: as given; without one, the spec package.json already
 * has (pnpm's: `add dep` over `dep: ~1.0.0` stays within it), else `latest` (always for `update
 * --latest`), as for a bare `npm:name`.
 */
function resolutionSpec (dep: DependencyEdit['dependencies'][number], edit: DependencyEdit, manifest: Record<string, unknown>): string {
  const spec = askedSpec(dep, edit, manifest) ?? 'latest'
  return /^npm:@?[^@]+$/.test(spec) ? `${spec}@latest` : spec
}

/**
 * What package.json and the lockfile record for each added dependency, once resolved (pnpm 11's
 * rules): the picked version in the style of the range given (`dep@1` saves `^1.1.0`, `dep@1.x`
 * `~1.1.0`, `dep@1.0.0` `1.0.0`), else of the spec package.json had, else `savePrefix` (none with
 * `-E`), as for a tag, no spec or a range of several comparators; a prerelease only in the style
 * package.json had; a tag package.json has stays; `npm:` aliases keep their target's name;
 * `workspace:` dependencies take `saveWorkspaceProtocol`'s forms; paths and URLs are saved as written.
 * A name with an override (`overrides: {name: spec}`) added without a spec is saved with the
 * override's spec (pnpm's; one added with a spec resolves as asked, past the override).
 */
export function savedSpecifiers (
  lockfile: Lockfile,
  edit: DependencyEdit,
  manifest: Record<string, unknown>,
  workspace?: WorkspaceContext,
  overrides: Readonly<Record<string, string>> = {}
): Map<string, string> {
  const importer = lockfile.importers[edit.importerId]
  const saved = new Map<string, string>()
  for (const dep of edit.dependencies) {
    const spec = resolutionSpec(dep, edit, manifest)
    if (spec.startsWith('catalog:')) {
      saved.set(dep.alias, spec)
      continue
    }
    const resolved = DEPENDENCY_GROUPS.map((group) => own(importer?.[group], dep.alias)).find((entry) => entry !== undefined)
    const prevSpecifier = specInManifest(manifest, dep.alias)
    const linked = workspace === undefined ? undefined : linkedProject(resolved?.version, workspace)
    if (linked !== undefined && !isPathSpec(dep.bareSpecifier)) {
      saved.set(dep.alias, workspaceSpecifier(
        { alias: dep.alias, name: linked.name ?? dep.alias, version: linked.version, bareSpecifier: dep.bareSpecifier, prevSpecifier },
        { saveWorkspaceProtocol: workspace!.saveWorkspaceProtocol, savePrefix: edit.exact ? '' : edit.savePrefix }
      ))
      continue
    }
    const wanted = parseWantedSpec(dep.alias, spec, 'the command line')
    const asked = askedSpec(dep, edit, manifest)
    const overridden = own(overrides, dep.alias)
    if (overridden !== undefined && asked === undefined && edit.latest !== true) {
      saved.set(dep.alias, overridden)
      continue
    }
    if (wanted.kind !== 'registry' || resolved === undefined || keepsTag(dep.alias, asked ?? spec, prevSpecifier)) {
      saved.set(dep.alias, spec)
      continue
    }
    const version = resolved.version.replace(/\(.*$/, '').replace(/^.+@(?=[^@]+$)/, '')
    // `update --latest` keeps the style of the range package.json had.
    const defaultStyle = defaultRangeStyle(edit.savePrefix, edit.exact)
    const range = savedRange(version, { bareSpecifier: asked ?? prevSpecifier, prevSpecifier, defaultStyle })
    saved.set(dep.alias, wanted.aliased ? `npm:${wanted.name}@${range}` : range)
  }
  return saved
}

/** The spec given for a dependency, or else the one package.json has (none for `update --latest`). */
function askedSpec (dep: DependencyEdit['dependencies'][number], edit: DependencyEdit, manifest: Record<string, unknown>): string | undefined {
  return dep.bareSpecifier ?? (edit.latest === true ? undefined : specInManifest(manifest, dep.alias))
}

/** The spec package.json has for `alias`, in whichever group. */
function specInManifest (manifest: Record<string, unknown>, alias: string): string | undefined {
  return DEPENDENCY_GROUPS.map((group) => own(manifest[group] as Record<string, string> | undefined, alias))
    .find((spec) => spec !== undefined)
}

/** The workspace projects a saved dependency may link to, and how such a dependency is saved. */
export interface WorkspaceContext {
  /** The edited project's directory (a `link:` version is relative to it). */
  projectDir: string
  projects: ReadonlyArray<{ dir: string, manifest: Readonly<Record<string, unknown>> }>
  saveWorkspaceProtocol: SaveWorkspaceProtocol
}

/** The workspace project a resolved `link:` version points at, with its name and version. */
function linkedProject (
  version: string | undefined,
  workspace: WorkspaceContext
): { name: string | undefined, version: string | undefined } | undefined {
  if (version?.startsWith('link:') !== true) return undefined
  const target = path.resolve(workspace.projectDir, version.slice('link:'.length))
  const project = workspace.projects.find((candidate) => path.resolve(candidate.dir) === target)
  if (project === undefined) return undefined
  const { name, version: projectVersion } = project.manifest as { name?: unknown, version?: unknown }
  return { name: typeof name === 'string' ? name : undefined, version: typeof projectVersion === 'string' ? projectVersion : undefined }
}

/** A spec that names a directory or a tarball on disk (`link:`, `file:`, a path): saved as written. */
function isPathSpec (spec: string | undefined): boolean {
  return spec !== undefined && /^(?:link:|file:|\.{1,2}(?:\/|$)|\/|~\/)/.test(spec)
}

/** A tag package.json has (`latest`, `next`) stays when it is what was asked for, as pnpm keeps it. */
function keepsTag (alias: string, asked: string, prevSpecifier: string | undefined): boolean {
  if (prevSpecifier === undefined || asked !== prevSpecifier) return false
  try {
    const previous = parseWantedSpec(alias, prevSpecifier, 'package.json')
    return previous.kind === 'registry' && previous.type === 'tag'
  } catch {
    return false
  }
}

/** Writes the edited package.json, keeping the file's indentation and final newline, atomically. */
export async function writeEditedManifest (dir: string, manifest: Record<string, unknown>): Promise<void> {
  const file = path.join(dir, 'package.json')
  // None yet (`add` in a directory without one): written as pnpm writes a new one, indented by tabs.
  const text = await fs.readFile(file, 'utf8').catch((err: unknown) => { if (hasErrno(err, 'ENOENT')) return undefined; throw err })
  if (text === undefined) {
    await writeFileAtomic(file, `${JSON.stringify(manifest, null, '\t')}\n`)
    return
  }
  // A one-line file stays on one line, as pnpm keeps it.
  const indent = /^[ \t]+(?=")/m.exec(text)?.[0] ?? (text.trim().includes('\n') ? '  ' : '')
  const newline = text.includes('\r\n') ? '\r\n' : '\n'
  const body = JSON.stringify(manifest, null, indent).replaceAll('\n', newline)
  await writeFileAtomic(file, text.endsWith('\n') ? `${body}${newline}` : body)
}

function sortKeys (deps: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(deps).sort(([a], [b]) => a < b ? -1 : a > b ? 1 : 0))
}

/**
 * What `lode update` resolves afresh wherever it occurs, for the resolver: every dependency (`all`),
 * the names given, or nothing. `--latest` moves the projects' own dependencies only (their entries
 * go, see `forgetUpdated`): packages deeper keep their locked versions, as with pnpm.
 */
export function updatedNames (edits: readonly DependencyEdit[]): readonly string[] | 'all' {
  const deep = edits.filter((edit) => edit.latest !== true)
  return deep.some((edit) => edit.update === 'all') ? 'all' : deep.flatMap((edit) => edit.update ?? [])
}

/**
 * The importers an update (not `--latest`) is confined to, by id, when it leaves some of the
 * install's importers alone (`update` inside one project of a workspace); none otherwise.
 */
export function updatedImporters (edits: readonly DependencyEdit[], importerIds: readonly string[]): ReadonlySet<string> | undefined {
  return editedImporters(edits.filter((edit) => edit.latest !== true && (edit.update === 'all' || (edit.update ?? []).length > 0)), importerIds)
}

/** The importers these edits are confined to, by id, when they leave some of the install's importers alone; none otherwise. */
export function editedImporters (edits: readonly DependencyEdit[], importerIds: readonly string[]): ReadonlySet<string> | undefined {
  const ids = new Set(edits.map((edit) => edit.importerId))
  return ids.size === 0 || importerIds.every((id) => ids.has(id)) ? undefined : ids
}

/** The lockfile as `lode update` reads it: each updated project's entries for the updated names dropped, so they resolve afresh. */
export function forgetUpdated (lockfile: Lockfile, edits: readonly DependencyEdit[]): Lockfile {
  let result = lockfile
  for (const edit of edits) {
    const importer = result.importers[edit.importerId]
    if (edit.update === undefined || edit.update.length === 0 || importer === undefined) continue
    const updated = new Set(edit.update === 'all' ? DEPENDENCY_GROUPS.flatMap((group) => Object.keys(importer[group] ?? {})) : edit.update)
    const trimmed = { ...importer }
    for (const group of DEPENDENCY_GROUPS) {
      const deps = importer[group]
      if (deps !== undefined) trimmed[group] = Object.fromEntries(Object.entries(deps).filter(([alias]) => !updated.has(alias)))
    }
    result = { ...result, importers: { ...result.importers, [edit.importerId]: trimmed } }
  }
  return result
}

/**
 * The versions `add`/`update` asked for that move a catalog entry (a version the entry's range
 * covers): catalog → alias → version. Every project taking that entry resolves it to that version
 * (pnpm prefers it over what the lockfile has), see `forgetCatalogUsers`.
 */
export function catalogPins (edits: readonly DependencyEdit[]): Record<string, Record<string, string>> {
  const pins: Record<string, Record<string, string>> = {}
  for (const edit of edits) {
    for (const dep of edit.dependencies) {
      if (dep.catalog?.locksResolved !== true || dep.bareSpecifier === undefined || semver.valid(dep.bareSpecifier) === null) continue
      pins[dep.catalog.name] = withEntry(own(pins, dep.catalog.name) ?? {}, dep.alias, dep.bareSpecifier)
    }
  }
  return pins
}

/** The lockfile without what it locked for the catalog entries pinned (`catalogPins`): each project taking one resolves it again. */
export function forgetCatalogUsers (lockfile: Lockfile, pins: Readonly<Record<string, Readonly<Record<string, string>>>>): Lockfile {
  if (Object.keys(pins).length === 0) return lockfile
  const pinned = (alias: string, specifier: string): boolean =>
    specifier.startsWith('catalog:') && own(own(pins, specifier.slice('catalog:'.length) || 'default'), alias) !== undefined
  const importers = Object.fromEntries(Object.entries(lockfile.importers).map(([id, importer]) => {
    const trimmed = { ...importer }
    for (const group of DEPENDENCY_GROUPS) {
      const deps = importer[group]
      if (deps === undefined) continue
      trimmed[group] = Object.fromEntries(Object.entries(deps).filter(([alias, dep]) => !pinned(alias, dep.specifier)))
    }
    return [id, trimmed]
  }))
  const catalogs = Object.fromEntries(Object.entries(lockfile.catalogs ?? {}).map(([name, entries]) => [
    name,
    Object.fromEntries(Object.entries(entries).filter(([alias]) => own(own(pins, name), alias) === undefined)),
  ]))
  return { ...lockfile, importers, ...lockfile.catalogs === undefined ? {} : { catalogs } }
}

/**
 * The lockfile as `dedupe` resolves from: no project's dependencies and no package's dependencies
 * are locked any more; the packages stay, and their versions are preferred.
 */
export function forgetAllResolutions (lockfile: Lockfile): Lockfile {
  return {
    ...lockfile,
    importers: Object.fromEntries(Object.entries(lockfile.importers).map(([id, importer]) => {
      const rest = { ...importer }
      for (const group of DEPENDENCY_GROUPS) delete rest[group]
      return [id, rest]
    })),
    snapshots: Object.fromEntries(Object.entries(lockfile.snapshots ?? {}).map(([depPath, snapshot]) => {
      const { dependencies: _dependencies, optionalDependencies: _optionalDependencies, ...rest } = snapshot
      return [depPath, rest]
    })),
  }
}

/** What `saveEdits` writes besides the lockfile: the manifests, and the entries added to the catalogs (catalog → name → range). */
export interface SavedEdits {
  manifests: Array<{ dir: string, manifest: Record<string, unknown> }>
  catalogAdditions: Record<string, Record<string, string>>
}

/**
 * `add` and `update`, once resolved: each edited dependency's saved specifier (`savedSpecifiers`)
 * goes into its importer's entry in the lockfile (changed in place) and into its project's
 * package.json; one saved to a catalog (`catalogEntry`) is saved as `catalog:` there, its range
 * added to the lockfile's catalogs and returned for pnpm-workspace.yaml. Returns what to write
 * (`writeEditedManifest`) once the lockfile is.
 */
export function saveEdits (
  lockfile: Lockfile,
  edited: ReadonlyArray<{ edit: DependencyEdit, project: { dir: string, manifest: Record<string, unknown> } }>,
  opts: {
    catalogs: Catalogs
    onWarning: (message: string) => void
    /** The workspace's projects, for dependencies linked to one (saved as `saveWorkspaceProtocol` says). */
    workspace?: { projects: WorkspaceContext['projects'], saveWorkspaceProtocol: SaveWorkspaceProtocol }
    /** The overrides as written: one that says `catalog:` follows its entry when the entry moves. */
    overrides?: Readonly<Record<string, string>>
  } = { catalogs: {}, onWarning: () => {} }
): SavedEdits {
  let catalogAdditions: Record<string, Record<string, string>> = {}
  const manifests = edited.map(({ edit, project }) => {
    const workspace = opts.workspace === undefined ? undefined : { ...opts.workspace, projectDir: project.dir }
    const saved = savedSpecifiers(lockfile, edit, project.manifest, workspace, opts.overrides)
    const snapshot = lockfile.importers[edit.importerId]
    const resolvedVersion = (alias: string): string | undefined =>
      DEPENDENCY_GROUPS.map((group) => own(snapshot?.[group], alias)?.version).find((version) => version !== undefined)
    // A range put into a catalog: in pnpm-workspace.yaml, the lockfile's `catalogs`, and `catalog:` in package.json.
    const intoCatalog = (catalogName: string, alias: string, range: string, version: string): void => {
      catalogAdditions = withEntry(catalogAdditions, catalogName, withEntry(own(catalogAdditions, catalogName) ?? {}, alias, range))
      const locked = withEntry(own(lockfile.catalogs, catalogName) ?? {}, alias, { specifier: range, version })
      lockfile.catalogs = withEntry(lockfile.catalogs ?? {}, catalogName, locked)
      saved.set(alias, catalogReference(catalogName))
    }
    for (const dep of edit.dependencies) {
      const specifier = saved.get(dep.alias)
      // An `npm:` alias is locked as `<name>@<version>`.
      const version = registryVersion(resolvedVersion(dep.alias)?.replace(/^@?[^@(]+@(?=\d)/, ''))
      if (version === undefined || specifier === undefined) continue
      if (dep.catalog !== undefined) {
        // `update` of a `catalog:` dependency: the entry keeps what its range pinned, with the version
        // picked; the lockfile's catalogs keep the version resolved for the entry's users (pnpm's: a
        // project the update left behind may still have the old one).
        const defaultStyle = defaultRangeStyle(edit.savePrefix, edit.exact)
        const picked = savedRange(version, { bareSpecifier: undefined, prevSpecifier: dep.catalog.range, defaultStyle })
        const target = /^npm:(@?[^@]+)@/.exec(dep.catalog.range)?.[1]
        const range = target === undefined ? picked : `npm:${target}@${picked}`
        const lockedBefore = dep.catalog.locksResolved === true
          ? undefined
          : own(own(lockfile.catalogs, dep.catalog.name), dep.alias)?.version
        intoCatalog(dep.catalog.name, dep.alias, range, lockedBefore ?? version)
        continue
      }
      const entry = catalogEntry(dep, { specifier, version }, opts)
      if (entry !== undefined) intoCatalog(entry.catalogName, dep.alias, entry.specifier, version)
    }
    for (const group of DEPENDENCY_GROUPS) {
      for (const [alias, entry] of Object.entries(snapshot?.[group] ?? {})) {
        const specifier = saved.get(alias)
        if (specifier !== undefined) entry.specifier = specifier
      }
    }
    return { dir: project.dir, manifest: applyEdit(project.manifest, edit, (dep) => saved.get(dep.alias) ?? dep.bareSpecifier ?? 'latest'), before: project.manifest }
  })
  // Only a catalog entry moved now moves an override: the lockfile read is left as it is otherwise.
  if (lockfile.overrides !== undefined && Object.keys(catalogAdditions).length > 0) {
    lockfile.overrides = followCatalogOverrides(lockfile.overrides, catalogAdditions, opts.overrides ?? {})
  }
  // A package.json whose dependencies the edit leaves as they were is not written (pnpm keeps its order then).
  const changed = manifests.filter(({ manifest, before }) => !sameDependencies(manifest, before))
  return { manifests: changed.map(({ dir, manifest }) => ({ dir, manifest })), catalogAdditions }
}

/** `record` with `key` set, as an own key: names come from the command line and package.json (`__proto__` stays a name). */
function withEntry<T> (record: Readonly<Record<string, T>>, key: string, value: T): Record<string, T> {
  return { ...record, ...Object.fromEntries([[key, value]]) as Record<string, T> }
}

/** A version from the registry (`1.2.3`, peers aside), not a link, a path or an alias's. */
function registryVersion (version: string | undefined): string | undefined {
  const plain = version?.replace(/\(.*$/, '')
  return plain !== undefined && /^\d+\.\d+\.\d+/.test(plain) ? plain : undefined
}

/** Whether two manifests have the same dependency groups with the same specifiers, in whatever order. */
function sameDependencies (a: Readonly<Record<string, unknown>>, b: Readonly<Record<string, unknown>>): boolean {
  const groups = (manifest: Readonly<Record<string, unknown>>): Record<string, Record<string, string>> =>
    Object.fromEntries([...DEPENDENCY_GROUPS, 'peerDependencies'].flatMap((group) =>
      manifest[group] === undefined ? [] : [[group, sortKeys(manifest[group] as Record<string, string>)]]))
  return isDeepStrictEqual(groups(a), groups(b))
}
