import { splitNameAt, withoutPeersSuffix } from '@lode/core.dep-path'
import type { RegistrySpec } from '@lode/resolving.npm-resolver'
import { parseWantedSpec } from '@lode/resolving.npm-resolver/spec'
import semver from 'semver'

// pnpm's `linkWorkspacePackages`: which workspace project a registry spec can be linked to.

export interface WorkspaceProjectVersion {
  name: string | undefined
  version: string | undefined
  dir: string
}

/**
 * The workspace project of the spec's name whose version it takes, the highest (pnpm's
 * `pickMatchingLocalVersionOrNull`: a tag takes any version; `*`, `^`, `~` any, prereleases too).
 */
export function workspaceMatch (
  spec: RegistrySpec,
  projects: readonly WorkspaceProjectVersion[]
): { dir: string, version: string } | undefined {
  const candidates = projects.flatMap(({ name, version, dir }) => name === spec.name && version !== undefined ? [{ dir, version }] : [])
  if (candidates.length === 0) return undefined
  const versions = candidates.map(({ version }) => version)
  const range = spec.type === 'tag' ? '*' : spec.type === 'version' ? spec.version : spec.range
  const picked = ['*', '^', '~', ''].includes(range)
    ? semver.maxSatisfying(versions, '*', { includePrerelease: true }) ?? versions.reduce((max, version) => version > max ? version : max)
    : versions.includes(range) ? range : semver.maxSatisfying(versions, range, { loose: true })
  return picked === null ? undefined : candidates.find(({ version }) => version === picked)
}

/**
 * Whether a project's dependency, locked to a registry version (`lockedRef`), is now to be linked to a workspace
 * project (pnpm's check that makes the lockfile out of date for it): a project of the package's
 * name has the very version locked, and the spec (a plain version or range, or an `npm:` alias of
 * one) takes it.
 */
export function linkableFromWorkspace (
  alias: string,
  specifier: string,
  lockedRef: string,
  projects: readonly WorkspaceProjectVersion[]
): boolean {
  // The lockfile's reference: `1.0.0`, with a peers suffix, or `name@1.0.0` for an alias; `link:` and other protocols are no registry version.
  const bare = withoutPeersSuffix(lockedRef)
  if (bare.includes(':')) return false
  const lockedVersion = splitNameAt(bare).rest ?? bare
  let spec: ReturnType<typeof parseWantedSpec>
  try {
    spec = parseWantedSpec(alias, specifier, 'package.json')
  } catch {
    return false
  }
  if (spec.kind !== 'registry' || spec.type === 'tag') return false
  const registry: RegistrySpec = spec.type === 'version' ? { type: 'version', name: spec.name, version: spec.version } : { type: 'range', name: spec.name, range: spec.range }
  const atLocked = projects.filter((project) => project.name === spec.name && project.version === lockedVersion)
  return workspaceMatch(registry, atLocked) !== undefined
}
