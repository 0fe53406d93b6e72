import { pkgIdOf } from '@lode/core.dep-path'
import { LodeError, printable } from '@lode/core.error'

import { createAllowBuild } from './allow-builds.js'
import { runDependencyBuilds } from './build.js'
import type { BuildOutcome, LifecycleLog } from './build.js'

/**
 * pnpm 11's decision for packages that want to build: `allowBuilds` allows them (they run), skips
 * them (`false`, quietly), or does not mention them (ignored: an error with `strictDepBuilds`).
 */
export function planBuilds<T extends Pick<BuildCandidate, 'depPath' | 'pkgId'>> (allowBuilds: Readonly<Record<string, boolean>>, candidates: readonly T[]): { allowed: T[], ignored: string[] } {
  const allowBuild = createAllowBuild(allowBuilds)
  const allowed = [...new Map(candidates.filter((pkg) => allowBuild(pkg.pkgId) === true).map((pkg) => [pkg.depPath, pkg])).values()]
  const ignored = [...new Set(candidates.filter((pkg) => allowBuild(pkg.pkgId) === undefined).map((pkg) => pkg.depPath))].sort()
  return { allowed, ignored }
}

/** A package to build where it is, with its dependencies (as dependency paths, or as the isolated layout's `Dependency`s). */
export interface BuildCandidate {
  depPath: string
  pkgId: string
  dir: string
  deps: ReadonlyArray<string | { depPath?: string | undefined }>
}

/** The settings dependency builds follow (the install's `Config` has them under these names). */
export interface BuildSettings {
  allowBuilds: Readonly<Record<string, boolean>>
  /** How many builds run at a time. */
  childConcurrency: number
  /** The lockfile's directory (the scripts' `INIT_CWD`). */
  dir: string
  userAgent: string
}

export interface BuildPackagesOptions {
  config: BuildSettings
  /** Whether only optional dependencies reach a package (its failed build is a warning, as in pnpm). */
  isOptional: (depPath: string) => boolean
  onWarning?: ((message: string) => void) | undefined
  /** Each build script's start, output lines and end (see `LifecycleLog`). */
  onLifecycle?: ((log: LifecycleLog) => void) | undefined
  signal?: AbortSignal | undefined
}

/**
 * Runs the builds of `packages` (in dependency order, `childConcurrency` at a time); returns the
 * dependency paths built, and those of the optional packages whose build failed.
 */
export async function buildPackages (packages: readonly BuildCandidate[], opts: BuildPackagesOptions): Promise<BuildOutcome> {
  if (packages.length === 0) return { built: [], failed: [] }
  return await runDependencyBuilds(packages.map((pkg) => ({
    depPath: pkg.depPath,
    pkgId: pkg.pkgId,
    dir: pkg.dir,
    deps: pkg.deps.flatMap((dep) => typeof dep === 'string' ? [dep] : dep.depPath === undefined ? [] : [dep.depPath]),
    optional: opts.isOptional(pkg.depPath),
  })), {
    concurrency: opts.config.childConcurrency,
    initCwd: opts.config.dir,
    userAgent: opts.config.userAgent,
    onWarning: opts.onWarning ?? (() => {}),
    onLifecycle: opts.onLifecycle,
    signal: opts.signal,
  })
}

/** What an install's builds came to: dependency paths ignored (not in allowBuilds), pending (`--ignore-scripts`) and built. */
export interface Builds {
  ignored: string[]
  pending: string[]
  built: string[]
  /** Optional packages whose build failed: taken out of node_modules, as pnpm takes them out. */
  failed: string[]
}

export interface RunBuildsOptions extends BuildPackagesOptions {
  ignoreScripts: boolean
  importersWithInstallScripts?: readonly string[] | undefined
}

/**
 * The builds of an install, either layout: the candidates `allowBuilds` allows run (see
 * `buildPackages`); with `ignoreScripts`, as with pnpm 11, nothing is ignored or fails and every
 * wanted build is pending, denied ones too (the projects' own install scripts first).
 */
export async function runBuilds (candidates: readonly BuildCandidate[], opts: RunBuildsOptions): Promise<Builds> {
  const { allowed, ignored } = planBuilds(opts.config.allowBuilds, candidates)
  // Pending: every package that wants to build, those allowBuilds denies too (as pnpm records them).
  if (opts.ignoreScripts) {
    return {
      ignored: [],
      pending: [...opts.importersWithInstallScripts ?? [], ...[...new Set(candidates.map((pkg) => pkg.depPath))].sort()],
      built: [],
      failed: [],
    }
  }
  return { ignored, pending: [], ...await buildPackages(allowed, opts) }
}

/** Ignored builds: `ERR_LODE_IGNORED_BUILDS` naming them with `strictDepBuilds`, else a warning. */
export function reportIgnoredBuilds (
  ignored: readonly string[],
  strict: boolean,
  onWarning: ((message: string) => void) | undefined
): void {
  if (ignored.length === 0) return
  // The ids come from the lockfile (a tarball's URL among them): shown printable.
  const names = [...new Set(ignored.map(pkgIdOf))].sort().map((name) => printable(name))
  if (strict) {
    throw new LodeError('IGNORED_BUILDS', `Ignored build scripts: ${names.join(', ')}`, {
      hint: 'Add them to allowBuilds in pnpm-workspace.yaml (true to run their build scripts, false to skip them), or set strictDepBuilds: false.',
    })
  }
  onWarning?.(`Ignored build scripts: ${names.join(', ')}. Add them to allowBuilds in pnpm-workspace.yaml to run or silence them.`)
}
