import { createMatcher } from '@lode/core.matcher'

import { compatibilityExtensions, createPackageExtender } from './extensions.js'
import type { PackageExtension } from './extensions.js'
import type { HookedManifest, ManifestHook } from './manifest.js'
import { createVersionsOverrider } from './overrides.js'
import type { Override } from './overrides.js'
import { staleConvergenceWarnings } from './stale-convergence.js'

export interface ReadPackageHookOptions {
  /** pnpm's `ignoreCompatibilityDb`: skip the compatibility database. */
  ignoreCompatibilityDb: boolean
  packageExtensions: Readonly<Record<string, PackageExtension>>
  overrides: readonly Override[]
  /** Where relative `file:`/`link:` overrides point from: the workspace root. */
  rootDir: string
  /** pnpm's `ignoredOptionalDependencies`: name patterns removed from every manifest's optionalDependencies. */
  ignoredOptionalDependencies?: readonly string[]
}

export interface ReadPackageHooks {
  /** For a project's own manifest (its directory given): the user's extensions and overrides. */
  project: <T extends HookedManifest>(manifest: T, projectDir: string) => T
  /** For a dependency's manifest from the registry: the compatibility database first, then as for projects. */
  dependency: <T extends HookedManifest>(manifest: T) => T
  /** pnpm's warnings for convergence overrides every range the manifests read so far declares goes beyond (`bestOf`: a range's pick). */
  staleConvergence: (bestOf: (name: string, range: string) => Promise<string | undefined>) => Promise<string[]>
}

/** Removes the optional dependencies whose names match (from `dependencies` too, where a package repeats them), as pnpm does. */
function createOptionalDependenciesRemover (patterns: readonly string[]): ManifestHook {
  const ignored = createMatcher(patterns)
  return (manifest) => {
    const names = Object.keys(manifest.optionalDependencies ?? {}).filter(ignored)
    if (names.length === 0) return manifest
    const without = (deps: Record<string, string>): Record<string, string> =>
      Object.fromEntries(Object.entries(deps).filter(([name]) => !names.includes(name)))
    const copy = { ...manifest, optionalDependencies: without(manifest.optionalDependencies ?? {}) }
    if (manifest.dependencies !== undefined) copy.dependencies = without(manifest.dependencies)
    return copy
  }
}

/** The manifest changes pnpm 11 applies while resolving, in pnpm's order. */
export function createReadPackageHooks (opts: ReadPackageHookOptions): ReadPackageHooks {
  const base: ManifestHook[] = []
  const declaredRanges = new Map<string, Set<string>>()
  if (Object.keys(opts.packageExtensions).length > 0) base.push(createPackageExtender(opts.packageExtensions))
  if (opts.overrides.length > 0) base.push(createVersionsOverrider(opts.overrides, opts.rootDir, declaredRanges))
  if (opts.ignoredOptionalDependencies !== undefined && opts.ignoredOptionalDependencies.length > 0) {
    base.push(createOptionalDependenciesRemover(opts.ignoredOptionalDependencies))
  }
  const forDependencies = opts.ignoreCompatibilityDb ? base : [createPackageExtender(compatibilityExtensions()), ...base]
  return {
    project: (manifest, projectDir) => base.reduce((m, hook) => hook(m, projectDir), manifest),
    dependency: (manifest) => forDependencies.reduce((m, hook) => hook(m), manifest),
    staleConvergence: async (bestOf) => await staleConvergenceWarnings(opts.overrides, declaredRanges, bestOf),
  }
}
