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

/** A YAML document's value: by the fast parser when the text is inside its subset, else by the general one. */
export function parseYaml (text: string): unknown {
  const fast = fastParseLockfile(text)
  return fast !== undefined && Object.keys(fast).length > 0 ? fast : yaml().parse(text)
}
