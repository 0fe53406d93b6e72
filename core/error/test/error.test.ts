import assert from 'node:assert/strict'
import { test } from 'node:test'

import { LodeError, fileSystemError, fromLodeErrorData, hasErrno, isLodeError, toLodeErrorData } from '@lode/core.error'

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

test('fileSystemError: a user-caused file-system errno becomes ERR_LODE_<errno> naming the path; anything else is left alone', () => {
  const eisdir = Object.assign(new Error('EISDIR: illegal operation on a directory, read'), { code: 'EISDIR', syscall: 'read', path: '/p/package.json' })
  const coded = fileSystemError(eisdir)
  assert.equal(coded?.code, 'ERR_LODE_EISDIR')
  assert.equal(coded?.message, 'Cannot read /p/package.json: it is a directory where a file belongs.')
  assert.match(coded?.hint ?? '', /Remove or rename/)
  assert.equal(fileSystemError(Object.assign(new Error('x'), { code: 'EACCES', syscall: 'mkdir', path: '/ro/node_modules' }))?.message, 'Cannot mkdir /ro/node_modules: permission denied.')
  assert.equal(fileSystemError(Object.assign(new Error('x'), { code: 'ENOENT', syscall: 'open', path: '/x' })), undefined)
  assert.equal(fileSystemError(new TypeError('x')), undefined)
  assert.equal(fileSystemError('EACCES'), undefined)
})
