import assert from 'node:assert/strict'
import { test } from 'node:test'

import type { Lockfile } from '@lode/pkg-manager.lockfile.format'

import { broughtInByLine, installedPackages } from '../src/brought-in-by.js'

const resolution = { integrity: 'sha512-AAAA' }
const lockfile: Lockfile = {
  lockfileVersion: '9.0',
  importers: {
    '.': { dependencies: { a: { specifier: '1.0.0', version: '1.0.0' }, shared: { specifier: '1.0.0', version: '1.0.0' } } },
    'packages/p': { devDependencies: { b: { specifier: '1.0.0', version: '1.0.0' } }, optionalDependencies: { skipped: { specifier: '1.0.0', version: '1.0.0' } } },
  },
  packages: { 'a@1.0.0': { resolution }, 'b@1.0.0': { resolution }, 'shared@1.0.0': { resolution }, 'skipped@1.0.0': { resolution }, 'below-skipped@1.0.0': { resolution } },
  snapshots: {
    'a@1.0.0': { dependencies: { shared: '1.0.0' } },
    'b@1.0.0': { dependencies: { shared: '1.0.0' } },
    'shared@1.0.0': {},
    'skipped@1.0.0': { optional: true, dependencies: { 'below-skipped': '1.0.0' } },
    'below-skipped@1.0.0': { optional: true },
  },
}
const all = { dependencies: true, devDependencies: true, optionalDependencies: true }

test('installedPackages: every project and package that brings each in; a skipped package and what only it reaches left out', () => {
  const installed = installedPackages(lockfile, { importerIds: ['.', 'packages/p'], include: all, resolvePeersFromWorkspaceRoot: true, skipped: new Set(['skipped@1.0.0']) })
  assert.deepEqual([...installed.keys()].sort(), ['a@1.0.0', 'b@1.0.0', 'shared@1.0.0'])
  assert.deepEqual(installed.get('shared@1.0.0'), { projects: ['.'], packages: ['a@1.0.0', 'b@1.0.0'] })
  assert.equal(broughtInByLine(installed.get('shared@1.0.0')!), 'Brought in by: project ., a@1.0.0, b@1.0.0')
  const prod = installedPackages(lockfile, { importerIds: ['packages/p'], include: { ...all, devDependencies: false }, resolvePeersFromWorkspaceRoot: true, skipped: new Set() })
  assert.deepEqual([...prod.keys()].sort(), ['below-skipped@1.0.0', 'skipped@1.0.0'])
})

test('installedPackages: the peer variants of a version are one package, brought in by what brings in each', () => {
  const peered: Lockfile = {
    lockfileVersion: '9.0',
    importers: {
      a: { dependencies: { p: { specifier: '1.0.0', version: '1.0.0(x@1.0.0)' } } },
      b: { dependencies: { p: { specifier: '1.0.0', version: '1.0.0(x@2.0.0)' } } },
    },
    packages: { 'p@1.0.0': { resolution } },
    snapshots: { 'p@1.0.0(x@1.0.0)': {}, 'p@1.0.0(x@2.0.0)': {} },
  }
  const installed = installedPackages(peered, { importerIds: ['a', 'b'], include: all, resolvePeersFromWorkspaceRoot: true, skipped: new Set() })
  assert.deepEqual([...installed], [['p@1.0.0', { projects: ['a', 'b'], packages: [] }]])
})
