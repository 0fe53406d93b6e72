import assert from 'node:assert/strict'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { test } from 'node:test'

import type { Config } from '@lode/pkg-manager.config.settings'

import { diagnose } from '../src/index.js'
import type { DoctorOptions } from '../src/index.js'

function setup (): { config: Config, root: string } {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'lode-doctor-test-'))
  // Only what the checks read: offline, no registry is asked.
  const config = { cacheDir: path.join(root, 'cache'), storeDir: path.join(root, 'store'), registry: 'http://127.0.0.1:9/', fetchTimeout: 1000 } as unknown as Config
  return { config, root }
}

const options = (overrides: Partial<DoctorOptions> = {}): DoctorOptions => ({
  version: '9.9.9',
  offline: true,
  benchmark: false,
  onWarning: () => {},
  installOffline: (consumer) => {
    // As lode's install does: the file: dependency linked into node_modules.
    fs.mkdirSync(path.join(consumer, 'node_modules'), { recursive: true })
    fs.symlinkSync(path.join(consumer, '..', 'provider'), path.join(consumer, 'node_modules', 'lode-doctor-fixture'))
    return { status: 0, stderr: '' }
  },
  ...overrides,
})

test('diagnose: the versions, the directories (made when missing), the filesystem\'s links, the registry skipped offline, the smoke install', async () => {
  const { config } = setup()
  const checks = await diagnose(config, options())
  assert.deepEqual(checks.map((check) => [check.title, check.status]), [
    ['Versions', 'pass'], ['Cache directory', 'pass'], ['Store directory', 'pass'], ['Filesystem', 'pass'], ['Registry connectivity', 'pass'], ['Install smoke test', 'pass'],
  ])
  assert.equal(checks[0]!.detail, `lode 9.9.9, Node.js ${process.versions.node}`)
  assert.match(checks[3]!.detail!, /hardlink/)
  assert.equal(checks[4]!.detail, 'skipped (--offline)')
  assert.deepEqual(fs.readdirSync(config.storeDir), [], 'the probes leave nothing behind')
})

test('diagnose fails a directory it cannot write, an install that fails (its last line said) or links nothing, a registry that does not answer', async () => {
  const { config, root } = setup()
  fs.writeFileSync(path.join(root, 'cache'), 'a file where the cache directory goes')
  const failing = await diagnose(config, options({ offline: false, installOffline: () => ({ status: 1, stderr: 'first\n[ERR_LODE_X] the reason\n\n' }) }))
  const byTitle = new Map(failing.map((check) => [check.title, check]))
  assert.equal(byTitle.get('Cache directory')!.status, 'fail')
  assert.match(byTitle.get('Cache directory')!.detail!, /^no write access to /)
  assert.equal(byTitle.get('Registry connectivity')!.status, 'fail')
  assert.match(byTitle.get('Registry connectivity')!.detail!, /^could not reach http:\/\/127\.0\.0\.1:9\/: /)
  assert.equal(byTitle.get('Install smoke test')!.detail, 'offline "file:" install failed: [ERR_LODE_X] the reason')
  const unlinked = await diagnose(setup().config, options({ installOffline: () => ({ status: 0, stderr: '' }) }))
  assert.deepEqual(unlinked.at(-1), { title: 'Install smoke test', status: 'fail', detail: 'install reported success but the dependency was not linked' })
})
