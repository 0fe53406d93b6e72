import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import path from 'node:path'
import { test } from 'node:test'

const script = path.join(import.meta.dirname, 'fixtures', 'thread-young-generation.js')
const MIB = 1024 * 1024

/** The young generation of a ThreadPool thread, in a process whose heaps may not grow theirs. */
function youngGeneration (mb?: number): number {
  return Number(execFileSync(process.execPath, [script, ...mb === undefined ? [] : [String(mb)]], { encoding: 'utf8' }))
}

test('a ThreadPool with youngGenerationMb starts its threads with that young generation, when no heap of the process may grow its own', () => {
  const sized = youngGeneration(24)
  assert.ok(sized >= 8 * MIB, `youngGenerationMb 24: ${sized / MIB} MiB of new space`)
  const small = youngGeneration()
  assert.ok(small <= 2 * MIB, `the pools' default: ${small / MIB} MiB of new space`)
})
