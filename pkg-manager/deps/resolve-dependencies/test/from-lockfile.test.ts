import assert from 'node:assert/strict'
import { test } from 'node:test'

import type { Lockfile } from '@lode/pkg-manager.lockfile.format'

import { lockedPackage, snapshotOf } from '../src/from-lockfile.js'
import { fromMeta } from '../src/resolved-package.js'

test('a package\'s snapshot is its own entry, else its first peer variant in the lockfile\'s order (a `(` in its id too)', () => {
  const lockfile = {
    lockfileVersion: '9.0',
    importers: {},
    packages: {},
    snapshots: {
      'b@1.0.0(peer@2.0.0)': { dependencies: { c: '2.0.0' } },
      'a@1.0.0(peer@1.0.0)': { dependencies: { c: '1.0.0' } },
      'a@1.0.0(peer@2.0.0)': { dependencies: { c: '2.0.0' } },
      'b@1.0.0': { dependencies: { c: '3.0.0' } },
      'd@file:dir(1)(peer@1.0.0)': {},
      'e@1.0.0(patch_hash=abc)(peer@1.0.0)': {},
    },
  } as unknown as Lockfile
  assert.deepEqual(snapshotOf(lockfile, 'a@1.0.0'), { dependencies: { c: '1.0.0' } })
  assert.deepEqual(snapshotOf(lockfile, 'b@1.0.0'), { dependencies: { c: '3.0.0' } })
  assert.deepEqual(snapshotOf(lockfile, 'd@file:dir(1)'), {})
  assert.deepEqual(snapshotOf(lockfile, 'd@file:dir'), {}, 'as pnpm matches it: the id and a `(`')
  assert.deepEqual(snapshotOf(lockfile, 'e@1.0.0'), {})
  assert.equal(snapshotOf(lockfile, 'c@1.0.0'), undefined)
  assert.equal(snapshotOf(lockfile, 'a@1.0.0(peer@3.0.0)'), undefined)
})

// Each package of a chain whose bottom wants a peer has a peer suffix: a re-resolution looks up
// every one (it scanned the keys for each, 13 s of a 20 s resolution of 10,000).
test('every package of a 20,000-level chain with peer suffixes is found in its lockfile', () => {
  const depth = 20_000
  const lockfile: Lockfile = { lockfileVersion: '9.0', importers: {}, packages: {}, snapshots: {} }
  for (let i = 0; i < depth; i++) {
    lockfile.packages![`p${i}@1.0.0`] = { resolution: { integrity: `sha512-${i}` } }
    lockfile.snapshots![`p${i}@1.0.0(peer@1.0.0)`] = i + 1 < depth ? { dependencies: { [`p${i + 1}`]: '1.0.0(peer@1.0.0)', peer: '1.0.0' } } : {}
  }
  for (let i = 0; i < depth; i++) {
    const pkg = lockedPackage(lockfile, `p${i}@1.0.0`)!
    assert.deepEqual(pkg.dependencies, i + 1 < depth ? { [`p${i + 1}`]: '1.0.0', peer: '1.0.0' } : {})
  }
})

// Offline without its manifest cached, a locked package is read from the lockfile alone: what
// fromMeta makes of its manifest must come out of its record, a dependency that is an optional peer too included.
test('a locked package reads as its manifest does: a dependency that is an optional peer too stays shadowable, a resolved peer stays a peer', () => {
  const meta = {
    name: 'a',
    version: '1.0.0',
    dist: { integrity: 'sha512-a', tarball: '' },
    dependencies: { own: '^1.0.0', both: '^2.0.0' },
    peerDependencies: { both: '^2.0.0', host: '^3.0.0' },
    peerDependenciesMeta: { both: { optional: true } },
  }
  const fresh = fromMeta('a@1.0.0', { integrity: 'sha512-a' }, meta, true)
  const lockfile = {
    lockfileVersion: '9.0',
    importers: {},
    packages: { 'a@1.0.0': { resolution: { integrity: 'sha512-a' }, ...fresh.lockfileFields } },
    snapshots: { 'a@1.0.0(host@3.0.0)': { dependencies: { own: '1.0.1', both: '2.0.0', host: '3.0.0' } } },
  } as unknown as Lockfile
  const locked = lockedPackage(lockfile, 'a@1.0.0')!
  assert.deepEqual(locked.peerShadowable, fresh.peerShadowable)
  assert.deepEqual(locked.peerShadowable, { both: '^2.0.0' })
  assert.deepEqual(locked.peerDependencies, fresh.peerDependencies)
  assert.deepEqual(locked.dependencies, { own: '1.0.1', both: '2.0.0' }, 'the locked versions, where the manifest has ranges')
  assert.equal(locked.fromLockfile, true)
})
