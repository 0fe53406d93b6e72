import assert from 'node:assert/strict'
import { test } from 'node:test'

import { hoistedPeersOf } from '../src/hoisted-peers.js'

test('hoistedPeersOf: a directory is linked, a package hoisted from; the importer\'s own aliases and later duplicates go, and what the lockfile dropped', () => {
  assert.deepEqual(hoistedPeersOf([
    { alias: 'a', dir: '/w/packages/a', depPath: undefined },
    { alias: 'host', dir: undefined, depPath: 'host@4.10.0' },
    { alias: 'own', dir: undefined, depPath: 'own@1.0.0' },
    { alias: 'host', dir: undefined, depPath: 'host@5.0.0' },
    { alias: 'unreached', dir: undefined, depPath: undefined },
    { alias: 'injected', dir: '/w/packages/injected', depPath: 'injected@file:packages/injected' },
  ], new Set(['own'])), [
    { alias: 'a', dir: '/w/packages/a' },
    { alias: 'host', depPath: 'host@4.10.0' },
    { alias: 'injected', dir: '/w/packages/injected' },
  ])
})
