import assert from 'node:assert/strict'
import { test } from 'node:test'

import type { Lockfile } from '@lode/pkg-manager.lockfile.format'

import { missingOptional, missingRequired, peerCandidates, peersLockedBy } from '../src/hoist-peers.js'
import type { ResolvedPackage } from '../src/types.js'
import { pkg } from './packages.js'

const versions = (name: string, ...list: string[]): Array<[string, ResolvedPackage]> =>
  list.map((version) => [`${name}@${version}`, { ...pkg(name), id: `${name}@${version}`, version }])

test('missingRequired: a version the graph has that every range takes; else the ranges\' intersection; none when they have nothing in common', () => {
  const candidates = peerCandidates(new Map([...versions('react', '16.14.0', '17.0.2')]), undefined)
  const pick = (name: string, ranges: string[]): string | undefined =>
    missingRequired([[name, { ranges, optional: false }]], candidates, new Map(), [], new Set(), new Set())[0]?.bareSpecifier
  // ^16.3.0 || ^17 alone would take 17.0.2; ^16.13.1 does not.
  assert.equal(pick('react', ['^16.13.1', '^16.3.0 || ^17.0.0-0', '>=15']), '16.14.0')
  // Not in the graph: the intersection, a range (writing the ranges one after another would take 17 here).
  assert.equal(pick('vue', ['^2.6.0 || ^3.0.0', '^2.7.0']), '>=2.7.0 <3.0.0-0')
  assert.equal(pick('vue', ['^2.0.0', '^3.0.0']), undefined)
})

test('missingRequired: the workspace root\'s specifier when the root depends on the peer; a version the importer\'s lockfile gave it is kept and pinned', () => {
  const candidates = peerCandidates(new Map([...versions('peer', '1.0.0', '1.2.0')]), undefined)
  const root = [{ alias: 'peer', bareSpecifier: '^1.1.0', optional: false }]
  assert.equal(missingRequired([['peer', { ranges: ['^1.0.0'], optional: false }]], candidates, new Map(), root, new Set(), new Set())[0]!.bareSpecifier, '^1.1.0')
  const pinned = new Set<string>()
  const locked = new Map([['peer', new Set(['1.0.0'])]])
  assert.equal(missingRequired([['peer', { ranges: ['^1.0.0'], optional: false }]], candidates, locked, [], new Set(), pinned)[0]!.bareSpecifier, '1.0.0')
  assert.deepEqual([...pinned], ['peer@1.0.0'])
  // Being updated: the lock does not hold.
  assert.equal(missingRequired([['peer', { ranges: ['^1.0.0'], optional: false }]], candidates, locked, [], new Set(['peer']), new Set())[0]!.bareSpecifier, '1.2.0')
})

test('missingOptional: the version the importer\'s lockfile gave the peer, when this resolution reached it, before the highest; none outside the graph', () => {
  const candidates = peerCandidates(new Map([...versions('jiti', '1.21.7', '2.6.1')]), undefined)
  const choice = (locked: Map<string, Set<string>>): Parameters<typeof missingOptional>[1] =>
    ({ candidates, locked, rootDeps: [], accepts: () => true })
  const pick = (locked: Map<string, Set<string>>, ranges = ['>=1.21.0']): string | undefined =>
    missingOptional(new Map([['jiti', ranges]]), choice(locked))[0]?.bareSpecifier
  assert.equal(pick(new Map()), '2.6.1')
  assert.equal(pick(new Map([['jiti', new Set(['1.21.7'])]])), '1.21.7')
  assert.equal(pick(new Map(), ['^3.0.0']), undefined)
})

test('peersLockedBy: the peer versions in an importer\'s dependency paths; every snapshot\'s without the importer', () => {
  const lockfile: Lockfile = {
    lockfileVersion: '9.0',
    importers: {
      app: { dependencies: { astro: { specifier: '^5.0.0', version: '5.18.1(jiti@1.21.7)(yaml@2.8.3)' } } },
    },
    snapshots: { 'x@1.0.0(jiti@2.6.1)': {} },
  }
  assert.deepEqual(peersLockedBy(lockfile, 'app'), new Map([['jiti', new Set(['1.21.7'])], ['yaml', new Set(['2.8.3'])]]))
  assert.deepEqual(peersLockedBy(lockfile, 'other'), new Map([['jiti', new Set(['2.6.1'])]]))
})
