import { pkgIdOf } from '@lode/core.dep-path'
import { dependencyRefs, peerSatisfactionEdgesToSkip, walkDependencies } from '@lode/pkg-manager.lockfile.format'
import type { Lockfile } from '@lode/pkg-manager.lockfile.format'

import { nameAndVersionOf } from './graph.js'
import type { Include } from './graph.js'

/** What brings an installed package in: the projects that depend on it, and the packages. */
export interface BroughtInBy {
  /** Importer ids (`.`, `packages/app`) that list it among their dependencies. */
  projects: string[]
  /** `name@version` of the installed packages that depend on it. */
  packages: string[]
}

/**
 * The packages the projects install (their included groups, then each package's dependencies and
 * optional ones), by package id (`name@version`, peer variants together), each with what brings it
 * in; `skipped` (not installed here) and what only they reach are left out.
 */
export function installedPackages (
  lockfile: Lockfile,
  opts: { importerIds: readonly string[], include: Include, resolvePeersFromWorkspaceRoot: boolean, skipped: ReadonlySet<string> }
): Map<string, BroughtInBy> {
  const reached = new Map<string, BroughtInBy>()
  const skip = peerSatisfactionEdgesToSkip(lockfile, opts.include, opts)
  const walked = new Set<string>()
  for (const importerId of opts.importerIds) {
    const importer = lockfile.importers[importerId]
    if (importer === undefined) continue
    walkDependencies({
      ...opts.include.devDependencies ? dependencyRefs(importer.devDependencies) : {},
      ...opts.include.dependencies ? dependencyRefs(importer.dependencies) : {},
      ...opts.include.dependencies && opts.include.optionalDependencies ? dependencyRefs(importer.optionalDependencies) : {},
    }, {
      skip,
      visit: (depPath, parent) => {
        const snapshot = lockfile.snapshots?.[depPath]
        if (snapshot === undefined || opts.skipped.has(depPath) || lockfile.packages?.[pkgIdOf(depPath)] === undefined) return undefined
        // Peer variants of one version are one package, brought in by what brings in any of them.
        const pkgId = pkgIdOf(depPath)
        const by = reached.get(pkgId) ?? { projects: [], packages: [] }
        reached.set(pkgId, by)
        if (parent === undefined) {
          if (!by.projects.includes(importerId)) by.projects.push(importerId)
        } else {
          const { name, version } = nameAndVersionOf(lockfile, parent)
          const label = version === undefined ? name : `${name}@${version}`
          if (!by.packages.includes(label)) by.packages.push(label)
        }
        if (walked.has(depPath)) return undefined
        walked.add(depPath)
        return { ...snapshot.dependencies, ...opts.include.optionalDependencies ? snapshot.optionalDependencies : {} }
      },
    })
  }
  return reached
}

/** `Brought in by: project ., project packages/app, a@1.0.0` (projects first, each list sorted). */
export function broughtInByLine (by: BroughtInBy): string {
  return `Brought in by: ${[...[...by.projects].sort().map((id) => `project ${id}`), ...[...by.packages].sort()].join(', ')}`
}
