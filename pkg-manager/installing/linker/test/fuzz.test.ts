import assert from 'node:assert/strict'
import { test } from 'node:test'

import { fuzz } from '@lode/__utils__.test-fixtures/fuzz'

// A small budget with a fixed seed for every run of the suite; LODE_FUZZ_ITERATIONS and
// LODE_FUZZ_SEED make a longer or another run.
const targets = new URL('./fuzz-targets.js', import.meta.url)

test('fuzz: a forged .modules.yaml is refused with a coded error, or read with every place inside the project', async (t) => {
  const { outcomes } = await fuzz(targets, 'modulesManifest', 2000)
  t.diagnostic(JSON.stringify(outcomes))
  assert.ok((outcomes['read'] ?? 0) > 0 && (outcomes['ERR_LODE_INVALID_MODULES_MANIFEST'] ?? 0) > 0, 'some read, some refused')
})

test('fuzz: a forged .pnpm/lock.yaml is refused, or laid out with every package, link and place inside node_modules', async (t) => {
  const { outcomes } = await fuzz(targets, 'installedLayout', 600)
  t.diagnostic(JSON.stringify(outcomes))
  assert.ok((outcomes['laid out'] ?? 0) > 0, 'some laid out')
})
