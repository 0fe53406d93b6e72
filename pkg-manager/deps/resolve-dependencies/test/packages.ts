import type { ResolvedPackage } from '../src/types.js'

/** A resolved `<name>@1.0.0` with no dependencies of its own, wanting `peerDependencies`. */
export function pkg (name: string, peerDependencies: Record<string, string> = {}): ResolvedPackage {
  return {
    id: `${name}@1.0.0`,
    name,
    version: '1.0.0',
    resolution: { integrity: 'sha512-x' },
    dependencies: {},
    optionalDependencies: {},
    peerDependencies,
    peerDependenciesMeta: {},
    lockfileFields: {},
  }
}
