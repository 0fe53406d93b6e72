import { splitNameAt } from '@lode/core.dep-path'
import validateName from 'validate-npm-package-name'

/**
 * `name@range` as pnpm's parseWantedDependency reads a selector: the `@` after the first
 * character splits it when what precedes is a valid (old-style) package name. `range` is
 * undefined for a bare name and `''` for `name@`.
 */
export function parseSelector (selector: string): { name?: string, range?: string } {
  const { name, rest: range } = splitNameAt(selector)
  if (range !== undefined) return validateName(name).validForOldPackages ? { name, range } : {}
  return validateName(selector).validForOldPackages ? { name: selector } : {}
}
