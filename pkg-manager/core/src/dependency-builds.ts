import { LodeError } from '@lode/fs.error'
import type { Config } from '@lode/pkg-manager.config'
import { createAllowBuild, runDependencyBuilds } from '@lode/pkg-manager.lifecycle'
import { pkgIdOf } from '@lode/pkg-manager.linker'
import type { LaidOutPackage } from '@lode/pkg-manager.linker'
import type { Lockfile } from '@lode/pkg-manager.lockfile'

/**
 * pnpm 11's decision for packages that want to build: `allowBuilds` allows them (they run), skips
 * them (`false`, quietly), or does not mention them (ignored: an error with `strictDepBuilds`).
 */
export function planBuilds (allowBuilds: Readonly<Record<string, boolean>>, candidates: readonly LaidOutPackage[]): { allowed: LaidOutPackage[], ignored: string[] } {
  const allowBuild = createAllowBuild(allowBuilds)
  const allowed = [...new Map(candidates.filter((pkg) => allowBuild(pkg.pkgId) === true).map((pkg) => [pkg.depPath, pkg])).values()]
  const ignored = [...new Set(candidates.filter((pkg) => allowBuild(pkg.pkgId) === undefined).map((pkg) => pkg.depPath))].sort()
  return { allowed, ignored }
}

/** Runs the builds of `packages` (in dependency order, `childConcurrency` at a time); returns the dependency paths built. */
export async function buildPackages (packages: readonly LaidOutPackage[], opts: { config: Config, lockfile: Lockfile, onWarning?: ((message: string) => void) | undefined, signal?: AbortSignal | undefined }): Promise<string[]> {
  if (packages.length === 0) return []
  return await runDependencyBuilds(packages.map((pkg) => ({
    depPath: pkg.depPath,
    pkgId: pkg.pkgId,
    dir: pkg.dir,
    deps: pkg.deps.flatMap((dep) => dep.depPath === undefined ? [] : [dep.depPath]),
    optional: opts.lockfile.snapshots?.[pkg.depPath]?.optional === true,
  })), {
    concurrency: opts.config.childConcurrency,
    initCwd: opts.config.dir,
    userAgent: opts.config.userAgent,
    onWarning: opts.onWarning ?? (() => {}),
    signal: opts.signal,
  })
}

/** Ignored builds: `ERR_LODE_IGNORED_BUILDS` naming them with `strictDepBuilds`, else a warning. */
export function reportIgnoredBuilds (ignored: readonly string[], strict: boolean, onWarning: ((message: string) => void) | undefined): void {
  if (ignored.length === 0) return
  const names = [...new Set(ignored.map(pkgIdOf))].sort()
  if (strict) {
    throw new LodeError('IGNORED_BUILDS', `Ignored build scripts: ${names.join(', ')}`, {
      hint: 'Add them to allowBuilds in pnpm-workspace.yaml (true to run their build scripts, false to skip them), or set strictDepBuilds: false.',
    })
  }
  onWarning?.(`Ignored build scripts: ${names.join(', ')}. Add them to allowBuilds in pnpm-workspace.yaml to run or silence them.`)
}
