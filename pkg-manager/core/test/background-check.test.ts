import assert from 'node:assert/strict'
import { test } from 'node:test'
import { setTimeout as sleep } from 'node:timers/promises'

import { BackgroundCheck } from '../src/background-check.js'

test('the rest runs while the check does; its result stands when both succeed', async () => {
  const order: string[] = []
  const check = new BackgroundCheck(async () => { await sleep(20); order.push('check') })
  const result = await check.first(async () => { order.push('rest'); await check.passed; return 42 })
  assert.equal(result, 42)
  assert.deepEqual(order, ['rest', 'check'])
})

test('a failed check is the error told, whatever the rest threw meanwhile, once the check is over', async () => {
  const check = new BackgroundCheck(async () => { await sleep(20); throw new Error('policy') })
  await assert.rejects(check.first(async () => { await sleep(1); throw new Error('outdated') }), /policy/)
  const passing = new BackgroundCheck(async () => { await sleep(5) })
  await assert.rejects(passing.first(async () => { await sleep(1); throw new Error('outdated') }), /outdated/)
})

test('a step gated on the check does not run when it fails, and a failure nobody awaited is no unhandled rejection', async () => {
  let unhandled = false
  const onUnhandled = (): void => { unhandled = true }
  process.on('unhandledRejection', onUnhandled)
  try {
    const check = new BackgroundCheck(async () => { await sleep(1); throw new Error('policy') })
    let wrote = false
    await assert.rejects(check.first(async () => { await check.passed; wrote = true }), /policy/)
    assert.equal(wrote, false)
     
    new BackgroundCheck(async () => { await sleep(1); throw new Error('ignored') })
    await sleep(10)
    assert.equal(unhandled, false)
  } finally {
    process.off('unhandledRejection', onUnhandled)
  }
})
