import assert from 'node:assert/strict'
import { test } from 'node:test'

import type { Builds } from '../src/dependency-builds.js'
import { pendingBuildsAfter } from '../src/pending-builds.js'


const builds = (more: Partial<Builds>): Builds => ({ built: [], failed: [], ignored: [], pending: [], ...more })

test('pendingBuildsAfter: a pending build stays while its package is installed and nothing settled it', () => {
  const installed = (id: string): boolean => id !== 'gone@1.0.0'
  assert.deepEqual(pendingBuildsAfter(['a@1.0.0', 'gone@1.0.0'], builds({}), installed), ['a@1.0.0'])
  assert.deepEqual(pendingBuildsAfter(['a@1.0.0', 'b@1.0.0'], builds({ built: ['a@1.0.0'], ignored: ['b@1.0.0'] }), installed), [])
  assert.deepEqual(pendingBuildsAfter(['.', 'a@1.0.0'], builds({ pending: ['c@1.0.0', 'a@1.0.0'] }), installed), ['.', 'c@1.0.0', 'a@1.0.0'], 'the new ones after, once each')
  assert.deepEqual(pendingBuildsAfter([], builds({ pending: ['c@1.0.0'] }), installed), ['c@1.0.0'])
})
