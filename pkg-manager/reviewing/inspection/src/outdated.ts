import type { DependencyGroup } from '@lode/core.constants'
import { DEPENDENCY_GROUPS } from '@lode/core.constants'
import { parseDepPath, pkgIdOf, refToDepPath } from '@lode/core.dep-path'
import type { Lockfile } from '@lode/pkg-manager.lockfile.format'
import semver from 'semver'

import { renderTable } from './table.js'

/** A direct dependency that is not at its latest version (or not installed, or deprecated there). */
export interface OutdatedPackage {
  alias: string
  packageName: string
  belongsTo: DependencyGroup
  /** The version installed (node_modules' lockfile); undefined when it is not installed. */
  current?: string
  /** The version pnpm-lock.yaml wants. */
  wanted: string
  /** The newest version (its range's, with `compatible`); undefined when the registry has none to offer. */
  latest?: LatestVersion
}

/** The newest version of a dependency, and (for `--long`) its manifest as the registry's full document has it. */
export interface LatestVersion {
  version: string
  deprecated?: string | undefined
  manifest?: Record<string, unknown> | undefined
}

export interface OutdatedPackagesOptions {
  /** The project's every dependency (all groups) → its specifier. */
  dependencies: Readonly<Record<string, string>>
  importerId: string
  wanted: Lockfile
  /** What is installed (`node_modules/.pnpm/lock.yaml`); undefined before any install. */
  current: Lockfile | undefined
  include: Readonly<Record<DependencyGroup, boolean>>
  /** Only the dependencies whose name this accepts (`lode outdated react "@babel/*"`). */
  match?: ((name: string) => boolean) | undefined
  /** The newest version for a dependency: its `latest` tag, or with `--compatible` its range's newest. */
  latestOf: (alias: string, bareSpecifier: string) => Promise<LatestVersion | undefined>
}

/**
 * pnpm's `outdated` for one project: each direct dependency of the included groups that the lockfile
 * resolves from a registry, with what is installed, what the lockfile wants and the newest
 * version; listed when these differ, or the newest is deprecated. Sorted by name.
 */
export async function outdatedPackages (opts: OutdatedPackagesOptions): Promise<OutdatedPackage[]> {
  const importer = opts.wanted.importers[opts.importerId]
  const currentImporter = opts.current?.importers[opts.importerId]
  const found: OutdatedPackage[] = []
  await Promise.all(DEPENDENCY_GROUPS.filter((group) => opts.include[group] && importer?.[group] !== undefined).flatMap((group) =>
    Object.entries(importer![group]!).map(async ([alias, { version: wantedRef }]) => {
      const bareSpecifier = opts.dependencies[alias]
      if (bareSpecifier === undefined || isLocal(wantedRef) || (opts.match !== undefined && !opts.match(alias))) return
      const wantedPath = refToDepPath(alias, wantedRef)
      const packageName = parseDepPath(wantedPath).name || alias
      const latest = await opts.latestOf(alias, bareSpecifier)
      if (latest === undefined) return
      const wanted = shownVersion(wantedRef, wantedPath, opts.wanted)
      const currentRef = currentImporter?.[group]?.[alias]?.version
      const current = currentRef === undefined || opts.current === undefined
        ? undefined
        : shownVersion(currentRef, refToDepPath(alias, currentRef), opts.current)
      if (current === undefined || wanted !== current || isLower(wanted, latest.version) || latest.deprecated !== undefined) {
        found.push({ alias, packageName, belongsTo: group, ...current === undefined ? {} : { current }, wanted, latest })
      }
    })))
  return found.sort((a, b) => a.packageName.localeCompare(b.packageName))
}

function isLocal (ref: string): boolean {
  return ref.startsWith('link:') || ref.startsWith('file:') || ref.startsWith('workspace:')
}

/** The version a lockfile reference stands for: its semver version, else the lockfile's `version` for it, else the reference. */
function shownVersion (ref: string, depPath: string, lockfile: Lockfile): string {
  const { version } = parseDepPath(depPath)
  if (semver.valid(version) !== null) return version
  if (version.includes('/')) return ref
  const recorded = lockfile.packages?.[pkgIdOf(depPath)]?.version
  return typeof recorded === 'string' ? recorded : ref
}

function isLower (version: string, latest: string): boolean {
  return semver.valid(version) !== null && semver.valid(latest) !== null && semver.lt(version, latest)
}

/**
 * How far the newest version is from the wanted one, as pnpm's semver-diff tells it: 0 none,
 * 1 a fix, 2 a feature, 3 a breaking change, 4 unknown (no newest version, or either version
 * below 1.0.0 or a prerelease: "unstable", whichever part differs).
 */
function changeOf (pkg: OutdatedPackage): number {
  if (pkg.latest === undefined) return 4
  return semverChange(pkg.wanted, pkg.latest.version)
}

function semverChange (from: string, to: string): number {
  if (from === to) return 0
  const [fromPrefix, fromVersion] = rangePrefix(from)
  const [toPrefix, toVersion] = rangePrefix(to)
  if (fromPrefix !== toPrefix) return semverChange(fromVersion, toVersion)
  const a = versionParts(from)
  const b = versionParts(to)
  const length = Math.max(a.length, b.length)
  const unstable = a[0] === '0' || b[0] === '0' || length > 3
  for (let i = 0; i < length; i++) {
    if (a[i] === b[i]) continue
    return unstable ? 4 : [3, 2, 1][i] ?? 4
  }
  return 4
}

function rangePrefix (version: string): [string, string] {
  return version.startsWith('~') || version.startsWith('^') ? [version[0]!, version.slice(1)] : ['', version]
}

/** `1.2.3-rc.1` → 1, 2, 3, rc, 1. */
function versionParts (version: string): string[] {
  const dash = version.indexOf('-')
  return dash === -1 ? version.split('.') : [...version.slice(0, dash).split('.'), ...version.slice(dash + 1).split('.')]
}

/** pnpm's order: the smaller changes first, then by name, then by the version installed. */
function compareOutdated (a: OutdatedPackage, b: OutdatedPackage): number {
  return changeOf(a) - changeOf(b) || a.packageName.localeCompare(b.packageName)
    || (a.current !== undefined && b.current !== undefined ? a.current.localeCompare(b.current) : 0)
}

function sorted (packages: readonly OutdatedPackage[]): OutdatedPackage[] {
  return [...packages].sort(compareOutdated)
}

function packageLabel (pkg: OutdatedPackage): string {
  if (pkg.belongsTo === 'devDependencies') return `${pkg.packageName} (dev)`
  if (pkg.belongsTo === 'optionalDependencies') return `${pkg.packageName} (optional)`
  return pkg.packageName
}

function currentLabel (pkg: OutdatedPackage): string {
  const current = pkg.current ?? 'missing'
  return pkg.current === pkg.wanted ? current : `${current} (wanted ${pkg.wanted})`
}

function latestLabel (pkg: OutdatedPackage): string {
  if (pkg.latest === undefined) return ''
  if (pkg.wanted === pkg.latest.version) return pkg.latest.deprecated !== undefined ? 'Deprecated' : pkg.latest.version
  return pkg.latest.deprecated !== undefined ? `${pkg.latest.version} (deprecated)` : pkg.latest.version
}

/** `--long`'s details of the newest version: its deprecation message, then its homepage. */
function detailsLabel (pkg: OutdatedPackage): string {
  const manifest = pkg.latest?.manifest
  if (manifest === undefined) return ''
  const details: string[] = []
  if (typeof manifest['deprecated'] === 'string' && manifest['deprecated'] !== '') details.push(withoutControlCharacters(manifest['deprecated']))
  if (typeof manifest['homepage'] === 'string' && manifest['homepage'] !== '') details.push(manifest['homepage'])
  return details.join('\n')
}

/** Control and format characters left out of registry text printed on one line, as pnpm leaves them out. */
function withoutControlCharacters (text: string): string {
  return text.replace(/[\p{Cc}\p{Cf}]/gu, '')
}

/** The report as pnpm 11 prints it: a table (the default), a list, or JSON keyed by package name; `long` adds the newest version's details. */
export function renderOutdated (packages: readonly OutdatedPackage[], format: 'table' | 'list' | 'json', long = false): string {
  const ordered = sorted(packages)
  if (format === 'json') {
    return JSON.stringify(Object.fromEntries(ordered.map((pkg) => [pkg.packageName, {
      current: pkg.current,
      latest: pkg.latest?.version,
      wanted: pkg.wanted,
      isDeprecated: pkg.latest?.deprecated !== undefined,
      dependencyType: pkg.belongsTo,
      ...long ? { latestManifest: pkg.latest?.manifest } : {},
    }])), null, 2)
  }
  if (ordered.length === 0) return ''
  if (format === 'list') {
    return `${ordered.map((pkg) => {
      const details = long ? detailsLabel(pkg) : ''
      return `${packageLabel(pkg)}\n${currentLabel(pkg)} => ${latestLabel(pkg)}${details === '' ? '' : `\n${details}`}`
    }).join('\n\n')}\n`
  }
  if (!long) return renderTable([['Package', 'Current', 'Latest'], ...ordered.map((pkg) => [packageLabel(pkg), currentLabel(pkg), latestLabel(pkg)])])
  // The details column is as wide as the longest homepage of a version not deprecated, 40 at least.
  const width = Math.max(40, ...packages.filter((pkg) => pkg.latest?.manifest !== undefined && pkg.latest.deprecated === undefined)
    .map((pkg) => typeof pkg.latest!.manifest!['homepage'] === 'string' ? (pkg.latest!.manifest!['homepage']).length : 0))
  const rows = ordered.map((pkg) => [packageLabel(pkg), currentLabel(pkg), latestLabel(pkg), detailsLabel(pkg)])
  return renderTable([['Package', 'Current', 'Latest', 'Details'], ...rows], { wrap: { 3: width } })
}

/** One project's report, for `renderOutdatedRecursive`. */
export interface ProjectOutdated {
  dir: string
  name: string | undefined
  packages: readonly OutdatedPackage[]
}

/** pnpm's order of groups in a workspace report, after the change, the name and the version installed. */
const GROUP_ORDER: Readonly<Record<DependencyGroup, number>> = { optionalDependencies: 0, dependencies: 1, devDependencies: 2 }

/**
 * `outdated -r` as pnpm 11 prints it: one row per package, version installed and group, with the
 * projects that depend on it (`Dependents`, by name, else directory).
 */
export function renderOutdatedRecursive (projects: readonly ProjectOutdated[], format: 'table' | 'list' | 'json', long = false): string {
  const rows = new Map<string, { pkg: OutdatedPackage, dependents: Array<{ name: string | undefined, location: string }> }>()
  for (const project of projects) {
    for (const pkg of project.packages) {
      const key = JSON.stringify([pkg.packageName, pkg.current, pkg.belongsTo])
      const row = rows.get(key) ?? { pkg, dependents: [] }
      row.dependents.push({ name: project.name, location: project.dir })
      rows.set(key, row)
    }
  }
  const ordered = [...rows.values()]
    .sort((a, b) => compareOutdated(a.pkg, b.pkg) || GROUP_ORDER[a.pkg.belongsTo] - GROUP_ORDER[b.pkg.belongsTo])
  const dependentsOf = (row: { dependents: ReadonlyArray<{ name: string | undefined, location: string }> }): string =>
    row.dependents.map(({ name, location }) => name ?? location).sort().join(', ')
  if (format === 'json') {
    return JSON.stringify(Object.fromEntries(ordered.map(({ pkg, dependents }) => [pkg.packageName, {
      current: pkg.current,
      latest: pkg.latest?.version,
      wanted: pkg.wanted,
      isDeprecated: pkg.latest?.deprecated !== undefined,
      dependencyType: pkg.belongsTo,
      dependentPackages: dependents.map(({ name, location }) => ({ name, location })),
      ...long ? { latestManifest: pkg.latest?.manifest } : {},
    }])), null, 2)
  }
  if (ordered.length === 0) return ''
  if (format === 'list') {
    return `${ordered.map((row) => {
      const details = long ? detailsLabel(row.pkg) : ''
      return `${packageLabel(row.pkg)}\n${currentLabel(row.pkg)} => ${latestLabel(row.pkg)}\n`
        + `${row.dependents.length > 1 ? 'Dependents:' : 'Dependent:'} ${dependentsOf(row)}${details === '' ? '' : `\n${details}`}`
    }).join('\n\n')}\n`
  }
  const table = [
    ['Package', 'Current', 'Latest', 'Dependents', ...long ? ['Details'] : []],
    ...ordered.map((row) => [
      packageLabel(row.pkg), currentLabel(row.pkg), latestLabel(row.pkg), dependentsOf(row), ...long ? [detailsLabel(row.pkg)] : [],
    ]),
  ]
  return renderTable(table, { wrap: { 3: Math.min(30, Math.max(...table.map((row) => row[3]!.length))) } })
}
