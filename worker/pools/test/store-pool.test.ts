import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { test } from 'node:test'

import { buildTarball, integrityOf } from '@lode/__utils__.test-fixtures'
import type { LodeError } from '@lode/core.error'
import { packFiles } from '@lode/store.cafs'
import { StoreIndex, decodeRow, storeIndexKey } from '@lode/store.index'
import { StorePool, addTarballToStore } from '@lode/worker.pools'

import { assertStoreConsistent, tempDir, writeTarballs } from './helpers.js'

const importScript = path.join(import.meta.dirname, 'fixtures', 'import-tarballs.js')

function startImport (
  storeDir: string,
  listFile: string
): { child: ReturnType<typeof spawn>, exit: Promise<{ code: number | null, signal: NodeJS.Signals | null }> } {
  const child = spawn(process.execPath, [importScript, storeDir, listFile], { stdio: ['ignore', 'pipe', 'inherit'] })
  const exit = new Promise<{ code: number | null, signal: NodeJS.Signals | null }>((resolve, reject) => {
    child.on('error', reject)
    child.on('exit', (code, signal) => { resolve({ code, signal }) })
  })
  return { child, exit }
}

test('a tarball is moved to the thread, extracted into the CAS and indexed by the main thread', async () => {
  const storeDir = tempDir('pool')
  const pool = new StorePool({ threads: 2 })
  const index = new StoreIndex(storeDir)
  try {
    assert.equal(pool.threads, 2)
    const { tarball, integrity } = await buildTarball([
      { name: 'package/package.json', content: '{"name":"moved","version":"1.2.3","scripts":{"install":"node-gyp rebuild"}}' },
      { name: 'package/index.js', content: 'module.exports = 1' },
    ])
    const owned = new Uint8Array(tarball) // a fresh ArrayBuffer of its own: transferred, not copied
    const added = await addTarballToStore({ pool, index, storeDir, pkgId: 'moved@1.2.3', integrity, tarball: owned })
    assert.equal(owned.byteLength, 0, 'the caller\'s buffer was transferred (detached), not copied')
    const row = decodeRow(added.row)
    assert.deepEqual([...row.files.keys()].sort(), ['index.js', 'package.json'])
    assert.equal(row.requiresBuild, true)
    assert.equal(added.requiresBuild, true)
    assert.equal(added.files, packFiles(row.files))
    assert.deepEqual(index.get(storeIndexKey(integrity, 'moved@1.2.3')), row)

    // The index's checkpoint, done by a thread through a connection of its own while this one stays
    // open: index.db alone (copied without its write-ahead log) has the row.
    index.flush()
    assert.equal(await pool.checkpointIndex(storeDir), true)
    const copyStore = tempDir('pool-copy')
    const copy = path.join(copyStore, path.relative(storeDir, index.file))
    fs.mkdirSync(path.dirname(copy), { recursive: true })
    fs.copyFileSync(index.file, copy)
    const alone = new StoreIndex(copyStore)
    try {
      assert.deepEqual(alone.get(storeIndexKey(integrity, 'moved@1.2.3')), row)
    } finally {
      alone.close()
    }
    // One that cannot be done (no directory can be made there) is false, not an error.
    const notADir = path.join(tempDir('pool-file'), 'file')
    fs.writeFileSync(notADir, '')
    assert.equal(await pool.checkpointIndex(notADir), false)

    // A view on a larger buffer (as pooled Buffers are) is copied, leaving the rest intact.
    const shared = Buffer.concat([Buffer.from('prefix'), tarball])
    await pool.extract(shared.subarray(6), { integrity, storeDir, pkgId: 'moved@1.2.3' })
    assert.equal(shared.subarray(0, 6).toString(), 'prefix')
  } finally {
    index.close()
    await pool.close()
  }
})

test('a bad tarball rejects with the thread\'s LodeError and nothing is indexed', async () => {
  const storeDir = tempDir('pool-bad')
  const pool = new StorePool({ threads: 1 })
  const index = new StoreIndex(storeDir)
  try {
    const { tarball } = await buildTarball([{ name: 'package/../../x.js', content: 'x' }])
    const integrity = integrityOf(tarball)
    await assert.rejects(addTarballToStore({ pool, index, storeDir, pkgId: 'evil@1.0.0', integrity, tarball }),
      { name: 'LodeError', code: 'ERR_LODE_TARBALL_UNSAFE_PATH', message: /evil@1\.0\.0/ })
    await assert.rejects(addTarballToStore({ pool, index, storeDir, pkgId: 'bad@1.0.0', integrity, tarball: Buffer.from('nope') }),
      { code: 'ERR_LODE_TARBALL_INTEGRITY' })
    index.flush()
    assert.equal(index.getMany([storeIndexKey(integrity, 'evil@1.0.0'), storeIndexKey(integrity, 'bad@1.0.0')]).size, 0)
  } finally {
    index.close()
    await pool.close()
  }
})

test('limits given to the pool reach the thread, and nothing is indexed for a tarball past them', async () => {
  const storeDir = tempDir('pool-limits')
  const pool = new StorePool({ threads: 1 })
  const index = new StoreIndex(storeDir)
  try {
    const { tarball, integrity } = await buildTarball([
      { name: 'package/package.json', content: '{"name":"two","version":"1.0.0"}' },
      { name: 'package/index.js', content: 'module.exports = 2' },
    ])
    await assert.rejects(pool.extract(tarball, { integrity, storeDir, pkgId: 'two@1.0.0', limits: { maxFiles: 1 } }),
      { name: 'LodeError', code: 'ERR_LODE_TARBALL_TOO_MANY_FILES', message: /two@1\.0\.0/ })
    await assert.rejects(addTarballToStore({ pool, index, storeDir, pkgId: 'two@1.0.0', integrity, tarball, limits: { maxPathLength: 12 } }),
      { code: 'ERR_LODE_TARBALL_PATH_TOO_LONG' })
    index.flush()
    assert.equal(index.get(storeIndexKey(integrity, 'two@1.0.0')), undefined)
    // Without limits, the defaults.
    await addTarballToStore({ pool, index, storeDir, pkgId: 'two@1.0.0', integrity, tarball })
    assert.equal(index.get(storeIndexKey(integrity, 'two@1.0.0'))?.files.size, 2)
  } finally {
    index.close()
    await pool.close()
  }
})

test('a process that used the pool exits by itself once the pool is closed', async () => {
  const dir = tempDir('pool-exit')
  const { listFile } = await writeTarballs(dir, 3)
  const { exit } = startImport(path.join(dir, 'store'), listFile)
  const timer = setTimeout(() => { assert.fail('the import process did not exit') }, 30_000)
  assert.deepEqual(await exit, { code: 0, signal: null })
  clearTimeout(timer)
})

test('two processes importing the same tarballs into one store at once both succeed', async () => {
  const dir = tempDir('pool-concurrent')
  const storeDir = path.join(dir, 'store')
  const { items, listFile } = await writeTarballs(dir, 80, { bigEvery: 20 })
  const results = await Promise.all([startImport(storeDir, listFile).exit, startImport(storeDir, listFile).exit])
  assert.deepEqual(results, [{ code: 0, signal: null }, { code: 0, signal: null }])
  const keys = items.map((item) => storeIndexKey(item.integrity, item.pkgId))
  assert.equal(assertStoreConsistent(storeDir, keys), items.length)
})

test('an import killed with SIGKILL mid-way, then run again, leaves a consistent store', async () => {
  const dir = tempDir('pool-kill')
  const storeDir = path.join(dir, 'store')
  const { items, listFile } = await writeTarballs(dir, 150, { bigEvery: 5 })
  const { child, exit } = startImport(storeDir, listFile)
  let seen = 0
  child.stdout!.on('data', (chunk: Buffer) => {
    seen += chunk.toString().split('\n').filter(Boolean).length
    if (seen >= 10) child.kill('SIGKILL')
  })
  assert.deepEqual(await exit, { code: null, signal: 'SIGKILL' })
  const keys = items.map((item) => storeIndexKey(item.integrity, item.pkgId))
  const rowsAfterKill = assertStoreConsistent(storeDir, keys, { everyFile: false })
  assert.ok(rowsAfterKill < items.length, `killed mid-way (${rowsAfterKill} of ${items.length} rows)`)

  assert.deepEqual(await startImport(storeDir, listFile).exit, { code: 0, signal: null })
  // A write the kill cut short under a digest name was replaced when its content came again:
  // every file in the CAS hashes to its name.
  assert.equal(assertStoreConsistent(storeDir, keys), items.length)
})

test('useThreads keeps tasks to that many threads (the others idle), and raising it again hands the queue to them all', async () => {
  const tarballs = await Promise.all(Array.from({ length: 3 }, async (_, i) => await buildTarball([
    { name: 'package/package.json', content: `{"name":"limited-${i}","version":"1.0.0"}` },
  ])))
  const extractAll = async (pool: StorePool): Promise<void> => {
    const storeDir = tempDir('pool-limit')
    await Promise.all(tarballs.map(async ({ tarball, integrity }, i) => await pool.extract(tarball, { integrity, storeDir, pkgId: `limited-${i}@1.0.0` })))
  }
  // Two threads: two tarballs go at once, the third alone when one is free.
  const both = new StorePool({ threads: 2 })
  // One of two: the first goes alone, the other two as one task when it is back.
  const one = new StorePool({ threads: 2 })
  try {
    await extractAll(both)
    assert.equal(both.tasks, 3)
    one.useThreads(1)
    await extractAll(one)
    assert.equal(one.tasks, 2)
    one.useThreads(Number.POSITIVE_INFINITY)
    await extractAll(one)
    assert.equal(one.tasks, 2 + 3)
  } finally {
    await Promise.all([both.close(), one.close()])
  }
})

test('tarballs that arrive while the threads are busy go as one task, each with its own result', async () => {
  const storeDir = tempDir('pool-batch')
  const pool = new StorePool({ threads: 1 })
  const index = new StoreIndex(storeDir)
  try {
    const packages = await Promise.all(Array.from({ length: 10 }, async (_, i) => {
      const { tarball, integrity } = await buildTarball([
        { name: 'package/package.json', content: `{"name":"batched-${i}","version":"1.0.0"}` },
        { name: 'package/index.js', content: `module.exports = ${i}` },
      ])
      return { pkgId: `batched-${i}@1.0.0`, integrity, tarball }
    }))
    // The fifth is damaged: it alone fails, with its own error.
    packages[4]!.tarball = Buffer.from('not the tarball')
    const outcomes = await Promise.allSettled(packages.map(async (pkg) => await addTarballToStore({ pool, index, storeDir, ...pkg })))
    assert.ok(pool.tasks < packages.length, `${pool.tasks} tasks for ${packages.length} tarballs`)
    for (const [i, outcome] of outcomes.entries()) {
      if (i === 4) {
        assert.equal(outcome.status, 'rejected')
        const reason = outcome.reason as LodeError
        assert.match(reason.message, /batched-4@1\.0\.0 does not match its integrity/)
        assert.equal(reason.code, 'ERR_LODE_TARBALL_INTEGRITY')
        continue
      }
      assert.equal(outcome.status, 'fulfilled')
      const row = decodeRow((outcome as PromiseFulfilledResult<{ row: Uint8Array }>).value.row)
      assert.deepEqual(row.manifest, { name: `batched-${i}`, version: '1.0.0' })
    }
    index.flush()
    const keys = packages.map((pkg) => storeIndexKey(pkg.integrity, pkg.pkgId))
    assert.equal(index.getMany(keys).size, 9)
    assertStoreConsistent(storeDir, keys.filter((_, i) => i !== 4))
  } finally {
    index.close()
    await pool.close()
  }
})
