import { splitNameAt } from '@lode/core.dep-path'
import { LodeError } from '@lode/core.error'
import type { Lockfile } from '@lode/pkg-manager.lockfile'
import { forgetUpdated } from '@lode/pkg-manager.manifest-edit'
import { patchFor } from '@lode/pkg-manager.patching'
import { resolveDependencies } from '@lode/pkg-manager.resolve-dependencies'
import type { PeerIssue } from '@lode/pkg-manager.resolve-dependencies'
import { NpmResolver } from '@lode/resolving.npm-resolver'
import type { ReleaseAgeViolation } from '@lode/resolving.npm-resolver'
import { redactUrl } from '@lode/resolving.registry-client'
import semver from 'semver'

import type { InstallContext } from './install-context.js'
import type { Installer } from './installer.js'

// The resolution of an install whose lockfile does not do as it is: split from full-install so that
// an install from an up-to-date lockfile does not load the resolver.

/** What resolution found: the lockfile (written by the install once node_modules is complete), peer issues, and versions picked although too young. */
export interface Resolution {
  lockfile: Lockfile
  peerIssues: PeerIssue[]
  immature: ReleaseAgeViolation[]
}

/**
 * Resolves the dependency graph over the installer's registry client. With `prefetch`, each
 * package's download starts as soon as it is resolved (not for --lockfile-only, nor when only
 * some packages will be linked); git packages are fetched in any case (their manifests are needed).
 */
export async function resolve (ctx: InstallContext, installer: Installer, prefetch: boolean): Promise<Resolution> {
  const { config, opts, importers, current, hooks, lockfileSettings, patches, emit } = ctx
  const { client, trace } = installer
  const fetcher = prefetch ? installer.fetcher : undefined
  const gitFetcher = installer.fetcher
  const resolver = new NpmResolver({
    client,
    cacheDir: config.cacheDir,
    offline: config.offline,
    preferOffline: config.preferOffline,
    now: opts.now,
    onWarning: (message) => { emit({ type: 'warning', message }) },
    registries: { default: config.registry, scoped: config.scopedRegistries },
    minimumReleaseAge: config.minimumReleaseAge,
    minimumReleaseAgeExclude: config.minimumReleaseAgeExclude,
    trustPolicy: config.trustPolicy === 'no-downgrade' ? { exclude: config.trustPolicyExclude, ignoreAfter: config.trustPolicyIgnoreAfter } : undefined,
  })
  try {
    const result = await resolveDependencies({
      importers,
      lockfileDir: config.dir,
      blockExoticSubdeps: config.blockExoticSubdeps,
      linkWorkspacePackages: config.linkWorkspacePackages,
      preferWorkspacePackages: config.preferWorkspacePackages,
      injectWorkspacePackages: config.injectWorkspacePackages,
      fetchBytes: async (url) => {
        const result = await client.get(url, { accept: '*/*', subject: url })
        if (result.status !== 200) throw new Error(`unexpected ${result.status} for ${redactUrl(url)}`)
        return result.body
      },
      git: {
        // pnpm's probe: a HEAD on the repository's page, with its own short retries; any failure is "not public".
        isPublic: async (url) => {
          const status = await client.head(url, { subject: url, retry: { retries: 2, factor: 2, minTimeout: 500, maxTimeout: 2_000 } })
            .catch(() => 0)
          return status >= 200 && status < 300
        },
        fetch: async (source) => await gitFetcher.fetchGit(source),
        signal: opts.signal,
      },
      onWarning: (message) => { emit({ type: 'warning', message }) },
      readPackageHook: hooks.dependency,
      lockfileSettings,
      patchHashOf: (pkgId) => patchFor(patches, pkgId)?.hash,
      catalogs: config.catalogs,
      resolver,
      lockfile: current === undefined ? undefined : forgetUpdated(current.lockfile, opts.edits ?? []),
      updating: opts.edits?.some((edit) => edit.update === 'all') === true ? 'all' : opts.edits?.flatMap((edit) => edit.update ?? []),
      autoInstallPeers: config.autoInstallPeers,
      dedupePeerDependents: config.dedupePeerDependents,
      resolvePeersFromWorkspaceRoot: config.resolvePeersFromWorkspaceRoot,
      dedupePeers: config.dedupePeers,
      peersSuffixMaxLength: config.peersSuffixMaxLength,
      onInfo: (message) => { emit({ type: 'info', message }) },
      onPackageResolved: (pkg) => {
        trace?.count('resolved', 1)
        fetcher?.prefetch({ pkgId: pkg.id, resolution: pkg.resolution, platform: pkg.lockfileFields })
      },
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
    if (deprecated.direct.length > 0 || deprecated.subdependencies.length > 0) emit({ type: 'deprecated', ...deprecated })
    return { lockfile: result.lockfile, peerIssues: result.peerIssues, immature: result.immature }
  } finally {
    await resolver.close()
  }
}

/** Strict `minimumReleaseAge`: the versions picked although too young, each with its publish time. */
function immatureError (immature: ReleaseAgeViolation[]): LodeError {
  const sorted = [...immature].sort((a, b) => `${a.name}@${a.version}`.localeCompare(`${b.name}@${b.version}`))
  const list = sorted.map((v) => `  ${v.name}@${v.version} was published at ${v.publishedAt}, within the minimumReleaseAge cutoff (${v.cutoff})`).join('\n')
  return new LodeError('NO_MATURE_MATCHING_VERSION', `${sorted.length} ${sorted.length === 1 ? 'version does' : 'versions do'} not meet the minimumReleaseAge constraint:\n${list}`, {
    hint: 'Add them to minimumReleaseAgeExclude in pnpm-workspace.yaml, set minimumReleaseAgeStrict: false to have lode add them, or wait for the packages to mature past the configured cutoff.',
  })
}
