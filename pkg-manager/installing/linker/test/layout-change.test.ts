import assert from 'node:assert/strict'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { test } from 'node:test'

import type { Config } from '@lode/pkg-manager.config.settings'
import { storePath } from '@lode/store.cafs'

import { assertCanPurge, layoutChange } from '../src/layout-change.js'
import type { ModulesManifest } from '../src/modules-manifest.js'
import { readModulesManifest } from '../src/modules-manifest.js'

const ROOT = path.join(path.sep, 'p')
const MODULES_DIR = path.join(ROOT, 'node_modules')
const CONFIG = {
  virtualStoreDirMaxLength: 120,
  publicHoistPattern: [],
  hoistPattern: ['*'],
  nodeLinker: 'isolated',
  storeDir: path.join(ROOT, 'store'),
  virtualStoreDir: path.join(MODULES_DIR, '.pnpm'),
  confirmModulesPurge: true,
} as unknown as Config

/** `.modules.yaml` as this pnpm writes it for CONFIG, with `fields` changed. */
const manifest = (fields: Partial<ModulesManifest> = {}): ModulesManifest => ({
  hoistPattern: ['*'],
  publicHoistPattern: [],
  layoutVersion: 5,
  nodeLinker: 'isolated',
  storeDir: storePath(CONFIG.storeDir),
  virtualStoreDir: '.pnpm',
  virtualStoreDirMaxLength: 120,
  ...fields,
} as ModulesManifest)

test('layoutChange: each setting node_modules was laid out with, in pnpm\'s order; an older pnpm\'s layout by its layoutVersion', () => {
  const codeOf = (fields: Partial<ModulesManifest>): string | undefined => layoutChange(CONFIG, manifest(fields), MODULES_DIR)?.code
  assert.equal(codeOf({}), undefined)
  assert.equal(layoutChange(CONFIG, undefined, MODULES_DIR), undefined)
  assert.equal(codeOf({ hoistPattern: [] }), 'HOIST_PATTERN_DIFF')
  assert.equal(codeOf({ publicHoistPattern: ['*eslint*'] }), 'PUBLIC_HOIST_PATTERN_DIFF')
  assert.equal(codeOf({ layoutVersion: 1 }), 'MODULES_BREAKING_CHANGE')
  assert.equal(codeOf({ storeDir: path.join(ROOT, 'other') }), 'UNEXPECTED_STORE')
  assert.equal(codeOf({ virtualStoreDir: 'elsewhere' }), 'UNEXPECTED_VIRTUAL_STORE')
  // An old pnpm's record has neither hoistPattern nor layoutVersion: the hoist pattern is what pnpm names first.
  const old = { storeDir: storePath(CONFIG.storeDir) } as ModulesManifest
  assert.equal(layoutChange(CONFIG, old, MODULES_DIR)?.code, 'HOIST_PATTERN_DIFF')
  assert.equal(codeOf({ hoistPattern: [], publicHoistPattern: ['*'] }), 'PUBLIC_HOIST_PATTERN_DIFF')
})

test('assertCanPurge: an edit or a filtered install names the change; a full one asks for confirmModulesPurge: false', () => {
  const change = layoutChange(CONFIG, manifest({ layoutVersion: 1 }), MODULES_DIR)!
  assert.throws(() => { assertCanPurge(change, { config: CONFIG, modulesDir: MODULES_DIR, filtered: true }) }, {
    code: 'ERR_LODE_MODULES_BREAKING_CHANGE',
    message: /laid out by another pnpm version.*only a full install lays it out anew/,
  })
  assert.throws(() => { assertCanPurge(change, { config: CONFIG, modulesDir: MODULES_DIR, filtered: false }) }, {
    code: 'ERR_LODE_ABORTED_REMOVE_MODULES_DIR',
    message: /laid out by another pnpm version/,
  })
  const unconfirmed = { ...CONFIG, confirmModulesPurge: false }
  assert.doesNotThrow(() => { assertCanPurge(change, { config: unconfirmed, modulesDir: MODULES_DIR, filtered: false }) })
})

test('readModulesManifest: pnpm\'s JSON, an older pnpm\'s YAML, an empty file as none', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lode-modules-'))
  const file = path.join(dir, '.modules.yaml')
  fs.writeFileSync(file, JSON.stringify({ layoutVersion: 5, storeDir: '/s' }))
  assert.deepEqual(await readModulesManifest(dir), { layoutVersion: 5, storeDir: '/s' })
  fs.writeFileSync(file, 'packageManager: pnpm@0.50.0\nstoreDir: /s\n')
  assert.deepEqual(await readModulesManifest(dir), { packageManager: 'pnpm@0.50.0', storeDir: '/s' })
  fs.writeFileSync(file, '')
  assert.equal(await readModulesManifest(dir), undefined)
  fs.writeFileSync(file, 'a: [\n')
  assert.equal(await readModulesManifest(dir), undefined)
  fs.rmSync(dir, { recursive: true })
  assert.equal(await readModulesManifest(dir), undefined)
})
