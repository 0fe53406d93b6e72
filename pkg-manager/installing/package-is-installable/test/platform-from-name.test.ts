import assert from 'node:assert/strict'
import { test } from 'node:test'

import { platformMismatch, platformOfOptional } from '@lode/pkg-manager.installing.package-is-installable'

test('platformOfOptional: the fields a package lacks are filled from the platform its name declares', () => {
  assert.deepEqual(platformOfOptional({}, '@nx/nx-win32-arm64-msvc'), { os: ['win32'], cpu: ['arm64'], libc: undefined })
  assert.deepEqual(platformOfOptional({}, 'lightningcss-linux-x64-musl'), { os: ['linux'], cpu: ['x64'], libc: ['musl'] })
  assert.deepEqual(platformOfOptional({}, '@esbuild/darwin-universal'), { os: ['darwin'], cpu: undefined, libc: undefined })
  // Declared fields win; only the missing ones are filled.
  assert.deepEqual(platformOfOptional({ os: ['linux'] }, 'tool-darwin-arm64'), { os: ['linux'], cpu: ['arm64'], libc: undefined })
  // The scope is no token.
  assert.deepEqual(platformOfOptional({}, '@linux/tool'), {})
})

test('platformOfOptional: a name without an os token leaves an undeclared package for any platform; a complete declaration is kept', () => {
  assert.deepEqual(platformOfOptional({}, 'is-arm64-ready'), {})
  assert.deepEqual(platformOfOptional({}, 'react'), {})
  const full = { os: ['linux'], cpu: ['x64'], libc: ['glibc'] }
  assert.equal(platformOfOptional(full, 'x-darwin-arm64'), full)
  const linux = { os: 'linux', cpu: 'x64', libc: 'glibc' } as const
  assert.equal(platformMismatch(platformOfOptional({}, '@n/linux-x64'), linux), undefined)
  assert.equal(platformMismatch(platformOfOptional({}, '@n/darwin-arm64'), linux), 'os ["darwin"], this is linux')
})
