import fs from 'node:fs/promises'
import path from 'node:path'

import type { DependencyGroup } from '@lode/core.constants'
import { LodeError } from '@lode/core.error'
import type { Lockfile } from '@lode/pkg-manager.lockfile.format'
import { dependencyRefs, devOnlyDepPaths, peerSatisfactionEdgesToSkip, readLockfile, walkDependencies } from '@lode/pkg-manager.lockfile.format'
import semver from 'semver'

import { nameAndVersion } from './dependency-graph.js'
import { installedLayout, normalizedLinks } from './installed.js'
import { licenseFileReader, licenseOf } from './license-of.js'
import { renderTable } from './table.js'

// pnpm's `licenses list`: the license of every package the projects install, from its package.json
// (`license`, or the old `licenses`), else from its license file's text.

export interface LicensesOptions {
  lockfileDir: string
  /** The projects whose dependencies are listed (importer ids: `.`, `packages/a`). */
  importerIds: readonly string[]
  include: Readonly<Record<DependencyGroup, boolean>>
  /** pnpm's setting: the root's dev dependencies provide optional peers for every project (see `peerSatisfactionEdges`). */
  resolvePeersFromWorkspaceRoot: boolean
  format: 'table' | 'json'
  /** pnpm's `--long`: the author, description and homepage of each. */
  long: boolean
}

interface LicensedPackage {
  name: string
  version: string
  /** Where it is installed: each peer variant of the version has a directory of its own. */
  paths: string[]
  license: string
  author?: string | undefined
  homepage?: string | undefined
  description?: string | undefined
  /** Installed only for development (reached through devDependencies alone). */
  dev: boolean
}

/** pnpm's `licenses list`: a table of package and license (`--long`: details), or JSON grouped by license. */
export async function licenses (opts: LicensesOptions): Promise<string> {
  const read = await readLockfile(opts.lockfileDir)
  if (read === undefined) {
    throw new LodeError('LICENSES_NO_LOCKFILE', `No lockfile in directory "${opts.lockfileDir}". Run \`lode install\` to generate one.`)
  }
  const packages = await licensedPackages(read.lockfile, opts)
  return opts.format === 'json' ? renderJson(packages) : renderLicensesTable(packages, opts.long)
}

async function licensedPackages (lockfile: Lockfile, opts: LicensesOptions): Promise<LicensedPackage[]> {
  const { pathOf, skipped } = await installedLayout(opts.lockfileDir, { listing: false })
  const devOnly = devOnlyDepPaths(lockfile, opts)
  const byKey = new Map<string, LicensedPackage>()
  for (const depPath of reachedPackages(lockfile, opts, skipped)) {
    const { name, version } = nameAndVersion(lockfile, depPath)
    const dir = pathOf(depPath, name)
    const manifest = await readManifest(dir, `${name}@${version}`)
    const pkg: LicensedPackage = {
      name: typeof manifest['name'] === 'string' ? manifest['name'] : name,
      // normalize-package-data's clean version (`v1.0.0` is 1.0.0), as pnpm reads it.
      version: typeof manifest['version'] === 'string' ? semver.clean(manifest['version'], { loose: true }) ?? manifest['version'] : version,
      paths: [dir],
      license: (await licenseOf(manifest, licenseFileReader(dir)))?.name ?? 'Unknown',
      author: authorOf(manifest['author']),
      homepage: normalizedLinks(manifest).homepage,
      description: typeof manifest['description'] === 'string' ? manifest['description'] : undefined,
      dev: devOnly.has(depPath),
    }
    // One entry per package, version and license (peer variants are one package, with their paths).
    const key = `${pkg.name}@${pkg.version}\0${pkg.license}`
    const first = byKey.get(key)
    if (first === undefined) byKey.set(key, pkg)
    else if (!first.paths.includes(dir)) first.paths.push(dir)
  }
  return [...byKey.values()].sort((a, b) => a.name.localeCompare(b.name) || compareVersions(a.version, b.version))
}

/**
 * The packages pnpm's license scanner visits, each once: from the importers' included groups
 * (optional ones with the production ones), then every snapshot's dependencies and (when
 * included) optional dependencies. `link:` dependencies are not followed (another project's
 * packages are its own); a package the install skipped (not installable here) is left out with
 * what only it reaches.
 */
function reachedPackages (lockfile: Lockfile, opts: LicensesOptions, skipped: ReadonlySet<string>): string[] {
  const { include } = opts
  const skippedEdges = peerSatisfactionEdgesToSkip(lockfile, include, opts)
  const reached: string[] = []
  const walked = new Set<string>()
  const walk = (refs: Readonly<Record<string, string>>): void => {
    walkDependencies(refs, {
      skip: skippedEdges,
      visit: (depPath) => {
        if (walked.has(depPath)) return undefined
        walked.add(depPath)
        const snapshot = lockfile.snapshots?.[depPath]
        if (snapshot === undefined || skipped.has(depPath)) return undefined
        reached.push(depPath)
        return { ...snapshot.dependencies, ...include.optionalDependencies ? snapshot.optionalDependencies : {} }
      },
    })
  }
  for (const importerId of opts.importerIds) {
    const importer = lockfile.importers[importerId]
    if (importer === undefined) continue
    walk({
      ...include.devDependencies ? dependencyRefs(importer.devDependencies) : {},
      ...include.dependencies ? dependencyRefs(importer.dependencies) : {},
      ...include.dependencies && include.optionalDependencies ? dependencyRefs(importer.optionalDependencies) : {},
    })
  }
  return reached
}


async function readManifest (dir: string, id: string): Promise<Record<string, unknown>> {
  try {
    return JSON.parse(await fs.readFile(path.join(dir, 'package.json'), 'utf8')) as Record<string, unknown>
  } catch (err) {
    throw new LodeError('LICENSES_PACKAGE_NOT_INSTALLED', `Cannot read the package.json of ${id} in ${dir} (${(err as NodeJS.ErrnoException).code ?? (err as Error).message}).`, {
      hint: 'Run lode install first: licenses are read from the installed packages.',
    })
  }
}

/** The author's name: `Ann <ann@example.com> (https://…)` is Ann, as pnpm's normalized manifest has it. */
function authorOf (author: unknown): string | undefined {
  if (typeof author === 'string') return /^([^<(]*)/.exec(author)![1]!.trim() || undefined
  const name = (author as { name?: unknown } | null | undefined)?.name
  return typeof name === 'string' ? name : undefined
}

function compareVersions (a: string, b: string): number {
  return semver.valid(a) !== null && semver.valid(b) !== null ? semver.compare(a, b) : a.localeCompare(b)
}

/** `--json`: by license, then by name: the versions (in order), their paths, and the newest's license, author, homepage, description. */
function renderJson (packages: readonly LicensedPackage[]): string {
  const output: Record<string, unknown[]> = {}
  const byLicense = new Map<string, Map<string, LicensedPackage[]>>()
  for (const pkg of packages) {
    const byName = byLicense.get(pkg.license) ?? new Map<string, LicensedPackage[]>()
    byLicense.set(pkg.license, byName)
    byName.set(pkg.name, [...byName.get(pkg.name) ?? [], pkg])
  }
  for (const [license, byName] of byLicense) {
    output[license] = [...byName.values()].map((versions) => {
      const sorted = [...versions].sort((a, b) => compareVersions(a.version, b.version))
      const last = sorted.at(-1)!
      return {
        name: last.name,
        versions: sorted.map((pkg) => pkg.version),
        paths: [...new Set(sorted.flatMap((pkg) => pkg.paths))],
        license: last.license,
        author: last.author,
        homepage: last.homepage,
        description: last.description,
      }
    })
  }
  return JSON.stringify(output, null, 2)
}

/** The table: by license, a package once per license (its last row kept where it stands), `(dev)` after one installed for development only. */
function renderLicensesTable (packages: readonly LicensedPackage[], long: boolean): string {
  const sorted = [...packages].sort((a, b) => a.license.localeCompare(b.license))
  const rows: LicensedPackage[] = []
  for (const pkg of [...sorted].reverse()) {
    if (!rows.some((row) => row.name === pkg.name && row.license === pkg.license)) rows.unshift(pkg)
  }
  const details = (pkg: LicensedPackage): string => [pkg.author, pkg.description, pkg.homepage].filter((value) => value !== undefined && value !== '').join('\n')
  const table = [
    long ? ['Package', 'License', 'Details'] : ['Package', 'License'],
    ...rows.map((pkg) => {
      const row = [`${pkg.name}${pkg.dev ? ' (dev)' : ''}`, pkg.license]
      return long ? [...row, details(pkg)] : row
    }),
  ]
  return renderTable(table, long ? { wrap: { 2: 40 } } : {})
}
