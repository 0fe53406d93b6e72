import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'
import { test } from 'node:test'

import { getConfig } from '@lode/pkg-manager.config.settings'

import { settingsFromEnv } from '../src/env-settings.js'
import { dirs } from './dirs.js'

test('pnpm_config_* names a setting in snake case, either case of prefix; values read as JSON where they are; unknown names are left alone', () => {
  const read = settingsFromEnv({
    pnpm_config_frozen_lockfile: 'false',
    PNPM_CONFIG_NODE_LINKER: 'hoisted',
    pnpm_config_network_concurrency: '8',
    pnpm_config_trust_policy_exclude: '["a@1.0.0"]',
    pnpm_config_no_such_thing: 'x',
    npm_config_frozen_lockfile: 'true',
  })
  assert.deepEqual(read.settings, { frozenLockfile: false, nodeLinker: 'hoisted', networkConcurrency: 8, trustPolicyExclude: ['a@1.0.0'] })
  assert.equal(read.variables['nodeLinker'], 'PNPM_CONFIG_NODE_LINKER')
  assert.equal(read.raw['networkConcurrency'], '8')
})

test('the environment wins over pnpm-workspace.yaml, the command line over both; a wrong type or a refused setting names the variable', () => {
  const { dir, home } = dirs()
  fs.writeFileSync(path.join(home, '.npmrc'), 'registry=http://user.test/\n')
  fs.writeFileSync(path.join(dir, 'pnpm-workspace.yaml'), 'frozenLockfile: true\nsavePrefix: "~"\n')
  const read = (env: Record<string, string>, overrides = {}) =>
    getConfig({ dir, env: { HOME: home, ...env }, overrides, lodeVersion: '0.0.0', npmDefaultRegistry: () => { throw new Error('npm was asked') } })
  assert.equal(read({}).frozenLockfile, true)
  assert.equal(read({ pnpm_config_frozen_lockfile: 'false' }).frozenLockfile, false)
  assert.equal(read({ pnpm_config_frozen_lockfile: 'false' }, { frozenLockfile: true }).frozenLockfile, true)
  // A string setting whose text reads as JSON stays text.
  assert.equal(read({ pnpm_config_save_prefix: '' }).savePrefix, '')
  assert.throws(() => read({ pnpm_config_frozen_lockfile: 'maybe' }), (err: Error & { code?: string }) =>
    err.code === 'ERR_LODE_INVALID_SETTING' && err.message.includes('pnpm_config_frozen_lockfile'))
  assert.throws(() => read({ pnpm_config_dedupe_direct_deps: 'true' }), (err: Error & { code?: string }) =>
    err.code === 'ERR_LODE_UNSUPPORTED_SETTING' && err.message.includes('dedupeDirectDeps') && err.message.includes('pnpm_config_'))
})

test('in CI, frozenLockfile is on by default, and marked as CI\'s default only when nothing set it', () => {
  const { dir, home } = dirs()
  fs.writeFileSync(path.join(home, '.npmrc'), 'registry=http://user.test/\n')
  const read = (env: Record<string, string>) =>
    getConfig({ dir, env: { HOME: home, ...env }, overrides: {}, lodeVersion: '0.0.0', npmDefaultRegistry: () => { throw new Error('npm was asked') } })
  assert.deepEqual([read({ CI: 'true' }).frozenLockfile, read({ CI: 'true' }).frozenLockfileIfExists], [true, true])
  assert.deepEqual([read({ CI: 'true', pnpm_config_frozen_lockfile: 'true' }).frozenLockfile, read({ CI: 'true', pnpm_config_frozen_lockfile: 'true' }).frozenLockfileIfExists], [true, false])
  assert.deepEqual([read({}).frozenLockfile, read({}).frozenLockfileIfExists], [false, false])
})
