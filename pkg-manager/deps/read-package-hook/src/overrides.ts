import path from 'node:path'

import { LodeError } from '@lode/core.error'
import { own } from '@lode/core.safe-name'
import satisfies from 'semver/functions/satisfies.js'
import validVersion from 'semver/functions/valid.js'
import intersects from 'semver/ranges/intersects.js'
import validRange from 'semver/ranges/valid.js'

import { copyManifest } from './manifest.js'
import type { HookedManifest, ManifestHook } from './manifest.js'
import { parseSelector } from './selector.js'

interface PackageSelector {
  name: string
  /** undefined: any version; `''` only in a convergence override (`name@`). */
  range: string | undefined
}

/** One entry of `overrides`, parsed. */
export interface Override {
  /** The key as written (trimmed); the lockfile's `overrides` section is keyed by it. */
  selector: string
  /** The replacement specifier; `-` removes the dependency. */
  newSpecifier: string
  targetPkg: PackageSelector
  /** `parent>child` selectors apply only to the parent's own dependencies. */
  parentPkg?: PackageSelector
  /** `name@: 1.2.3` — every range 1.2.3 satisfies becomes 1.2.3. */
  converge?: boolean
}

const PARENT_DELIMITER = /[^ |@]>/

/** Parses pnpm's `overrides` map (from pnpm-workspace.yaml). */
export function parseOverrides (overrides: Readonly<Record<string, string>>): Override[] {
  return Object.entries(overrides).map(([rawSelector, newSpecifier]) => {
    const selector = rawSelector.trim()
    const delimiter = selector.search(PARENT_DELIMITER)
    const override: Override = delimiter === -1
      ? { selector, newSpecifier, targetPkg: parsePackageSelector(selector, rawSelector) }
      : {
          selector,
          newSpecifier,
          parentPkg: parsePackageSelector(selector.slice(0, delimiter + 1), rawSelector),
          targetPkg: parsePackageSelector(selector.slice(delimiter + 2), rawSelector),
        }
    if (override.parentPkg !== undefined && (override.parentPkg.range === '' || override.targetPkg.range === '')) {
      throw new LodeError('INVALID_CONVERGENCE_OVERRIDE', `The override "${selector}" uses an empty range, which cannot be combined with a parent>child selector.`, {
        hint: 'Write "name@: <version>" on its own, or give the parent and child a range.',
      })
    }
    if (override.targetPkg.range === '') {
      if (validVersion(newSpecifier) === null) {
        throw new LodeError('INVALID_CONVERGENCE_OVERRIDE', `The value of the convergence override "${selector}" must be an exact version, not "${newSpecifier}".`, {
          hint: 'Set it to a version such as 1.2.3 in overrides in pnpm-workspace.yaml.',
        })
      }
      override.converge = true
    }
    return override
  })
}

function parsePackageSelector (selector: string, whole: string): PackageSelector {
  const { name, range } = parseSelector(selector.trim())
  if (name === undefined) {
    throw new LodeError('INVALID_SELECTOR', `Cannot parse the "${whole}" selector in overrides.`, {
      hint: 'An override key reads "name", "name@range" or "parent>name" (each part may have a range).',
    })
  }
  return { name, range }
}

/**
 * `$name` values replaced by the root project's own specifier for `name` (pnpm's deprecated
 * version references). Throws `ERR_LODE_CANNOT_RESOLVE_OVERRIDE_VERSION` for a name it lacks.
 */
export function replaceVersionReferences (
  overrides: Readonly<Record<string, string>>,
  rootManifest: HookedManifest
): Record<string, string> {
  const direct: Record<string, string> = {
    ...rootManifest.devDependencies,
    ...rootManifest.dependencies,
    ...rootManifest.optionalDependencies,
  }
  return Object.fromEntries(Object.entries(overrides).map(([selector, specifier]) => {
    if (!specifier.startsWith('$')) return [selector, specifier]
    const name = specifier.slice(1)
    const referenced = Object.hasOwn(direct, name) ? direct[name] : undefined
    if (referenced === undefined || referenced === '') {
      throw new LodeError('CANNOT_RESOLVE_OVERRIDE_VERSION', `Cannot resolve ${specifier} in overrides: the root package.json has no dependency "${name}".`, {
        hint: `Add ${name} to the root package.json, or give the override a version.`,
      })
    }
    return [selector, referenced]
  }))
}

/** The lockfile's `overrides` section: selector → specifier. */
export function overridesMap (overrides: readonly Override[]): Record<string, string> {
  return Object.fromEntries(overrides.map((override) => [override.selector, override.newSpecifier]))
}

interface LocalTarget { absolutePath: string, relative: boolean, protocol: string }
type PreparedOverride = Override & { localTarget: LocalTarget | undefined }

/**
 * A hook replacing dependency specifiers as pnpm 11's versions overrider does: parent-scoped
 * overrides before global ones, the most specific matching range first, `-` deleting, peers
 * overridden in place when the new specifier is a valid peer range.
 */
export function createVersionsOverrider (
  overrides: readonly Override[],
  rootDir: string,
  /** Filled with the ranges declared for the names convergence overrides target (see `staleConvergenceWarnings`). */
  declaredRanges?: Map<string, Set<string>>
): ManifestHook {
  const convergeVersions = new Map(overrides.filter((o) => o.converge === true).map((o) => [o.targetPkg.name, o.newSpecifier]))
  const explicit = overrides
    .filter((o) => o.converge !== true)
    .map((o): PreparedOverride => ({ ...o, localTarget: localTarget(o.newSpecifier, rootDir) }))
  const scoped = explicit.filter((o) => o.parentPkg !== undefined)
  const generic = explicit.filter((o) => o.parentPkg === undefined)
  return <T extends HookedManifest>(manifest: T, projectDir?: string): T => {
    const ofParent = scoped.filter(({ parentPkg }) => parentPkg!.name === manifest.name &&
      (parentPkg!.range === undefined || parentPkg!.range === '' || (manifest.version !== undefined && satisfies(manifest.version, parentPkg!.range))))
    const out = copyManifest(manifest)
    const pick = (name: string, specifier: string): PreparedOverride | undefined => {
      const matches = (o: Override): boolean => o.targetPkg.name === name && isIntersectingRange(o.targetPkg.range, specifier)
      return mostSpecific(ofParent.filter(matches)) ?? mostSpecific(generic.filter(matches))
    }
    const overrideIn = (deps: Record<string, string>, peers: Record<string, string> | undefined): void => {
      for (const [name, specifier] of Object.entries(peers ?? deps)) {
        const override = pick(name, specifier)
        if (override === undefined) {
          if (declaredRanges !== undefined && convergeVersions.has(name) && validRange(specifier, true) !== null) {
            declaredRanges.set(name, (declaredRanges.get(name) ?? new Set()).add(specifier))
          }
          const converged = convergeTo(convergeVersions.get(name), specifier)
          if (converged !== undefined) (peers ?? deps)[name] = converged
          continue
        }
        if (override.newSpecifier === '-') {
          if (peers !== undefined) {
            delete peers[name]
            delete out.peerDependenciesMeta?.[name]
          } else {
            delete deps[name]
          }
          continue
        }
        const replacement = renderLocal(override, projectDir)
        if (peers !== undefined && isValidPeerRange(replacement)) peers[name] = replacement
        else deps[name] = replacement
      }
    }
    for (const field of ['dependencies', 'optionalDependencies', 'devDependencies'] as const) {
      if (out[field] !== undefined) overrideIn(out[field], undefined)
    }
    if (out.peerDependencies !== undefined) overrideIn(out.dependencies ??= {}, out.peerDependencies)
    if (out.peerDependenciesMeta !== undefined) {
      // A peer declared only in peerDependenciesMeta goes when its override removes it.
      for (const peer of Object.keys(out.peerDependenciesMeta)) {
        if (own(out.peerDependencies, peer) === undefined && pick(peer, '*')?.newSpecifier === '-') delete out.peerDependenciesMeta[peer]
      }
    }
    return out
  }
}

/** pnpm's test: no range on the override matches anything; otherwise the ranges must intersect. */
function isIntersectingRange (overrideRange: string | undefined, specifier: string): boolean {
  if (overrideRange === undefined || overrideRange === '' || overrideRange === specifier) return true
  return validRange(specifier) !== null && validRange(overrideRange) !== null && intersects(specifier, overrideRange)
}

/** pnpm sorts with this (non-transitive) comparator and takes the first; V8's sort gives the same pick. */
function mostSpecific<T extends Override> (candidates: T[]): T | undefined {
  return candidates.sort((a, b) => isIntersectingRange(b.targetPkg.range ?? '', a.targetPkg.range ?? '') ? -1 : 1)[0]
}

function convergeTo (version: string | undefined, specifier: string): string | undefined {
  if (version === undefined || validRange(specifier, true) === null) return undefined
  return satisfies(version, specifier, true) ? version : undefined
}

function isValidPeerRange (specifier: string): boolean {
  return validRange(specifier) !== null || specifier.includes('workspace:') || specifier.includes('catalog:')
}

/** `file:`/`link:`/bare-path overrides point at a directory relative to the workspace root. */
function localTarget (specifier: string, rootDir: string): LocalTarget | undefined {
  const protocol = ['file:', 'link:', 'workspace:.'].find((p) => specifier.startsWith(p))
  let target: string
  let prefix: string
  if (protocol !== undefined) {
    prefix = protocol === 'workspace:.' ? 'workspace:' : protocol
    target = specifier.slice(prefix.length)
  } else if (/^(\.\.?[/\\]|\/)/.test(specifier)) {
    prefix = ''
    target = specifier
  } else {
    return undefined
  }
  const relative = !path.isAbsolute(target) && !/^~[/\\]/.test(target)
  return { absolutePath: relative ? path.join(rootDir, target) : target, relative, protocol: prefix }
}

/** Relative to the project that declares the dependency; absolute for dependencies of packages. */
function renderLocal ({ newSpecifier, localTarget }: PreparedOverride, projectDir: string | undefined): string {
  if (localTarget === undefined || (localTarget.protocol === 'workspace:' && projectDir === undefined)) return newSpecifier
  const { absolutePath, relative, protocol } = localTarget
  const target = relative && projectDir !== undefined ? path.relative(projectDir, absolutePath).replaceAll('\\', '/') : absolutePath
  const resolved = target === '' ? '.' : target
  if (protocol === '') return /^(\.\.?\/|\/)/.test(resolved) ? resolved : `./${resolved}`
  if (protocol === 'workspace:' && !resolved.startsWith('.')) return `workspace:./${resolved}`
  return `${protocol}${resolved}`
}
