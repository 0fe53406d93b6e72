import assert from 'node:assert/strict'
import { createHash } from 'node:crypto'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { test } from 'node:test'

import type { Lockfile } from '@lode/pkg-manager.lockfile.format'

import { localSourcesOutdated } from '../src/local-sources-outdated.js'

const integrity = (bytes: Buffer): string => `sha512-${createHash('sha512').update(bytes).digest('base64')}`

function lockfileWith (dependencies: Record<string, string>, tarballIntegrity: string): Lockfile {
  return {
    lockfileVersion: '9.0',
    importers: { '.': { dependencies: { local: { specifier: 'file:./local-dir', version: 'file:local-dir' }, packed: { specifier: 'file:./packed.tgz', version: 'file:packed.tgz' } } } },
    packages: {
      'local@file:local-dir': { resolution: { directory: 'local-dir', type: 'directory' } },
      'packed@file:packed.tgz': { resolution: { integrity: tarballIntegrity, tarball: 'file:packed.tgz' } },
    },
    snapshots: { 'local@file:local-dir': { dependencies }, 'packed@file:packed.tgz': {} },
  }
}

test('localSourcesOutdated: a file: directory\'s package.json against its snapshot (peers may be locked among its dependencies)', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lode-local-sources-'))
  fs.mkdirSync(path.join(dir, 'local-dir'))
  fs.writeFileSync(path.join(dir, 'packed.tgz'), 'bytes')
  const packed = integrity(Buffer.from('bytes'))
  const manifest = (fields: Record<string, unknown>): void => { fs.writeFileSync(path.join(dir, 'local-dir', 'package.json'), JSON.stringify({ name: 'local', version: '1.0.0', ...fields })) }
  const importers = [{ id: '.' }]
  manifest({ dependencies: { dep: '^1.0.0' }, peerDependencies: { host: '*' } })
  assert.equal(localSourcesOutdated(lockfileWith({ dep: '1.2.0', host: '2.0.0' }, packed), importers, dir, { frozen: true }), undefined)
  assert.match(localSourcesOutdated(lockfileWith({ dep: '2.0.0' }, packed), importers, dir, { frozen: false })!, /wants dep@\^1\.0\.0, locked at 2\.0\.0/)
  assert.match(localSourcesOutdated(lockfileWith({}, packed), importers, dir, { frozen: false })!, /has dep in its dependencies, which pnpm-lock\.yaml does not/)
  manifest({})
  assert.match(localSourcesOutdated(lockfileWith({ dep: '1.2.0' }, packed), importers, dir, { frozen: false })!, /no longer has dep in its dependencies/)
})

test('localSourcesOutdated: a file: tarball against its locked integrity: out of date, ERR_LODE_TARBALL_INTEGRITY when frozen, ERR_LODE_TARBALL_READ_LOCAL when gone', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lode-local-sources-'))
  fs.mkdirSync(path.join(dir, 'local-dir'))
  fs.writeFileSync(path.join(dir, 'local-dir', 'package.json'), JSON.stringify({ name: 'local', version: '1.0.0' }))
  fs.writeFileSync(path.join(dir, 'packed.tgz'), 'repacked')
  const stale = lockfileWith({}, integrity(Buffer.from('bytes')))
  assert.match(localSourcesOutdated(stale, [{ id: '.' }], dir, { frozen: false })!, /packed@file:packed\.tgz's tarball .*packed\.tgz changed/)
  assert.throws(() => localSourcesOutdated(stale, [{ id: '.' }], dir, { frozen: true }), { code: 'ERR_LODE_TARBALL_INTEGRITY' })
  assert.equal(localSourcesOutdated(lockfileWith({}, integrity(Buffer.from('repacked'))), [{ id: '.' }], dir, { frozen: true }), undefined)
  fs.rmSync(path.join(dir, 'packed.tgz'))
  assert.throws(() => localSourcesOutdated(stale, [{ id: '.' }], dir, { frozen: false }), { code: 'ERR_LODE_TARBALL_READ_LOCAL' })
})
