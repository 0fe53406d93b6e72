import assert from 'node:assert/strict'
import { test } from 'node:test'

import semver from 'semver'

import { intersectRanges } from '../src/range-intersection.js'

const takes = (range: string, version: string): boolean => semver.satisfies(version, range, { includePrerelease: true })

test('intersectRanges: a range with || among others takes only what every one takes', () => {
  const range = intersectRanges(['^16.13.1', '^16.14.0', '>=15', '^16.3.0 || ^17.0.0-0', '*'])!
  assert.equal(takes(range, '16.14.0'), true)
  assert.equal(takes(range, '17.0.2'), false, '^16.13.1 does not take 17')
  assert.equal(takes(range, '16.13.1'), false, '^16.14.0 does not take 16.13.1')
})

test('intersectRanges: alternatives no version meets are left out; none left is undefined', () => {
  assert.equal(intersectRanges(['^1.0.0 || ^2.0.0', '^2.1.0']), '>=2.1.0 <3.0.0-0')
  assert.equal(intersectRanges(['^1.0.0', '^2.0.0']), undefined)
  assert.equal(intersectRanges(['not a range']), undefined)
  assert.equal(intersectRanges(['*']), '*')
  assert.equal(intersectRanges(['^1.2.3']), '>=1.2.3 <2.0.0-0')
})
