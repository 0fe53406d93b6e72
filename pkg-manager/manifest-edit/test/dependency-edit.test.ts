import assert from 'node:assert/strict'
import { test } from 'node:test'

import type { Lockfile } from '@lode/pkg-manager.lockfile'
import { applyEdit, forgetUpdated, saveEdits, updatedNames } from '@lode/pkg-manager.manifest-edit'
import type { DependencyEdit } from '@lode/pkg-manager.manifest-edit'

const edit = (more: Partial<DependencyEdit>): DependencyEdit => ({ importerId: '.', dependencies: [], exact: false, savePrefix: '^', ...more })

test('updatedNames: what update resolves again wherever it occurs; --latest moves only the projects\' own dependencies', () => {
  assert.equal(updatedNames([edit({ update: 'all' })]), 'all')
  assert.deepEqual(updatedNames([edit({ update: ['a'] }), edit({ importerId: 'p', update: ['b'] })]), ['a', 'b'])
  assert.deepEqual(updatedNames([edit({ update: 'all', latest: true }), edit({ importerId: 'p', update: ['b'] })]), ['b'])
  assert.deepEqual(updatedNames([edit({ update: ['a'], latest: true })]), [])
})

test('forgetUpdated drops the updated names\' entries of their projects only; applyEdit puts an added dependency in one group, sorted', () => {
  const lockfile: Lockfile = {
    lockfileVersion: '9.0',
    importers: {
      '.': { dependencies: { a: { specifier: '^1.0.0', version: '1.0.0' }, b: { specifier: '^1.0.0', version: '1.0.0' } } },
      p: { dependencies: { a: { specifier: '^1.0.0', version: '1.0.0' } } },
    },
  }
  const forgotten = forgetUpdated(lockfile, [edit({ update: ['a'] })])
  assert.deepEqual(Object.keys(forgotten.importers['.']!.dependencies!), ['b'])
  assert.deepEqual(Object.keys(forgotten.importers['p']!.dependencies!), ['a'])
  assert.deepEqual(Object.keys(lockfile.importers['.']!.dependencies!), ['a', 'b'], 'the lockfile read is left as it was')
  const manifest = applyEdit({ dependencies: { z: '1' }, devDependencies: { c: '1' } }, edit({ dependencies: [{ alias: 'c', bareSpecifier: '2' }, { alias: 'a' }] }))
  assert.deepEqual(manifest, { dependencies: { a: 'latest', z: '1' }, devDependencies: { c: '2' } })
})

test('saveEdits: a name with an override added without a spec saves the override\'s spec; with a spec, as asked; others as picked', () => {
  const lockfile: Lockfile = {
    lockfileVersion: '9.0',
    importers: {
      '.': {
        dependencies: {
          bar: { specifier: 'latest', version: '1.1.0' },
          baz: { specifier: '1.0.0', version: '1.0.0' },
          qux: { specifier: 'latest', version: '2.3.0' },
        },
      },
    },
  }
  const project = { dir: '/p', manifest: {} }
  const added = edit({ dependencies: [{ alias: 'bar' }, { alias: 'baz', bareSpecifier: '1.0.0' }, { alias: 'qux' }] })
  const { manifests } = saveEdits(lockfile, [{ edit: added, project }], { catalogs: {}, onWarning: () => {}, overrides: { bar: '1.1.0', baz: '1.1.0' } })
  assert.deepEqual(manifests[0]!.manifest, { dependencies: { bar: '1.1.0', baz: '1.0.0', qux: '^2.3.0' } })
  assert.equal(lockfile.importers['.']!.dependencies!['bar']!.specifier, '1.1.0', 'the lockfile records what package.json has')
})
