// What `add` saves for a dependency linked to a workspace project, as pnpm 11 saves it, by
// `saveWorkspaceProtocol`: `rolling` (the default) saves `workspace:^`, `workspace:~` or `workspace:*`
// after the range asked for; `true` pins the project's version (`workspace:^1.2.3`); `false` saves a
// plain range (`^1.2.3`) unless a `workspace:` spec was asked for, which is then pinned.

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

type RangeStyle = 'none' | 'major' | 'minor' | 'patch' | 'exact'

export function workspaceSpecifier (
  dep: WorkspaceDependency,
  opts: { saveWorkspaceProtocol: SaveWorkspaceProtocol, savePrefix: string }
): string {
  const defaultStyle: RangeStyle = opts.savePrefix === '' ? 'patch' : opts.savePrefix === '~' ? 'minor' : opts.savePrefix === '=' ? 'exact' : 'major'
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

/** The version with the prefix of the range asked for (then of the one before, then `savePrefix`); an exact one as asked. */
function pinnedRange (version: string, dep: WorkspaceDependency, defaultStyle: RangeStyle): string {
  const requested = dep.bareSpecifier === undefined ? undefined : rangeStyle(dep.bareSpecifier)
  if (requested === 'patch' || requested === 'exact') return withStyle(version, requested)
  const previous = dep.prevSpecifier === undefined ? undefined : rangeStyle(dep.prevSpecifier)
  // A prerelease keeps only the style written before.
  if (version.includes('-')) return previous === undefined ? version : withStyle(version, previous)
  return withStyle(version, requested ?? previous ?? defaultStyle)
}

function withStyle (version: string, style: RangeStyle): string {
  switch (style) {
    case 'minor': return `~${version}`
    case 'patch': return version
    case 'exact': return `=${version}`
    default: return `^${version}`
  }
}

/**
 * What a single-comparator range pins, as pnpm infers it: `^1`, `1` → major; `~1.2`, `1.2` →
 * minor; `1.2.3` → patch; `=1.2.3` → exact; `*` → none. The part after a protocol and a name
 * (`workspace:~1`, `npm:x@^2`) is the range; anything else pins nothing known.
 */
function rangeStyle (specifier: string): RangeStyle | undefined {
  if (specifier.startsWith('catalog:')) return undefined
  let range = specifier.slice(specifier.indexOf(':') + 1)
  range = range.slice(range.lastIndexOf('@') + 1)
  if (range === '*') return 'none'
  const match = /^\s*(\^|~|=)?\s*v?(\d+|[xX*])?(?:\.(\d+|[xX*]))?(?:\.(\d+|[xX*]))?(?:[-+][\w.+-]*)?\s*$/.exec(range)
  if (match === null) return undefined
  const [, operator, major, minor, patch] = match
  if (operator === '~') return 'minor'
  if (operator === '^') return 'major'
  if (patch !== undefined) return operator === '=' ? 'exact' : 'patch'
  if (minor !== undefined) return 'minor'
  return major !== undefined ? 'major' : undefined
}
