import assert from 'node:assert/strict'
import { test } from 'node:test'

import { platformMismatch } from '@lode/pkg-manager.installing.package-is-installable'
import type { Platform } from '@lode/pkg-manager.installing.package-is-installable'

const linux: Platform = { os: 'linux', cpu: 'x64', libc: 'glibc' }

test('a package\'s os, cpu and libc lists, by npm\'s rule: named values, exclusions, any', () => {
  assert.equal(platformMismatch({ os: ['linux', 'darwin'], cpu: 'x64' }, linux), undefined)
  assert.equal(platformMismatch({ os: ['!win32'] }, linux), undefined)
  assert.equal(platformMismatch({ os: ['any'] }, linux), undefined)
  assert.equal(platformMismatch({ os: ['darwin'] }, linux), 'os ["darwin"], this is linux')
  assert.equal(platformMismatch({ cpu: ['!x64'] }, linux), 'cpu ["!x64"], this is x64')
  assert.equal(platformMismatch({ libc: ['musl'] }, linux), 'libc ["musl"], this is glibc')
  // What is not a string in a list is skipped, as pnpm skips it (a lockfile's `libc: [null]`): an empty list admits all.
  assert.equal(platformMismatch({ libc: [null as unknown as string] }, linux), undefined)
  assert.equal(platformMismatch({ os: ['darwin', null as unknown as string] }, linux), 'os ["darwin",null], this is linux')
  // libc is a Linux field.
  assert.equal(platformMismatch({ libc: ['musl'] }, { os: 'darwin', cpu: 'arm64', libc: undefined }), undefined)
})

test('supportedArchitectures: a package for any value listed is installable (current: this machine\'s); an exclusion of any of them is not', () => {
  const also = (supported: Platform['supported']): Platform => ({ ...linux, supported })
  assert.equal(platformMismatch({ os: ['darwin'], cpu: ['arm64'] }, also({ os: ['current', 'darwin'], cpu: ['current', 'arm64'] })), undefined)
  assert.equal(platformMismatch({ os: ['linux'] }, also({ os: ['current', 'darwin'] })), undefined)
  // Without `current`, this machine's value is not among them.
  assert.equal(platformMismatch({ os: ['linux'] }, also({ os: ['darwin'] })), 'os ["linux"], this is linux')
  assert.equal(platformMismatch({ libc: ['musl'] }, also({ libc: ['current', 'musl'] })), undefined)
  // pnpm's rule: excluding one of the values listed excludes the package.
  assert.equal(platformMismatch({ os: ['!darwin'] }, also({ os: ['current', 'darwin'] })), 'os ["!darwin"], this is linux')
})
