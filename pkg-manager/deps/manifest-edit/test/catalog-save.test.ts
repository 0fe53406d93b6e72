import assert from 'node:assert/strict'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { test } from 'node:test'

import { addEdits, saveEdits, updateEdits, writeCatalogAdditions } from '@lode/pkg-manager.deps.manifest-edit'
import type { Lockfile } from '@lode/pkg-manager.lockfile.format'

import { catalogEntry, promoteToCatalog, throughCatalog } from '../src/catalog-save.js'

const quiet = { onWarning: () => {} }

test('promoteToCatalog: manual leaves a dependency as asked; prefer and strict point it at its catalog, or save it there once resolved', () => {
  const catalogs = { default: { dep: '^1.0.0' }, legacy: { old: '~2.0.0' } }
  const opts = { catalogMode: 'strict' as const, saveCatalogName: undefined, catalogs, ...quiet }
  assert.deepEqual(promoteToCatalog({ alias: 'dep', bareSpecifier: '1.2.0' }, { ...opts, catalogMode: 'manual' }), { alias: 'dep', bareSpecifier: '1.2.0' })
  // Covered by the catalog's range: that version is resolved, and the entry moves to it (saved as catalog:).
  assert.deepEqual(promoteToCatalog({ alias: 'dep', bareSpecifier: '1.2.0' }, opts),
    { alias: 'dep', bareSpecifier: '1.2.0', saveCatalogName: 'default', catalog: { name: 'default', range: '^1.0.0', locksResolved: true } })
  assert.deepEqual(promoteToCatalog({ alias: 'old', bareSpecifier: '2.0.5' }, { ...opts, saveCatalogName: 'legacy' }),
    { alias: 'old', bareSpecifier: '2.0.5', saveCatalogName: 'legacy', catalog: { name: 'legacy', range: '~2.0.0', locksResolved: true } })
  // Not in the catalog: saved to it once resolved.
  assert.deepEqual(promoteToCatalog({ alias: 'new' }, opts), { alias: 'new', saveCatalogName: 'default' })
  // Paths and workspace packages are never catalogued.
  assert.deepEqual(promoteToCatalog({ alias: 'local', bareSpecifier: 'file:../local' }, opts), { alias: 'local', bareSpecifier: 'file:../local' })
  // A range, or a version outside the catalog's: strict refuses, prefer warns and keeps it.
  for (const bareSpecifier of ['2.0.0', '^1.0.0']) {
    assert.throws(() => promoteToCatalog({ alias: 'dep', bareSpecifier }, opts), (err: Error & { code?: string }) => {
      assert.equal(err.code, 'ERR_LODE_CATALOG_VERSION_MISMATCH')
      assert.ok(err.message.includes(`dep@${bareSpecifier} is not in dep@^1.0.0`), err.message)
      return true
    })
  }
  const warnings: string[] = []
  assert.deepEqual(promoteToCatalog({ alias: 'dep', bareSpecifier: '2.0.0' }, { ...opts, catalogMode: 'prefer', onWarning: (message) => warnings.push(message) }),
    { alias: 'dep', bareSpecifier: '2.0.0' })
  assert.deepEqual(warnings, ['Catalog version mismatch for "dep": using direct version "2.0.0" instead of catalog version "^1.0.0".'])
})

test('throughCatalog: a dependency taken through a catalog entry with a registry range moves that entry; others are left as they are', () => {
  const catalogs = { default: { dep: '^1.0.0', tagged: 'latest', aliased: 'npm:other@^1.0.0' }, tools: { lint: '~2.0.0' } }
  assert.deepEqual(throughCatalog({ alias: 'dep', bareSpecifier: 'catalog:' }, catalogs),
    { alias: 'dep', bareSpecifier: 'catalog:', catalog: { name: 'default', range: '^1.0.0', locksResolved: true } })
  assert.deepEqual(throughCatalog({ alias: 'lint', bareSpecifier: 'catalog:tools' }, catalogs),
    { alias: 'lint', bareSpecifier: 'catalog:tools', catalog: { name: 'tools', range: '~2.0.0', locksResolved: true } })
  for (const alias of ['tagged', 'aliased', 'missing']) assert.deepEqual(throughCatalog({ alias, bareSpecifier: 'catalog:' }, catalogs), { alias, bareSpecifier: 'catalog:' })
  assert.deepEqual(throughCatalog({ alias: 'dep', bareSpecifier: '^1.0.0' }, catalogs), { alias: 'dep', bareSpecifier: '^1.0.0' })
})

test('catalogEntry: a resolved registry version is saved to its catalog unless the default catalog has the name (pnpm checks that one)', () => {
  const warnings: string[] = []
  const opts = { catalogs: { default: { dep: '^1.0.0' } }, onWarning: (message: string) => warnings.push(message) }
  assert.deepEqual(catalogEntry({ alias: 'new', saveCatalogName: 'x' }, { specifier: '^2.0.0', version: '2.0.0' }, opts), { catalogName: 'x', specifier: '^2.0.0' })
  assert.equal(catalogEntry({ alias: 'new' }, { specifier: '^2.0.0', version: '2.0.0' }, opts), undefined)
  assert.equal(catalogEntry({ alias: 'new', saveCatalogName: 'x' }, { specifier: 'catalog:', version: '2.0.0' }, opts), undefined)
  assert.equal(catalogEntry({ alias: 'new', saveCatalogName: 'x' }, { specifier: 'link:../new', version: undefined }, opts), undefined)
  assert.equal(catalogEntry({ alias: 'dep', saveCatalogName: 'x' }, { specifier: '^1.0.0', version: '1.0.0' }, opts), undefined)
  assert.deepEqual(warnings, [])
  assert.equal(catalogEntry({ alias: 'dep', saveCatalogName: 'default' }, { specifier: '1.5.0', version: '1.5.0' }, opts), undefined)
  assert.match(warnings[0]!, /^Skip adding dep to the default catalog because it already exists as \^1\.0\.0/)
})

test('saveEdits saves --save-catalog dependencies as catalog: in package.json and the importer, and adds their ranges to the lockfile\'s catalogs', () => {
  const lockfile: Lockfile = {
    lockfileVersion: '9.0',
    importers: { '.': { dependencies: { dep: { specifier: 'latest', version: '1.2.0' }, linked: { specifier: 'link:../l', version: 'link:../l' } } } },
  }
  const [edit] = addEdits([{ importerId: '.' }], ['dep', 'linked@link:../l'], {
    exact: false, peer: false, savePrefix: '^', catalogs: {}, saveCatalogName: 'tools',
  })
  const { manifests, catalogAdditions } = saveEdits(lockfile, [{ edit: edit!, project: { dir: '/p', manifest: { name: 'p' } } }])
  assert.deepEqual(manifests[0]!.manifest, { name: 'p', dependencies: { dep: 'catalog:tools', linked: 'link:../l' } })
  assert.deepEqual(catalogAdditions, { tools: { dep: '^1.2.0' } })
  assert.deepEqual(lockfile.catalogs, { tools: { dep: { specifier: '^1.2.0', version: '1.2.0' } } })
  assert.equal(lockfile.importers['.']!.dependencies!['dep']!.specifier, 'catalog:tools')
})

test('writeCatalogAdditions: new entries in their sorted place when the catalog was sorted, at the end otherwise; the rest of the file kept', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lode-catalog-save-'))
  const file = path.join(dir, 'pnpm-workspace.yaml')
  fs.writeFileSync(file, 'packages:\n  - packages/*\n# the shared versions\ncatalog:\n  a: ^1.0.0\n  c: ^1.0.0\ncatalogs:\n  old:\n    z: 1.0.0\n    b: 1.0.0\n')
  await writeCatalogAdditions(dir, { default: { b: '^2.0.0' }, old: { c: '3.0.0' }, fresh: { y: '1.0.0', x: '1.0.0' } })
  assert.equal(fs.readFileSync(file, 'utf8'), [
    'packages:', '  - packages/*', '# the shared versions', 'catalog:', '  a: ^1.0.0', '  b: ^2.0.0', '  c: ^1.0.0',
    'catalogs:', '  fresh:', '    x: 1.0.0', '    y: 1.0.0', '  old:', '    z: 1.0.0', '    b: 1.0.0', '    c: 3.0.0', '',
  ].join('\n'))
  // A file that keeps the default catalog under catalogs: it stays there.
  fs.writeFileSync(file, 'catalogs:\n  default:\n    a: ^1.0.0\n')
  await writeCatalogAdditions(dir, { default: { b: '^2.0.0' } })
  assert.equal(fs.readFileSync(file, 'utf8'), 'catalogs:\n  default:\n    a: ^1.0.0\n    b: ^2.0.0\n')
})

test('update --latest of a catalog: dependency moves its catalog entry, keeping what the range pinned; package.json keeps catalog:', () => {
  const lockfile: Lockfile = {
    lockfileVersion: '9.0',
    importers: { '.': { dependencies: { dep: { specifier: 'latest', version: '2.1.0' }, exact: { specifier: 'latest', version: '3.0.0' } } } },
  }
  const [edit] = updateEdits([{ importerId: '.', dir: '/p', manifest: { dependencies: { dep: 'catalog:', exact: 'catalog:pins' } } }], [], {
    latest: true, savePrefix: '^', catalogs: { default: { dep: '~1.0.0' }, pins: { exact: '2.0.0' } },
  })
  assert.deepEqual(edit!.dependencies, [{ alias: 'dep', bareSpecifier: undefined, catalog: { name: 'default', range: '~1.0.0' } }, { alias: 'exact', bareSpecifier: undefined, catalog: { name: 'pins', range: '2.0.0' } }])
  const { manifests, catalogAdditions } = saveEdits(lockfile, [{ edit: edit!, project: { dir: '/p', manifest: { dependencies: { dep: 'catalog:', exact: 'catalog:pins' } } } }])
  assert.deepEqual(catalogAdditions, { default: { dep: '~2.1.0' }, pins: { exact: '3.0.0' } })
  // package.json keeps catalog:, so it is not rewritten.
  assert.deepEqual(manifests, [])
  assert.deepEqual(lockfile.catalogs, { default: { dep: { specifier: '~2.1.0', version: '2.1.0' } }, pins: { exact: { specifier: '3.0.0', version: '3.0.0' } } })
})

test('update --latest of a catalog entry that is an npm: alias moves it to its target\'s latest, as npm:<target>@<range>', () => {
  const lockfile: Lockfile = {
    lockfileVersion: '9.0',
    importers: { '.': { dependencies: { 'foo-alias': { specifier: 'npm:foo@latest', version: 'foo@2.0.0(peer@1.0.0)' } } } },
  }
  const manifest = { dependencies: { 'foo-alias': 'catalog:' } }
  const [edit] = updateEdits([{ importerId: '.', dir: '/p', manifest }], ['foo-alias'], {
    latest: true, savePrefix: '^', catalogs: { default: { 'foo-alias': 'npm:foo@~1.0.0' } },
  })
  assert.deepEqual(edit!.dependencies, [{ alias: 'foo-alias', bareSpecifier: 'npm:foo', catalog: { name: 'default', range: 'npm:foo@~1.0.0' } }])
  const { catalogAdditions } = saveEdits(lockfile, [{ edit: edit!, project: { dir: '/p', manifest } }])
  assert.deepEqual(catalogAdditions, { default: { 'foo-alias': 'npm:foo@~2.0.0' } })
  // Without --latest, an aliased entry stays as it is.
  const [kept] = updateEdits([{ importerId: '.', dir: '/p', manifest }], ['foo-alias'], { latest: false, savePrefix: '^', catalogs: { default: { 'foo-alias': 'npm:foo@~1.0.0' } } })
  assert.deepEqual(kept!.dependencies, [{ alias: 'foo-alias', bareSpecifier: 'catalog:' }])
})
