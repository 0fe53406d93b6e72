import assert from 'node:assert/strict'
import { test } from 'node:test'

import { fuzz } from '@lode/__utils__.test-fixtures/fuzz'

// A small budget with a fixed seed for every run of the suite; LODE_FUZZ_ITERATIONS and
// LODE_FUZZ_SEED make a longer or another run.
const targets = new URL('./fuzz-targets.js', import.meta.url)

test('fuzz: mutated .lode-state.json files read as a typed record or none; the quick check over them writes nothing outside the project', async (t) => {
  const { outcomes } = await fuzz(targets, 'lodeState', 800)
  t.diagnostic(JSON.stringify(outcomes))
  assert.ok((outcomes['refused'] ?? 0) > 0 && (outcomes['read, up to date'] ?? 0) > 0 && (outcomes['read, not up to date'] ?? 0) > 0, 'every path was taken')
})

test('fuzz: mutated pnpm workspace states and .modules.yaml read as a typed record or none; the vouch answers without throwing', async (t) => {
  const { outcomes } = await fuzz(targets, 'pnpmState', 800)
  t.diagnostic(JSON.stringify(outcomes))
  assert.ok((outcomes['refused'] ?? 0) > 0 && (outcomes['read, vouches'] ?? 0) > 0 && (outcomes['read, does not vouch'] ?? 0) > 0, 'every path was taken')
})

test('fuzz: mutated replay records name only places inside the project, and a replay writes nothing outside it', async (t) => {
  const { outcomes } = await fuzz(targets, 'replayRecord', 600)
  t.diagnostic(JSON.stringify(outcomes))
  assert.ok((outcomes['refused'] ?? 0) > 0 && (outcomes['read, written back'] ?? 0) > 0, 'some records refused, some written back')
})
