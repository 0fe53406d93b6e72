import assert from 'node:assert/strict'
import { test } from 'node:test'

import { injectedCopiesOf } from '../src/injected-copies.js'

test('injectedCopiesOf: each copy of a workspace project (a directory package from file:<project>), by project; nothing else', () => {
  const copies = injectedCopiesOf([
    { pkgId: 'p1@file:packages/p1', name: 'p1', dir: '/w/node_modules/.pnpm/p1@file+packages+p1/node_modules/p1', resolution: { directory: 'packages/p1', type: 'directory' } },
    { pkgId: '@s/p2@file:packages/p2', name: '@s/p2', dir: '/w/packages/a/node_modules/@s/p2', resolution: { directory: 'packages/p2', type: 'directory' } },
    { pkgId: 'dep@1.0.0', name: 'dep', dir: '/w/node_modules/.pnpm/dep@1.0.0/node_modules/dep', resolution: { integrity: 'sha512-x' } },
    { pkgId: 'tgz@file:t.tgz', name: 'tgz', dir: '/w/node_modules/.pnpm/tgz@file+t.tgz/node_modules/tgz', resolution: { integrity: 'sha512-x', tarball: 'file:t.tgz' } },
  ])
  assert.deepEqual(copies.map((copy) => [copy.projectId, copy.dir]), [
    ['packages/p1', '/w/node_modules/.pnpm/p1@file+packages+p1/node_modules/p1'],
    ['packages/p2', '/w/packages/a/node_modules/@s/p2'],
  ])
})
