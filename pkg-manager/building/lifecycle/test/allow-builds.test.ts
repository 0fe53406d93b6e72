import assert from 'node:assert/strict'
import { test } from 'node:test'

import { createAllowBuild, revokedBuilds } from '@lode/pkg-manager.building.lifecycle'

test('allowBuilds decides as pnpm 11: names and versions for registry packages; ids and repositories for git, URL and file packages, which a name denies but does not allow', () => {
  const allowBuild = createAllowBuild({
    esbuild: true,
    'sharp@1.0.0 || 2.0.0': true,
    'bad@1.0.0': false,
    prep: true,
    denied: false,
    'built@git+https://github.com/acme/built.git': true,
    'one@git+file:///srv/one.git#0123456789abcdef0123456789abcdef01234567': true,
    't@file:t-1.0.0.tgz': true,
  })
  const cases: Array<[string, boolean | undefined]> = [
    ['esbuild@0.25.0', true],
    ['sharp@2.0.0', true],
    ['sharp@3.0.0', undefined],
    ['bad@1.0.0', false],
    ['bad@1.0.1', undefined],
    ['other@1.0.0', undefined],
    // A git package is not allowed by its name alone...
    ['prep@git+file:///srv/prep.git#0123456789abcdef0123456789abcdef01234567', undefined],
    // ...but denied by it.
    ['denied@git+https://example.com/denied.git#0123456789abcdef0123456789abcdef01234567', false],
    // Its repository allows every commit of it, its hosted archives too.
    ['built@git+https://github.com/acme/built.git#89abcdef0123456789abcdef0123456789abcdef', true],
    ['built@https://codeload.github.com/acme/built/tar.gz/89abcdef0123456789abcdef0123456789abcdef', true],
    ['built@https://codeload.github.com/acme/other/tar.gz/89abcdef0123456789abcdef0123456789abcdef', undefined],
    // Its exact id allows that commit only.
    ['one@git+file:///srv/one.git#0123456789abcdef0123456789abcdef01234567', true],
    ['one@git+file:///srv/one.git#fedcba9876543210fedcba9876543210fedcba98', undefined],
    ['t@file:t-1.0.0.tgz', true],
    ['t@file:t-2.0.0.tgz', undefined],
  ]
  for (const [pkgId, expected] of cases) assert.equal(allowBuild(pkgId), expected, pkgId)
})

test('revokedBuilds: what the last allowBuilds approved (by name too, for a tarball or git package) and the setting now leaves undecided', () => {
  const url = 'art@https://example.invalid/art-1.0.0.tgz'
  const pkgIds = ['a@1.0.0', 'b@1.0.0', 'c@1.0.0', url, 'never@1.0.0']
  const previous = { a: true, b: true, c: true, art: true }
  // a: still approved; b: now denied (not revoked); c, art: undecided now; never: never approved.
  assert.deepEqual(revokedBuilds(previous, { a: true, b: false }, pkgIds, new Set()), ['c@1.0.0', url])
  assert.deepEqual(revokedBuilds(previous, {}, pkgIds, new Set(['c@1.0.0'])), ['a@1.0.0', 'b@1.0.0', url], 'ignored ones are reported already')
  assert.deepEqual(revokedBuilds(undefined, {}, pkgIds, new Set()), [])
  assert.deepEqual(revokedBuilds({ a: false }, {}, pkgIds, new Set()), [], 'nothing was approved')
  // Today, a tarball package is not approved by its name alone.
  assert.equal(createAllowBuild({ art: true })(url), undefined)
})
