import assert from 'node:assert/strict'
import { test } from 'node:test'

import { fuzz } from '@lode/__utils__.test-fixtures/fuzz'

// A small budget with a fixed seed for every run of the suite; LODE_FUZZ_ITERATIONS and
// LODE_FUZZ_SEED make a longer or another run (see the README).
const targets = new URL('./fuzz-targets.js', import.meta.url)

test('fuzz: the fast parser reads mutated lockfiles as the yaml library does, or leaves them to it', async (t) => {
  const { outcomes } = await fuzz(targets, 'fastParser', 1500)
  t.diagnostic(JSON.stringify(outcomes))
  assert.ok(Object.keys(outcomes).length === 2, 'both paths were taken')
})

test('fuzz: parseLockfile reads mutated lockfiles or refuses them with a coded error; what it reads round-trips', async (t) => {
  const { outcomes } = await fuzz(targets, 'reader', 600)
  t.diagnostic(JSON.stringify(outcomes))
  assert.ok((outcomes['read'] ?? 0) > 0 && Object.keys(outcomes).length > 2, 'some lockfiles read, some refused')
})

test('fuzz: generated lockfiles are written so that they read back unchanged', async (t) => {
  const { outcomes } = await fuzz(targets, 'writer', 1500)
  t.diagnostic(JSON.stringify(outcomes))
})
