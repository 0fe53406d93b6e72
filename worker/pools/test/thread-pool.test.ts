import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import path from 'node:path'
import { test } from 'node:test'

import { ThreadPool, ownedArrayBuffer } from '@lode/worker.pools'

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

test('ThreadPool.run moves the buffers it is given to the thread; ownedArrayBuffer copies a slice of Node\'s pool rather than move the pool', async () => {
  const pool = new ThreadPool<{ bytes: Uint8Array }, { sum: number, whole: boolean }>({
    filename: new URL('./fixtures/byte-sum.js', import.meta.url).href,
    name: 'byteSum',
  })
  try {
    const own = Buffer.allocUnsafeSlow(100_000).fill(1)
    const buffer = ownedArrayBuffer(own)
    assert.equal(buffer, own.buffer, 'a buffer of its own is moved as it is')
    assert.deepEqual(await pool.run({ bytes: new Uint8Array(buffer) }, [buffer]), { sum: 100_000, whole: true })
    assert.equal(own.byteLength, 0, 'the caller\'s view is detached: the bytes were moved, not copied')

    const pooled = Buffer.from([1, 2, 3])
    assert.ok(pooled.buffer.byteLength > pooled.byteLength, 'a small Buffer is a slice of the pool')
    const copy = ownedArrayBuffer(pooled)
    assert.equal(copy.byteLength, 3)
    assert.deepEqual(await pool.run({ bytes: new Uint8Array(copy) }, [copy]), { sum: 6, whole: true })
    assert.deepEqual([...pooled], [1, 2, 3], 'the pool is left where it is')
  } finally {
    await pool.close()
  }
})
