import assert from 'node:assert/strict'
import { test } from 'node:test'

import type { Patch } from '../src/patches.js'
import { unusedPatchKeys } from '../src/unused-patches.js'

const patch = (key: string, hash = 'h'): Patch => ({ key, file: `/p/${key}.patch`, hash })

test('unusedPatchKeys: the keys no package takes its patch from, whatever two keys share (a file, a hash)', () => {
  const patches = [patch('pat@1.0.0'), patch('other@1.0.0'), patch('@scope/x@^2')]
  assert.deepEqual(unusedPatchKeys(patches, ['pat@1.0.0', '@scope/x@2.3.0']), ['other@1.0.0'])
  assert.deepEqual(unusedPatchKeys(patches, ['pat@1.0.0', 'other@1.0.0', '@scope/x@2.0.0']), [])
  assert.deepEqual(unusedPatchKeys(patches, []), ['pat@1.0.0', 'other@1.0.0', '@scope/x@^2'])
})

test('unusedPatchKeys: a key shadowed by a more precise one for every version installed is unused', () => {
  // pat@1.0.0 takes the exact key; the range and the bare name patch nothing.
  const patches = [patch('pat'), patch('pat@^1'), patch('pat@1.0.0')]
  assert.deepEqual(unusedPatchKeys(patches, ['pat@1.0.0']), ['pat@^1', 'pat'], 'exact versions, then ranges, then the bare name')
  assert.deepEqual(unusedPatchKeys(patches, ['pat@1.0.0', 'pat@1.2.0', 'pat@3.0.0']), [])
})

test('unusedPatchKeys: names in the order first given', () => {
  assert.deepEqual(unusedPatchKeys([patch('b'), patch('a@1.0.0'), patch('b@1.0.0')], []), ['b@1.0.0', 'b', 'a@1.0.0'])
})
