import assert from 'node:assert/strict'
import { test } from 'node:test'

import { lockedOutsideRange } from '../src/locked-outside-range.js'

test('lockedOutsideRange: a registry range that does not take its locked version names that version', () => {
  assert.equal(lockedOutsideRange('^1.0.0', '2.0.0'), '2.0.0')
  assert.equal(lockedOutsideRange('1.0.0', '1.0.1'), '1.0.1')
  assert.equal(lockedOutsideRange('npm:foo@^1.0.0', 'foo@2.0.0'), '2.0.0', 'an alias: the target\'s version')
  assert.equal(lockedOutsideRange('^1.0.0', '2.0.0(peer@1.0.0)'), '2.0.0', 'the peers suffix is not part of the version')
})

test('lockedOutsideRange: a range that takes its version, prereleases included, is undefined', () => {
  assert.equal(lockedOutsideRange('^1.0.0', '1.2.3'), undefined)
  assert.equal(lockedOutsideRange('^1.0.0', '1.2.3(peer@2.0.0)'), undefined)
  assert.equal(lockedOutsideRange('^1.0.0', '1.3.0-beta.1'), undefined, 'pnpm takes a prerelease its range covers')
  assert.equal(lockedOutsideRange('npm:@scope/foo@~1.1.0', '@scope/foo@1.1.9'), undefined)
})

test('lockedOutsideRange: anything but a registry range, or a locked value not a version, is not checked', () => {
  for (const specifier of ['latest', 'catalog:', 'workspace:^1.0.0', 'file:../foo', 'link:../foo', 'github:a/b', 'https://example.test/a.tgz']) {
    assert.equal(lockedOutsideRange(specifier, '9.9.9'), undefined, specifier)
  }
  assert.equal(lockedOutsideRange('^1.0.0', 'link:../foo'), undefined)
  assert.equal(lockedOutsideRange('^1.0.0', 'file:foo.tgz'), undefined)
})

test('lockedOutsideRange: asked again (a workspace repeats its pairs), every answer is the same as the first', () => {
  const pairs: Array<[string, string, string | undefined]> = [['^1.0.0', '2.0.0', '2.0.0'], ['^1.0.0', '1.2.3', undefined], ['latest', '9.9.9', undefined], ['^1.0.0', 'link:../foo', undefined]]
  for (let round = 0; round < 3; round++) {
    for (const [specifier, locked, expected] of pairs) assert.equal(lockedOutsideRange(specifier, locked), expected, `${specifier} ${locked}, round ${round}`)
  }
})
