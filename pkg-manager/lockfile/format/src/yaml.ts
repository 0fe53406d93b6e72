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

// The yaml library's time grows with the square of the flow indicators on one line in places
// (`{b: c{{{…}}}d}`: 0.8 s for 20,000 of them, 2.8 s for 40,000; a line of `}}}…`, the same);
// pnpm writes a few per line.
const MAX_FLOW_INDICATORS_PER_LINE = 1000

/**
 * The first line (from 1) with more flow indicators (`{`, `}`, `[`, `]`) than the yaml library
 * reads in linear time, to be refused before it is given the text; undefined when there is none.
 */
export function overlongFlowLine (text: string): number | undefined {
  let line = 1
  let count = 0
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (c === 10) {
      line++
      count = 0
    } else if ((c === 123 || c === 125 || c === 91 || c === 93) && ++count > MAX_FLOW_INDICATORS_PER_LINE) {
      return line
    }
  }
  return undefined
}

/** Why `overlongFlowLine` refused a text. */
export function overlongFlowLineMessage (line: number): string {
  return `line ${line} has more than ${MAX_FLOW_INDICATORS_PER_LINE} of the characters { } [ ], which lode does not read as YAML (the time it takes grows with the square of their number)`
}

/**
 * A YAML document's value: by the fast parser when the text is inside its subset, else by the
 * general one (which throws its `YAMLParseError`, or a `ReferenceError` for an alias to no anchor
 * or too many aliases; an `Error` for a line `overlongFlowLine` refuses). Anchors and aliases are
 * kept: the value may share, or contain, itself.
 */
export function parseYaml (text: string): unknown {
  const fast = fastParseLockfile(text)
  if (fast !== undefined && Object.keys(fast).length > 0) return fast
  const line = overlongFlowLine(text)
  if (line !== undefined) throw new Error(overlongFlowLineMessage(line))
  const doc = yaml().parseDocument(text, { ...YAML_OPTIONS, uniqueKeys: false, logLevel: 'error' })
  if (doc.errors.length > 0) throw doc.errors[0]!
  const duplicate = duplicateKey(doc)
  if (duplicate !== undefined) throw new Error(duplicate)
  return doc.toJS()
}

/**
 * The first key a map of `doc` has twice (as the yaml library's `uniqueKeys` finds it: scalars of
 * the same value), as a message; undefined when none. The library's own check compares each key
 * with every other of its map: 15 s for a map of 40,000 keys. This one keeps a set per map.
 */
export function duplicateKey (doc: Yaml.Document): string | undefined {
  const { isCollection, isMap, isPair, isScalar } = yaml()
  const pending: unknown[] = [doc.contents]
  while (pending.length > 0) {
    const node = pending.pop()
    if (!isCollection(node)) continue
    const seen = new Set<unknown>()
    for (const item of node.items) {
      if (!isPair(item)) {
        pending.push(item)
        continue
      }
      if (isMap(node) && isScalar(item.key)) {
        if (seen.has(item.key.value)) return `Map keys must be unique: ${String(item.key.value).slice(0, 100)}${item.key.range === undefined || item.key.range === null ? '' : ` (at character ${item.key.range[0]})`}`
        seen.add(item.key.value)
      }
      pending.push(item.key, item.value)
    }
  }
  return undefined
}
