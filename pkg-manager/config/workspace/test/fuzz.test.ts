import assert from 'node:assert/strict'
import { test } from 'node:test'

import { fuzz } from '@lode/__utils__.test-fixtures/fuzz'

// A small budget with a fixed seed for every run of the suite; LODE_FUZZ_ITERATIONS and
// LODE_FUZZ_SEED make a longer or another run (see the README).
const targets = new URL('./fuzz-targets.js', import.meta.url)

test('fuzz: odd packages globs and mutated project manifests give the projects, their graph and a selection, or a coded error', async (t) => {
  const { outcomes } = await fuzz(targets, 'projects', 2000)
  t.diagnostic(JSON.stringify(outcomes))
  assert.ok((outcomes['found'] ?? 0) > 0, 'some workspaces were listed')
})
