import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'
import { test } from 'node:test'

import { getConfig, pnpmDataDir, pnpmStorePath } from '@lode/pkg-manager.config.settings'

import { dirs } from './dirs.js'

test('pnpmDataDir: PNPM_HOME, else XDG_DATA_HOME/pnpm on every platform, else the platform\'s place; an empty variable is unset', () => {
  const home = '/h'
  assert.equal(pnpmDataDir({ PNPM_HOME: '/p', XDG_DATA_HOME: '/x' }, home, 'linux'), '/p')
  assert.equal(pnpmDataDir({ PNPM_HOME: '', XDG_DATA_HOME: '/x' }, home, 'darwin'), path.join('/x', 'pnpm'))
  assert.equal(pnpmDataDir({ XDG_DATA_HOME: '' }, home, 'linux'), path.join(home, '.local', 'share', 'pnpm'))
  assert.equal(pnpmDataDir({}, home, 'darwin'), path.join(home, 'Library', 'pnpm'))
  assert.equal(pnpmDataDir({ LOCALAPPDATA: '/l' }, home, 'win32'), path.join('/l', 'pnpm'))
  assert.equal(pnpmDataDir({}, home, 'win32'), path.join(home, '.pnpm'))
})

test('pnpmStorePath with a setting: ~/ is home, relative is from the workspace root, v11 appended unless it ends the path', () => {
  const at = { dir: '/ws/root', home: '/h', dataDir: '/data' }
  assert.equal(pnpmStorePath({ ...at, setting: '~/s' }), path.join('/h', 's', 'v11'))
  assert.equal(pnpmStorePath({ ...at, setting: '../rel' }), path.join('/ws', 'rel', 'v11'))
  assert.equal(pnpmStorePath({ ...at, setting: '/abs/store' }), path.join('/abs', 'store', 'v11'))
  assert.equal(pnpmStorePath({ ...at, setting: '/abs/store/v11' }), path.join('/abs', 'store', 'v11'))
  assert.equal(pnpmStorePath({ ...at, setting: 'rel/v11' }), path.join('/ws', 'root', 'rel', 'v11'))
  // pnpm's test is on the string: only a path ending in `/v11` is taken as versioned.
  assert.equal(pnpmStorePath({ ...at, setting: '/abs/xv11' }), path.join('/abs', 'xv11', 'v11'))
})

test('pnpmStorePath without a setting: the data directory\'s store (created) when the workspace root can hard-link into it; the probe leaves nothing', () => {
  const { dir, home } = dirs()
  const dataDir = path.join(home, 'not-yet', 'pnpm')
  assert.equal(pnpmStorePath({ setting: undefined, dir, home, dataDir }), path.join(dataDir, 'store', 'v11'))
  assert.equal(pnpmStorePath({ setting: '', dir, home, dataDir }), path.join(dataDir, 'store', 'v11'))
  assert.deepEqual(fs.readdirSync(dataDir), [], 'the data directory is created, as pnpm creates it, and left empty')
  assert.deepEqual(fs.readdirSync(dir), [])
  const missing = path.join(dir, 'new', 'project')
  assert.equal(pnpmStorePath({ setting: undefined, dir: missing, home, dataDir }), path.join(dataDir, 'store', 'v11'))
  assert.deepEqual(fs.readdirSync(missing), [], 'a missing workspace root is created, as pnpm creates it')
})

test('Config.storeDir is the store\'s root (without v11), found on first read; formerDefaultStoreDir only when the store is the default', () => {
  const { dir, home } = dirs()
  const config = (storeDir?: string, env: Record<string, string> = {}) =>
    getConfig({ dir, env: { HOME: home, ...env }, overrides: storeDir === undefined ? {} : { storeDir }, lodeVersion: '0.0.0', npmDefaultRegistry: () => 'http://registry.test/' })
  const defaulted = config(undefined, { XDG_DATA_HOME: path.join(home, 'data') })
  assert.equal(fs.existsSync(path.join(home, 'data')), false, 'nothing is probed before the store is asked for')
  assert.equal(defaulted.storeDir, path.join(home, 'data', 'pnpm', 'store'))
  assert.equal(defaulted.formerDefaultStoreDir, path.join(home, 'data', 'lode', 'store'))
  assert.equal(config(path.join(dir, 'x', 'v11')).storeDir, path.join(dir, 'x'))
  assert.equal(config('../y').storeDir, path.join(path.dirname(dir), 'y'))
  assert.equal(config('../y').formerDefaultStoreDir, undefined)
})
