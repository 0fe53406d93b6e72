import type { DependencyGroup } from '@lode/core.constants'
import { pkgIdOf } from '@lode/core.dep-path'
import { LodeError } from '@lode/core.error'
import type { Config } from '@lode/pkg-manager.config.settings'
import type { InstallEvent } from '@lode/pkg-manager.installing.installer'
import { Installer } from '@lode/pkg-manager.installing.installer'
import { packagesCheck, skippedPackages } from '@lode/pkg-manager.installing.package-is-installable'
import { readLockfile } from '@lode/pkg-manager.lockfile.format'
import { verifyLockfile } from '@lode/pkg-manager.lockfile.verification'
import { buildDependencyGraph } from '@lode/pkg-manager.reviewing.inspection'
import type { NodeId } from '@lode/pkg-manager.reviewing.inspection'


const ALL_GROUPS: Readonly<Record<DependencyGroup, boolean>> = { dependencies: true, devDependencies: true, optionalDependencies: true }

export interface FetchOptions {
  config: Config
  now: () => number
  /** The dependency groups whose packages are fetched (default: all). */
  include?: Readonly<Record<DependencyGroup, boolean>> | undefined
  signal?: AbortSignal | undefined
  onEvent?: ((event: InstallEvent) => void) | undefined
}

/**
 * pnpm's `fetch`: every package pnpm-lock.yaml names (of the included groups, for this platform)
 * put in the store, from the lockfile alone (no package.json is read, nothing is linked), so that
 * a later `install --offline --frozen-lockfile` needs no network. The lockfile is checked against
 * the supply-chain policies first, as for an install. Without pnpm-lock.yaml: `ERR_LODE_NO_LOCKFILE`.
 */
export async function fetchPackages (opts: FetchOptions): Promise<{ packages: number, downloaded: number, reused: number }> {
  const { config } = opts
  const emit = opts.onEvent ?? (() => {})
  const read = await readLockfile(config.dir)
  if (read === undefined) {
    throw new LodeError('NO_LOCKFILE', `There is no pnpm-lock.yaml in ${config.dir}: lode fetch installs into the store from the lockfile alone.`, {
      hint: 'Run lode install --lockfile-only to write one, and commit it.',
    })
  }
  const onWarning = (message: string): void => { emit({ type: 'warning', message }) }
  const installer = new Installer({ config, linking: false, ignoreScripts: true, tracePipeline: undefined, signal: opts.signal, onWarning })
  try {
    const { lockfile, text } = read
    await verifyLockfile({ config, lockfile, text, client: installer.client, now: opts.now, onEvent: emit, onWarning })
    const skipped = skippedPackages(lockfile, packagesCheck(config, false))
    // The packages the included groups reach, from every project of the lockfile.
    const roots = Object.keys(lockfile.importers).map((importerId): NodeId => ({ type: 'importer', importerId }))
    const graph = buildDependencyGraph(lockfile, roots, {
      lockfileDir: config.dir,
      include: opts.include ?? ALL_GROUPS,
      resolvePeersFromWorkspaceRoot: config.resolvePeersFromWorkspaceRoot,
      // What `install --prod` links next: lode's install follows every edge (pnpm 11 leaves these out).
      followPeerSatisfactionEdges: true,
    })
    const depPaths = [...graph.values()].flatMap(({ id }) => id.type === 'package' && !skipped.has(id.depPath) ? [id.depPath] : [])
    const pkgIds: string[] = [...new Set(depPaths.map((depPath) => pkgIdOf(depPath)))]
    const packages = pkgIds.flatMap((pkgId) => {
      const resolution = lockfile.packages?.[pkgId]?.resolution
      // A `file:` directory is the project's own files: nothing to fetch without them.
      return resolution === undefined || (resolution as { type?: unknown }).type === 'directory' ? [] : [{ pkgId, resolution }]
    })
    const { rows, reused } = installer.fetcher.rows(packages)
    // The store's rows, and the fetches of the rest, each awaited.
    await Promise.all(rows.map(async (row) => await row))
    return { packages: packages.length, downloaded: installer.fetcher.downloaded, reused }
  } finally {
    await installer.close()
  }
}
