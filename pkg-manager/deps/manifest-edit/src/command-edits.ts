import path from 'node:path'

import { DEPENDENCY_GROUPS } from '@lode/core.constants'
import type { DependencyGroup } from '@lode/core.constants'
import { splitNameAt } from '@lode/core.dep-path'
import { LodeError, printable } from '@lode/core.error'
import { createMatcher } from '@lode/core.matcher'
import { isValidPackageName, own as ownEntry } from '@lode/core.safe-name'
import { parseWantedSpec } from '@lode/resolving.npm-resolver/spec'
import semver from 'semver'

import { promoteToCatalog, throughCatalog } from './catalog-save.js'
import type { CatalogDependency, CatalogMode, Catalogs } from './catalog-save.js'
import type { DependencyEdit } from './dependency-edit.js'

// The edits of pnpm's `add`, `remove` and `update`, built from what the command was given and the
// projects it changes; refusals come before anything is resolved or written.

/** A project a command changes: its importer id, directory and package.json. */
export interface EditTarget {
  importerId: string
  dir: string
  manifest: Readonly<Record<string, unknown>>
}

export interface AddEditOptions {
  group?: DependencyGroup | undefined
  exact: boolean
  peer: boolean
  savePrefix: string
  /** The workspace's catalogs: a name given alone that the default one has is saved as `catalog:`, as pnpm saves it. */
  catalogs: Catalogs
  /** `--save-catalog-name` (pnpm's `saveCatalogName`): new dependencies are saved to this catalog. */
  saveCatalogName?: string | undefined
  catalogMode?: CatalogMode | undefined
  onWarning?: (message: string) => void
}

/**
 * `add`: the same dependencies for each project. A name given alone, or with the very spec the
 * default catalog has, is saved as `catalog:` (pnpm's); with `catalogMode` prefer or strict, a
 * version the project's own named catalog reference covers keeps that reference.
 */
export function addEdits (
  targets: ReadonlyArray<Pick<EditTarget, 'importerId'> & { manifest?: Readonly<Record<string, unknown>> | undefined }>,
  specs: readonly string[],
  opts: AddEditOptions
): DependencyEdit[] {
  const catalogOptions = {
    catalogMode: opts.catalogMode ?? 'manual',
    saveCatalogName: opts.saveCatalogName,
    catalogs: opts.catalogs,
    onWarning: opts.onWarning ?? (() => {}),
  }
  const asked: CatalogDependency[] = specs.map(parseAddSpec)
    .map((dep) => {
      const inDefault = ownEntry(opts.catalogs['default'], dep.alias)
      return inDefault !== undefined && (dep.bareSpecifier === undefined || dep.bareSpecifier === inDefault) ? { ...dep, bareSpecifier: 'catalog:' } : dep
    })
    .map((dep) => opts.saveCatalogName === undefined ? dep : { ...dep, saveCatalogName: opts.saveCatalogName })
  const dependencies = asked.map((dep) => promoteToCatalog(dep, catalogOptions))
  const group = opts.peer ? 'devDependencies' : opts.group
  const { peer, exact, savePrefix } = opts
  return targets.map(({ importerId, manifest }) => {
    const own = asked.map((dep, i) => {
      const kept = keptCatalogReference(dep, manifest, opts)
      return throughCatalog(kept === undefined ? dependencies[i]! : promoteToCatalog(kept, catalogOptions), opts.catalogs)
    })
    return { importerId, dependencies: own, group, peer, exact, savePrefix }
  })
}

/**
 * With `catalogMode` prefer or strict, an exact version of a dependency the project takes from a
 * named catalog (`catalog:tools`) whose range covers it: that reference, as pnpm keeps it.
 */
function keptCatalogReference (
  dep: CatalogDependency,
  manifest: Readonly<Record<string, unknown>> | undefined,
  opts: AddEditOptions
): CatalogDependency | undefined {
  const version = dep.bareSpecifier
  if ((opts.catalogMode ?? 'manual') === 'manual' || dep.saveCatalogName !== undefined || version === undefined || semver.valid(version) === null) {
    return undefined
  }
  const current = DEPENDENCY_GROUPS.map((group) => ownEntry(manifest?.[group] as Record<string, string> | undefined, dep.alias))
    .find((spec) => spec !== undefined)
  if (current === undefined || !current.startsWith('catalog:') || current === 'catalog:') return undefined
  const catalogName = current.slice('catalog:'.length)
  const range = ownEntry(opts.catalogs[catalogName], dep.alias)
  if (range === undefined || semver.validRange(range) === null || !semver.satisfies(version, range)) return undefined
  return { ...dep, bareSpecifier: current, saveCatalogName: catalogName }
}

/**
 * `remove`: each project loses the names it has, from every group (peers too). A name no project
 * depends on is `ERR_LODE_CANNOT_REMOVE_MISSING_DEPS`.
 */
export function removeEdits (targets: readonly EditTarget[], names: readonly string[], savePrefix: string): DependencyEdit[] {
  const specs = targets.map((target) => specsOf(target.manifest, true))
  const missing = names.filter((name) => specs.every((of) => !of.has(name)))
  if (missing.length > 0) {
    throw new LodeError('CANNOT_REMOVE_MISSING_DEPS', `Cannot remove ${missing.map((name) => `'${printable(name)}'`).join(', ')}: no such ${missing.length === 1 ? 'dependency' : 'dependencies'} found in ${where(targets)}.`, {
      hint: `Available dependencies: ${[...new Set(specs.flatMap((of) => [...of.keys()]))].join(', ') || 'none'}.`,
    })
  }
  return targets.map(({ importerId }, i) => ({
    importerId,
    dependencies: [],
    remove: names.filter((name) => specs[i]!.has(name)),
    exact: false,
    savePrefix,
  }))
}

/**
 * `update`, as pnpm 11 (its default depth: every level): the dependencies named or matched
 * (`@babel/*`, `!eslint`; all when none is named) resolve again wherever they occur; a project's own
 * ones save the version picked in their range's style. `name@spec` (`dep@latest`, `dep@2.0.0`,
 * `alias@npm:x@^1`) resolves a project's own dependency to that spec instead; on a name no project
 * depends on directly it is `ERR_LODE_UPDATE_VERSION_ON_INDIRECT_DEP`, and with `--latest`,
 * `ERR_LODE_LATEST_WITH_SPEC`. With `latest`, a registry spec moves to its `latest` version (an
 * alias to its target's), a `catalog:` one moves its catalog's entry; others (`workspace:`, paths,
 * URLs) are left alone. A name no project depends on directly is updated where it occurs deeper.
 */
export function updateEdits (
  targets: readonly EditTarget[],
  given: readonly string[],
  opts: {
    latest: boolean
    savePrefix: string
    ignoreDependencies?: readonly string[] | undefined
    catalogs?: Catalogs | undefined
    catalogMode?: CatalogMode | undefined
    onWarning?: ((message: string) => void) | undefined
  }
): DependencyEdit[] {
  const selectors = given.map(updateSelector)
  const withSpecs = selectors.filter((selector) => selector.spec !== undefined)
  if (opts.latest && withSpecs.length > 0) {
    throw new LodeError('LATEST_WITH_SPEC', `Specs are not allowed to be used with --latest (${withSpecs.map(({ raw }) => printable(raw)).join(', ')})`, {
      hint: 'Give the names alone with --latest, or drop --latest to update to the specs given.',
    })
  }
  const names = selectors.map(({ pattern }) => pattern)
  // pnpm's `update.ignoreDeps`: left alone unless named (only exclusions, or nothing, were given).
  const patterns = names.every((pattern) => pattern.startsWith('!')) && (opts.ignoreDependencies ?? []).length > 0
    ? ['*', ...names, ...(opts.ignoreDependencies ?? []).map((name) => `!${name}`)]
    : names
  const matches = patterns.length === 0 ? () => true : createMatcher(patterns)
  const specs = targets.map((target) => specsOf(target.manifest, false))
  const direct = (pattern: string): boolean => {
    const one = createMatcher([pattern])
    return specs.some((of) => [...of.keys()].some(one))
  }
  // A tag only says to update (`child@latest`); a version or range would have to be recorded.
  const indirect = withSpecs.find(({ pattern, spec }) => !direct(pattern) && !isTag(pattern, spec!))
  if (indirect !== undefined) {
    throw new LodeError('UPDATE_VERSION_ON_INDIRECT_DEP', `"${printable(indirect.pattern)}" (requested "${printable(indirect.spec!)}") is not a direct dependency, so the requested version cannot be recorded.`, {
      hint: `Add it to a project's dependencies (lode add ${printable(indirect.raw)}), or update it without a version.`,
    })
  }
  // Names no project has: resolved again where they occur deeper (globs only match the projects' own).
  const deep = names.filter((name) => !name.startsWith('!') && !/[*?]/.test(name) && !direct(name))
  const requested = new Map(withSpecs.map(({ pattern, spec }) => [pattern, spec!]))
  return targets.map(({ importerId }, i) => {
    const own = [...specs[i]!.keys()].filter(matches)
    const dependencies = own.flatMap((alias) => {
      const spec = specs[i]!.get(alias)!
      const asked = requested.get(alias)
      if (asked !== undefined) {
        // A `catalog:` dependency updated to a version, with catalogMode prefer or strict: as `add` of it (its entry moves to it).
        if (!spec.startsWith('catalog:') || (opts.catalogMode ?? 'manual') === 'manual') return [{ alias, bareSpecifier: asked }]
        return [promoteToCatalog({ alias, bareSpecifier: asked }, {
          catalogMode: opts.catalogMode!,
          saveCatalogName: spec.slice('catalog:'.length) || 'default',
          catalogs: opts.catalogs ?? {},
          onWarning: opts.onWarning ?? (() => {}),
        })]
      }
      // A `catalog:` dependency moves the catalog's entry to the version picked (pnpm's), when it is a
      // registry range: within the range, or with `--latest` to the latest version (an alias's target's).
      if (spec.startsWith('catalog:')) {
        const name = spec.slice('catalog:'.length) || 'default'
        const range = ownEntry(opts.catalogs?.[name], alias)
        const entry = range === undefined ? undefined : registrySpec(alias, range)
        if (entry === undefined || (entry.aliased && !opts.latest)) return opts.latest ? [] : [{ alias, bareSpecifier: spec }]
        const latest = entry.aliased ? `npm:${entry.name}` : undefined
        return [{ alias, bareSpecifier: opts.latest ? latest : spec, catalog: { name, range: range! } }]
      }
      if (!opts.latest) return [{ alias, bareSpecifier: spec }]
      const wanted = registrySpec(alias, spec)
      return wanted === undefined ? [] : [{ alias, bareSpecifier: wanted.aliased ? `npm:${wanted.name}` : undefined }]
    })
    // An alias's package is updated by its own name too (`alias: npm:qar@^1`).
    const targets = own.flatMap((alias) => {
      const wanted = registrySpec(alias, specs[i]!.get(alias)!)
      return wanted?.aliased === true ? [wanted.name] : []
    })
    const update = patterns.length === 0 ? 'all' as const : [...own, ...targets, ...deep]
    return { importerId, dependencies, update, latest: opts.latest, exact: false, savePrefix: opts.savePrefix }
  })
}

function isTag (name: string, spec: string): boolean {
  try {
    const wanted = parseWantedSpec(name, spec, 'the command line')
    return wanted.kind === 'registry' && wanted.type === 'tag'
  } catch {
    return false
  }
}

/** An `update` argument: a name or pattern, with the spec after its `@` (`dep@latest`, `@scope/dep@^2`). */
function updateSelector (raw: string): { raw: string, pattern: string, spec: string | undefined } {
  if (raw.startsWith('!')) return { raw, pattern: raw, spec: undefined }
  const { name, rest } = splitNameAt(raw)
  return rest === undefined || rest === '' ? { raw, pattern: raw, spec: undefined } : { raw, pattern: name, spec: rest }
}

function where (targets: readonly EditTarget[]): string {
  return targets.length === 1 ? path.join(targets[0]!.dir, 'package.json') : `any of the ${targets.length} projects`
}

/** The project's direct dependencies and their specs, from every group (with peers when asked). */
function specsOf (manifest: Readonly<Record<string, unknown>>, withPeers: boolean): Map<string, string> {
  const groups = ['dependencies', 'devDependencies', 'optionalDependencies', ...withPeers ? ['peerDependencies'] : []]
  return new Map(groups.flatMap((group) => Object.entries((manifest[group] ?? {}) as Record<string, string>)))
}

/** A registry spec (`^1.0.0`, `latest`, `npm:x@1`), or undefined for anything else (`workspace:`, `catalog:`, paths, URLs). */
function registrySpec (alias: string, spec: string): { name: string, aliased: boolean } | undefined {
  if (spec.startsWith('catalog:') || spec.startsWith('workspace:')) return undefined
  try {
    const wanted = parseWantedSpec(alias, spec, 'package.json')
    return wanted.kind === 'registry' ? wanted : undefined
  } catch {
    return undefined
  }
}

/**
 * `name`, `name@spec`, `@scope/name@spec` and `alias@npm:name@spec`, as given to `lode add`. A name
 * follows pnpm's rule for old packages too (`JSONStream`: capitals, as published before npm
 * forbade them). Anything else is `ERR_LODE_INVALID_SPEC`.
 */
export function parseAddSpec (raw: string): { alias: string, bareSpecifier?: string } {
  const { name: alias, rest } = splitNameAt(raw)
  if (!isValidPackageName(alias)) {
    throw new LodeError('INVALID_SPEC', `"${raw}" is not a package name with an optional version, range, tag or alias.`, {
      hint: 'For example: lode add react, lode add react@^18, lode add my-react@npm:react@18.',
    })
  }
  return rest === undefined ? { alias } : { alias, bareSpecifier: rest }
}
