import assert from 'node:assert/strict'
import { test } from 'node:test'

import { applyEdit, catalogPins, forgetCatalogUsers, forgetUpdated, saveEdits, updatedImporters, updatedNames } from '@lode/pkg-manager.deps.manifest-edit'
import type { DependencyEdit } from '@lode/pkg-manager.deps.manifest-edit'
import type { Lockfile } from '@lode/pkg-manager.lockfile.format'

const edit = (more: Partial<DependencyEdit>): DependencyEdit => ({ importerId: '.', dependencies: [], exact: false, savePrefix: '^', ...more })

test('updatedNames: what update resolves again wherever it occurs; --latest moves only the projects\' own dependencies', () => {
  assert.equal(updatedNames([edit({ update: 'all' })]), 'all')
  assert.deepEqual(updatedNames([edit({ update: ['a'] }), edit({ importerId: 'p', update: ['b'] })]), ['a', 'b'])
  assert.deepEqual(updatedNames([edit({ update: 'all', latest: true }), edit({ importerId: 'p', update: ['b'] })]), ['b'])
  assert.deepEqual(updatedNames([edit({ update: ['a'], latest: true })]), [])
})

test('updatedImporters: an update inside some projects is confined to them; one over every importer, an add or --latest is not', () => {
  const all = ['.', 'p1', 'p2']
  assert.deepEqual(updatedImporters([edit({ importerId: 'p2', update: 'all' })], all), new Set(['p2']))
  assert.deepEqual(updatedImporters([edit({ importerId: 'p2', update: ['a'] }), edit({ importerId: 'p1', dependencies: [{ alias: 'b' }] })], all), new Set(['p2']))
  assert.equal(updatedImporters(all.map((importerId) => edit({ importerId, update: 'all' })), all), undefined)
  assert.equal(updatedImporters([edit({ importerId: 'p2', update: 'all', latest: true })], all), undefined)
  assert.equal(updatedImporters([edit({ importerId: 'p2', dependencies: [{ alias: 'b' }] })], all), undefined)
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

test('catalogPins and forgetCatalogUsers: a version asked of a catalog entry is forgotten by every project taking that entry', () => {
  const move = { name: 'default', range: '^1.0.0', locksResolved: true as const }
  const edits = [
    edit({ importerId: 'p1', dependencies: [{ alias: 'foo', bareSpecifier: '1.1.0', catalog: move }, { alias: 'bar', bareSpecifier: 'catalog:', catalog: move }] }),
    edit({ importerId: 'p2', dependencies: [{ alias: 'baz', bareSpecifier: '1.0.0', catalog: { name: 'default', range: '^1.0.0' } }] }),
  ]
  // Only an exact version of an add's move is a pin (a `catalog:` re-add keeps what is locked; an update's move resolves anew).
  const pins = catalogPins(edits)
  assert.deepEqual(pins, { default: { foo: '1.1.0' } })
  const lockfile: Lockfile = {
    lockfileVersion: '9.0',
    catalogs: { default: { foo: { specifier: '^1.0.0', version: '1.0.0' }, bar: { specifier: '^1.0.0', version: '1.0.0' } } },
    importers: {
      p1: { dependencies: { foo: { specifier: 'catalog:', version: '1.0.0' }, bar: { specifier: 'catalog:', version: '1.0.0' } } },
      p2: { dependencies: { foo: { specifier: 'catalog:', version: '1.0.0' } } },
      p3: { dependencies: { foo: { specifier: '^1.0.0', version: '1.0.0' } } },
    },
  }
  const forgotten = forgetCatalogUsers(lockfile, pins)
  assert.deepEqual(Object.keys(forgotten.importers['p1']!.dependencies!), ['bar'])
  assert.deepEqual(forgotten.importers['p2']!.dependencies, {})
  assert.deepEqual(Object.keys(forgotten.importers['p3']!.dependencies!), ['foo'], 'not through the catalog: kept')
  assert.deepEqual(Object.keys(forgotten.catalogs!['default']!), ['bar'])
  assert.equal(forgetCatalogUsers(lockfile, {}), lockfile)
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

test('saveEdits leaves a lockfile whose specifiers and catalogs it does not change as it is (the install may hand the lockfile it read to the linker as the last install\'s)', () => {
  const lockfile: Lockfile = {
    lockfileVersion: '9.0',
    overrides: { a: '1.0.0' },
    importers: { '.': { dependencies: { a: { specifier: '1.0.0', version: '1.0.0' } } } },
  }
  const frozen = structuredClone(lockfile)
  const freeze = (value: unknown): void => {
    if (typeof value !== 'object' || value === null) return
    Object.freeze(value)
    for (const inner of Object.values(value)) freeze(inner)
  }
  freeze(frozen)
  // An install with no edit, and one whose edit saves what the lockfile has: nothing is written into it.
  assert.doesNotThrow(() => saveEdits(frozen, []))
  assert.doesNotThrow(() => saveEdits(frozen, [{ edit: edit({ remove: ['b'] }), project: { dir: '/p', manifest: { dependencies: { a: '1.0.0' } } } }]))
  assert.deepEqual(frozen, lockfile)
})
