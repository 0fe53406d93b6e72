// What part of a version a saved range pins, as pnpm 11 reads a range to keep its style when it
// saves the version it picked (`add dep@1.x` saves `~1.1.0`).

export type RangeStyle = 'none' | 'major' | 'minor' | 'patch' | 'exact'

/**
 * The style of a single-comparator range: `^1`, `1`, `=1` → major; `~1.2`, `1.2`, `1.x` → minor;
 * `1.2.3`, `1.2.x` → patch; `=1.2.3` → exact; `*` → none. The part after a protocol and a name
 * (`workspace:~1`, `npm:x@^2`) is the range. A major in digits is needed (pnpm's parse): `^`, `~`,
 * `x`, `>=1`, tags and ranges of several comparators pin nothing known.
 */
export function rangeStyle (specifier: string): RangeStyle | undefined {
  if (specifier.startsWith('catalog:')) return undefined
  let range = specifier.slice(specifier.indexOf(':') + 1)
  range = range.slice(range.lastIndexOf('@') + 1)
  if (range === '*') return 'none'
  const match = /^\s*(\^|~|=)?\s*v?(\d+)(?:\.(\d+|[xX*]))?(?:\.(\d+|[xX*]))?(?:[-+][\w.+-]*)?\s*$/.exec(range)
  if (match === null) return undefined
  const [, operator, , minor, patch] = match
  if (operator === '~') return 'minor'
  if (operator === '^') return 'major'
  if (patch !== undefined) return operator === '=' ? 'exact' : 'patch'
  return minor !== undefined ? 'minor' : 'major'
}

/** The style `-E` and `savePrefix` give a version saved without a range to follow. */
export function defaultRangeStyle (savePrefix: string, exact: boolean): RangeStyle {
  if (exact || savePrefix === '') return 'patch'
  return savePrefix === '~' ? 'minor' : savePrefix === '=' ? 'exact' : 'major'
}

export function withRangeStyle (version: string, style: RangeStyle): string {
  switch (style) {
    case 'minor': return `~${version}`
    case 'patch': return version
    case 'exact': return `=${version}`
    default: return `^${version}`
  }
}

/**
 * The range saved for a picked registry version (pnpm 11's rule): the style of the spec given, else
 * of the one package.json had, else the default; a prerelease keeps only the style package.json had.
 */
export function savedRange (
  version: string,
  opts: { bareSpecifier: string | undefined, prevSpecifier: string | undefined, defaultStyle: RangeStyle }
): string {
  const previous = opts.prevSpecifier === undefined ? undefined : rangeStyle(opts.prevSpecifier)
  if (version.includes('-')) return previous === undefined ? version : withRangeStyle(version, previous)
  const requested = opts.bareSpecifier === undefined ? undefined : rangeStyle(opts.bareSpecifier)
  return withRangeStyle(version, requested ?? previous ?? opts.defaultStyle)
}
