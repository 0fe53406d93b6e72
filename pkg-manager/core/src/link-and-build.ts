import path from 'node:path'
import { isDeepStrictEqual } from 'node:util'

import { MODULES_DIR } from '@lode/core.constants'
import { pendingBuildsAfter, reportIgnoredBuilds, revokedBuilds, runBuilds } from '@lode/pkg-manager.building.lifecycle'
import type { Builds, LifecycleLog } from '@lode/pkg-manager.building.lifecycle'
import { linkPackages, readModulesManifest } from '@lode/pkg-manager.installing.linker'
import type { InjectedCopy, LinkCounts, LinkPackagesOptions } from '@lode/pkg-manager.installing.linker'

/**
 * node_modules from the lockfile, in pnpm's order: the packages are linked (the linker), the
 * dependencies built (lifecycle; a failed build takes node_modules back to what the last install
 * left), node_modules is completed, then `commit` writes what changes outside it (pnpm-lock.yaml,
 * package.json for an edit, the builds left out as undecided in pnpm-workspace.yaml) and the install is marked done. Ignored builds are reported last:
 * with `strictDepBuilds` an error, once everything is written, as in pnpm. `partial`: a filtered install left some
 * project's dependencies other than the lockfile has them.
 */
export async function linkAndBuild (
  opts: LinkPackagesOptions,
  commit: (ignoredBuilds: readonly string[]) => Promise<boolean>,
  onLifecycle?: (log: LifecycleLog) => void,
  timeline?: { phase: <T>(label: string, step: () => Promise<T>) => Promise<T> }
): Promise<LinkCounts & { committed: boolean, partial: boolean, injectedCopies: readonly InjectedCopy[] }> {
  const phase = async <T>(label: string, step: () => Promise<T>): Promise<T> =>
    timeline === undefined ? await step() : await timeline.phase(label, step)
  const modulesDir = path.join(opts.config.dir, MODULES_DIR)
  const previousModules = await readModulesManifest(modulesDir).catch(() => undefined)
  const previousPending = previousModules?.pendingBuilds ?? []
  const linked = await phase('link', async () => await linkPackages(opts))
  let builds: Builds
  try {
    if (linked.refusedBuilds !== undefined) throw linked.refusedBuilds
    builds = await phase('build', async () => await runBuilds(linked.buildCandidates, {
      config: opts.config,
      isOptional: (depPath) => linked.lockfile.snapshots?.[depPath]?.optional === true,
      ignoreScripts: opts.ignoreScripts,
      importersWithInstallScripts: opts.importersWithInstallScripts,
      onWarning: opts.onWarning,
      onLifecycle,
      signal: opts.signal,
    }))
  } catch (err) {
    await linked.rollBack()
    throw err
  }
  // What the last install left pending stays so while its package or project is here (pnpm's).
  const installed = (id: string): boolean =>
    Object.hasOwn(linked.lockfile.snapshots ?? {}, id) || Object.hasOwn(linked.lockfile.importers, id)
  builds = { ...builds, pending: pendingBuildsAfter(previousPending, builds, installed) }
  // Builds the last install's allowBuilds approved and the setting now leaves undecided: ignored ones, as pnpm reports them.
  const pkgIds = Object.keys(linked.lockfile.packages ?? {})
  const { allowBuilds } = opts.config
  const revoked = opts.ignoreScripts ? [] : revokedBuilds(previousModules?.allowBuilds, allowBuilds, pkgIds, new Set(builds.ignored))
  if (revoked.length > 0) builds = { ...builds, ignored: [...builds.ignored, ...revoked] }
  await linked.complete(builds)
  // pnpm-lock.yaml (and package.json, for add/remove/update) change only now that node_modules is complete.
  const committed = await commit(builds.ignored)
  await linked.done()
  if (opts.reportsIgnoredBuilds !== false) reportIgnoredBuilds(builds.ignored, opts.config.strictDepBuilds, opts.onWarning)
  // A filtered install that left some project as the lockfile does not have it: node_modules is not complete.
  const partial = opts.selectedImporters !== undefined && Object.entries(opts.lockfile.importers)
    .some(([id, snapshot]) => !isDeepStrictEqual(linked.lockfile.importers[id] ?? {}, snapshot))
  return { ...linked.counts, committed, partial, injectedCopies: linked.injectedCopies }
}
