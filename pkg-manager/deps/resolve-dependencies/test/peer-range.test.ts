import assert from 'node:assert/strict'
import { test } from 'node:test'

import { peerVersionRange } from '../src/peer-range.js'

test('peerVersionRange: a semver range as it is, workspace: and npm: specifiers to their range, each part of an || alone, the rest any version', () => {
  assert.equal(peerVersionRange('^1.2.0'), '^1.2.0')
  assert.equal(peerVersionRange('workspace:^2'), '^2')
  assert.equal(peerVersionRange('workspace:*'), '*')
  assert.equal(peerVersionRange('workspace:'), '*')
  assert.equal(peerVersionRange('npm:other@^3'), '^3')
  assert.equal(peerVersionRange('github:a/b'), '*')
  assert.equal(peerVersionRange('^1 || workspace:^2'), '^1 || ^2')
})
