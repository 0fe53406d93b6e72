import { assertValidDependencyName } from '@lode/core.safe-name'
import { LodeError } from '@lode/fs.error'
import validVersion from 'semver/functions/valid.js'
import validRange from 'semver/ranges/valid.js'

/** What a registry dependency asks for: an exact version, a range or a dist-tag. */
export type RegistrySpec =
  | { type: 'version', name: string, version: string }
  | { type: 'range', name: string, range: string }
  | { type: 'tag', name: string, tag: string }

/**
 * A dependency's specifier, classified. `alias` is the key it is installed under; for a registry
 * spec `name` differs from it only for `npm:` aliases.
 */
export type WantedSpec =
  | (RegistrySpec & { kind: 'registry', alias: string, aliased: boolean })
  | { kind: 'tarball', alias: string, url: string }
  | { kind: 'local', alias: string, protocol: 'file' | 'link' | 'path', path: string }
  | { kind: 'workspace', alias: string, spec: string }
  | { kind: 'git', alias: string, spec: string }

const DEFAULT_TAG = 'latest'

/** Classifies `alias: bareSpecifier` from a manifest. Throws `ERR_LODE_INVALID_SPEC` for what is none of them. */
export function parseWantedSpec (alias: string, bareSpecifier: string, where: string): WantedSpec {
  // The alias becomes a directory in node_modules, whatever the specifier: checked before anything else.
  assertValidDependencyName(alias, where)
  const spec = bareSpecifier.trim()
  if (spec.startsWith('workspace:')) return { kind: 'workspace', alias, spec }
  if (spec.startsWith('link:')) return { kind: 'local', alias, protocol: 'link', path: spec.slice('link:'.length) }
  if (spec.startsWith('file:')) return { kind: 'local', alias, protocol: 'file', path: spec.slice('file:'.length) }
  if (/^(\.\.?|~)?\/|^\.\.?$/.test(spec)) return { kind: 'local', alias, protocol: 'path', path: spec }
  if (/^https?:\/\//.test(spec)) {
    if (/\.git(#.*)?$/.test(spec)) return { kind: 'git', alias, spec }
    return { kind: 'tarball', alias, url: spec }
  }
  if (/^(git\+|git:|github:|gitlab:|bitbucket:|gist:)/.test(spec) || /^[^@\s][^\s/]*\/[^\s/]+(#.*)?$/.test(spec)) {
    return { kind: 'git', alias, spec }
  }
  if (spec.startsWith('npm:')) {
    const target = spec.slice('npm:'.length)
    const at = target.indexOf('@', 1)
    const name = at === -1 ? target : target.slice(0, at)
    const rest = at === -1 ? '' : target.slice(at + 1)
    // So does the target's name (`.pnpm/<name>@<version>/node_modules/<name>`).
    assertValidDependencyName(name, `${where} (in "${alias}": "${bareSpecifier}")`)
    return { kind: 'registry', alias, aliased: true, ...registrySpec(name, rest, `${alias}@${bareSpecifier}`, where) }
  }
  return { kind: 'registry', alias, aliased: false, ...registrySpec(alias, spec, `${alias}@${bareSpecifier}`, where) }
}

function registrySpec (name: string, spec: string, display: string, where: string): RegistrySpec {
  // pnpm reads an empty specifier as any version (`*`), an absent one as `latest`.
  if (spec === '') return { type: 'range', name, range: '*' }
  if (spec === DEFAULT_TAG) return { type: 'tag', name, tag: DEFAULT_TAG }
  const version = validVersion(spec, true)
  if (version !== null) return { type: 'version', name, version }
  if (validRange(spec, true) !== null) return { type: 'range', name, range: spec }
  if (encodeURIComponent(spec) === spec) return { type: 'tag', name, tag: spec }
  throw new LodeError('INVALID_SPEC', `"${display}" in ${where} is not a version, range, tag, alias, URL or path.`, {
    hint: 'Fix the specifier, e.g. "^1.2.0", "latest" or "npm:other@^1".',
  })
}
