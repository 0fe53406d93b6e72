import { createRequire } from 'node:module'

import type * as Yaml from 'yaml'

import { fastParseLockfile } from './fast-parse.js'

let yamlModule: typeof Yaml | undefined

/**
 * The general YAML library, loaded on first use: it is some 70 modules, and an install whose YAML
 * stays inside the subset pnpm writes (see `fastParseLockfile`) never needs it.
 */
export function yaml (): typeof Yaml {
  yamlModule ??= createRequire(import.meta.url)('yaml') as typeof Yaml
  return yamlModule
}

/**
 * Options of every read with the yaml library: YAML 1.2's core schema whatever a `%YAML 1.1`
 * directive says, and no tags beyond it (`!!binary`, `!!set`, `!!timestamp`), so that values are
 * what JSON has, as the fast parser's are: no Date, Uint8Array, Set or Map.
 */
export const YAML_OPTIONS = { schema: 'core', resolveKnownTags: false } as const

/**
 * A YAML document's value: by the fast parser when the text is inside its subset, else by the
 * general one (which throws its `YAMLParseError`, or a `ReferenceError` for an alias to no anchor
 * or too many aliases). Anchors and aliases are kept: the value may share, or contain, itself.
 */
export function parseYaml (text: string): unknown {
  const fast = fastParseLockfile(text)
  return fast !== undefined && Object.keys(fast).length > 0 ? fast : yaml().parse(text, { ...YAML_OPTIONS, logLevel: 'error' })
}
