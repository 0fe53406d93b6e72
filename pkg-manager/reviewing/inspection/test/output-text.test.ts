import assert from 'node:assert/strict'
import { test } from 'node:test'

import { stringifyJson } from '../src/output-text.js'
import { renderTextTree } from '../src/text-tree.js'
import type { TextTreeNode } from '../src/text-tree.js'

// `lode list --json` and `lode why --json` of a chain nest two levels per package: V8's
// JSON.stringify stops between 4,000 and 5,000 levels, and a registry makes a chain as deep as it likes.

/** `{ dependencies: { p0: { version, dependencies: { p1: … } } } }`, `depth` packages deep. */
function nested (depth: number): Record<string, unknown> {
  let value: Record<string, unknown> = { version: '1.0.0', empty: {}, none: [], skipped: undefined }
  for (let i = depth - 1; i >= 0; i--) value = { from: `p${i}`, version: '1.0.0', dependencies: { [`p${i + 1}`]: value }, list: [1, 'two', null, undefined] }
  return value
}

test('stringifyJson writes what JSON.stringify(value, null, 2) writes', () => {
  const values: unknown[] = [[], {}, [{}], { a: [], 'b"': 'x\n\u2028"é', '10': 1.5, 2: null, c: undefined, d: [undefined, NaN, -0, true] }, nested(1_000)]
  for (const value of values) assert.equal(stringifyJson(value, 'x'), JSON.stringify(value, null, 2))
})

test('stringifyJson writes a value nested deeper than JSON.stringify can; past its limit, ERR_LODE_OUTPUT_TOO_LARGE', () => {
  // Two levels of nesting per package, as list's JSON has.
  let deep: unknown = {}
  for (let i = 2_999; i >= 0; i--) deep = { d: { [`p${i}`]: deep } }
  assert.throws(() => JSON.stringify(deep, null, 2), RangeError)
  const text = stringifyJson(deep, 'x')
  assert.equal(text.split('\n').length, 3_000 * 4 + 1)
  assert.equal(text.slice(0, 22), '{\n  "d": {\n    "p0": {')
  assert.throws(() => stringifyJson(deep, '`lode list --json`', 1_000_000), {
    code: 'ERR_LODE_OUTPUT_TOO_LARGE',
    message: /^`lode list --json` is longer than lode can print \(1000000 characters/,
  })
})

test('renderTextTree draws a 10,000-level chain, each level under the last', () => {
  const depth = 10_000
  let node: TextTreeNode = { label: `p${depth}` }
  for (let i = depth - 1; i >= 0; i--) node = { label: `p${i}`, children: [node] }
  const lines = renderTextTree(node).trimEnd().split('\n')
  assert.equal(lines.length, depth + 1)
  assert.deepEqual(lines.slice(0, 3), ['p0', '└─┬ p1', '  └─┬ p2'])
  assert.equal(lines.at(-1), `${'  '.repeat(depth - 1)}└── p${depth}`)
})
