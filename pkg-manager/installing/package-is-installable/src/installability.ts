import { nameOf, pkgIdOf, refToDepPath } from '@lode/core.dep-path'
import { LodeError } from '@lode/core.error'
import type { Lockfile } from '@lode/pkg-manager.lockfile.format'
import semver from 'semver'

import { platformOfOptional } from './platform-from-name.js'
import { currentPlatform, platformMismatch } from './platform.js'
import type { Platform, SupportedArchitectures } from './platform.js'

// pnpm 11's installability checks (its package-is-installable): a package's `os`, `cpu` and `libc`
// are checked first, then its `engines.node` (and, for the workspace's own projects, `engines.pnpm`).

/** The running engines an `engines` field is checked against. */
export interface CurrentEngines {
  /** `config.nodeVersion` (pnpm's `nodeVersion` setting, else the running Node.js). */
  node: string
  /** The pnpm version lode installs as; set for the workspace's projects only (pnpm checks no dependency's `engines.pnpm`). */
  pnpm?: string
}

// Answers by version and range: a lockfile of a few thousand packages has a few dozen distinct
// `engines.node` ranges, and semver parses the version again for each test.
const satisfied = new Map<string, boolean>()

function satisfiesEngine (version: string, range: string): boolean {
  const key = `${version}\0${range}`
  let answer = satisfied.get(key)
  if (answer === undefined) satisfied.set(key, answer = semver.satisfies(version, range, { includePrerelease: true }))
  return answer
}

/** The ranges of `engines` that `current` does not satisfy (pnpm's `UnsupportedEngineError.wanted`), undefined when all are. */
export function unsatisfiedEngines (engines: unknown, current: CurrentEngines, subject: string): Record<string, string> | undefined {
  if (typeof engines !== 'object' || engines === null) return undefined
  const { node, pnpm } = engines as { node?: unknown, pnpm?: unknown }
  const wanted: Record<string, string> = {}
  if (typeof node === 'string' && node !== '' && !satisfiesEngine(current.node, node)) {
    if (semver.valid(current.node) === null) {
      throw new LodeError('INVALID_NODE_VERSION', `The nodeVersion setting is "${current.node}", which is not an exact semver version (checking the engines of ${subject}).`, {
        hint: 'Set nodeVersion in pnpm-workspace.yaml to an exact version such as 22.13.0, or remove it.',
      })
    }
    wanted['node'] = node
  }
  if (current.pnpm !== undefined && typeof pnpm === 'string' && pnpm !== '' && !satisfiesEngine(current.pnpm, pnpm)) wanted['pnpm'] = pnpm
  return Object.keys(wanted).length > 0 ? wanted : undefined
}

/** `ERR_LODE_UNSUPPORTED_ENGINE` for a package (`name@version`) or a project (its directory). */
export function unsupportedEngineError (subject: string, wanted: Record<string, string>, current: CurrentEngines): LodeError {
  const engine = wanted['pnpm'] !== undefined ? 'pnpm' : 'node'
  const got = engine === 'pnpm' ? current.pnpm! : current.node
  const fix = engine === 'pnpm'
    ? `lode installs as pnpm ${current.pnpm!} does: change engines.pnpm in ${subject}'s package.json, or install it with a pnpm it supports.`
    : 'Install a Node.js version it supports (or set nodeVersion in pnpm-workspace.yaml to the version it will run on), or set engineStrict: false in pnpm-workspace.yaml to be warned only.'
  return new LodeError('UNSUPPORTED_ENGINE', `Unsupported engine for ${subject}: wanted: ${JSON.stringify(wanted)} (current: ${JSON.stringify(current)})`, {
    hint: `Your ${engine === 'pnpm' ? 'pnpm' : 'Node.js'} version is incompatible with "${subject}": it wants ${engine} ${wanted[engine]!}, this is ${got}. ${fix}`,
  })
}

export interface ProjectsCheckOptions {
  engineStrict: boolean
  current: Required<CurrentEngines>
  platform: Platform
  onWarning: (message: string) => void
}

/**
 * The workspace's projects, as pnpm 11 checks them when it reads them (every command, before
 * anything is installed): a project whose `os`/`cpu`/`libc` exclude this machine gets a warning
 * (never an error); one whose `engines.pnpm` the pnpm version lode installs as does not satisfy is
 * `ERR_LODE_UNSUPPORTED_ENGINE`; one whose `engines.node` the Node.js does not satisfy is that
 * error with `engineStrict`, else a warning. `id` is the project's directory from the workspace
 * root (`.` for the root), `dir` the directory the error names.
 */
export function checkProjects (
  projects: ReadonlyArray<{ id: string, dir: string, manifest: Record<string, unknown> }>,
  opts: ProjectsCheckOptions
): void {
  for (const { id, dir, manifest } of projects) {
    const where = id === '.' ? '' : `${id}: `
    const platform = platformMismatch(manifest, opts.platform)
    if (platform !== undefined) {
      const wanted = { cpu: manifest['cpu'] ?? ['any'], os: manifest['os'] ?? ['any'], libc: manifest['libc'] ?? ['any'] }
      opts.onWarning(`${where}Unsupported platform: wanted: ${JSON.stringify(wanted)} (current: ${JSON.stringify({ os: opts.platform.os, cpu: opts.platform.cpu, libc: opts.platform.libc ?? 'unknown' })})`)
      continue
    }
    const wanted = unsatisfiedEngines(manifest['engines'], opts.current, dir)
    if (wanted === undefined) continue
    if (wanted['pnpm'] !== undefined || opts.engineStrict) throw unsupportedEngineError(dir, wanted, opts.current)
    opts.onWarning(`${where}Unsupported engine: wanted: ${JSON.stringify(wanted)} (current: ${JSON.stringify(opts.current)})`)
  }
}

export interface PackagesCheckOptions {
  engineStrict: boolean
  nodeVersion: string
  platform: Platform
  /**
   * The lockfile was resolved by this install: under `engineStrict`, a package that cannot run here
   * fails the install wherever it is required, inside an optional dependency's subtree too (pnpm's
   * resolver checks each dependency as it resolves it). From a lockfile as it is, such a subtree is
   * best-effort: only a package no optional path reaches fails.
   */
  resolvedNow?: boolean
}

/** The checks of `skippedPackages` for an install's settings: its Node.js version, this machine with `supportedArchitectures`. */
export function packagesCheck (
  config: { nodeVersion: string, supportedArchitectures?: SupportedArchitectures | undefined },
  engineStrict: boolean,
  opts: { resolvedNow?: boolean } = {}
): PackagesCheckOptions {
  return { engineStrict, nodeVersion: config.nodeVersion, platform: currentPlatform(config.supportedArchitectures), ...opts }
}

/**
 * The lockfile's packages this machine cannot run, as pnpm 11 decides when it installs them: one
 * whose `os`, `cpu` or `libc` exclude this platform, or whose `engines.node` the Node.js does not
 * satisfy, is skipped when every edge the install reaches it by is optional (an
 * `optionalDependencies` entry of a project or of a package that is installed; it stays in the
 * lockfile); one a required edge reaches (a `dependencies` entry of an installed package, an
 * installable optional dependency's too) is installed all the same, or with `engineStrict` is
 * `ERR_LODE_UNSUPPORTED_PLATFORM` / `ERR_LODE_UNSUPPORTED_ENGINE` (see `resolvedNow`). pnpm only
 * logs the installed ones (its reporter shows nothing), and so does lode. Returns the dependency
 * paths skipped.
 */
export function skippedPackages (lockfile: Lockfile, opts: PackagesCheckOptions): Set<string> {
  const unfit = unfitPackages(lockfile, opts)
  if (unfit.size === 0) return new Set()
  const installed = installedPackages(lockfile, unfit)
  const skipped = new Set<string>()
  for (const [depPath, why] of unfit) {
    const optional = lockfile.snapshots?.[depPath]?.optional === true
    if (installed.has(depPath)) {
      if (why.error !== undefined && opts.engineStrict && (opts.resolvedNow === true || !optional)) throw why.error()
    } else if (optional || installed.reached.has(depPath)) {
      // Reached by optional edges only; or not at all (below a skipped package), as the lockfile's flag says.
      skipped.add(depPath)
    }
  }
  return skipped
}

/**
 * A package this machine cannot run. `error`: why, as a required dependency sees it (its declared
 * `os`/`cpu`/`libc`, then its `engines.node`), the error under `engineStrict`; none when only the
 * platform its name declares excludes it (pnpm infers that for optional dependencies only).
 */
interface Unfit {
  error?: (() => LodeError) | undefined
}

/** The lockfile's packages whose platform (declared, or as an optional one's name declares it) or `engines.node` exclude this machine. */
function unfitPackages (lockfile: Lockfile, opts: PackagesCheckOptions): Map<string, Unfit> {
  const unfit = new Map<string, Unfit>()
  const current = { node: opts.nodeVersion }
  for (const depPath of Object.keys(lockfile.snapshots ?? {})) {
    const pkgId = pkgIdOf(depPath)
    const info = lockfile.packages?.[pkgId]
    if (info === undefined) continue
    const declared = info.os !== undefined || info.cpu !== undefined || info.libc !== undefined
    const platform = declared ? platformMismatch(info, opts.platform) : undefined
    if (platform !== undefined) {
      unfit.set(depPath, {
        error: () => new LodeError('UNSUPPORTED_PLATFORM', `${pkgId} does not support this platform: it wants ${platform}.`, {
          hint: 'Install on a platform the package supports, make it an optional dependency, or set engineStrict: false in pnpm-workspace.yaml to install it all the same.',
        }),
      })
      continue
    }
    const byName = platformMismatch(platformOfOptional(info, nameOf(depPath)), opts.platform) !== undefined
    if (info.engines === undefined) {
      if (byName) unfit.set(depPath, {})
      continue
    }
    // pnpm defers a patched package's engines to its patched package.json; lode does not check them under engineStrict.
    const wanted = opts.engineStrict && depPath.includes('(patch_hash=') ? undefined : unsatisfiedEngines(info.engines, current, pkgId)
    if (wanted !== undefined) unfit.set(depPath, { error: () => unsupportedEngineError(pkgId, wanted, current) })
    else if (byName) unfit.set(depPath, {})
  }
  return unfit
}

/**
 * The packages an install of every project and group puts on disk, walked edge by edge from the
 * projects: an unfit package reached by an optional edge is not entered by it (a required edge may
 * still reach it); `reached` has every package some edge from an installed one leads to.
 */
function installedPackages (lockfile: Lockfile, unfit: ReadonlyMap<string, Unfit>): Set<string> & { reached: Set<string> } {
  const installed = Object.assign(new Set<string>(), { reached: new Set<string>() })
  const queue: Array<{ depPath: string, optional: boolean }> = []
  const follow = (deps: Readonly<Record<string, string>> | undefined, optional: boolean): void => {
    for (const [alias, ref] of Object.entries(deps ?? {})) {
      if (!ref.startsWith('link:')) queue.push({ depPath: refToDepPath(alias, ref), optional })
    }
  }
  for (const importer of Object.values(lockfile.importers)) {
    const versions = (group: Record<string, { version: string }> | undefined): Record<string, string> =>
      Object.fromEntries(Object.entries(group ?? {}).map(([alias, dep]) => [alias, dep.version]))
    follow(versions(importer.dependencies), false)
    follow(versions(importer.devDependencies), false)
    follow(versions(importer.optionalDependencies), true)
  }
  for (let next = 0; next < queue.length; next++) {
    const { depPath, optional } = queue[next]!
    installed.reached.add(depPath)
    if (installed.has(depPath) || (optional && unfit.has(depPath))) continue
    const snapshot = lockfile.snapshots?.[depPath]
    if (snapshot === undefined) continue
    installed.add(depPath)
    follow(snapshot.dependencies, false)
    follow(snapshot.optionalDependencies, true)
  }
  return installed
}
