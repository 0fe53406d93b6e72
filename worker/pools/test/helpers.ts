import assert from 'node:assert/strict'
import crypto from 'node:crypto'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'

import { buildTarball } from '@lode/__utils__.test-fixtures'
import { casFileMatches } from '@lode/store.cafs'
import { StoreIndex } from '@lode/store.index'

export interface TarballItem { file: string, integrity: string, pkgId: string }

export function tempDir (prefix: string): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), `lode-${prefix}-`))
}

/**
 * Writes `count` package tarballs to `dir` and a list of them for `import-tarballs`. Packages share
 * some files (a licence, a common helper) and each has its own, some large, some executable.
 */
export async function writeTarballs (
  dir: string,
  count: number,
  opts: { bigEvery?: number } = {}
): Promise<{ items: TarballItem[], listFile: string }> {
  const items: TarballItem[] = []
  for (let i = 0; i < count; i++) {
    const name = `pkg-${i}`
    const entries = [
      { name: 'package/package.json', content: JSON.stringify({ name, version: '1.0.0', bin: { [name]: 'cli.js' } }) },
      { name: 'package/LICENSE', content: 'MIT shared licence text\n' },
      { name: 'package/lib/common.js', content: 'module.exports = 42\n' },
      { name: 'package/cli.js', content: `#!/usr/bin/env node\nconsole.log(${i})\n`, mode: 0o755 },
      ...Array.from({ length: 30 }, (_, j) => ({ name: `package/src/f${j}.js`, content: `exports.v = ${i * 100 + j}\n` })),
    ]
    if (opts.bigEvery !== undefined && i % opts.bigEvery === 0) {
      entries.push({ name: 'package/data.bin', content: crypto.randomBytes(2 * 1024 * 1024).toString('base64') })
    }
    const { tarball, integrity } = await buildTarball(entries)
    const file = path.join(dir, `${name}.tgz`)
    fs.writeFileSync(file, tarball)
    items.push({ file, integrity, pkgId: `${name}@1.0.0` })
  }
  const listFile = path.join(dir, 'list.json')
  fs.writeFileSync(listFile, JSON.stringify(items))
  return { items, listFile }
}

/**
 * Asserts the store is consistent: every file under `files/` hashes to its name, and every row
 * of the index names files that exist with that content. Returns the number of rows.
 */
export function assertStoreConsistent (storeDir: string, keys: string[], opts: { everyFile: boolean } = { everyFile: true }): number {
  const filesDir = path.join(storeDir, 'v11', 'files')
  // Right after a kill, a file being written in place may be cut short; no row names it.
  for (const prefix of opts.everyFile ? fs.readdirSync(filesDir) : []) {
    for (const name of fs.readdirSync(path.join(filesDir, prefix))) {
      const digest = prefix + name.replace(/-exec$/, '')
      const actual = crypto.createHash('sha512').update(fs.readFileSync(path.join(filesDir, prefix, name))).digest('hex')
      assert.equal(actual, digest, `CAS file ${prefix}/${name} holds the content its name says`)
    }
  }
  const index = new StoreIndex(storeDir)
  try {
    const rows = index.getMany(keys)
    for (const [key, row] of rows) {
      for (const [file, info] of row.files) {
        assert.ok(casFileMatches(storeDir, info), `${key}: ${file} is in the CAS`)
      }
    }
    return rows.size
  } finally {
    index.close()
  }
}
