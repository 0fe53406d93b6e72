import semver from 'semver'

const OPTIONS = { loose: true, includePrerelease: true }

/**
 * The versions every range takes, as one range (pnpm's safeIntersect for the ranges a hoisted peer
 * is wanted in): each alternative of one range joined with each of the others', those no version
 * meets left out. Undefined when no version meets them all or a range is no semver range.
 * (Writing the ranges one after the other is no intersection once one of them has `||`.)
 */
export function intersectRanges (ranges: readonly string[]): string | undefined {
  let sets: string[] = ['']
  for (const raw of ranges) {
    let range: semver.Range
    try {
      range = new semver.Range(raw, OPTIONS)
    } catch {
      return undefined
    }
    const next = new Set<string>()
    for (const set of sets) {
      for (const alternative of range.set) {
        const joined = tightest(new semver.Range(`${set} ${alternative.map((comparator) => comparator.value).join(' ')}`.trim() || '*', OPTIONS).set[0]!)
        if (joined !== undefined) next.add(joined)
      }
    }
    if (next.size === 0) return undefined
    sets = [...next]
  }
  return sets.map((set) => set === '' ? '*' : set).join(' || ')
}

/** One alternative's comparators as the highest lower bound and the lowest upper bound (or its exact version); undefined when no version meets them. */
function tightest (comparators: readonly semver.Comparator[]): string | undefined {
  let lower: semver.Comparator | undefined
  let upper: semver.Comparator | undefined
  let exact: semver.Comparator | undefined
  for (const comparator of comparators) {
    if (comparator.value === '') continue
    const { operator } = comparator
    if (operator === '' || operator === '=') exact = comparator
    else if (operator.startsWith('>')) {
      const order = lower === undefined ? 1 : semver.compare(comparator.semver, lower.semver)
      if (order > 0 || (order === 0 && operator === '>')) lower = comparator
    } else {
      const order = upper === undefined ? -1 : semver.compare(comparator.semver, upper.semver)
      if (order < 0 || (order === 0 && operator === '<')) upper = comparator
    }
  }
  const range = [lower, upper].filter((comparator) => comparator !== undefined).map((comparator) => comparator.value).join(' ')
  if (exact !== undefined) {
    return comparators.every((comparator) => comparator.test(exact.semver)) ? exact.value.replace(/^=/, '') : undefined
  }
  return semver.minVersion(range === '' ? '*' : range, OPTIONS) === null ? undefined : range
}
