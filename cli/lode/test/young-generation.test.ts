import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import path from 'node:path'
import { test } from 'node:test'
import { pathToFileURL } from 'node:url'

// The cap relies on V8 reading --semi-space-growth-factor at each growth, set after start-up: a
// Node whose V8 stops doing so fails here, not silently in a clean install's RSS.

const MODULE = pathToFileURL(path.join(import.meta.dirname, '..', 'src', 'young-generation.js')).href
const MIB = 1024 * 1024

/** A Node process that keeps objects alive across scavenges, as an install's main thread does; returns its final new-space size. */
function newSpaceAfterWork (cap: number | undefined): number {
  const script = `
    import { capYoungGeneration, newSpaceSize } from ${JSON.stringify(MODULE)}
    ${cap === undefined ? '' : `capYoungGeneration(${cap})`}
    const kept = []
    for (let round = 0; round < 400; round++) {
      for (let i = 0; i < 2500; i++) kept.push({ round, i, name: 'package-' + i })
      await new Promise((resolve) => setImmediate(resolve))
    }
    process.stdout.write(String(newSpaceSize()))
  `
  return Number(execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' }))
}

test('capYoungGeneration stops the young generation growing once it reaches the cap; without it, V8 grows it far past', () => {
  const uncapped = newSpaceAfterWork(undefined)
  assert.ok(uncapped >= 32 * MIB, `uncapped: ${uncapped / MIB} MiB`)
  // Checked after collections, between tasks: one more doubling may land before the check sees the cap.
  const capped = newSpaceAfterWork(4 * MIB)
  assert.ok(capped <= 8 * MIB, `capped at 4 MiB: ${capped / MIB} MiB`)
})
