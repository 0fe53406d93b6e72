import assert from 'node:assert/strict'
import { test } from 'node:test'

import { LodeError, fromLodeErrorData, hasErrno, isLodeError, toLodeErrorData } from '@lode/fs.error'

test('LodeError prefixes its code and survives a round trip as plain data', () => {
  const err = new LodeError('TARBALL_INTEGRITY', 'bad tarball', { hint: 'clear the cache' })
  assert.equal(err.code, 'ERR_LODE_TARBALL_INTEGRITY')
  assert.ok(isLodeError(err, 'ERR_LODE_TARBALL_INTEGRITY'))
  assert.equal(isLodeError(err, 'ERR_LODE_OTHER'), false)
  const back = fromLodeErrorData(structuredClone(toLodeErrorData(err)))
  assert.equal(back.code, err.code)
  assert.equal(back.message, err.message)
  assert.equal(back.hint, 'clear the cache')
})

test('hasErrno matches only the given system error code', () => {
  const err = Object.assign(new Error('x'), { code: 'ENOENT' })
  assert.ok(hasErrno(err, 'ENOENT'))
  assert.ok(!hasErrno(err, 'EEXIST'))
  assert.ok(!hasErrno('ENOENT', 'ENOENT'))
})
