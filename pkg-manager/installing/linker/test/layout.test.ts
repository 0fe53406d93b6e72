import assert from 'node:assert/strict'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { test } from 'node:test'

import type { Lockfile } from '@lode/pkg-manager.lockfile.format'

import { planLayout } from '../src/layout.js'

const ROOT = path.join(path.sep, 'p')
const STORE = path.join(ROOT, 'node_modules', '.pnpm')
const INCLUDE = { dependencies: true, devDependencies: true, optionalDependencies: true }
const pkg = (): { resolution: { integrity: string } } => ({ resolution: { integrity: 'sha512-AAAA' } })

const layoutOf = (lockfile: Lockfile, skipped: string[] = []): ReturnType<typeof planLayout> => planLayout(lockfile, {
  lockfileDir: ROOT,
  importers: [{ id: '.', dir: ROOT }],
  include: INCLUDE,
  virtualStoreDir: STORE,
  virtualStoreDirMaxLength: 120,
  skipped: new Set(skipped),
})

test('planLayout: each package beside its dependencies\' links; another version of itself in its own node_modules; skipped ones unlinked', () => {
  const lockfile: Lockfile = {
    lockfileVersion: '9.0',
    importers: { '.': { dependencies: { self: { specifier: '2.0.0', version: '2.0.0' }, a: { specifier: '1.0.0', version: '1.0.0' } } } },
    packages: { 'self@1.0.0': pkg(), 'self@2.0.0': pkg(), 'a@1.0.0': pkg(), 'opt@1.0.0': pkg() },
    snapshots: {
      'self@1.0.0': {},
      'self@2.0.0': { dependencies: { self: '1.0.0', a: '1.0.0' } },
      'a@1.0.0': { dependencies: { a: '1.0.0' }, optionalDependencies: { opt: '1.0.0' } },
      'opt@1.0.0': { optional: true },
    },
  }
  const byDepPath = (layout: ReturnType<typeof planLayout>): Map<string, string[]> => new Map(layout.packages.map((laid) =>
    [laid.depPath, laid.links.map((link) => `${path.relative(STORE, link.path)} -> ${path.relative(STORE, link.target)}`)]))
  const links = byDepPath(layoutOf(lockfile))
  assert.deepEqual(links.get('self@2.0.0'), [
    `${path.join('self@2.0.0', 'node_modules', 'self', 'node_modules', 'self')} -> ${path.join('self@1.0.0', 'node_modules', 'self')}`,
    `${path.join('self@2.0.0', 'node_modules', 'a')} -> ${path.join('a@1.0.0', 'node_modules', 'a')}`,
  ])
  // The same version of itself: no link (it is there already).
  assert.deepEqual(links.get('a@1.0.0'), [`${path.join('a@1.0.0', 'node_modules', 'opt')} -> ${path.join('opt@1.0.0', 'node_modules', 'opt')}`])
  const skipping = byDepPath(layoutOf(lockfile, ['opt@1.0.0']))
  assert.deepEqual(skipping.get('a@1.0.0'), [])
  assert.equal(skipping.has('opt@1.0.0'), false)
})

test('planLayout: a project whose directory is a symlink gets its node_modules where it really is; one under a linked parent keeps its path', () => {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'layout-'))
  try {
    fs.mkdirSync(path.join(tmp, 'elsewhere', 'real'), { recursive: true })
    fs.mkdirSync(path.join(tmp, 'ws'))
    fs.symlinkSync(path.join(tmp, 'elsewhere', 'real'), path.join(tmp, 'ws', 'linked'))
    fs.symlinkSync(path.join(tmp, 'elsewhere'), path.join(tmp, 'ws', 'parent'))
    const importers = [{ id: 'linked', dir: path.join(tmp, 'ws', 'linked') }, { id: 'parent/real', dir: path.join(tmp, 'ws', 'parent', 'real') }]
    const lockfile: Lockfile = {
      lockfileVersion: '9.0',
      importers: { linked: { dependencies: { a: { specifier: '1.0.0', version: '1.0.0' } } }, 'parent/real': {} },
      packages: { 'a@1.0.0': pkg() },
      snapshots: { 'a@1.0.0': {} },
    }
    const store = path.join(tmp, 'ws', 'node_modules', '.pnpm')
    const layout = planLayout(lockfile, { lockfileDir: path.join(tmp, 'ws'), importers, include: INCLUDE, virtualStoreDir: store, virtualStoreDirMaxLength: 120 })
    assert.deepEqual(layout.directLinks, [{ path: path.join(tmp, 'elsewhere', 'real', 'node_modules', 'a'), target: path.join(store, 'a@1.0.0', 'node_modules', 'a') }])
    assert.equal(layout.importers[1]!.modulesDir, path.join(tmp, 'ws', 'parent', 'real', 'node_modules'))
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true })
  }
})

test('planLayout: a directory a resolution hoisted to an importer as a peer is linked into its node_modules, unless the importer has that alias', () => {
  const lockfile: Lockfile = {
    lockfileVersion: '9.0',
    importers: { '.': { dependencies: { a: { specifier: '1.0.0', version: '1.0.0' } } } },
    packages: { 'a@1.0.0': pkg() },
    snapshots: { 'a@1.0.0': {} },
  }
  const layout = planLayout(lockfile, {
    lockfileDir: ROOT,
    importers: [{ id: '.', dir: ROOT }],
    include: INCLUDE,
    virtualStoreDir: STORE,
    virtualStoreDirMaxLength: 120,
    hoistedPeers: { '.': [{ alias: 'host', dir: path.join(ROOT, 'packages', 'host') }, { alias: 'a', dir: path.join(ROOT, 'packages', 'a') }] },
  })
  assert.deepEqual(layout.directLinks.map((link) => `${path.relative(ROOT, link.path)} -> ${path.relative(ROOT, link.target)}`), [
    `${path.join('node_modules', 'a')} -> ${path.join('node_modules', '.pnpm', 'a@1.0.0', 'node_modules', 'a')}`,
    `${path.join('node_modules', 'host')} -> ${path.join('packages', 'host')}`,
  ])
  assert.deepEqual(layout.importers[0]!.hoistedPeers, [])
})
