import assert from 'node:assert/strict'
import { test } from 'node:test'

import { toLockfile } from '../src/lockfile-output.js'
import type { ToLockfileInput } from '../src/lockfile-output.js'
import { PeerResolver } from '../src/resolve-peers.js'
import type { Edge, Importer, ResolvedPackage } from '../src/types.js'
import { pkg } from './packages.js'

const edge = (name: string, version = '1.0.0'): Edge => ({ alias: name, pkgId: `${name}@${version}`, optional: false })
const at = (name: string, version: string): ResolvedPackage => ({ ...pkg(name), id: `${name}@${version}`, version })

/** The lockfile of one importer that depends on `top`, over the packages and dependencies given. */
function lockfileOf (packages: Map<string, ResolvedPackage>, children: Map<string, Edge[]>, top: Edge[]): ReturnType<typeof toLockfile>['lockfile'] {
  const peers = new PeerResolver({ packages, children, peersSuffixMaxLength: 1000 })
  const roots = [peers.resolveImporter(top)]
  const importer: Importer = { id: '.', dir: '/project', manifest: { name: 'app', version: '1.0.0' } }
  const input: ToLockfileInput = {
    importers: [importer],
    direct: [{ wanted: top.map((e) => ({ alias: e.alias, bareSpecifier: e.pkgId.split('@')[1]!, optional: false })), groups: top.map(() => 'dependencies'), edges: top, hidden: [] }],
    providers: [[]],
    roots,
    peers,
    packages,
    lockfile: undefined,
    autoInstallPeers: true,
    peersSuffixMaxLength: 1000,
    settings: {},
    dedupePeerDependents: false,
    dedupeInjectedDeps: false,
    dedupePeers: false,
    injectWorkspacePackages: false,
  }
  return toLockfile(input).lockfile
}

test('toLockfile: importers, packages and snapshots with peer suffixes, as pnpm writes them', () => {
  const packages = new Map<string, ResolvedPackage>([['a@1.0.0', pkg('a')], ['b@1.0.0', pkg('b', { p: '^1.0.0' })], ['p@1.0.0', pkg('p')]])
  const lockfile = lockfileOf(packages, new Map([['a@1.0.0', [edge('b')]]]), [edge('a'), edge('p')])
  assert.deepEqual(lockfile.importers, {
    '.': { dependencies: { a: { specifier: '1.0.0', version: '1.0.0(p@1.0.0)' }, p: { specifier: '1.0.0', version: '1.0.0' } } },
  })
  assert.deepEqual(Object.keys(lockfile.snapshots ?? {}).sort(), ['a@1.0.0(p@1.0.0)', 'b@1.0.0(p@1.0.0)', 'p@1.0.0'])
  assert.deepEqual(lockfile.snapshots!['a@1.0.0(p@1.0.0)'], { dependencies: { b: '1.0.0(p@1.0.0)' }, transitivePeerDependencies: ['p'] })
  assert.deepEqual(lockfile.packages!['b@1.0.0'], { resolution: { integrity: 'sha512-x' } })
})

test('toLockfile: a snapshot reached through a cycle lists the dependencies the cycle cut there, from its package above it (pnpm\'s previously resolved children)', () => {
  // x (peer p) depends on y and z, y on x and on p@2: below y, x takes p@2 and the cycle cuts its y.
  const packages = new Map<string, ResolvedPackage>([
    ['x@1.0.0', pkg('x', { p: '*' })],
    ['y@1.0.0', pkg('y')],
    ['z@1.0.0', pkg('z')],
    ['p@1.0.0', pkg('p')],
    ['p@2.0.0', at('p', '2.0.0')],
  ])
  const children = new Map<string, Edge[]>([['x@1.0.0', [edge('y'), edge('z')]], ['y@1.0.0', [edge('x'), edge('p', '2.0.0')]]])
  const lockfile = lockfileOf(packages, children, [edge('x'), edge('p')])
  assert.deepEqual(lockfile.snapshots!['x@1.0.0(p@2.0.0)'], { dependencies: { p: '2.0.0', y: '1.0.0', z: '1.0.0' } })
  assert.deepEqual(lockfile.snapshots!['x@1.0.0(p@1.0.0)'], { dependencies: { p: '1.0.0', y: '1.0.0', z: '1.0.0' } })
})
