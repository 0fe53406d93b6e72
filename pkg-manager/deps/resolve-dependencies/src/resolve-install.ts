import { splitNameAt } from '@lode/core.dep-path'
import { LodeError } from '@lode/core.error'
import type { Config } from '@lode/pkg-manager.config.settings'
import type { Lockfile } from '@lode/pkg-manager.lockfile.format'
import { NpmResolver } from '@lode/resolving.npm-resolver'
import type { PackumentProcessor, ReleaseAgeViolation } from '@lode/resolving.npm-resolver'
import { redactUrl } from '@lode/resolving.registry-client'
import type { RegistryClient } from '@lode/resolving.registry-client'
import semver from 'semver'

import type { HoistedPeer } from './hoisted-peers.js'
import { resolveDependencies } from './index.js'
import type { ResolveDependenciesOptions } from './index.js'
import type { PeerIssue } from './resolve-peers.js'
import type { GitAccess } from './resolve-tree.js'

/** An install's resolution: its importers and lockfile, under its settings, over its registry client. */
export interface InstallResolutionOptions extends Pick<ResolveDependenciesOptions,
  'importers' | 'lockfile' | 'updating' | 'updatingImporters' | 'importedVersions' | 'lockfileSettings' | 'patchHashOf' | 'readPackageHook' | 'onPackageResolved' | 'onInfo' | 'onWarning'> {
  config: Config
  /** The clock, for minimumReleaseAge and the metadata cache. */
  now: () => number
  signal?: AbortSignal | undefined
  client: RegistryClient
  /** Where fetched packuments are parsed and cached (the installer's metadata pool); this thread when not given. */
  packuments?: PackumentProcessor | undefined
  /** Fetches a git package into the store, for its manifest. */
  fetchGit: GitAccess['fetch']
  /** Deprecated packages resolved, the ones `allowedDeprecatedVersions` accepts left out; not called when there are none. */
  onDeprecated: (deprecated: { direct: string[], subdependencies: string[] }) => void
  /** The read-package hooks' check of convergence overrides, once resolved (pnpm warns of a stale one). */
  staleConvergence?: ((bestOf: (name: string, range: string) => Promise<string | undefined>) => Promise<string[]>) | undefined
}

/** What an install's resolution found: the lockfile, peer issues, and versions picked although too young. */
export interface InstallResolution {
  lockfile: Lockfile
  peerIssues: PeerIssue[]
  immature: ReleaseAgeViolation[]
  /** Direct dependencies below the registry's `latest` tag: package id → that tag. */
  latest: Record<string, string>
  /** By importer id, the peers hoisted to it (pnpm links and hoists from them; the lockfile does not list them). */
  hoistedPeers: Record<string, HoistedPeer[]>
}

/**
 * Resolves an install's dependency graph with the npm resolver its settings describe (registries,
 * offline modes, minimumReleaseAge, trust policy), over the install's registry client. With
 * `minimumReleaseAgeStrict`, a version picked although too young fails the resolution.
 */
export async function resolveInstall (opts: InstallResolutionOptions): Promise<InstallResolution> {
  const { config, client } = opts
  const resolver = npmResolverFor(config, { client, packuments: opts.packuments, now: opts.now, onWarning: opts.onWarning })
  try {
    const result = await resolveDependencies({
      importers: opts.importers,
      lockfile: opts.lockfile,
      updating: opts.updating,
      updatingImporters: opts.updatingImporters,
      importedVersions: opts.importedVersions,
      lockfileSettings: opts.lockfileSettings,
      patchHashOf: opts.patchHashOf,
      readPackageHook: opts.readPackageHook,
      lockfileDir: config.dir,
      blockExoticSubdeps: config.blockExoticSubdeps,
      linkWorkspacePackages: config.linkWorkspacePackages,
      preferWorkspacePackages: config.preferWorkspacePackages,
      injectWorkspacePackages: config.injectWorkspacePackages,
      catalogs: config.catalogs,
      autoInstallPeers: config.autoInstallPeers,
      dedupePeerDependents: config.dedupePeerDependents,
      dedupeInjectedDeps: config.dedupeInjectedDeps,
      resolvePeersFromWorkspaceRoot: config.resolvePeersFromWorkspaceRoot,
      dedupePeers: config.dedupePeers,
      peersSuffixMaxLength: config.peersSuffixMaxLength,
      resolver,
      fetchBytes: async (url) => {
        const response = await client.get(url, { accept: '*/*', subject: url })
        if (response.status !== 200) throw new Error(`unexpected ${response.status} for ${redactUrl(url)}`)
        return response.body
      },
      git: {
        isPublic: async (url) => await isRepositoryPublic(client, url),
        fetch: opts.fetchGit,
        signal: opts.signal,
      },
      onWarning: opts.onWarning,
      onInfo: opts.onInfo,
      onPackageResolved: opts.onPackageResolved,
    })
    if (result.immature.length > 0 && config.minimumReleaseAgeStrict) throw immatureError(result.immature)
    // allowedDeprecatedVersions: deprecations the user accepted are not reported.
    const reported = (pkgId: string): boolean => {
      const { name, rest } = splitNameAt(pkgId)
      const range = config.allowedDeprecatedVersions[name]
      return range === undefined || !semver.satisfies(rest ?? '', range)
    }
    const deprecated = {
      direct: result.deprecated.direct.filter(reported),
      subdependencies: result.deprecated.subdependencies.filter(reported),
    }
    if (deprecated.direct.length > 0 || deprecated.subdependencies.length > 0) opts.onDeprecated(deprecated)
    // A range's pick under the install's policies; none when only a version too young fits.
    const bestOf = async (name: string, range: string): Promise<string | undefined> => {
      const picked = await resolver.resolve({ type: 'range', name, range })
      return picked.immature === undefined ? picked.version : undefined
    }
    for (const warning of await opts.staleConvergence?.(bestOf) ?? []) opts.onWarning(warning)
    const { lockfile, peerIssues, immature, latest, hoistedPeers } = result
    return { lockfile, peerIssues, immature, latest, hoistedPeers }
  } finally {
    await resolver.close()
  }
}

/**
 * The npm resolver the settings describe: registries, offline modes, `minimumReleaseAge` and its
 * exclusions, the trust policy; over the caller's registry client. `close()` it when done.
 */
export function npmResolverFor (
  config: Config,
  opts: { client: RegistryClient, packuments?: PackumentProcessor | undefined, now: () => number, onWarning: (message: string) => void }
): NpmResolver {
  return new NpmResolver({
    client: opts.client,
    packuments: opts.packuments,
    cacheDir: config.cacheDir,
    offline: config.offline,
    preferOffline: config.preferOffline,
    packumentMaxSize: config.packumentMaxSize,
    now: opts.now,
    onWarning: opts.onWarning,
    registries: { default: config.registry, scoped: config.scopedRegistries },
    minimumReleaseAge: config.minimumReleaseAge,
    minimumReleaseAgeExclude: config.minimumReleaseAgeExclude,
    trustPolicy: config.trustPolicy === 'no-downgrade' ? { exclude: config.trustPolicyExclude, ignoreAfter: config.trustPolicyIgnoreAfter } : undefined,
  })
}

/** Strict `minimumReleaseAge`: the versions picked although too young, each with its publish time. */
function immatureError (immature: ReleaseAgeViolation[]): LodeError {
  const sorted = [...immature].sort((a, b) => `${a.name}@${a.version}`.localeCompare(`${b.name}@${b.version}`))
  const list = sorted.map((v) => `  ${v.name}@${v.version} was published at ${v.publishedAt}, within the minimumReleaseAge cutoff (${v.cutoff})`).join('\n')
  return new LodeError('NO_MATURE_MATCHING_VERSION', `${sorted.length} ${sorted.length === 1 ? 'version does' : 'versions do'} not meet the minimumReleaseAge constraint:\n${list}`, {
    hint: 'Add them to minimumReleaseAgeExclude in pnpm-workspace.yaml, set minimumReleaseAgeStrict: false to have lode add them, or wait for the packages to mature past the configured cutoff.',
  })
}

/** pnpm's probe of a hosted git repository: a HEAD on its page, with its own short retries; any failure is "not public". */
export async function isRepositoryPublic (client: RegistryClient, url: string): Promise<boolean> {
  const status = await client.head(url, { subject: url, retry: { retries: 2, factor: 2, minTimeout: 500, maxTimeout: 2_000 } })
    .catch(() => 0)
  return status >= 200 && status < 300
}
