import assert from 'node:assert/strict'
import { test } from 'node:test'

import type { Lockfile } from '@lode/pkg-manager.lockfile.format'
import semver from 'semver'

import { intersectRanges, lockfilePeerIssues, noPeerIssues } from '../src/index.js'

test('intersectRanges: the versions all ranges take in, or undefined when none does', () => {
  const both = intersectRanges(['^1.0.0', '^1.2.0'])
  assert.ok(both !== undefined)
  for (const [version, inside] of [['1.2.5', true], ['1.1.0', false], ['2.0.0', false]] as const) {
    assert.equal(semver.satisfies(version, both), inside, `${version} in ${both}`)
  }
  assert.equal(intersectRanges(['^1.0.0', '^2.0.0']), undefined)
  assert.ok(intersectRanges(['^1.0.0 || ^2.0.0', '>=2.1.0']) !== undefined)
  assert.equal(intersectRanges(['not a range', '^1']), undefined)
})

const lockfile = (): Lockfile => ({
  lockfileVersion: '9.0',
  importers: {
    '.': { dependencies: { a: { specifier: '1.0.0', version: '1.0.0' }, x: { specifier: '1.0.0', version: '1.0.0' } } },
    'packages/p': { dependencies: { x: { specifier: '1.0.0', version: '1.0.0' }, y: { specifier: '1.0.0', version: '1.0.0(a@1.0.0)' } } },
  },
  packages: {
    'a@1.0.0': { resolution: { integrity: 'sha512-a' } },
    'x@1.0.0': { resolution: { integrity: 'sha512-x' }, peerDependencies: { m: '^1', o: '*' }, peerDependenciesMeta: { o: { optional: true } } },
    'y@1.0.0': { resolution: { integrity: 'sha512-y' }, peerDependencies: { a: '^2.0.0' } },
  },
  snapshots: { 'a@1.0.0': {}, 'x@1.0.0': {}, 'y@1.0.0(a@1.0.0)': { dependencies: { a: '1.0.0' } } },
})

test('lockfilePeerIssues: a peer outside its range is bad, a missing one is missing (optional ones are not); each package walked once for all projects', () => {
  const issues = lockfilePeerIssues(lockfile(), ['.', 'packages/p'], undefined)
  assert.deepEqual(issues['.'], {
    bad: {},
    missing: { m: [{ parents: [{ name: 'x', version: '1.0.0' }], optional: false, wantedRange: '^1' }] },
    conflicts: [],
    intersections: { m: '^1' },
  })
  // x was walked for the root already: only y's issue is the project's.
  assert.deepEqual(issues['packages/p']!.bad, { a: [{ parents: [{ name: 'y', version: '1.0.0' }], optional: false, wantedRange: '^2.0.0', foundVersion: '1.0.0', resolvedFrom: [] }] })
  assert.deepEqual(issues['packages/p']!.missing, {})
  assert.equal(noPeerIssues(issues), false)
  const ruled = lockfilePeerIssues(lockfile(), ['.', 'packages/p'], { ignoreMissing: ['m'], allowAny: ['a'] })
  assert.equal(noPeerIssues(ruled), true)
})
