import validVersion from 'semver/functions/valid.js'

/**
 * pnpm 11's `allowBuilds` (pnpm-workspace.yaml): `name: true` lets a package run its build
 * scripts, `name: false` skips them without complaint; keys may also be `name@1.0.0 || 2.0.0` or an
 * exact package id. A `false` wins. Returns undefined for a package the setting does not mention.
 */
export function createAllowBuild (allowBuilds: Readonly<Record<string, boolean>>): (pkgId: string) => boolean | undefined {
  const rules = { true: new Set<string>(), false: new Set<string>() }
  for (const [key, value] of Object.entries(allowBuilds)) {
    const set = rules[value ? 'true' : 'false']
    for (const expanded of expand(key)) set.add(expanded)
  }
  return (pkgId) => {
    const at = pkgId.indexOf('@', 1)
    const name = at === -1 ? pkgId : pkgId.slice(0, at)
    const keys = [pkgId, name]
    if (keys.some((key) => rules.false.has(key))) return false
    if (keys.some((key) => rules.true.has(key))) return true
    return undefined
  }
}

/** `name@1.0.0 || 2.0.0` → `name@1.0.0`, `name@2.0.0`; anything else as it is. */
function expand (key: string): string[] {
  const at = key.indexOf('@', 1)
  if (at === -1) return [key]
  const versions = key.slice(at + 1).split('||').map((v) => v.trim())
  if (!versions.every((v) => validVersion(v) !== null)) return [key]
  return versions.map((version) => `${key.slice(0, at)}@${version}`)
}
