import assert from 'node:assert/strict'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { test } from 'node:test'

import { parseLockfile, stringifyLockfile } from '@lode/pkg-manager.lockfile.format'
import type { Lockfile } from '@lode/pkg-manager.lockfile.format'

import { readInstalledLockfile } from '../src/previous-install.js'

const LOCKFILE: Lockfile = {
  lockfileVersion: '9.0',
  settings: { autoInstallPeers: true, excludeLinksFromLockfile: false },
  importers: { '.': { dependencies: { a: { specifier: '^1.0.0', version: '1.0.0' } } } },
  packages: { 'a@1.0.0': { resolution: { integrity: 'sha512-AAAA' } } },
  snapshots: { 'a@1.0.0': {} },
}

test('readInstalledLockfile: .pnpm/lock.yaml of pnpm-lock.yaml\'s very text is the lockfile read from it; other text is parsed; none is undefined', async (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lode-previous-install-'))
  t.after(() => { fs.rmSync(dir, { recursive: true, force: true }) })
  const modulesDir = path.join(dir, 'node_modules')
  assert.equal(await readInstalledLockfile(modulesDir), undefined)

  const text = stringifyLockfile(LOCKFILE)
  const asRead = { text, lockfile: parseLockfile(text, 'pnpm-lock.yaml').lockfile }
  fs.mkdirSync(path.join(modulesDir, '.pnpm'), { recursive: true })
  fs.writeFileSync(path.join(modulesDir, '.pnpm', 'lock.yaml'), text)
  assert.equal(await readInstalledLockfile(modulesDir, asRead), asRead.lockfile, 'the same object: not parsed again')

  // The last install wrote another lockfile (a filtered install, another resolution): read as it is.
  const other = { ...LOCKFILE, importers: { '.': {} } }
  fs.writeFileSync(path.join(modulesDir, '.pnpm', 'lock.yaml'), stringifyLockfile(other))
  const installed = await readInstalledLockfile(modulesDir, asRead)
  assert.notEqual(installed, asRead.lockfile)
  assert.deepEqual(installed?.importers, { '.': {} })

  // Unreadable: as if there were none (the install reads past it), whatever pnpm-lock.yaml holds.
  fs.writeFileSync(path.join(modulesDir, '.pnpm', 'lock.yaml'), 'lockfileVersion: [unclosed\n')
  assert.equal(await readInstalledLockfile(modulesDir, asRead), undefined)
})
