import validateName from 'validate-npm-package-name'

/**
 * `name@range` as pnpm's parseWantedDependency reads a selector: the `@` after the first
 * character splits it when what precedes is a valid (old-style) package name. `range` is
 * undefined for a bare name and `''` for `name@`.
 */
export function parseSelector (selector: string): { name?: string, range?: string } {
  const at = selector.indexOf('@', 1)
  if (at !== -1) {
    const name = selector.slice(0, at)
    return validateName(name).validForOldPackages ? { name, range: selector.slice(at + 1) } : {}
  }
  return validateName(selector).validForOldPackages ? { name: selector } : {}
}
