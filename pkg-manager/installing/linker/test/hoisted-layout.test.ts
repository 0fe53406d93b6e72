import assert from 'node:assert/strict'
import path from 'node:path'
import { test } from 'node:test'

import type { Lockfile } from '@lode/pkg-manager.lockfile.format'

import { planHoistedLayout } from '../src/hoisted-layout.js'

const ROOT = path.join(path.sep, 'p')
const INCLUDE = { dependencies: true, devDependencies: true, optionalDependencies: true }
const OPTIONS = { lockfileDir: ROOT, importers: [{ id: '.', dir: ROOT }], include: INCLUDE, skipped: new Set<string>(), autoInstallPeers: true, hoist: { hoistPattern: ['*'], publicHoistPattern: [] }, hoistWorkspacePackages: true }

/** p0 → p1 → … → p<n-1>, each at 1.0.0. */
function chain (n: number): Lockfile {
  const packages: Lockfile['packages'] = {}
  const snapshots: Lockfile['snapshots'] = {}
  for (let i = 0; i < n; i++) {
    packages[`p${i}@1.0.0`] = { resolution: { integrity: 'sha512-AAAA' } }
    snapshots[`p${i}@1.0.0`] = i + 1 < n ? { dependencies: { [`p${i + 1}`]: '1.0.0' } } : {}
  }
  return { lockfileVersion: '9.0', importers: { '.': { dependencies: { p0: { specifier: '1.0.0', version: '1.0.0' } } } }, packages, snapshots }
}

test('planHoistedLayout: a chain thousands deep is hoisted flat (the tree is built without recursion)', () => {
  const layout = planHoistedLayout(chain(3000), OPTIONS)
  assert.equal(layout.packages.length, 3000)
  assert.deepEqual(layout.hoistedLocations['p2999@1.0.0'], ['node_modules/p2999'])
  assert.equal(layout.packages[0]!.location, 'node_modules/p0')
})

test('planHoistedLayout: a chain too deep for the hoister is ERR_LODE_DEPENDENCY_TREE_TOO_DEEP, not a stack overflow', () => {
  assert.throws(() => planHoistedLayout(chain(20_000), OPTIONS), (err: Error & { code?: string, hint?: string }) => {
    assert.equal(err.code, 'ERR_LODE_DEPENDENCY_TREE_TOO_DEEP')
    assert.match(err.hint ?? '', /isolated/)
    return true
  })
})

test('planHoistedLayout: a package that depends on itself (through its peer variant) is placed once, with nothing below itself', () => {
  // What a fuzzed .pnpm/lock.yaml gave: a snapshot whose dependency is its own dependency path.
  const lockfile: Lockfile = {
    lockfileVersion: '9.0',
    importers: { '.': { dependencies: { 'cyc-a': { specifier: '1.0.0', version: '1.0.0(cyc-b@1.0.0)' }, 'cyc-b': { specifier: '1.0.0', version: '1.0.0(cyc-a@1.0.0)' } } } },
    packages: {
      'cyc-a@1.0.0': { resolution: { integrity: 'sha512-AAAA' }, peerDependencies: { 'cyc-b': '*' } },
      'cyc-b@1.0.0': { resolution: { integrity: 'sha512-BBBB' }, peerDependencies: { 'cyc-a': '*' } },
    },
    snapshots: { 'cyc-a@1.0.0(cyc-b@1.0.0)': { dependencies: { 'cyc-a': '1.0.0(cyc-b@1.0.0)' } } },
  }
  const layout = planHoistedLayout(lockfile, OPTIONS)
  assert.deepEqual(layout.packages.map((pkg) => pkg.location).sort(), ['node_modules/cyc-a', 'node_modules/cyc-b'])
})

test('hoistWorkspacePackages: the workspace\'s projects are linked into the root\'s node_modules by name, or with false not at all', () => {
  const lockfile: Lockfile = { lockfileVersion: '9.0', importers: { '.': {}, 'packages/a': {} } }
  const importers = [{ id: '.', dir: ROOT }, { id: 'packages/a', dir: `${ROOT}/packages/a`, name: 'a' }]
  assert.deepEqual(planHoistedLayout(lockfile, { ...OPTIONS, importers }).workspaceLinks.map((link) => [link.alias, link.depPath, link.type]), [['a', 'packages/a', 'private']])
  assert.deepEqual(planHoistedLayout(lockfile, { ...OPTIONS, importers, hoistWorkspacePackages: false }).workspaceLinks, [])
})

test('hoistWorkspacePackages: a project\'s name a project has a package under (an injected copy) is not linked at the root; one linked is', () => {
  const lockfile: Lockfile = {
    lockfileVersion: '9.0',
    importers: {
      '.': {},
      'packages/a': {},
      'packages/b': {},
      'packages/c': { dependencies: { a: { specifier: 'workspace:*', version: 'file:packages/a' }, b: { specifier: 'workspace:*', version: 'link:../b' } } },
    },
    packages: { 'a@file:packages/a': { resolution: { directory: 'packages/a', type: 'directory' } } },
    snapshots: { 'a@file:packages/a': {} },
  }
  const importers = ['a', 'b', 'c'].map((name) => ({ id: `packages/${name}`, dir: `${ROOT}/packages/${name}`, name }))
  const links = planHoistedLayout(lockfile, { ...OPTIONS, importers: [{ id: '.', dir: ROOT }, ...importers] }).workspaceLinks
  assert.deepEqual(links.map((link) => link.alias), ['b', 'c'])
})
