import assert from 'node:assert/strict'
import { test } from 'node:test'

import { devOnlyDepPaths } from '../src/index.js'
import type { Lockfile } from '../src/index.js'

// A chain is as deep as a registry makes it: the walk takes any depth (it ran out of stack between
// 1,000 and 2,000 levels when it recursed).
test('a 10,000-level chain of development dependencies is development-only down to where a production dependency joins it', () => {
  const depth = 10_000
  const joined = 6_000
  const lockfile: Lockfile = {
    lockfileVersion: '9.0',
    importers: {
      '.': {
        devDependencies: { p0: { specifier: '1.0.0', version: '1.0.0' } },
        dependencies: { [`p${joined}`]: { specifier: '1.0.0', version: '1.0.0' } },
      },
    },
    packages: {},
    snapshots: {},
  }
  for (let i = 0; i < depth; i++) {
    lockfile.packages![`p${i}@1.0.0`] = { resolution: { integrity: `sha512-${i}` } }
    lockfile.snapshots![`p${i}@1.0.0`] = i + 1 < depth ? { dependencies: { [`p${i + 1}`]: '1.0.0' } } : {}
  }
  const devOnly = devOnlyDepPaths(lockfile, { resolvePeersFromWorkspaceRoot: true })
  assert.deepEqual([...devOnly], Array.from({ length: joined }, (_, i) => `p${i}@1.0.0`))
})
