import assert from 'node:assert/strict'
import { test } from 'node:test'

import { dedupeInjectedDeps } from '../src/dedupe-injected-deps.js'
import type { VariantNode } from '../src/dedupe-peer-dependents.js'

const node = (pkgId: string, children: Record<string, string> = {}, peerNames: string[] = []): VariantNode =>
  ({ pkgId, children: new Map(Object.entries(children)), peerNames: new Set(peerNames) })

const importers = [{ id: '.', dir: '/w' }, { id: 'packages/lib', dir: '/w/packages/lib' }, { id: 'packages/app', dir: '/w/packages/app' }]
const directoryOf = (pkgId: string): string | undefined => pkgId.startsWith('lib@file:') ? 'packages/lib' : undefined

test('dedupeInjectedDeps: a copy that sees only the project\'s own packages is linked; one that sees a package the project lacks stays a copy', () => {
  const graph = new Map([
    ['dep@1.0.0', node('dep@1.0.0')],
    ['lib@file:packages/lib', node('lib@file:packages/lib', { dep: 'dep@1.0.0' })],
    ['lib@file:packages/lib(peer@2.0.0)', node('lib@file:packages/lib', { dep: 'dep@1.0.0', peer: 'peer@2.0.0' }, ['peer'])],
    ['peer@2.0.0', node('peer@2.0.0')],
  ])
  const linked = (copy: string): Array<Map<string, string>> => dedupeInjectedDeps({
    graph,
    importers,
    edges: [new Map(), new Map([['dep', 'dep@1.0.0']]), new Map([['lib', copy]])],
    directoryOf,
  })
  assert.deepEqual(linked('lib@file:packages/lib')[2], new Map([['lib', '/w/packages/lib']]))
  assert.deepEqual(linked('lib@file:packages/lib(peer@2.0.0)')[2], new Map())
})

test('dedupeInjectedDeps: a child the project has only as a link (another project) keeps the copy, as pnpm compares packages only', () => {
  const graph = new Map([
    ['lib@file:packages/lib(other@packages+other)', node('lib@file:packages/lib', { other: 'link:packages/other' }, ['other'])],
  ])
  const result = dedupeInjectedDeps({
    graph,
    importers,
    edges: [new Map(), new Map([['other', 'link:packages/other']]), new Map([['lib', 'lib@file:packages/lib(other@packages+other)']])],
    directoryOf,
  })
  assert.deepEqual(result[2], new Map())
})
