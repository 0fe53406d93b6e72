import assert from 'node:assert/strict'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { test } from 'node:test'

import { parseLockfile, readLockfile, stringifyLockfile, writeLockfile } from '@lode/pkg-manager.lockfile'
import type { Lockfile } from '@lode/pkg-manager.lockfile'

const fixtures = path.join(import.meta.dirname, '..', '..', 'test', 'fixtures')

// Every fixture is a lockfile real pnpm 11 wrote: peers, aliases, tarballs, workspaces, catalogs, patches.
for (const name of fs.readdirSync(fixtures).filter((f) => f.endsWith('.yaml'))) {
  test(`round-trips pnpm's ${name} byte for byte`, () => {
    const text = fs.readFileSync(path.join(fixtures, name), 'utf8')
    const { lockfile } = parseLockfile(text, name)
    assert.equal(stringifyLockfile(lockfile), text)
  })
}

test('keys are re-sorted pnpm\'s way whatever order they come in', () => {
  const lockfile: Lockfile = {
    importers: { '.': { devDependencies: { z: { version: '1.0.0', specifier: '1' } }, dependencies: { b: { specifier: '^1', version: '1.0.0' }, '@a/x': { specifier: '*', version: '2.0.0' } } } },
    packages: {
      'b@1.0.0': { hasBin: true, engines: { node: '>=18' }, resolution: { integrity: 'sha512-x' }, peerDependencies: { q: '^1' }, deprecated: 'gone: use c' },
      '@a/x@2.0.0': { resolution: { integrity: 'sha512-y' } },
    },
    snapshots: { 'b@1.0.0': { optional: true, dependencies: { zz: '1.0.0', os: '2.0.0' } }, '@a/x@2.0.0': {} },
    settings: { autoInstallPeers: true, excludeLinksFromLockfile: false },
    lockfileVersion: '9.0',
  }
  assert.equal(stringifyLockfile(lockfile), `lockfileVersion: '9.0'

settings:
  autoInstallPeers: true
  excludeLinksFromLockfile: false

importers:

  .:
    dependencies:
      '@a/x':
        specifier: '*'
        version: 2.0.0
      b:
        specifier: ^1
        version: 1.0.0
    devDependencies:
      z:
        specifier: '1'
        version: 1.0.0

packages:

  '@a/x@2.0.0':
    resolution: {integrity: sha512-y}

  b@1.0.0:
    resolution: {integrity: sha512-x}
    engines: {node: '>=18'}
    deprecated: 'gone: use c'
    hasBin: true
    peerDependencies:
      q: ^1

snapshots:

  '@a/x@2.0.0': {}

  b@1.0.0:
    dependencies:
      os: 2.0.0
      zz: 1.0.0
    optional: true
`)
})

test('scalars are quoted as js-yaml quotes them', () => {
  const lockfile: Lockfile = {
    lockfileVersion: '9.0',
    importers: {},
    time: { 'a@1.0.0': '2025-01-02T00:00:00.000Z' },
    overrides: { a: 'true', b: '1.0', c: '~', d: 'a #b', e: 'a#b', f: 'x: y', g: 'tab\there', h: 'line\nbreak\n', i: "it's", j: '0x1F', k: '.5', l: 'yes', m: '' },
  }
  assert.equal(stringifyLockfile(lockfile), `lockfileVersion: '9.0'

overrides:
  a: 'true'
  b: '1.0'
  c: '~'
  d: 'a #b'
  e: a#b
  f: 'x: y'
  g: "tab\\there"
  h: |
    line
    break
  i: it's
  j: '0x1F'
  k: '.5'
  l: yes
  m: ''

importers: {}

time:
  a@1.0.0: '2025-01-02T00:00:00.000Z'
`)
})

test('merge conflicts, broken YAML and unknown versions are errors naming the file; nothing is written', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lode-lockfile-'))
  const file = path.join(dir, 'pnpm-lock.yaml')
  const conflicted = "lockfileVersion: '9.0'\n\nimporters:\n<<<<<<< HEAD\n  .: {}\n=======\n  .:\n    dependencies: {}\n>>>>>>> branch\n"
  fs.writeFileSync(file, conflicted)
  await assert.rejects(readLockfile(dir), (err: Error & { code?: string }) => {
    assert.equal(err.code, 'ERR_LODE_LOCKFILE_MERGE_CONFLICT')
    assert.ok(err.message.includes(file))
    return true
  })
  fs.writeFileSync(file, "lockfileVersion: '5.4'\nimporters: {}\n")
  await assert.rejects(readLockfile(dir), (err: Error & { code?: string }) => {
    assert.equal(err.code, 'ERR_LODE_LOCKFILE_UNSUPPORTED_VERSION')
    assert.match(err.message, /'?5\.4/)
    return true
  })
  fs.writeFileSync(file, "lockfileVersion: '9.0'\nimporters:\n  .: {\n")
  await assert.rejects(readLockfile(dir), { code: 'ERR_LODE_BROKEN_LOCKFILE' })
  assert.equal(await readLockfile(path.join(dir, 'missing')), undefined)
})

test('writeLockfile leaves an unchanged lockfile alone', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lode-lockfile-'))
  const lockfile: Lockfile = { lockfileVersion: '9.0', settings: { autoInstallPeers: true, excludeLinksFromLockfile: false }, importers: { '.': {} } }
  assert.equal(await writeLockfile(dir, lockfile), true)
  const file = path.join(dir, 'pnpm-lock.yaml')
  const before = fs.statSync(file)
  assert.equal(await writeLockfile(dir, lockfile), false)
  assert.equal(fs.statSync(file).mtimeMs, before.mtimeMs)
  assert.equal(fs.readFileSync(file, 'utf8'), fs.readFileSync(path.join(fixtures, 'sample-empty-pnpm-lock.yaml'), 'utf8'))
  assert.deepEqual(fs.readdirSync(dir), ['pnpm-lock.yaml'])
})
