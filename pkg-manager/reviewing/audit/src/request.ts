import type { Lockfile } from '@lode/pkg-manager.lockfile.format'

import { childrenOf, importerRoots, nameAndVersionOf } from './graph.js'
import type { Include } from './graph.js'

/** What the registry's bulk advisory endpoint is asked, and pnpm's counts of the packages audited. */
export interface AuditRequest {
  /** Each package name installed, with its versions. */
  body: Record<string, string[]>
  /** Versions needed outside development and not only optionally. */
  dependencies: number
  devDependencies: number
  optionalDependencies: number
  totalDependencies: number
}

/**
 * The request for the packages the included groups install. A version counts as a dev (or
 * optional-only) one when every package installed at that version is.
 */
export function auditRequest (
  lockfile: Lockfile,
  opts: { include: Include, devOnly: ReadonlySet<string>, optionalOnly: ReadonlySet<string> }
): AuditRequest {
  const versions = new Map<string, Map<string, { dev: boolean, optional: boolean }>>()
  const seen = new Set<string>()
  const stack = Object.values(lockfile.importers).flatMap((importer) => importerRoots(importer, opts.include)).reverse()
  while (stack.length > 0) {
    const { depPath } = stack.pop()!
    if (seen.has(depPath) || lockfile.snapshots?.[depPath] === undefined) continue
    seen.add(depPath)
    const { name, version } = nameAndVersionOf(lockfile, depPath)
    if (version !== undefined) {
      const byVersion = versions.get(name) ?? new Map<string, { dev: boolean, optional: boolean }>()
      versions.set(name, byVersion)
      const state = byVersion.get(version) ?? { dev: true, optional: true }
      byVersion.set(version, { dev: state.dev && opts.devOnly.has(depPath), optional: state.optional && opts.optionalOnly.has(depPath) })
    }
    stack.push(...childrenOf(lockfile, depPath, opts.include.optionalDependencies).reverse())
  }
  const states = [...versions.values()].flatMap((byVersion) => [...byVersion.values()])
  return {
    body: Object.fromEntries([...versions].map(([name, byVersion]) => [name, [...byVersion.keys()]])),
    dependencies: states.filter((state) => !state.dev && !state.optional).length,
    devDependencies: states.filter((state) => state.dev).length,
    optionalDependencies: states.filter((state) => state.optional).length,
    totalDependencies: states.length,
  }
}
