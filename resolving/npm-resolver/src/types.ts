// The shapes of registry metadata every module of the resolver shares.

/** The fields of one version that resolution, the lockfile and linking need; nothing else is kept. */
export interface PackageMeta {
  name: string
  version: string
  dependencies?: Record<string, string>
  optionalDependencies?: Record<string, string>
  peerDependencies?: Record<string, string>
  peerDependenciesMeta?: Record<string, { optional?: boolean }>
  bundledDependencies?: string[] | boolean
  engines?: Record<string, string>
  /** As the manifest writes them: a list, or one string (kept as is: pnpm writes it back so). */
  os?: string | string[]
  cpu?: string | string[]
  libc?: string | string[]
  hasBin?: boolean
  hasInstallScript?: boolean
  deprecated?: string
  dist: { tarball: string, integrity: string }
}

/** What a version's publication proves (pnpm 11's trust evidence, strongest first). */
export type TrustEvidence = 'stagedPublish' | 'trustedPublisher' | 'provenance'
