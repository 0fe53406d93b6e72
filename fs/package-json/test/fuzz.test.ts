import assert from 'node:assert/strict'
import { test } from 'node:test'

import { fuzz } from '@lode/__utils__.test-fixtures/fuzz'

// A small budget with a fixed seed for every run of the suite; LODE_FUZZ_ITERATIONS and
// LODE_FUZZ_SEED make a longer or another run (see the README).
const targets = new URL('./fuzz-targets.js', import.meta.url)

test('fuzz: a mutated package.json, or one with fields of other types, reads as a typed manifest or is a coded error naming it', async (t) => {
  const { outcomes } = await fuzz(targets, 'packageJson', 10_000)
  t.diagnostic(JSON.stringify(outcomes))
  assert.ok((outcomes['read'] ?? 0) > 0 && (outcomes['ERR_LODE_INVALID_PACKAGE_JSON'] ?? 0) > 0, 'some read, some refused')
})
