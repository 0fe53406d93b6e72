import assert from 'node:assert/strict'
import { test } from 'node:test'

import { canStandIn, dedupePeerDependents } from '../src/dedupe-peer-dependents.js'
import type { VariantNode } from '../src/dedupe-peer-dependents.js'

/** A variant: its dependency path's package id, children (alias → dependency path) and the peers of its suffix. */
function variant (pkgId: string, children: Record<string, string>, peerNames: string[] = []): VariantNode {
  return { pkgId, children: new Map(Object.entries(children)), peerNames: new Set(peerNames) }
}

function graphOf (nodes: Record<string, VariantNode>): Map<string, VariantNode> {
  return new Map(Object.entries(nodes))
}

test('canStandIn: the same children, at least as many dependencies, and every peer the other resolves', () => {
  const rich = variant('a@1.0.0', { b: 'b@1.0.0', p: 'p@1.0.0' }, ['p'])
  assert.equal(canStandIn(rich, variant('a@1.0.0', { b: 'b@1.0.0' })), true)
  assert.equal(canStandIn(variant('a@1.0.0', { b: 'b@1.0.0' }), rich), false, 'fewer dependencies')
  assert.equal(canStandIn(rich, variant('a@1.0.0', { b: 'b@2.0.0' })), false, 'another child under the same alias')
  assert.equal(canStandIn(rich, variant('a@1.0.0', { b: 'b@1.0.0' }, ['q'])), false, 'a peer the richer one does not resolve')
})

test('a variant without the peer collapses into the one that resolves it; the edges to it are rewritten', () => {
  const graph = graphOf({
    'x@1.0.0': variant('x@1.0.0', { a: 'a@1.0.0' }),
    'y@1.0.0(p@1.0.0)': variant('y@1.0.0', { a: 'a@1.0.0(p@1.0.0)', p: 'p@1.0.0' }, ['p']),
    'a@1.0.0': variant('a@1.0.0', { b: 'b@1.0.0' }),
    'a@1.0.0(p@1.0.0)': variant('a@1.0.0', { b: 'b@1.0.0', p: 'p@1.0.0' }, ['p']),
    'b@1.0.0': variant('b@1.0.0', {}),
    'p@1.0.0': variant('p@1.0.0', {}),
  })
  const merged = dedupePeerDependents(graph, [new Set(['a@1.0.0', 'a@1.0.0(p@1.0.0)'])])
  assert.deepEqual([...merged], [['a@1.0.0', 'a@1.0.0(p@1.0.0)']])
  assert.equal(graph.get('x@1.0.0')!.children.get('a'), 'a@1.0.0(p@1.0.0)')
})

test('variants resolving the peer to different versions stay apart', () => {
  const graph = graphOf({
    'a@1.0.0(p@1.0.0)': variant('a@1.0.0', { p: 'p@1.0.0' }, ['p']),
    'a@1.0.0(p@2.0.0)': variant('a@1.0.0', { p: 'p@2.0.0' }, ['p']),
  })
  assert.deepEqual([...dedupePeerDependents(graph, [new Set(['a@1.0.0(p@1.0.0)', 'a@1.0.0(p@2.0.0)'])])], [])
})

test('a collapse rewrites edges, and the next round collapses the variants it made alike (a chain of merges)', () => {
  // c's two variants differ only in which variant of a they depend on; once a's collapse, they are alike.
  const graph = graphOf({
    'c@1.0.0(p@1.0.0)': variant('c@1.0.0', { a: 'a@1.0.0(p@1.0.0)' }, ['p']),
    'c@1.0.0': variant('c@1.0.0', { a: 'a@1.0.0' }),
    'a@1.0.0': variant('a@1.0.0', {}),
    'a@1.0.0(p@1.0.0)': variant('a@1.0.0', { p: 'p@1.0.0' }, ['p']),
    'p@1.0.0': variant('p@1.0.0', {}),
  })
  const merged = dedupePeerDependents(graph, [
    new Set(['c@1.0.0(p@1.0.0)', 'c@1.0.0']),
    new Set(['a@1.0.0', 'a@1.0.0(p@1.0.0)']),
  ])
  assert.equal(merged.get('a@1.0.0'), 'a@1.0.0(p@1.0.0)')
  assert.equal(merged.get('c@1.0.0'), 'c@1.0.0(p@1.0.0)')
})

test('variants that differ only through a cycle between two packages collapse, one pair a round (pnpm\'s collapseCycles)', () => {
  // a and b depend on each other; each has a variant with the peer p and one without, pointing at each other's.
  const graph = graphOf({
    'a@1.0.0(p@1.0.0)': variant('a@1.0.0', { b: 'b@1.0.0(p@1.0.0)', p: 'p@1.0.0' }, ['p']),
    'a@1.0.0': variant('a@1.0.0', { b: 'b@1.0.0' }),
    'b@1.0.0(p@1.0.0)': variant('b@1.0.0', { a: 'a@1.0.0(p@1.0.0)', p: 'p@1.0.0' }, ['p']),
    'b@1.0.0': variant('b@1.0.0', { a: 'a@1.0.0' }),
    'p@1.0.0': variant('p@1.0.0', {}),
  })
  const merged = dedupePeerDependents(graph, [
    new Set(['a@1.0.0(p@1.0.0)', 'a@1.0.0']),
    new Set(['b@1.0.0(p@1.0.0)', 'b@1.0.0']),
  ])
  assert.equal(merged.get('a@1.0.0'), 'a@1.0.0(p@1.0.0)')
  assert.equal(merged.get('b@1.0.0'), 'b@1.0.0(p@1.0.0)')
})
