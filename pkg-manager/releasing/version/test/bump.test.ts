import assert from 'node:assert/strict'
import { test } from 'node:test'

import { isLodeError } from '@lode/core.error'

import { nextVersion, parseBump } from '../src/index.js'

const OPTS = { projectDir: '/p', allowSameVersion: false }

test('parseBump reads a step, an exact version (a leading v dropped), from-git; anything else is INVALID_VERSION_BUMP', () => {
  assert.deepEqual(parseBump('minor'), { kind: 'step', step: 'minor' })
  assert.deepEqual(parseBump('prerelease'), { kind: 'step', step: 'prerelease' })
  assert.deepEqual(parseBump('2.0.0-rc.1'), { kind: 'exact', version: '2.0.0-rc.1' })
  assert.deepEqual(parseBump('v3.1.4'), { kind: 'exact', version: '3.1.4' })
  assert.deepEqual(parseBump('from-git'), { kind: 'from-git' })
  for (const bad of [undefined, '', 'mayor', '1.2', 'latest', '__proto__']) {
    assert.throws(() => parseBump(bad), (err) => isLodeError(err, 'ERR_LODE_INVALID_VERSION_BUMP') &&
      /Must be a valid semver version/.test(err.message))
  }
})

test('nextVersion steps as semver does, with a prerelease id', () => {
  assert.equal(nextVersion('1.2.3', { step: 'major' }, OPTS), '2.0.0')
  assert.equal(nextVersion('1.2.3', { step: 'minor' }, OPTS), '1.3.0')
  assert.equal(nextVersion('1.2.3', { step: 'patch' }, OPTS), '1.2.4')
  assert.equal(nextVersion('1.2.3', { step: 'premajor', preid: 'beta' }, OPTS), '2.0.0-beta.0')
  assert.equal(nextVersion('1.2.3', { step: 'prepatch' }, OPTS), '1.2.4-0')
  assert.equal(nextVersion('2.0.0-beta.0', { step: 'prerelease', preid: 'beta' }, OPTS), '2.0.0-beta.1')
  assert.equal(nextVersion('2.0.0-beta.1', { step: 'patch' }, OPTS), '2.0.0')
  assert.equal(nextVersion('1.2.3', { exact: '4.0.0' }, OPTS), '4.0.0')
})

test('nextVersion refuses a project version that is not semver (naming the project) and the same version unless allowed', () => {
  for (const bad of ['latest', '1.2', 12, null]) {
    assert.throws(() => nextVersion(bad, { step: 'patch' }, OPTS), (err) => isLodeError(err, 'ERR_LODE_INVALID_VERSION') &&
      err.message === `Invalid version in /p: ${String(bad)}`)
  }
  assert.throws(() => nextVersion('1.2.3', { exact: '1.2.3' }, OPTS), (err) => isLodeError(err, 'ERR_LODE_VERSION_NOT_CHANGED'))
  assert.equal(nextVersion('1.2.3', { exact: '1.2.3' }, { ...OPTS, allowSameVersion: true }), '1.2.3')
})
