
import type { DependencyGroup } from '@lode/core.constants'

import type { ProjectManifest } from './types.js'

export interface ImporterDependency {
  group: DependencyGroup
  /** As package.json writes it. */
  specifier: string
}

/**
 * What a project installs, alias → group and specifier, as pnpm reads its package.json: a
 * dependency listed in several groups counts once, in the last of dev, prod, optional; with
 * `autoInstallPeers`, the project's own peer dependencies that no group lists are installed as
 * dependencies (pnpm locks them under `dependencies`).
 */
export function importerDependencies (manifest: ProjectManifest, autoInstallPeers: boolean): Map<string, ImporterDependency> {
  const out = new Map<string, ImporterDependency>()
  if (autoInstallPeers) {
    for (const [alias, specifier] of Object.entries(manifest.peerDependencies ?? {})) out.set(alias, { group: 'dependencies', specifier })
  }
  for (const group of ['devDependencies', 'dependencies', 'optionalDependencies'] as const) {
    // An alias keeps the place it was first listed in (peers first), as pnpm's spread of the groups does.
    for (const [alias, specifier] of Object.entries(manifest[group] ?? {})) out.set(alias, { group, specifier })
  }
  return out
}

/** A project's `dependenciesMeta` (alias → `{ injected, … }`) as package.json writes it, when it is a map of maps. */
export function dependenciesMetaOf (manifest: ProjectManifest): Record<string, Record<string, unknown>> | undefined {
  const meta = (manifest as { dependenciesMeta?: unknown }).dependenciesMeta
  if (typeof meta !== 'object' || meta === null || Array.isArray(meta)) return undefined
  return Object.values(meta).every((entry) => typeof entry === 'object' && entry !== null && !Array.isArray(entry)) ? meta as Record<string, Record<string, unknown>> : undefined
}
