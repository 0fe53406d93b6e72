/**
 * A package's keys, as pnpm writes them in the lockfile and under `node_modules/.pnpm`. Every
 * `name@version` split and every peer suffix is read here: a name ends at the first `@` after its
 * first character (a scope's `@` belongs to the name), a peer suffix is the run of balanced
 * parenthesized groups at the end.
 */

/** `name@version` (or `name@` a URL, `file:`…): a key of the lockfile's `packages`. */
export type PkgId = string & { readonly __brand: 'PkgId' }
/** A package id with its peer suffix, `a@1.0.0(b@2.0.0)`: a key of the lockfile's `snapshots`. */
export type DepPath = string & { readonly __brand: 'DepPath' }

/**
 * `name@rest` split at the `@` that ends the name: `@a/b@^1` → `@a/b` and `^1`; `rest` is
 * undefined when there is none (`lodash`, `@a/b`). For ids, selectors (`name@range`) and specs.
 */
export function splitNameAt (key: string): { name: string, rest: string | undefined } {
  const at = key.indexOf('@', 1)
  return at === -1 ? { name: key, rest: undefined } : { name: key.slice(0, at), rest: key.slice(at + 1) }
}

/** The name part of `name@…` (the whole key when it has no version part). */
export function nameOf (key: string): string {
  const at = key.indexOf('@', 1)
  return at === -1 ? key : key.slice(0, at)
}

export function pkgIdFrom (name: string, version: string): PkgId {
  return `${name}@${version}` as PkgId
}

/**
 * Where the peer suffix starts (`a@1.0.0(b@2.0.0)(c@3.0.0)` → at the first `(`), or -1. Read from
 * the end, as pnpm reads it, so a parenthesis inside a URL version is not a suffix.
 */
export function indexOfPeersSuffix (depPath: string): number {
  if (!depPath.endsWith(')')) return -1
  let depth = 0
  for (let i = depPath.length - 1; i >= 0; i--) {
    const char = depPath[i]
    if (char === ')') depth++
    else if (char === '(') depth--
    else if (depth === 0) return i + 1
  }
  return depth === 0 ? 0 : -1
}

/** A dependency path (or a lockfile reference, `1.0.0(b@2.0.0)`) without its peer suffix. */
export function withoutPeersSuffix (depPath: string): string {
  const index = indexOfPeersSuffix(depPath)
  return index === -1 ? depPath : depPath.slice(0, index)
}

/** The package id a dependency path names: its key in the lockfile's `packages`. */
export function pkgIdOf (depPath: string): PkgId {
  return withoutPeersSuffix(depPath) as PkgId
}

/** A dependency path's parts: `@a/b@1.0.0(c@2.0.0)` → `@a/b`, `1.0.0`, `(c@2.0.0)`. */
export function parseDepPath (depPath: string): { name: string, version: string, peersSuffix: string } {
  const index = indexOfPeersSuffix(depPath)
  const { name, rest } = splitNameAt(index === -1 ? depPath : depPath.slice(0, index))
  return { name, version: rest ?? '', peersSuffix: index === -1 ? '' : depPath.slice(index) }
}

/**
 * A lockfile reference as the dependency path it points at: `1.0.0(peer@2.0.0)` under its alias
 * becomes `alias@1.0.0(peer@2.0.0)`; a reference that names its package already (an `npm:` alias
 * `name@1.0.0`) is one as it is. `file:`, `link:` and URL references (whose `@` comes after a
 * `:`) get the alias.
 */
export function refToDepPath (alias: string, ref: string): DepPath {
  if (ref.startsWith('@')) return ref as DepPath
  const bare = withoutPeersSuffix(ref)
  const at = bare.indexOf('@')
  const colon = bare.indexOf(':')
  return (at !== -1 && (colon === -1 || at < colon) ? ref : `${alias}@${ref}`) as DepPath
}
