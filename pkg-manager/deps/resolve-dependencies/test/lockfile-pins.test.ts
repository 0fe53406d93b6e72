import assert from 'node:assert/strict'
import { test } from 'node:test'

import type { Lockfile } from '@lode/pkg-manager.lockfile.format'
import { DIRECT_DEP_WEIGHT, EXISTING_VERSION_WEIGHT } from '@lode/resolving.npm-resolver'

import { lockfileHasVersionIn, withoutPins } from '../src/lockfile-pins.js'

test('withoutPins: a version only the lockfile pins goes, a manifest\'s pin of it keeps its own weight; ranges and other versions stay', () => {
  const preferred = {
    '1.0.0': { type: 'version' as const, weight: EXISTING_VERSION_WEIGHT },
    '1.1.0': { type: 'version' as const, weight: DIRECT_DEP_WEIGHT + EXISTING_VERSION_WEIGHT },
    '2.0.0': { type: 'version' as const, weight: DIRECT_DEP_WEIGHT },
    '^1.0.0': { type: 'range' as const, weight: DIRECT_DEP_WEIGHT },
  }
  // 2.0.0 has no lockfile weight to take off: it stays as it is.
  assert.deepEqual(withoutPins(preferred, new Set(['1.0.0', '1.1.0', '2.0.0'])), {
    '1.1.0': { type: 'version', weight: DIRECT_DEP_WEIGHT },
    '2.0.0': { type: 'version', weight: DIRECT_DEP_WEIGHT },
    '^1.0.0': { type: 'range', weight: DIRECT_DEP_WEIGHT },
  })
})

test('lockfileHasVersionIn: a locked registry version the range or version takes; not another name, a URL key or a tag', () => {
  const entry = { resolution: { integrity: 'sha512-AAAA' } }
  const lockfile: Lockfile = { lockfileVersion: '9.0', importers: {}, packages: { 'opt@1.0.0': entry, 'opt-b@2.0.0': entry, 'url@https://x.test/u.tgz': entry } }
  assert.equal(lockfileHasVersionIn(lockfile, 'opt', { type: 'range', name: 'opt', range: '^1.0.0' }), true)
  assert.equal(lockfileHasVersionIn(lockfile, 'opt', { type: 'version', name: 'opt', version: '1.0.0' }), true)
  assert.equal(lockfileHasVersionIn(lockfile, 'opt', { type: 'range', name: 'opt', range: '^2.0.0' }), false)
  assert.equal(lockfileHasVersionIn(lockfile, 'opt', { type: 'tag', name: 'opt', tag: 'latest' }), false)
  assert.equal(lockfileHasVersionIn(lockfile, 'url', { type: 'range', name: 'url', range: '*' }), false)
  assert.equal(lockfileHasVersionIn(undefined, 'opt', { type: 'range', name: 'opt', range: '*' }), false)
})
