import assert from 'node:assert/strict'
import { test } from 'node:test'

import { fuzz } from '@lode/__utils__.test-fixtures/fuzz'

// A small budget with a fixed seed for every run of the suite; LODE_FUZZ_ITERATIONS and
// LODE_FUZZ_SEED make a longer or another run (see the README).
const targets = new URL('./fuzz-targets.js', import.meta.url)

test('fuzz: a mutated pnpm-workspace.yaml, or one with settings of other types, gives a typed config or a coded error naming it', async (t) => {
  const { outcomes } = await fuzz(targets, 'workspaceYaml', 500)
  t.diagnostic(JSON.stringify(outcomes))
  assert.ok(Object.keys(outcomes).some((outcome) => outcome.startsWith('read')), 'some files were read')
  assert.ok(Object.keys(outcomes).some((outcome) => outcome.includes('ERR_LODE_INVALID_SETTING')), 'some were refused')
})

test('fuzz: a mutated .npmrc gives a typed config or a coded error naming it', async (t) => {
  const { outcomes } = await fuzz(targets, 'npmrc', 1000)
  t.diagnostic(JSON.stringify(outcomes))
  assert.ok((outcomes['read'] ?? 0) > 0, 'some files were read')
})
