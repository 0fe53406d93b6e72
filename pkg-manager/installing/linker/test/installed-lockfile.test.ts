import assert from 'node:assert/strict'
import { test } from 'node:test'

import { stringifyLockfile } from '@lode/pkg-manager.lockfile.format'
import type { Lockfile } from '@lode/pkg-manager.lockfile.format'

import { holdsTheSame, installedLockfile, reachedOnly, withGroups } from '../src/installed-lockfile.js'
import type { Layout } from '../src/layout.js'

const ALL = { dependencies: true, devDependencies: true, optionalDependencies: true }

/** A workspace of three projects: the root adds `c` now; `a` depends on `b@1`; `b` on `b@2` (or `b@1` in the last install). */
function lockfiles (bBefore: '1.0.0' | '2.0.0'): { next: Lockfile, installed: Lockfile } {
  const resolution = { integrity: 'sha512-AAAA' }
  const next: Lockfile = {
    lockfileVersion: '9.0',
    settings: { autoInstallPeers: true },
    importers: {
      '.': { dependencies: { c: { specifier: '^1.0.0', version: '1.0.0' } } },
      'packages/a': { dependencies: { b: { specifier: '^1.0.0', version: '1.0.0' } }, devDependencies: { c: { specifier: '^1.0.0', version: '1.0.0' } } },
      'packages/b': { dependencies: { b: { specifier: '^2.0.0', version: '2.0.0' } } },
    },
    packages: { 'b@1.0.0': { resolution }, 'b@2.0.0': { resolution }, 'c@1.0.0': { resolution } },
    snapshots: { 'b@1.0.0': {}, 'b@2.0.0': {}, 'c@1.0.0': {} },
  }
  // The last install, read back from .pnpm/lock.yaml: other objects, and a package no importer reaches now.
  const installed = structuredClone(next)
  installed.importers['.'] = {}
  installed.importers['packages/b'] = { dependencies: { b: { specifier: '^2.0.0', version: bBefore } } }
  installed.packages!['d@1.0.0'] = { resolution }
  installed.snapshots!['d@1.0.0'] = {}
  return { next, installed }
}

const layoutOf = (lockfile: Lockfile): Layout => ({ packages: Object.keys(lockfile.snapshots!).filter((depPath) => depPath !== 'd@1.0.0').map((depPath) => ({ depPath })) }) as unknown as Layout

test('installedLockfile + reachedOnly: a filtered install over a tree left as it is wanted holds the lockfile\'s very entries, and its text is the lockfile\'s', () => {
  const { next, installed } = lockfiles('2.0.0')
  const merged = installedLockfile(next, installed, new Set(['.']))
  // The unselected projects the last install left as they are now are the new lockfile's objects.
  assert.equal(merged.importers['packages/a'], next.importers['packages/a'])
  assert.equal(merged.importers['packages/b'], next.importers['packages/b'])
  assert.ok('d@1.0.0' in merged.packages!, 'the last install\'s packages are kept until the layout says what is reached')
  const onDisk = reachedOnly(withGroups(merged, ALL), layoutOf(merged), new Set())
  assert.equal(holdsTheSame(onDisk, next), true)
  assert.equal(stringifyLockfile(onDisk), stringifyLockfile(next))
})

test('holdsTheSame: false when an unselected project was left otherwise, a group is not installed, or a package only the last install had is reached', () => {
  const { next, installed } = lockfiles('1.0.0')
  const merged = installedLockfile(next, installed, new Set(['.']))
  assert.deepEqual(merged.importers['packages/b'], installed.importers['packages/b'], 'an unselected project is written as the last install left it')
  const onDisk = reachedOnly(merged, layoutOf(merged), new Set())
  assert.equal(holdsTheSame(onDisk, next), false)
  assert.notEqual(stringifyLockfile(onDisk), stringifyLockfile(next))

  const same = lockfiles('2.0.0')
  const all = installedLockfile(same.next, same.installed, new Set(['.']))
  assert.equal(holdsTheSame(reachedOnly(withGroups(all, { ...ALL, devDependencies: false }), layoutOf(all), new Set()), same.next), false, '--prod drops the dev groups')
  assert.equal(holdsTheSame(reachedOnly(all, layoutOf(all), new Set(['d@1.0.0'])), same.next), false, 'a skipped package of the last install stays recorded')
  assert.equal(holdsTheSame({ ...same.next, time: {} }, same.next), false, 'a top-level field more')
})
