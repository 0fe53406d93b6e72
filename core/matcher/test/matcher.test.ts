import assert from 'node:assert/strict'
import { test } from 'node:test'

import { createMatcher } from '@lode/core.matcher'

test('globs, exclusions in order, a lone exclusion', () => {
  const scoped = createMatcher(['@babel/*', '!@babel/core'])
  assert.equal(scoped('@babel/parser'), true)
  assert.equal(scoped('@babel/core'), false)
  assert.equal(scoped('babel'), false)
  assert.equal(createMatcher(['*'])('anything.at-all'), true)
  assert.equal(createMatcher([])('x'), false)
  assert.equal(createMatcher(['!eslint'])('eslint'), false)
  assert.equal(createMatcher(['!eslint'])('prettier'), true)
  assert.equal(createMatcher(['a.b'])('aXb'), false, 'a dot is a dot')
})
