import { LodeError } from '@lode/core.error'
import semver from 'semver'

export const BUMP_TYPES = ['major', 'minor', 'patch', 'premajor', 'preminor', 'prepatch', 'prerelease'] as const
export type BumpType = typeof BUMP_TYPES[number]

/** What `lode version <arg>` asks for: a step from each project's version, an exact version, or the last release tag's. */
export type VersionBump =
  | { kind: 'step', step: BumpType }
  | { kind: 'exact', version: string }
  | { kind: 'from-git' }

const EXPECTED = 'Must be a valid semver version (e.g. 1.2.3) or one of: major, minor, patch, premajor, preminor, prepatch, prerelease, from-git'

/** The command's argument read as pnpm 11 reads it (`v1.2.3` is the version 1.2.3, as semver takes it). */
export function parseBump (arg: string | undefined): VersionBump {
  if (arg === undefined || arg === '') throw new LodeError('INVALID_VERSION_BUMP', `A version argument is required. ${EXPECTED}`)
  if (arg === 'from-git') return { kind: 'from-git' }
  const exact = semver.valid(arg)
  if (exact !== null) return { kind: 'exact', version: exact }
  if ((BUMP_TYPES as readonly string[]).includes(arg)) return { kind: 'step', step: arg as BumpType }
  throw new LodeError('INVALID_VERSION_BUMP', `Invalid version argument: ${arg}. ${EXPECTED}`)
}

/**
 * The version a project at `current` moves to; `exact` is the version a `from-git` or exact bump
 * names. A project's version that is not semver is `ERR_LODE_INVALID_VERSION` (naming the
 * project's directory, as pnpm does); the same version again is `ERR_LODE_VERSION_NOT_CHANGED` unless allowed.
 */
export function nextVersion (
  current: unknown,
  bump: { step: BumpType, preid?: string | undefined } | { exact: string },
  opts: { projectDir: string, allowSameVersion: boolean }
): string {
  const valid = typeof current === 'string' ? semver.valid(current) : null
  if (valid === null || typeof current !== 'string') {
    throw new LodeError('INVALID_VERSION', `Invalid version in ${opts.projectDir}: ${String(current)}`, {
      hint: 'Set "version" in its package.json to a semver version (e.g. 1.0.0) first.',
    })
  }
  const next = 'exact' in bump ? bump.exact : semver.inc(current, bump.step, false, bump.preid)
  if (next === null) {
    throw new LodeError('VERSION_BUMP_FAILED', `Failed to bump version from ${current} using ${'step' in bump ? bump.step : ''}`)
  }
  if (next === current && !opts.allowSameVersion) {
    throw new LodeError('VERSION_NOT_CHANGED', `Version was not changed: ${current}`, {
      hint: 'Give another version, or pass --allow-same-version.',
    })
  }
  return next
}
