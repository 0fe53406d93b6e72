import { MANIFEST_DEPENDENCY_FIELDS } from '@lode/core.constants'

/** The fields of a manifest the hooks read and change; anything else passes through untouched. */
export interface HookedManifest {
  name?: string
  version?: string
  dependencies?: Record<string, string>
  devDependencies?: Record<string, string>
  optionalDependencies?: Record<string, string>
  peerDependencies?: Record<string, string>
  peerDependenciesMeta?: Record<string, { optional?: boolean }>
}

/** A hook returns a changed copy; the manifest it is given (often shared metadata) is never mutated. */
export type ManifestHook = <T extends HookedManifest>(manifest: T, projectDir?: string) => T

/** A shallow copy with its own dependency maps, safe for a hook to change. */
export function copyManifest<T extends HookedManifest> (manifest: T): T {
  const copy = { ...manifest }
  for (const field of MANIFEST_DEPENDENCY_FIELDS) {
    if (manifest[field] !== undefined) copy[field] = { ...manifest[field] }
  }
  if (manifest.peerDependenciesMeta !== undefined) copy.peerDependenciesMeta = { ...manifest.peerDependenciesMeta }
  return copy
}
