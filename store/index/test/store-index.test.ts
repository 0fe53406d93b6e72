import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { test } from 'node:test'

import type { CasFileInfo } from '@lode/store.cafs'
import { packFiles } from '@lode/store.cafs/file-list'
import { StoreIndex, bundleManifest, createPackageFilesIndex, decodeRow, encodeRow, identityOf, isOtherPackage, readStoredFiles, storeIndexKey } from '@lode/store.index'
import Database from 'better-sqlite3'

function tempStore (): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'lode-index-'))
}

function files (n: number): Map<string, CasFileInfo> {
  return new Map(Array.from({ length: n }, (_, i) => [`lib/f${i}.js`, {
    checkedAt: 1763700000000 + i, digest: i.toString(16).padStart(128, '0'), mode: i % 2 === 0 ? 0o644 : 0o755, size: i,
  }]))
}

test('rows round-trip through index.db with pnpm\'s schema and key format', () => {
  const storeDir = tempStore()
  const index = new StoreIndex(storeDir)
  const row = createPackageFilesIndex(files(3), { name: 'a', version: 'v1.0.0', scripts: { test: 'x', postinstall: 'y' }, main: 'i.js' })
  const key = storeIndexKey('sha512-abc==', 'a@1.0.0')
  assert.equal(key, 'sha512-abc==\ta@1.0.0')
  index.queueWrite(key, row)
  index.close()

  const db = new Database(path.join(storeDir, 'v11', 'index.db'), { readonly: true })
  const schema = db.prepare("SELECT sql FROM sqlite_master WHERE name = 'package_index'").pluck().get() as string
  assert.match(schema, /CREATE TABLE package_index \(\s*key TEXT PRIMARY KEY,\s*data BLOB NOT NULL\s*\) WITHOUT ROWID/)
  assert.equal(db.pragma('journal_mode', { simple: true }), 'wal')
  db.close()

  const reopened = new StoreIndex(storeDir)
  const back = reopened.get(key)
  assert.deepEqual(back, row)
  assert.deepEqual(Object.keys(back), ['requiresBuild', 'manifest', 'algo', 'files'])
  assert.equal(back.algo, 'sha512')
  assert.equal(back.requiresBuild, true)
  assert.deepEqual(back.manifest, { version: '1.0.0', name: 'a', scripts: { postinstall: 'y' } })
  assert.ok(back.files instanceof Map)
  assert.deepEqual(Object.keys(back.files.get('lib/f1.js')!), ['checkedAt', 'digest', 'mode', 'size'])
  assert.equal(reopened.get('sha512-nope\tb@1.0.0'), undefined)
  reopened.close()
})

test('an encoded row is a buffer of its own, not a slice of Node\'s pool that an extract thread\'s answer would carry whole', () => {
  const row = createPackageFilesIndex(files(2), { name: 'a', version: '1.0.0' })
  const first = encodeRow(row)
  const second = encodeRow(createPackageFilesIndex(files(3), { name: 'b', version: '1.0.0' }))
  assert.ok(first.byteLength < 1024)
  assert.equal(first.buffer.byteLength, first.byteLength)
  assert.deepEqual(decodeRow(first), row, 'the next encoding leaves it as it was')
  assert.notEqual(first.buffer, second.buffer)
})

test('the bundled manifest and requiresBuild follow pnpm', () => {
  assert.equal(bundleManifest({ description: 'only this', version: '1.0.0' }), undefined)
  assert.deepEqual(bundleManifest({ name: 'x', version: '=1.2.3', bin: { x: 'x.js' } }), { version: '1.2.3', name: 'x', bin: { x: 'x.js' } })
  const gyp = new Map([['binding.gyp', {}]])
  assert.equal(createPackageFilesIndex(gyp as never, { name: 'n', version: '1.0.0' }).requiresBuild, true)
  assert.equal(createPackageFilesIndex(gyp as never, { name: 'n', version: '1.0.0', gypfile: false }).requiresBuild, false)
  assert.equal(createPackageFilesIndex(new Map([['.hooks/x', {}]]) as never, undefined).requiresBuild, true)
  assert.equal(createPackageFilesIndex(files(2), { name: 'n', version: '1.0.0' }).requiresBuild, false)
})

test('queued rows are committed together, visible to other connections only after the batch', () => {
  const storeDir = tempStore()
  const writer = new StoreIndex(storeDir, { batchSize: 3 })
  const reader = new StoreIndex(storeDir)
  writer.queueWrite('k1', createPackageFilesIndex(files(1), undefined))
  writer.queueWrite('k2', createPackageFilesIndex(files(1), undefined))
  assert.ok(writer.get('k1') !== undefined, 'the writer sees its own queued rows')
  assert.equal(reader.getMany(['k1', 'k2']).size, 0, 'nothing is committed before the batch is full')
  writer.queueWrite('k3', createPackageFilesIndex(files(1), undefined))
  assert.deepEqual([...reader.getMany(['k1', 'k2', 'k3', 'k4']).keys()].sort(), ['k1', 'k2', 'k3'])
  writer.close()
  reader.close()
})

test('checkpoint commits what is queued and moves it into index.db itself: a copy of that file alone, without the write-ahead log, has the rows', () => {
  const storeDir = tempStore()
  const index = new StoreIndex(storeDir)
  const keys = Array.from({ length: 50 }, (_, i) => storeIndexKey(`sha512-${i}==`, `p${i}@1.0.0`))
  for (const key of keys) index.queueWrite(key, createPackageFilesIndex(files(20), { name: 'p', version: '1.0.0' }))
  index.checkpoint()
  const copy = path.join(tempStore(), 'index.db')
  fs.copyFileSync(index.file, copy)
  const alone = new Database(copy, { readonly: true })
  try {
    assert.equal((alone.prepare('SELECT count(*) AS n FROM package_index').get() as { n: number }).n, keys.length)
  } finally {
    alone.close()
    index.close()
  }
  index.checkpoint()
})

test('getMany reads thousands of keys in one pass', () => {
  const storeDir = tempStore()
  const index = new StoreIndex(storeDir, { batchSize: 10_000 })
  const row = createPackageFilesIndex(files(5), { name: 'p', version: '1.0.0' })
  for (let i = 0; i < 3000; i++) index.queueWrite(storeIndexKey(`sha512-${i}`, `p${i}@1.0.0`), row)
  index.flush()
  const keys = Array.from({ length: 3500 }, (_, i) => storeIndexKey(`sha512-${i}`, `p${i}@1.0.0`))
  const found = index.getMany(keys)
  assert.equal(found.size, 3000)
  assert.deepEqual(found.get(keys[2999]!), row)
  index.close()
})

test('two processes writing one store at the same time both succeed', async () => {
  const storeDir = tempStore()
  const script = `
    import { StoreIndex, createPackageFilesIndex } from '@lode/store.index'
    const [storeDir, name] = process.argv.slice(1)
    const index = new StoreIndex(storeDir, { batchSize: 50 })
    const row = createPackageFilesIndex(new Map([['index.js', { checkedAt: 1, digest: 'ab'.repeat(64), mode: 420, size: 1 }]]), { name, version: '1.0.0' })
    for (let i = 0; i < 2000; i++) {
      index.queueWrite(name + i, row)
      if (i % 100 === 0) await new Promise((resolve) => setImmediate(resolve))
    }
    index.close()
  `
  const run = (name: string): Promise<number | null> => new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--input-type=module', '-e', script, storeDir, name],
      { cwd: path.dirname(import.meta.dirname), stdio: ['ignore', 'inherit', 'inherit'] })
    child.on('error', reject)
    child.on('exit', resolve)
  })
  assert.deepEqual(await Promise.all([run('a'), run('b')]), [0, 0])
  const index = new StoreIndex(storeDir)
  const keys = ['a', 'b'].flatMap((name) => Array.from({ length: 2000 }, (_, i) => name + i))
  assert.equal(index.getMany(keys).size, 4000)
  index.close()
})

test('a store index that cannot be opened is a LodeError naming the file', () => {
  const storeDir = tempStore()
  fs.mkdirSync(path.join(storeDir, 'v11', 'index.db'), { recursive: true })
  assert.throws(() => new StoreIndex(storeDir), {
    name: 'LodeError',
    code: 'ERR_LODE_STORE_INDEX_OPEN',
    message: new RegExp(`${path.join(storeDir, 'v11', 'index.db').replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`),
  })
})

test('an addon that cannot be loaded (missing, or not one for this Node) is ERR_LODE_SQLITE_ADDON_UNAVAILABLE saying how to build it', () => {
  const storeDir = tempStore()
  const notAnAddon = path.join(storeDir, 'better_sqlite3.node')
  fs.writeFileSync(notAnAddon, 'not a shared object')
  for (const nativeBinding of [path.join(storeDir, 'missing.node'), notAnAddon]) {
    assert.throws(() => new StoreIndex(storeDir, { nativeBinding }), (err: Error & { code?: string, hint?: string }) => {
      assert.equal(err.code, 'ERR_LODE_SQLITE_ADDON_UNAVAILABLE', err.message)
      assert.match(err.message, new RegExp(`on Node\\.js ${process.versions.node} \\(${process.platform}-${process.arch}\\)`))
      assert.match(err.hint ?? '', /prebuilt addons for Linux .*node-gyp rebuild --release$/)
      assert.ok(fs.existsSync(path.join(err.hint!.split(' cd ')[1]!.split(' && ')[0]!, 'binding.gyp')), err.hint)
      return true
    }, nativeBinding)
  }
  assert.deepEqual(fs.readdirSync(path.join(storeDir, 'v11')), [])
})

/** A store whose index holds 400 rows of 20 files each (several pages), closed. */
function filledStore (): { storeDir: string, file: string, keys: string[] } {
  const storeDir = tempStore()
  const index = new StoreIndex(storeDir)
  const keys = Array.from({ length: 400 }, (_, i) => storeIndexKey(`sha512-${i}==`, `p${i}@1.0.0`))
  for (const key of keys) index.queueWrite(key, createPackageFilesIndex(files(20), { name: 'x', version: '1.0.0' }))
  index.close()
  return { storeDir, file: path.join(storeDir, 'v11', 'index.db'), keys }
}

function assertCorrupt (fn: () => unknown, file: string): void {
  assert.throws(fn, (err: Error & { code?: string, hint?: string }) => {
    assert.equal(err.code, 'ERR_LODE_STORE_INDEX_CORRUPT', err.message)
    assert.ok(err.message.includes(file), err.message)
    assert.match(err.hint ?? '', /Delete it .*index\.db-wal/)
    return true
  })
}

test('a damaged index.db (random bytes, truncated, one bad page, a row MessagePack cannot read) is ERR_LODE_STORE_INDEX_CORRUPT naming the file and saying what to do', () => {
  const random = filledStore()
  fs.writeFileSync(random.file, Buffer.alloc(fs.statSync(random.file).size, 0x5a))
  assertCorrupt(() => new StoreIndex(random.storeDir).getMany(random.keys), random.file)

  const truncated = filledStore()
  fs.truncateSync(truncated.file, Math.floor(fs.statSync(truncated.file).size / 2))
  assertCorrupt(() => new StoreIndex(truncated.storeDir).getMany(truncated.keys), truncated.file)

  const badPage = filledStore()
  const fd = fs.openSync(badPage.file, 'r+')
  // A b-tree page in the middle of the file (page 1 holds the header and the schema).
  fs.writeSync(fd, Buffer.alloc(512, 0xff), 0, 512, 4096 * 3)
  fs.closeSync(fd)
  assertCorrupt(() => new StoreIndex(badPage.storeDir).getMany(badPage.keys), badPage.file)

  const badRow = filledStore()
  const db = new Database(badRow.file)
  db.prepare('UPDATE package_index SET data = ? WHERE key = ?').run(Buffer.from([0xc1, 0xc1, 0xc1]), badRow.keys[7])
  db.close()
  assertCorrupt(() => new StoreIndex(badRow.storeDir).getMany(badRow.keys), badRow.file)
  assertCorrupt(() => new StoreIndex(badRow.storeDir).getManyStored(badRow.keys), badRow.file)
  // A row cut short (in the middle of its files) is damaged too, not read as fewer files.
  const whole = encodeRow(createPackageFilesIndex(files(20), { name: 'x', version: '1.0.0' }))
  const cutRow = filledStore()
  const cutDb = new Database(cutRow.file)
  cutDb.prepare('UPDATE package_index SET data = ? WHERE key = ?').run(whole.subarray(0, whole.length - 70), cutRow.keys[3])
  cutDb.close()
  assertCorrupt(() => new StoreIndex(cutRow.storeDir).getManyStored(cutRow.keys), cutRow.file)
})

/** What `readStoredFiles` must give for a row: its files packed, `requiresBuild`, its manifest's name and version, as decoding it whole gives them. */
function assertReadsAsDecoded (data: Buffer): void {
  const row = decodeRow(data)
  const expected = { files: packFiles(row.files), requiresBuild: row.requiresBuild === true, ...identityOf(row.manifest) }
  assert.deepEqual(readStoredFiles(data), expected)
}

test('readStoredFiles reads a row\'s files and requiresBuild from its bytes as decoding the whole row does, whatever the manifest holds', () => {
  const unicode = new Map([...files(3), ['lib/ünï cødé/日本.js', { checkedAt: 1, digest: 'ab'.repeat(64), mode: 0o755, size: 70_000 }]])
  const manifests: Array<Record<string, unknown> | undefined> = [
    undefined,
    { name: 'plain', version: '1.0.0' },
    { name: 'built', version: '2.0.0', scripts: { install: 'node-gyp rebuild', test: 'x' }, bin: { a: 'a.js', b: 'b.js' } },
    {
      name: '@scope/deep', version: '3.0.0-rc.1', bin: 'cli.js', engines: { node: '>=18' }, os: ['linux', '!win32'], cpu: ['x64'],
      dependencies: Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`dep-${i}`, `^${i}.0.0`])),
      peerDependenciesMeta: { a: { optional: true }, b: { optional: false } }, gypfile: false, directories: { bin: './bin', lib: null },
    },
  ]
  for (const manifest of manifests) {
    for (const fileSet of [new Map<string, CasFileInfo>(), files(1), files(300), unicode]) {
      assertReadsAsDecoded(encodeRow(createPackageFilesIndex(fileSet, manifest)))
    }
  }
  // pnpm's side-effects cache after the files; `requiresBuild` after them; a file's fields in another order.
  const sideEffects = new Map([['linux;node24', { added: new Map([['build/x.node', { digest: 'cd'.repeat(64), mode: 0o755, size: 9 }]]) }]])
  assertReadsAsDecoded(encodeRow({ ...createPackageFilesIndex(files(5), { name: 's', version: '1.0.0' }), sideEffects }))
  const { requiresBuild: _, ...rest } = createPackageFilesIndex(files(5), { name: 'late', version: '1.0.0', scripts: { postinstall: 'x' } })
  assertReadsAsDecoded(encodeRow({ ...rest, requiresBuild: true }))
  const reordered = new Map([...files(4)].map(([name, { checkedAt, digest, mode, size }]) => [name, { size, mode, digest, checkedAt }]))
  assertReadsAsDecoded(encodeRow({ algo: 'sha512', files: reordered }))
})

test('readStoredFiles hands a row it does not read itself to msgpackr: values of other types, more record shapes than one byte names', () => {
  // A Date in the manifest (an extension), a mode as a float, 80 object shapes (ids past 0x7f take two bytes).
  const dated = encodeRow({
    ...createPackageFilesIndex(files(3), { name: 'd', version: '1.0.0' }),
    manifest: { version: '1.0.0', published: new Date(0) } as never,
  })
  assertReadsAsDecoded(dated)
  const floatMode = new Map([['a.js', { checkedAt: 1, digest: 'ef'.repeat(64), mode: 420.5, size: 1 }]])
  assertReadsAsDecoded(encodeRow({ algo: 'sha512', files: floatMode }))
  const shapes = Object.fromEntries(Array.from({ length: 80 }, (_, i) => [`k${i}`, { [`field${i}`]: i }]))
  const manyShapes = { ...createPackageFilesIndex(files(6), { name: 'many', version: '1.0.0' }), manifest: { version: '1.0.0', dependencies: shapes } }
  assertReadsAsDecoded(encodeRow(manyShapes))
})

test('getManyStored gives what installing needs of each stored row, queued rows included', () => {
  const storeDir = tempStore()
  const index = new StoreIndex(storeDir)
  const built = createPackageFilesIndex(files(4), { name: 'b', version: '1.0.0', scripts: { install: 'x' } })
  const plain = createPackageFilesIndex(files(2), { name: 'p', version: '1.0.0' })
  index.queueWrite('kb', built)
  index.queueWrite('kp', plain)
  const found = index.getManyStored(['kb', 'kp', 'missing'])
  assert.deepEqual([...found.keys()].sort(), ['kb', 'kp'])
  assert.deepEqual(found.get('kb'), { files: packFiles(built.files), requiresBuild: true, name: 'b', version: '1.0.0' })
  assert.deepEqual(found.get('kp'), { files: packFiles(plain.files), requiresBuild: false, name: 'p', version: '1.0.0' })
  index.close()
})

test('readStoredFiles gives the name and version of the row\'s bundled manifest (strings only), wherever the manifest is in the row', () => {
  const row = createPackageFilesIndex(files(2), { name: 'Totally-Different', version: 'v6.6.6' })
  assert.deepEqual(readStoredFiles(encodeRow(row)), { files: packFiles(row.files), requiresBuild: false, name: 'Totally-Different', version: '6.6.6' })
  // After the files (pnpm writes it before them): still read.
  const { manifest, ...rest } = row
  const late = encodeRow({ ...rest, manifest })
  assert.deepEqual(readStoredFiles(late), readStoredFiles(encodeRow(row)))
  // No manifest, a manifest without a name, one whose name is not a string.
  assert.deepEqual(readStoredFiles(encodeRow(createPackageFilesIndex(files(1), undefined))),
    { files: packFiles(files(1)), requiresBuild: false })
  assert.deepEqual(readStoredFiles(encodeRow({ algo: 'sha512', files: files(1), manifest: { version: '2.0.0', bin: 'x.js' } })),
    { files: packFiles(files(1)), requiresBuild: false, version: '2.0.0' })
  assert.deepEqual(readStoredFiles(encodeRow({ algo: 'sha512', files: files(1), manifest: { version: '2.0.0', name: 7 } })),
    { files: packFiles(files(1)), requiresBuild: false, version: '2.0.0' })
})

test('isOtherPackage decides as pnpm 11 does: names without regard to case, versions as loose semver, a missing side not compared', () => {
  assert.equal(isOtherPackage({ name: 'totally-different', version: '6.6.6' }, { name: 'claims-other', version: '1.0.0' }), true)
  assert.equal(isOtherPackage({ name: 'claims-other', version: '6.6.6' }, { name: 'claims-other', version: '1.0.0' }), true)
  assert.equal(isOtherPackage({ name: 'Claims-Other', version: 'v1.0.0' }, { name: 'claims-other', version: '1.0.0' }), false)
  assert.equal(isOtherPackage({ name: 'a', version: '1.0.0+build.5' }, { name: 'a', version: '1.0.0' }), false)
  assert.equal(isOtherPackage({ name: 'a', version: 'not a version' }, { name: 'a', version: '1.0.0' }), true)
  assert.equal(isOtherPackage({}, { name: 'a', version: '1.0.0' }), false)
  assert.equal(isOtherPackage({ name: 'b', version: '2.0.0' }, {}), false)
  assert.equal(isOtherPackage({ version: '2.0.0' }, { name: 'a' }), false)
})

test('a full disk under the store index: a commit at the end of a tick does not end the process, the next commit throws ERR_LODE_ENOSPC, close still closes', async () => {
  const storeDir = tempStore()
  const index = new StoreIndex(storeDir)
  index.queueWrite('first', createPackageFilesIndex(files(1), { name: 'a', version: '1.0.0' }))
  index.flush()
  // SQLite's SQLITE_FULL, as on a full disk: this connection may not grow the file past its pages.
  const db = (index as unknown as { db: Database.Database }).db
  db.pragma(`max_page_count = ${db.pragma('page_count', { simple: true }) as number}`)
  const isFullDisk = (err: Error & { code?: string, hint?: string }): boolean => {
    assert.equal(err.code, 'ERR_LODE_ENOSPC')
    assert.equal(err.message, `Cannot write the store index ${index.file}: no space left on the device.`)
    assert.match(err.hint ?? '', /Free some disk space/)
    return true
  }
  index.queueWrite('big', createPackageFilesIndex(files(2000), { name: 'b', version: '1.0.0' }))
  await new Promise((resolve) => setImmediate(resolve))
  await new Promise((resolve) => setImmediate(resolve))
  assert.throws(() => { index.flush() }, isFullDisk)
  index.queueWrite('big', createPackageFilesIndex(files(2000), { name: 'b', version: '1.0.0' }))
  assert.throws(() => { index.close() }, isFullDisk)
  assert.throws(() => { index.queueWrite('late', createPackageFilesIndex(files(1), undefined)) }, /closed/)
  const reopened = new StoreIndex(storeDir)
  assert.deepEqual([...reopened.getMany(['first', 'big']).keys()], ['first'], 'the rows that failed are not in the index')
  reopened.close()
})
