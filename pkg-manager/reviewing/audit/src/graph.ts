import type { DependencyGroup } from '@lode/core.constants'
import { pkgIdOf, refToDepPath, splitNameAt } from '@lode/core.dep-path'
import type { Lockfile, ProjectSnapshot } from '@lode/pkg-manager.lockfile.format'
import { dependencyRefs, reachableDepPaths } from '@lode/pkg-manager.lockfile.format'
import semver from 'semver'

// The lockfile as pnpm's audit walks it: from each project's dependency groups the audit includes,
// through each package's dependencies (and optional dependencies, when included); `link:` edges
// lead nowhere.

export type Include = Readonly<Record<DependencyGroup, boolean>>

export interface Edge {
  alias: string
  depPath: string
}

/** A project's dependencies the audit starts from: its `dependencies`, `devDependencies`, `optionalDependencies`, as included. */
export function importerRoots (importer: ProjectSnapshot, include: Include): Edge[] {
  const roots: Edge[] = []
  if (include.dependencies) pushEdges(roots, dependencyRefs(importer.dependencies))
  if (include.devDependencies) pushEdges(roots, dependencyRefs(importer.devDependencies))
  // A project's optional dependencies come with its production ones, as pnpm's lockfile walker takes them.
  if (include.dependencies && include.optionalDependencies) pushEdges(roots, dependencyRefs(importer.optionalDependencies))
  return roots
}

/** A package's dependencies, then its optional ones when `withOptional`. */
export function childrenOf (lockfile: Lockfile, depPath: string, withOptional: boolean): Edge[] {
  const snapshot = lockfile.snapshots?.[depPath]
  if (snapshot === undefined) return []
  const children: Edge[] = []
  pushEdges(children, snapshot.dependencies ?? {})
  if (withOptional) pushEdges(children, snapshot.optionalDependencies ?? {})
  return children
}

/** The name and version the registry knows a package by; no version for a `file:` directory or a tarball URL without one. */
export function nameAndVersionOf (lockfile: Lockfile, depPath: string): { name: string, version: string | undefined } {
  const pkgId = pkgIdOf(depPath)
  const { name, rest } = splitNameAt(pkgId)
  const recorded = lockfile.packages?.[pkgId]?.version
  if (typeof recorded === 'string') return { name, version: recorded }
  return { name, version: rest !== undefined && semver.valid(rest) !== null ? rest : undefined }
}

/** The packages installed only because something optional wants them (pnpm's `optional: true` for a finding). */
export function optionalOnlyDepPaths (lockfile: Lockfile, include: Include): Set<string> {
  const importers = Object.values(lockfile.importers)
  const required = importers.flatMap((importer) => [
    ...include.dependencies ? depPathsOf(importer.dependencies) : [],
    ...include.devDependencies ? depPathsOf(importer.devDependencies) : [],
  ])
  const withProjectsOptional = include.dependencies && include.optionalDependencies
  const optional = withProjectsOptional ? importers.flatMap((importer) => depPathsOf(importer.optionalDependencies)) : []
  const withoutOptional = reachableDepPaths(lockfile, required, false)
  const withOptional = reachableDepPaths(lockfile, [...required, ...optional], include.optionalDependencies)
  return new Set([...withOptional].filter((depPath) => !withoutOptional.has(depPath)))
}

function depPathsOf (group: ProjectSnapshot['dependencies']): string[] {
  const edges: Edge[] = []
  pushEdges(edges, dependencyRefs(group))
  return edges.map((edge) => edge.depPath)
}


function pushEdges (edges: Edge[], refs: Readonly<Record<string, string>>): void {
  for (const [alias, ref] of Object.entries(refs)) {
    if (!ref.startsWith('link:')) edges.push({ alias, depPath: refToDepPath(alias, ref) })
  }
}
