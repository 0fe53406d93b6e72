import type { Lockfile } from '@lode/pkg-manager.lockfile.format'

import { childrenOf, importerRoots, nameAndVersionOf } from './graph.js'
import type { Edge, Include } from './graph.js'

/** Where one installed version of a vulnerable package is reached from. */
export interface FindingPaths {
  /** `<project>>dep>…>package`, the project's directory with `/` as `__` (`.` for the root). */
  paths: string[]
  /** Every way to it is a development one. */
  dev: boolean
  optional: boolean
}

/** A finding lists this many paths at most (each project still gets its first). */
export const MAX_PATHS_PER_FINDING = 100

interface Frame {
  depPath: string
  trail: string
  children: Edge[]
  next: number
}

/**
 * pnpm's paths to the installed versions of `vulnerableNames`, by name and version: a depth-first
 * walk from each project's included groups, in lockfile order, that enters only packages leading
 * to a vulnerable one, never a package already on the path, and stops once every vulnerable
 * package below has its fill of paths.
 */
export function findingPaths (
  lockfile: Lockfile,
  vulnerableNames: ReadonlySet<string>,
  opts: { include: Include, devOnly: ReadonlySet<string>, optionalOnly: ReadonlySet<string> }
): Map<string, Map<string, FindingPaths>> {
  const found = new Map<string, Map<string, FindingPaths>>()
  const leadsTo = vulnerabilitiesBelow(lockfile, vulnerableNames, opts.include.optionalDependencies)
  let projectFindings = new Set<string>()
  const saturated = (keys: ReadonlySet<string>): boolean => [...keys].every((key) => {
    const [name, version, depPath] = key.split('\0') as [string, string, string]
    const info = found.get(name)?.get(version)
    if (info === undefined || info.paths.length < MAX_PATHS_PER_FINDING || !projectFindings.has(`${name}\0${version}`)) return false
    if (!opts.devOnly.has(depPath) && info.dev) return false
    return opts.optionalOnly.has(depPath) || !info.optional
  })
  const onPath = new Set<string>()
  const stack: Frame[] = []
  const open = (edge: Edge, parentTrail: string): void => {
    const keys = leadsTo.get(edge.depPath)
    if (keys === undefined || saturated(keys) || onPath.has(edge.depPath)) return
    const { name, version } = nameAndVersionOf(lockfile, edge.depPath)
    const trail = `${parentTrail}>${name}`
    if (version !== undefined && vulnerableNames.has(name)) {
      const findingKey = `${name}\0${version}`
      record(found, name, version, trail, {
        dev: opts.devOnly.has(edge.depPath),
        optional: opts.optionalOnly.has(edge.depPath),
        overCap: !projectFindings.has(findingKey),
      })
      projectFindings.add(findingKey)
    }
    if (saturated(keys)) return
    onPath.add(edge.depPath)
    stack.push({ depPath: edge.depPath, trail, children: childrenOf(lockfile, edge.depPath, opts.include.optionalDependencies), next: 0 })
  }
  for (const [importerId, importer] of Object.entries(lockfile.importers)) {
    projectFindings = new Set()
    for (const root of importerRoots(importer, opts.include)) {
      open(root, importerId.replaceAll('/', '__'))
      while (stack.length > 0) {
        const frame = stack.at(-1)!
        if (frame.next < frame.children.length) {
          open(frame.children[frame.next++]!, frame.trail)
        } else {
          onPath.delete(frame.depPath)
          stack.pop()
        }
      }
    }
  }
  return found
}

function record (
  found: Map<string, Map<string, FindingPaths>>,
  name: string,
  version: string,
  trail: string,
  how: { dev: boolean, optional: boolean, overCap: boolean }
): void {
  const byVersion = found.get(name) ?? new Map<string, FindingPaths>()
  found.set(name, byVersion)
  const info = byVersion.get(version)
  if (info === undefined) {
    byVersion.set(version, { paths: [trail], dev: how.dev, optional: how.optional })
    return
  }
  if (!how.dev) info.dev = false
  if (!how.optional) info.optional = false
  if ((info.paths.length >= MAX_PATHS_PER_FINDING && !how.overCap) || info.paths.includes(trail)) return
  info.paths.push(trail)
}

/**
 * For each package that leads to a vulnerable one (itself included), the vulnerable packages
 * below it (`name\0version\0depPath`): each vulnerable package marks its way up to the roots.
 */
function vulnerabilitiesBelow (lockfile: Lockfile, vulnerableNames: ReadonlySet<string>, withOptional: boolean): Map<string, Set<string>> {
  const parents = new Map<string, string[]>()
  const vulnerable: string[] = []
  for (const depPath of Object.keys(lockfile.snapshots ?? {})) {
    const { name, version } = nameAndVersionOf(lockfile, depPath)
    if (version !== undefined && vulnerableNames.has(name)) vulnerable.push(depPath)
    for (const child of childrenOf(lockfile, depPath, withOptional)) {
      const list = parents.get(child.depPath) ?? []
      list.push(depPath)
      parents.set(child.depPath, list)
    }
  }
  const below = new Map<string, Set<string>>()
  for (const depPath of vulnerable) {
    const { name, version } = nameAndVersionOf(lockfile, depPath)
    const key = `${name}\0${version!}\0${depPath}`
    const queue = [depPath]
    for (let next = 0; next < queue.length; next++) {
      const at = queue[next]!
      const keys = below.get(at) ?? new Set<string>()
      if (keys.has(key)) continue
      keys.add(key)
      below.set(at, keys)
      queue.push(...parents.get(at) ?? [])
    }
  }
  return below
}
