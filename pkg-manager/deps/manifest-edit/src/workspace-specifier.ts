// What `add` saves for a dependency linked to a workspace project, as pnpm 11 saves it, by
// `saveWorkspaceProtocol`: `rolling` (the default) saves `workspace:^`, `workspace:~` or `workspace:*`
// after the range asked for; `true` pins the project's version (`workspace:^1.2.3`); `false` saves a
// plain range (`^1.2.3`) unless a `workspace:` spec was asked for, which is then pinned.

import { defaultRangeStyle, rangeStyle, savedRange, withRangeStyle } from './range-style.js'
import type { RangeStyle } from './range-style.js'

export type SaveWorkspaceProtocol = 'rolling' | boolean

export interface WorkspaceDependency {
  alias: string
  /** The workspace project's name and version (none: only the rolling forms). */
  name: string
  version: string | undefined
  /** The spec given to `add` (undefined: none), and the one package.json had before. */
  bareSpecifier: string | undefined
  prevSpecifier: string | undefined
}

export function workspaceSpecifier (
  dep: WorkspaceDependency,
  opts: { saveWorkspaceProtocol: SaveWorkspaceProtocol, savePrefix: string }
): string {
  const defaultStyle = defaultRangeStyle(opts.savePrefix, false)
  const ownName = dep.alias === dep.name
  if (dep.version !== undefined && opts.saveWorkspaceProtocol === false && dep.bareSpecifier?.startsWith('workspace:') !== true) {
    const range = pinnedRange(dep.version, dep, defaultStyle)
    return ownName ? range : `npm:${dep.name}@${range}`
  }
  const prefix = ownName ? 'workspace:' : `workspace:${dep.name}@`
  if (opts.saveWorkspaceProtocol === 'rolling' || dep.version === undefined) return rolling(prefix, dep.prevSpecifier ?? dep.bareSpecifier)
  return `${prefix}${pinnedRange(dep.version, dep, defaultStyle)}`
}

/** `workspace:^`, `workspace:~` or `workspace:*`, after what the range pins. */
function rolling (prefix: string, specifier: string | undefined): string {
  if (specifier === undefined) return `${prefix}^`
  if ([`${prefix}*`, `${prefix}^`, `${prefix}~`].includes(specifier)) return specifier
  switch (rangeStyle(specifier)) {
    case 'minor': return `${prefix}~`
    case 'patch': case 'exact': case 'none': return `${prefix}*`
    default: return `${prefix}^`
  }
}

/** The version in the style of the range asked for (an exact one as asked), then of the one before, then `savePrefix`. */
function pinnedRange (version: string, dep: WorkspaceDependency, defaultStyle: RangeStyle): string {
  const requested = dep.bareSpecifier === undefined ? undefined : rangeStyle(dep.bareSpecifier)
  if (requested === 'patch' || requested === 'exact') return withRangeStyle(version, requested)
  return savedRange(version, { bareSpecifier: dep.bareSpecifier, prevSpecifier: dep.prevSpecifier, defaultStyle })
}
