import assert from 'node:assert/strict'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { test } from 'node:test'

import { installedPackageDir } from '../src/index.js'

test('installedPackageDir follows node_modules links to real directories; a dependency is found in the package\'s own node_modules or beside it', () => {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'lode-edit-dir-')))
  const store = path.join(root, 'node_modules', '.pnpm')
  const mid = path.join(store, '@s+mid@1.0.0', 'node_modules', '@s', 'mid')
  const leaf = path.join(store, 'leaf@1.0.0', 'node_modules', 'leaf')
  const own = path.join(mid, 'node_modules', 'own')
  for (const dir of [mid, leaf, own]) fs.mkdirSync(dir, { recursive: true })
  fs.mkdirSync(path.join(root, 'node_modules', '@s'), { recursive: true })
  fs.symlinkSync(mid, path.join(root, 'node_modules', '@s', 'mid'))
  fs.symlinkSync(leaf, path.join(store, '@s+mid@1.0.0', 'node_modules', 'leaf'))
  assert.equal(installedPackageDir(root, '@s/mid'), mid)
  assert.equal(installedPackageDir(root, '@s/mid/leaf'), leaf)
  assert.equal(installedPackageDir(root, '@s/mid/own'), own)
  assert.throws(() => installedPackageDir(root, 'leaf'), { code: 'ERR_LODE_PACKAGE_NOT_FOUND', message: `Could not find package 'leaf' under '${path.join(root, 'node_modules')}'` })
  for (const bad of ['..', '@s/mid/../../x', '.pnpm', '@s']) assert.throws(() => installedPackageDir(root, bad), { code: 'ERR_LODE_INVALID_PACKAGE_NAME' }, bad)
})
