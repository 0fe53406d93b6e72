// The quick-start demo: downloads the tarballs of a small real project (the `small` fixture:
// react, express, lodash, @babel/core) from the configured registry, imports them into a fresh
// store through the store pool, and prints what it did.
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'

import { StoreIndex, storeIndexKey } from '@lode/store.index'

import { importIntoStore } from './import.js'
import { configuredRegistry, downloadMissing, lockedTarballs } from './tarballs.js'

const benchDir = path.resolve(import.meta.dirname, '..', '..', '..')
const tarballs = lockedTarballs(path.join(benchDir, 'fixtures', 'small', 'pnpm-lock.yaml'), path.join(benchDir, '.cache', 'tarballs'))
const registry = configuredRegistry(process.env)
console.log(`lode demo: ${tarballs.length} packages from the lockfile of bench/fixtures/small`)
const downloaded = await downloadMissing(registry, tarballs, { concurrency: 16, log: (line) => { console.log(`  ${line}`) } })
console.log(`  downloaded ${downloaded} tarballs (${tarballs.length - downloaded} were cached)`)

const storeDir = fs.mkdtempSync(path.join(os.tmpdir(), 'lode-demo-store-'))
const stats = await importIntoStore(storeDir, tarballs, { clock: () => performance.now() })
console.log(`  imported ${stats.packages} packages, ${stats.files} files (${(stats.unpackedBytes / 1e6).toFixed(1)} MB) into ${storeDir} in ${stats.seconds.toFixed(2)} s`)

const index = new StoreIndex(storeDir)
const rows = index.getMany(tarballs.map((t) => storeIndexKey(t.integrity, t.pkgId)))
const react = tarballs.find((t) => t.name === 'react')
if (react !== undefined) {
  const row = rows.get(storeIndexKey(react.integrity, react.pkgId))!
  const [file, info] = [...row.files].find(([name]) => name === 'index.js') ?? [...row.files][0]!
  console.log(`  ${react.pkgId}: ${row.files.size} files; ${file} is v11/files/${info.digest.slice(0, 2)}/${info.digest.slice(2, 14)}…`)
}
index.close()
console.log(`  ${rows.size} rows in ${path.join(storeDir, 'v11', 'index.db')}; a pnpm 11 pointed at this store (--store-dir) reuses them.`)
