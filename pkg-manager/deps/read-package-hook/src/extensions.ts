import { packageExtensions as compatibilityDb } from '@yarnpkg/extensions'
import objectHash from 'object-hash'
import satisfies from 'semver/functions/satisfies.js'

import { copyManifest } from './manifest.js'
import type { HookedManifest, ManifestHook } from './manifest.js'
import { parseSelector } from './selector.js'

/** One entry of `packageExtensions`: fields merged under a package's own (its own values win). */
export interface PackageExtension {
  dependencies?: Record<string, string>
  optionalDependencies?: Record<string, string>
  peerDependencies?: Record<string, string>
  peerDependenciesMeta?: Record<string, { optional?: boolean }>
}

const EXTENSION_FIELDS = ['dependencies', 'optionalDependencies', 'peerDependencies', 'peerDependenciesMeta'] as const

/**
 * Fixes pnpm 11 ships beside yarn's compatibility database (`@yarnpkg/extensions`, the version
 * pnpm bundles), applied unless `ignoreCompatibilityDb` is set.
 */
const PNPM_COMPAT_EXTENSIONS: Array<[string, PackageExtension]> = [
  ['@angular/build@*', { dependencies: { tslib: '^2.3.0' } }],
  ['@nuxt/vite-builder@>=4.0.0 <4.5.0', { dependencies: { unplugin: '^2.3.5' } }],
  ['@nuxt/vite-builder@>=4.5.0', { dependencies: { unplugin: '^3.3.0' } }],
]

/** The compatibility database merged by selector, entries seen first winning per key, as pnpm merges it. */
export function compatibilityExtensions (): Record<string, PackageExtension> {
  const merged: Record<string, PackageExtension> = {}
  for (const [selector, extension] of [...compatibilityDb as Array<[string, PackageExtension]>, ...PNPM_COMPAT_EXTENSIONS]) {
    const previous = merged[selector] ?? {}
    const next: PackageExtension = {}
    for (const field of EXTENSION_FIELDS) {
      if (previous[field] === undefined && extension[field] === undefined) continue
      next[field] = { ...extension[field], ...previous[field] } as never
    }
    merged[selector] = next
  }
  return merged
}

/** A hook adding each matching extension's fields under the manifest's own. */
export function createPackageExtender (extensions: Readonly<Record<string, PackageExtension>>): ManifestHook {
  const byName = new Map<string, Array<{ range: string | undefined, extension: PackageExtension }>>()
  for (const [selector, extension] of Object.entries(extensions)) {
    const { name, range } = parseSelector(selector)
    if (name === undefined) continue
    let list = byName.get(name)
    if (list === undefined) byName.set(name, list = [])
    list.push({ range, extension })
  }
  return <T extends HookedManifest>(manifest: T): T => {
    const matching = byName.get(manifest.name ?? '')
    if (matching === undefined) return manifest
    let out: T | undefined
    for (const { range, extension } of matching) {
      if (range !== undefined && !satisfies(manifest.version ?? '', range)) continue
      out ??= copyManifest(manifest)
      for (const field of EXTENSION_FIELDS) {
        if (extension[field] === undefined) continue
        out[field] = { ...extension[field], ...out[field] } as never
      }
    }
    return out ?? manifest
  }
}

/**
 * The lockfile's `packageExtensionsChecksum`: pnpm hashes the user's `packageExtensions` (not the
 * compatibility database) with object-hash, key and array order ignored. Undefined when empty.
 */
export function packageExtensionsChecksum (extensions: Readonly<Record<string, PackageExtension>>): string | undefined {
  if (Object.keys(extensions).length === 0) return undefined
  const hash = objectHash(extensions, { respectType: false, algorithm: 'sha256', encoding: 'base64', unorderedArrays: true, unorderedObjects: true, unorderedSets: true })
  return `sha256-${hash}`
}
