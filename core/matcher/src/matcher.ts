/**
 * pnpm's name patterns (`hoistPattern`, `ignoredOptionalDependencies`, `minimumReleaseAgeExclude`
 * names…): `*` matches any run of characters, a leading `!` excludes. Patterns apply in order: a
 * name matches when an including pattern matches it and no later excluding one does; a lone
 * excluding pattern matches every other name.
 */
export function createMatcher (patterns: readonly string[]): (name: string) => boolean {
  const rules = patterns.map((pattern) => pattern.startsWith('!')
    ? { exclude: true, test: globToRegExp(pattern.slice(1)) }
    : { exclude: false, test: globToRegExp(pattern) })
  if (rules.length === 1 && rules[0]!.exclude) return (name) => !rules[0]!.test.test(name)
  return (name) => {
    let matched = false
    for (const rule of rules) {
      if (rule.exclude) {
        if (rule.test.test(name)) matched = false
      } else if (!matched && rule.test.test(name)) {
        matched = true
      }
    }
    return matched
  }
}

function globToRegExp (glob: string): RegExp {
  return new RegExp(`^${glob.split('*').map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('.*')}$`)
}
