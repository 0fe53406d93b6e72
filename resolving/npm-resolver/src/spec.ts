import { LodeError } from '@lode/core.error'
import { assertValidDependencyName } from '@lode/core.safe-name'
import { parseGitSpec } from '@lode/resolving.git-resolver/parse'
import type { GitSpec } from '@lode/resolving.git-resolver/parse'
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
  | { kind: 'git', alias: string, spec: string, git: GitSpec }
  /** A protocol lode does not install (`jsr:`, `path:`, …). */
  | { kind: 'unsupported', alias: string, spec: string, protocol: string }

const DEFAULT_TAG = 'latest'

/**
 * Classifies `alias: bareSpecifier` from a manifest in the order pnpm 11's resolvers claim it:
 * `workspace:`, an `npm:` alias, a registry version, range or tag, a git repository (hosted
 * shorthands, git URLs, http(s) URLs ending in `.git`), a tarball URL, `link:`/`file:`, then a
 * path. Throws `ERR_LODE_INVALID_SPEC` for what is none of them.
 */
export function parseWantedSpec (alias: string, bareSpecifier: string, where: string): WantedSpec {
  // The alias becomes a directory in node_modules, whatever the specifier: checked before anything else.
  assertValidDependencyName(alias, where)
  const spec = bareSpecifier.trim()
  if (spec.startsWith('workspace:')) return { kind: 'workspace', alias, spec }
  if (spec.startsWith('npm:')) {
    const target = spec.slice('npm:'.length)
    // `npm:<range>` keeps the alias's name; otherwise the last `@` after the first character ends the name.
    const at = target.lastIndexOf('@')
    const [name, selector] = validRange(target) !== null
      ? [alias, target]
      : at < 1 ? [target, DEFAULT_TAG] : [target.slice(0, at), target.slice(at + 1)]
    // So does the target's name (`.pnpm/<name>@<version>/node_modules/<name>`).
    assertValidDependencyName(name, `${where} (in "${alias}": "${bareSpecifier}")`)
    const registry = registrySpec(name, selector)
    if (registry === undefined) throw invalidSpec(alias, bareSpecifier, where)
    return { kind: 'registry', alias, aliased: true, ...registry }
  }
  // A first member with a colon (`jsr:x`, `git+ssh://…`) is a protocol, never a tag.
  if (!/^[^\s|]*:/.test(spec)) {
    const registry = registrySpec(alias, spec)
    if (registry !== undefined) return { kind: 'registry', alias, aliased: false, ...registry }
  }
  const git = parseGitSpec(spec)
  if (git !== undefined) return { kind: 'git', alias, spec, git }
  if (/^https?:\/\//i.test(spec)) return { kind: 'tarball', alias, url: spec }
  if (spec.startsWith('link:')) return { kind: 'local', alias, protocol: 'link', path: spec.slice('link:'.length) }
  if (spec.startsWith('file:')) return { kind: 'local', alias, protocol: 'file', path: spec.slice('file:'.length) }
  const protocol = /^([a-z][a-z0-9+.-]+):/i.exec(spec)?.[1]
  if (protocol !== undefined) return { kind: 'unsupported', alias, spec, protocol }
  // pnpm's local paths: `./x`, `../x`, `/x`, `~/x`, a drive letter, any other path with a slash, a tarball file name.
  if (/^(?:[./]|~\/|[a-z]:)/i.test(spec) || spec.includes('/') || /\.(?:tgz|tar\.gz|tar)$/i.test(spec)) return { kind: 'local', alias, protocol: 'path', path: spec }
  throw invalidSpec(alias, bareSpecifier, where)
}

/** A version, a range or a tag (pnpm's version-selector-type, loose); undefined for anything else. */
function registrySpec (name: string, spec: string): RegistrySpec | undefined {
  const selector = selectorOf(spec)
  switch (selector?.type) {
    case undefined: return undefined
    case 'version': return { type: 'version', name, version: selector.value }
    case 'range': return { type: 'range', name, range: selector.value }
    case 'tag': return { type: 'tag', name, tag: selector.value }
  }
}

type Selector = { type: 'version' | 'range' | 'tag', value: string } | null

// A workspace states the same few specifiers thousands of times, and semver's check of a range as
// a version throws (and catches) each time: each specifier is classified once. Bounded for a
// long-lived process.
const selectors = new Map<string, Selector>()
const MAX_SELECTORS = 10_000

function selectorOf (spec: string): Selector {
  let selector = selectors.get(spec)
  if (selector === undefined) {
    selector = classify(spec)
    if (selectors.size >= MAX_SELECTORS) selectors.clear()
    selectors.set(spec, selector)
  }
  return selector
}

function classify (spec: string): Selector {
  // pnpm reads an empty specifier as any version (`*`), an absent one as `latest`.
  if (spec === '') return { type: 'range', value: '*' }
  if (spec === DEFAULT_TAG) return { type: 'tag', value: DEFAULT_TAG }
  const version = validVersion(spec, true)
  if (version !== null) return { type: 'version', value: version }
  if (validRange(spec, true) !== null) return { type: 'range', value: spec }
  if (encodeURIComponent(spec) === spec) return { type: 'tag', value: spec }
  return null
}

function invalidSpec (alias: string, bareSpecifier: string, where: string): LodeError {
  return new LodeError('INVALID_SPEC', `"${alias}@${bareSpecifier}" in ${where} is not a version, range, tag, alias, URL or path.`, {
    hint: 'Fix the specifier, e.g. "^1.2.0", "latest" or "npm:other@^1".',
  })
}
