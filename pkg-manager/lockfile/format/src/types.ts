/**
 * The shape of `pnpm-lock.yaml` v9, as pnpm writes it. Unknown keys are kept as they were read.
 * Dependency paths (`name@1.0.0(peer@2.0.0)`) key `snapshots`; `packages` is keyed by the path
 * without its peer suffix.
 */

export interface LockfileSettings {
  autoInstallPeers?: boolean
  dedupePeers?: boolean
  excludeLinksFromLockfile?: boolean
  peersSuffixMaxLength?: number
  injectWorkspacePackages?: boolean
  [other: string]: unknown
}

/** `specifier` as written in package.json, `version` as resolved (`1.0.0(peer@2)`, `name@1.0.0`, `link:../x`, `file:x`). */
export interface ResolvedDependency {
  specifier: string
  version: string
}


export interface ProjectSnapshot {
  dependencies?: Record<string, ResolvedDependency>
  devDependencies?: Record<string, ResolvedDependency>
  optionalDependencies?: Record<string, ResolvedDependency>
  dependenciesMeta?: Record<string, unknown>
  publishDirectory?: string
  [other: string]: unknown
}

export type Resolution =
  | { integrity: string, tarball?: string }
  | { directory: string, type: 'directory' }
  | { [key: string]: unknown }

export interface PackageInfo {
  resolution: Resolution
  version?: string
  engines?: Record<string, string>
  cpu?: string | string[]
  os?: string | string[]
  libc?: string | string[]
  deprecated?: string
  hasBin?: true
  peerDependencies?: Record<string, string>
  peerDependenciesMeta?: Record<string, { optional: true }>
  bundledDependencies?: string[] | true
  [other: string]: unknown
}

export interface SnapshotInfo {
  dependencies?: Record<string, string>
  optionalDependencies?: Record<string, string>
  transitivePeerDependencies?: string[]
  optional?: true
  [other: string]: unknown
}

export interface Lockfile {
  lockfileVersion: string
  settings?: LockfileSettings
  catalogs?: Record<string, Record<string, ResolvedDependency>>
  overrides?: Record<string, string>
  packageExtensionsChecksum?: string
  pnpmfileChecksum?: string
  patchedDependencies?: Record<string, string>
  ignoredOptionalDependencies?: string[]
  importers: Record<string, ProjectSnapshot>
  packages?: Record<string, PackageInfo>
  snapshots?: Record<string, SnapshotInfo>
  time?: Record<string, string>
  [other: string]: unknown
}
