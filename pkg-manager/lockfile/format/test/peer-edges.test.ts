import assert from 'node:assert/strict'
import { test } from 'node:test'

import { devOnlyDepPaths, peerSatisfactionEdges, peerSatisfactionEdgesToSkip, withoutPeerSatisfactionEdges } from '../src/index.js'
import type { Lockfile } from '../src/index.js'

// pnpm 11's peer satisfaction edges: a package's edge to an optional peer that only a project provides.

function lockfile (suffix: string, importers: Lockfile['importers']): Lockfile {
  const host = `host@1.0.0${suffix}`
  return {
    lockfileVersion: '9.0',
    importers,
    packages: {
      'host@1.0.0': { resolution: { integrity: 'sha512-a' }, peerDependencies: { peer: '^1.0.0' }, peerDependenciesMeta: { peer: { optional: true } } },
      'peer@1.0.0': { resolution: { integrity: 'sha512-b' } },
    },
    snapshots: { [host]: { dependencies: { peer: '1.0.0' } }, 'peer@1.0.0': {} },
  } as unknown as Lockfile
}

const dep = (version: string): { specifier: string, version: string } => ({ specifier: version, version })
const FROM_ROOT = { resolvePeersFromWorkspaceRoot: true }

test('an optional peer that only the project listing it provides is a peer satisfaction edge, and development-only when that project lists it for development', () => {
  const lock = lockfile('(peer@1.0.0)', {
    'packages/app': { dependencies: { host: dep('1.0.0(peer@1.0.0)') }, devDependencies: { peer: dep('1.0.0') } },
    'packages/lib': { dependencies: {} },
  })
  assert.deepEqual([...peerSatisfactionEdges(lock, FROM_ROOT)].map(([parent, aliases]) => [parent, [...aliases]]), [['host@1.0.0(peer@1.0.0)', ['peer']]])
  assert.deepEqual([...devOnlyDepPaths(lock, FROM_ROOT)], ['peer@1.0.0'])
  const all = { dependencies: true, devDependencies: true, optionalDependencies: true }
  assert.equal(peerSatisfactionEdgesToSkip(lock, all, FROM_ROOT), undefined)
  const skipped = peerSatisfactionEdgesToSkip(lock, { ...all, devDependencies: false }, FROM_ROOT)
  assert.notEqual(skipped, undefined)
  // The walk over a lockfile without them (as audit's) does not reach the peer from the package.
  const pruned = withoutPeerSatisfactionEdges(lock, skipped!)
  assert.deepEqual(pruned.snapshots!['host@1.0.0(peer@1.0.0)'], { dependencies: {} })
  assert.deepEqual(lock.snapshots!['host@1.0.0(peer@1.0.0)'], { dependencies: { peer: '1.0.0' } }, 'the lockfile read stays as it was')
})

test('no edge when a project that does not list the peer reaches the package anyway, or the suffix names another peer; the root\'s dev dependencies provide for every project', () => {
  const reachedElsewhere = lockfile('(peer@1.0.0)', {
    'packages/app': { dependencies: { host: dep('1.0.0(peer@1.0.0)') }, devDependencies: { peer: dep('1.0.0') } },
    'packages/lib': { dependencies: { host: dep('1.0.0(peer@1.0.0)') } },
  })
  assert.equal(peerSatisfactionEdges(reachedElsewhere, FROM_ROOT).size, 0)
  const fromRoot = lockfile('(peer@1.0.0)', {
    '.': { devDependencies: { peer: dep('1.0.0') } },
    'packages/app': { dependencies: { host: dep('1.0.0(peer@1.0.0)') } },
  })
  // The root's dev dependency provides for everyone: the edge is the root's sake, unless peers do not come from the root.
  assert.equal(peerSatisfactionEdges(fromRoot, FROM_ROOT).size, 1)
  assert.equal(peerSatisfactionEdges(fromRoot, { resolvePeersFromWorkspaceRoot: false }).size, 0)
  const otherPeer = lockfile('(other@2.0.0)', { 'packages/app': { dependencies: { host: dep('1.0.0(other@2.0.0)') }, devDependencies: { peer: dep('1.0.0') } } })
  assert.equal(peerSatisfactionEdges(otherPeer, FROM_ROOT).size, 0)
  // A hashed suffix names no peer: any provider counts.
  const hashed = lockfile('(0123456789abcdef0123456789abcdef)', { 'packages/app': { dependencies: { host: dep('1.0.0(0123456789abcdef0123456789abcdef)') }, devDependencies: { peer: dep('1.0.0') } } })
  assert.equal(peerSatisfactionEdges(hashed, FROM_ROOT).size, 1)
})

test('a peer suffix is read as pnpm reads it: scoped and nested providers, a patch hash beside them, an unbalanced suffix naming none', () => {
  const scoped = (suffix: string): Lockfile => ({
    lockfileVersion: '9.0',
    importers: { 'packages/app': { dependencies: { host: dep(`1.0.0${suffix}`) }, devDependencies: { '@s/peer': dep('1.0.0(x@1.0.0)') } } },
    packages: {
      'host@1.0.0': { resolution: { integrity: 'sha512-a' }, peerDependencies: { '@s/peer': '^1.0.0' }, peerDependenciesMeta: { '@s/peer': { optional: true } } },
    },
    snapshots: { [`host@1.0.0${suffix}`]: { dependencies: { '@s/peer': '1.0.0(x@1.0.0)' } }, '@s/peer@1.0.0(x@1.0.0)': {} },
  }) as unknown as Lockfile
  assert.equal(peerSatisfactionEdges(scoped('(@s/peer@1.0.0(x@1.0.0))'), FROM_ROOT).size, 1, 'a scoped provider with peers of its own')
  assert.equal(peerSatisfactionEdges(scoped('(@s/peer@1.0.0(x@1.0.0))(patch_hash=abc)'), FROM_ROOT).size, 1, 'a patch hash is no provider')
  assert.equal(peerSatisfactionEdges(scoped('(@s/peer@1.0.0'), FROM_ROOT).size, 0, 'unbalanced: no suffix')
})
