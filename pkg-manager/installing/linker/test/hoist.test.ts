import assert from 'node:assert/strict'
import path from 'node:path'
import { test } from 'node:test'

import type { Lockfile } from '@lode/pkg-manager.lockfile.format'

import { planHoisting, planWorkspaceHoisting, stillHoisted } from '../src/hoist.js'
import { planLayout } from '../src/layout.js'

const ROOT = path.join(path.sep, 'p')
const INCLUDE = { dependencies: true, devDependencies: true, optionalDependencies: true }
const HOIST = { hoistPattern: ['*'], publicHoistPattern: [] }

function layoutOf (lockfile: Lockfile): ReturnType<typeof planLayout> {
  return planLayout(lockfile, { lockfileDir: ROOT, importers: [{ id: '.', dir: ROOT }], include: INCLUDE, virtualStoreDir: path.join(ROOT, 'node_modules', '.pnpm'), virtualStoreDirMaxLength: 120 })
}

const pkg = (): { resolution: { integrity: string } } => ({ resolution: { integrity: 'sha512-AAAA' } })

test('planHoisting: an alias is hoisted where it is first met, by depth then dependency path; the importer\'s own names are taken', () => {
  const lockfile: Lockfile = {
    lockfileVersion: '9.0',
    importers: { '.': { dependencies: { a: { specifier: '1.0.0', version: '1.0.0' }, b: { specifier: '1.0.0', version: '1.0.0' } } } },
    packages: { 'a@1.0.0': pkg(), 'b@1.0.0': pkg(), 'x@1.0.0': pkg(), 'x@2.0.0': pkg(), 'y@1.0.0': pkg(), 'z@1.0.0': pkg(), 'b@2.0.0': pkg() },
    snapshots: {
      'a@1.0.0': { dependencies: { x: '1.0.0', b: '2.0.0' } },
      'b@1.0.0': { dependencies: { x: '2.0.0', y: '1.0.0' } },
      'x@1.0.0': { dependencies: { z: '1.0.0' } },
      'x@2.0.0': {},
      'y@1.0.0': {},
      'z@1.0.0': {},
      'b@2.0.0': {},
    },
  }
  const hoisted = planHoisting(layoutOf(lockfile), HOIST)
  assert.deepEqual(hoisted.map((dep) => `${dep.alias} -> ${dep.depPath} (${dep.type})`), [
    'x -> x@1.0.0 (private)',
    'y -> y@1.0.0 (private)',
    'z -> z@1.0.0 (private)',
  ])
})

test('planHoisting: a chain 10,000 deep is walked without recursion, every package hoisted once', () => {
  const n = 10_000
  const packages: Lockfile['packages'] = {}
  const snapshots: Lockfile['snapshots'] = {}
  for (let i = 0; i < n; i++) {
    packages[`p${i}@1.0.0`] = pkg()
    snapshots[`p${i}@1.0.0`] = i + 1 < n ? { dependencies: { [`p${i + 1}`]: '1.0.0' } } : {}
  }
  const layout = layoutOf({ lockfileVersion: '9.0', importers: { '.': { dependencies: { p0: { specifier: '1.0.0', version: '1.0.0' } } } }, packages, snapshots })
  const hoisted = planHoisting(layout, HOIST)
  assert.equal(hoisted.length, n - 1)
  assert.equal(hoisted[0]!.alias, 'p1')
  assert.equal(hoisted.at(-1)!.alias, `p${n - 1}`)
})

test('planWorkspaceHoisting: projects hoisted by name unless a package takes it, in the layout or with a project a filtered install left out', () => {
  const lockfile: Lockfile = {
    lockfileVersion: '9.0',
    importers: { '.': { dependencies: { a: { specifier: '1.0.0', version: '1.0.0' }, lib: { specifier: 'link:lib', version: 'link:lib' } } } },
    packages: { 'a@1.0.0': pkg() },
    snapshots: { 'a@1.0.0': {} },
  }
  const projects = [
    { id: '.', dir: ROOT, name: 'root' },
    { id: 'a', dir: path.join(ROOT, 'a'), name: 'a' },
    { id: 'lib', dir: path.join(ROOT, 'lib'), name: 'lib' },
    { id: 'c', dir: path.join(ROOT, 'c'), name: 'c' },
  ]
  const names = (takenElsewhere: string[] = []): string[] =>
    planWorkspaceHoisting(projects, layoutOf(lockfile), { ...HOIST, takenElsewhere }).map((dep) => `${dep.alias} -> ${dep.depPath} (${dep.type})`)
  // `a` is a registry package the root depends on; `lib` only a link to the project itself.
  assert.deepEqual(names(), ['lib -> lib (private)', 'c -> c (private)'])
  assert.deepEqual(names(['C']), ['lib -> lib (private)'])
})

test('stillHoisted: what the last install hoisted stays while its package is installed and no one takes the alias; publicly not over a root dependency', () => {
  const lockfile: Lockfile = {
    lockfileVersion: '9.0',
    importers: { '.': { dependencies: { a: { specifier: '1.0.0', version: '1.0.0' }, foo: { specifier: '1.1.0', version: '1.1.0' } } } },
    packages: { 'a@1.0.0': pkg(), 'foo@1.0.0': pkg(), 'foo@1.1.0': pkg(), 'x@1.0.0': pkg() },
    snapshots: { 'a@1.0.0': { dependencies: { foo: '1.0.0', x: '1.0.0' } }, 'foo@1.0.0': {}, 'foo@1.1.0': {}, 'x@1.0.0': {} },
  }
  const layout = layoutOf(lockfile)
  const plan = planHoisting(layout, HOIST)
  assert.deepEqual(plan.map((dep) => dep.alias), ['x'])
  const previous = {
    'foo@1.0.0': { foo: 'private' },
    'x@1.0.0': { x: 'private', 'x-old': 'private' },
    'gone@1.0.0': { gone: 'private' },
    'a@1.0.0': { a: 'public' },
    'foo@1.1.0': { weird: 'other' },
  }
  assert.deepEqual(stillHoisted(previous, plan, layout).map((dep) => `${dep.alias} -> ${dep.depPath} (${dep.type})`), [
    'foo -> foo@1.0.0 (private)',
    'x-old -> x@1.0.0 (private)',
  ])
  assert.deepEqual(stillHoisted(undefined, plan, layout), [])
})

test('planHoisting: the peers a resolution hoisted to a project are hoisted from after its own dependencies, before a later project\'s; not the root\'s', () => {
  const dep = (version: string): { specifier: string, version: string } => ({ specifier: version, version })
  const lockfile: Lockfile = {
    lockfileVersion: '9.0',
    importers: {
      '.': { dependencies: { a: { specifier: 'npm:host@4.10.0', version: 'host@4.10.0' } } },
      'packages/pkg': { dependencies: { plugin: dep('1.5.0') } },
      'packages/pkg2': { dependencies: { host: dep('5.0.0') } },
    },
    packages: { 'host@4.10.0': pkg(), 'host@5.0.0': pkg(), 'plugin@1.5.0': pkg(), 'other@1.0.0': pkg() },
    snapshots: { 'host@4.10.0': {}, 'host@5.0.0': {}, 'plugin@1.5.0(host@4.10.0)': { dependencies: { host: '4.10.0' } }, 'other@1.0.0': {} },
  }
  lockfile.importers['packages/pkg']!.dependencies!['plugin']!.version = '1.5.0(host@4.10.0)'
  const importers = [{ id: '.', dir: ROOT }, ...['pkg', 'pkg2'].map((name) => ({ id: `packages/${name}`, dir: path.join(ROOT, 'packages', name) }))]
  type Peers = Record<string, Array<{ alias: string, depPath: string }>>
  const hoistedWith = (hoistedPeers: Peers): string[] => planHoisting(planLayout(lockfile, {
    lockfileDir: ROOT, importers, include: INCLUDE, virtualStoreDir: path.join(ROOT, 'node_modules', '.pnpm'), virtualStoreDirMaxLength: 120, hoistedPeers,
  }), HOIST).map((hoisted) => `${hoisted.alias} -> ${hoisted.depPath}`)
  assert.deepEqual(hoistedWith({}), ['plugin -> plugin@1.5.0(host@4.10.0)', 'host -> host@5.0.0'])
  // pkg's peer host (the root's 4.10.0) comes before pkg2's own host; one the layout lacks is no start.
  assert.deepEqual(hoistedWith({ 'packages/pkg': [{ alias: 'host', depPath: 'host@4.10.0' }, { alias: 'other', depPath: 'other@1.0.0' }] }), ['plugin -> plugin@1.5.0(host@4.10.0)', 'host -> host@4.10.0'])
  assert.deepEqual(hoistedWith({ '.': [{ alias: 'host', depPath: 'host@4.10.0' }] }), ['plugin -> plugin@1.5.0(host@4.10.0)', 'host -> host@5.0.0'])
  // An edit inside pkg2 alone: hoisting starts from pkg2's dependencies only.
  const layout = planLayout(lockfile, { lockfileDir: ROOT, importers, include: INCLUDE, virtualStoreDir: path.join(ROOT, 'node_modules', '.pnpm'), virtualStoreDirMaxLength: 120 })
  assert.deepEqual(planHoisting(layout, { ...HOIST, startImporters: new Set(['packages/pkg2']) }).map((hoisted) => `${hoisted.alias} -> ${hoisted.depPath}`), ['host -> host@5.0.0'])
})
