import assert from 'node:assert/strict'
import { test } from 'node:test'

import { depPathToFilename, indexOfPeersSuffix, nameOf, parseDepPath, pkgIdOf, refToDepPath, splitNameAt, withoutPeersSuffix } from '@lode/core.dep-path'

test('a name ends at the first @ after its first character: scopes keep theirs, a bare name has no rest', () => {
  assert.deepEqual(splitNameAt('lodash@4.17.21'), { name: 'lodash', rest: '4.17.21' })
  assert.deepEqual(splitNameAt('@babel/core@^7.0.0'), { name: '@babel/core', rest: '^7.0.0' })
  assert.deepEqual(splitNameAt('@babel/core'), { name: '@babel/core', rest: undefined })
  assert.deepEqual(splitNameAt('lodash'), { name: 'lodash', rest: undefined })
  assert.deepEqual(splitNameAt('a@'), { name: 'a', rest: '' })
  assert.deepEqual(splitNameAt('alias@npm:real@1.0.0'), { name: 'alias', rest: 'npm:real@1.0.0' })
  assert.equal(nameOf('@a/b@1.0.0(c@2.0.0)'), '@a/b')
  assert.equal(nameOf('@a/b'), '@a/b')
})

test('the peer suffix is the run of balanced groups at the end, read from the end as pnpm reads it', () => {
  assert.equal(pkgIdOf('a@1.0.0(b@2.0.0)(@c/d@3.0.0(e@4.0.0))'), 'a@1.0.0')
  assert.equal(pkgIdOf('a@1.0.0(patch_hash=abc)(b@2.0.0)'), 'a@1.0.0')
  assert.equal(pkgIdOf('a@1.0.0'), 'a@1.0.0')
  // A parenthesis inside a URL version is not a suffix: it does not end the key.
  assert.equal(pkgIdOf('a@https://host/a(1).tgz'), 'a@https://host/a(1).tgz')
  assert.equal(pkgIdOf('a@https://host/a(1).tgz(b@2.0.0)'), 'a@https://host/a(1).tgz')
  // References without a name: the first character is no name's.
  assert.equal(withoutPeersSuffix('1.0.0(@types/node@20.0.0)'), '1.0.0')
  assert.equal(indexOfPeersSuffix('1.0.0'), -1)
  assert.equal(indexOfPeersSuffix('(a@1)'), 0)
  assert.deepEqual(parseDepPath('@a/b@1.0.0(c@2.0.0)'), { name: '@a/b', version: '1.0.0', peersSuffix: '(c@2.0.0)' })
  assert.deepEqual(parseDepPath('a@1.0.0'), { name: 'a', version: '1.0.0', peersSuffix: '' })
})

test('a lockfile reference becomes the dependency path it points at', () => {
  assert.equal(refToDepPath('a', '1.0.0(b@2.0.0)'), 'a@1.0.0(b@2.0.0)')
  assert.equal(refToDepPath('a', '1.0.0(@b/c@2.0.0)'), 'a@1.0.0(@b/c@2.0.0)')
  // An npm: alias names its package.
  assert.equal(refToDepPath('alias', 'real@1.0.0'), 'real@1.0.0')
  assert.equal(refToDepPath('alias', '@scope/real@1.0.0(b@2.0.0)'), '@scope/real@1.0.0(b@2.0.0)')
  // file:, link: and URLs (an @ after the scheme's colon is the URL's own) get the alias.
  assert.equal(refToDepPath('a', 'file:../a'), 'a@file:../a')
  assert.equal(refToDepPath('a', 'file:../x@y'), 'a@file:../x@y')
  assert.equal(refToDepPath('a', 'https://user@host/a.tgz'), 'a@https://user@host/a.tgz')
  assert.equal(refToDepPath('a', 'link:../a'), 'a@link:../a')
})

test('a dependency path as a directory name under .pnpm, by pnpm\'s rules', () => {
  assert.equal(depPathToFilename('@babel/core@7.0.0(x@1.0.0)'), '@babel+core@7.0.0_x@1.0.0')
  assert.equal(depPathToFilename('a@1.0.0'), 'a@1.0.0')
  assert.equal(depPathToFilename('a@file:../a'), 'a@file+..+a')
  // Upper case and long names are cut and hashed, so two never share a directory on a case-insensitive disk.
  assert.match(depPathToFilename('JSONStream@1.3.5'), /^JSONStream@1\.3\.5_[0-9a-f]{32}$/)
  const long = depPathToFilename(`a@1.0.0(${'b'.repeat(200)}@1.0.0)`)
  assert.equal(long.length, 120)
})
