import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'
import { test } from 'node:test'

import { buildTarball } from '@lode/__utils__.test-fixtures'
import { casFilePath } from '@lode/store.cafs'
import { StoreIndex, decodeRow } from '@lode/store.index'
import type { PackageFilesIndex } from '@lode/store.index'
import { packFiles } from '@lode/worker.link'
import type { PackageToImport } from '@lode/worker.link'
import { LinkPool, StorePool, addTarballToStore } from '@lode/worker.pools'

import { tempDir } from './helpers.js'

/** A store holding one package with a nested file and an executable; its index row. */
async function storeWithPackage (storeDir: string): Promise<PackageFilesIndex> {
  const pool = new StorePool({ threads: 1 })
  const index = new StoreIndex(storeDir)
  try {
    const { tarball, integrity } = await buildTarball([
      { name: 'package/package.json', content: '{"name":"linked","version":"1.0.0","bin":"bin/cli.js"}' },
      { name: 'package/lib/deep/index.js', content: 'module.exports = "deep"' },
      { name: 'package/bin/cli.js', content: '#!/usr/bin/env node\nconsole.log("hi")\n', mode: 0o755 },
    ])
    return decodeRow((await addTarballToStore({ pool, index, storeDir, pkgId: 'linked@1.0.0', integrity, tarball })).row)
  } finally {
    index.close()
    await pool.close()
  }
}

function toImport (dir: string, row: PackageFilesIndex): PackageToImport {
  return { dir, files: packFiles(row.files) }
}

test('the link pool hardlinks a package\'s files from the CAS into its directory, executables kept executable', async () => {
  const storeDir = tempDir('link-store')
  const row = await storeWithPackage(storeDir)
  const target = path.join(tempDir('link-target'), 'node_modules', '.pnpm', 'linked@1.0.0', 'node_modules', 'linked')
  const pool = new LinkPool({ threads: 2 })
  try {
    const outcome = await pool.link({ storeDir, method: 'auto', packages: [toImport(target, row)] })
    assert.deepEqual(outcome, { imported: 1, used: 'hardlink', crossDevice: false })
    for (const [file, info] of row.files) {
      assert.equal(fs.statSync(path.join(target, file)).ino, fs.statSync(casFilePath(storeDir, info.digest, info.mode)).ino, `${file} is a hardlink`)
    }
    assert.ok((fs.statSync(path.join(target, 'bin', 'cli.js')).mode & 0o111) !== 0)
    assert.equal(fs.readFileSync(path.join(target, 'lib', 'deep', 'index.js'), 'utf8'), 'module.exports = "deep"')
    assert.deepEqual(fs.readdirSync(path.dirname(target)), ['linked'], 'no temp directory is left beside it')

    // An existing package directory is complete by construction: it is skipped.
    assert.equal((await pool.link({ storeDir, method: 'auto', packages: [toImport(target, row)] })).imported, 0)

    // copy: the same content in files of their own.
    const copied = path.join(tempDir('link-copy'), 'linked')
    assert.equal((await pool.link({ storeDir, method: 'copy', packages: [toImport(copied, row)] })).used, 'copy')
    const digest = row.files.get('package.json')!
    assert.notEqual(fs.statSync(path.join(copied, 'package.json')).ino, fs.statSync(casFilePath(storeDir, digest.digest, digest.mode)).ino)
    assert.equal(fs.readFileSync(path.join(copied, 'package.json'), 'utf8'), fs.readFileSync(path.join(target, 'package.json'), 'utf8'))
  } finally {
    await pool.close()
  }
})

test('a thread makes each parent directory once and remembers it; one removed between tasks is made again; `absent` skips the check for an existing package', async () => {
  const storeDir = tempDir('link-store')
  const row = await storeWithPackage(storeDir)
  const virtualStore = path.join(tempDir('link-parents'), 'node_modules', '.pnpm')
  const at = (id: string): string => path.join(virtualStore, id, 'node_modules', '@scope', 'linked')
  // One thread: the tasks below find what the first one made.
  const pool = new LinkPool({ threads: 1 })
  try {
    const both = [toImport(at('a@1.0.0'), row), toImport(at('b@1.0.0'), row)]
    assert.equal((await pool.link({ storeDir, method: 'auto', packages: both, absent: true })).imported, 2)
    // A parent the thread made, removed (as an install that failed removes what it made): made anew.
    fs.rmSync(path.join(virtualStore), { recursive: true })
    assert.equal((await pool.link({ storeDir, method: 'auto', packages: [toImport(at('c@1.0.0'), row)], absent: true })).imported, 1)
    assert.equal(fs.readFileSync(path.join(at('c@1.0.0'), 'lib', 'deep', 'index.js'), 'utf8'), 'module.exports = "deep"')
    assert.deepEqual(fs.readdirSync(virtualStore), ['c@1.0.0'])
    // With `absent`, a package that is there after all is imported beside it and dropped: the one there stays.
    const before = fs.statSync(path.join(at('c@1.0.0'), 'package.json')).ino
    assert.equal((await pool.link({ storeDir, method: 'copy', packages: [toImport(at('c@1.0.0'), row)], absent: true })).imported, 1)
    assert.equal(fs.statSync(path.join(at('c@1.0.0'), 'package.json')).ino, before)
    assert.deepEqual(fs.readdirSync(path.dirname(at('c@1.0.0'))), ['linked'], 'no temp directory is left beside it')
  } finally {
    await pool.close()
  }
})

test('a missing CAS file is ERR_LODE_STORE_FILE_MISSING naming it, and leaves no package directory', async () => {
  const storeDir = tempDir('link-store')
  const row = await storeWithPackage(storeDir)
  const info = row.files.get('lib/deep/index.js')!
  fs.rmSync(casFilePath(storeDir, info.digest, info.mode))
  const parent = tempDir('link-target')
  const pool = new LinkPool({ threads: 1 })
  try {
    await assert.rejects(pool.link({ storeDir, method: 'auto', packages: [toImport(path.join(parent, 'linked'), row)] }), (err: Error & { code?: string }) => {
      assert.equal(err.code, 'ERR_LODE_STORE_FILE_MISSING')
      assert.ok(err.message.includes(casFilePath(storeDir, info.digest, info.mode)))
      return true
    })
    assert.deepEqual(fs.readdirSync(parent), [])
  } finally {
    await pool.close()
  }
})

test('a package that cannot be written (a file where a directory belongs) is the file-system error, ERR_LODE_ENOTDIR naming the path, from the thread; nothing is left', async () => {
  const storeDir = tempDir('link-store')
  const row = await storeWithPackage(storeDir)
  const root = tempDir('link-blocked')
  const file = path.join(root, 'a-file')
  fs.writeFileSync(file, '')
  const pool = new LinkPool({ threads: 1 })
  try {
    // Its own directory cannot be made (inside the import): named where the package would be, not its temp directory.
    await assert.rejects(pool.link({ storeDir, method: 'auto', packages: [toImport(path.join(file, 'linked'), row)] }), (err: Error & { code?: string, hint?: string }) => {
      assert.equal(err.code, 'ERR_LODE_ENOTDIR')
      assert.equal(err.message, `Cannot mkdir ${path.join(file, 'linked')}: a file stands where a directory belongs.`)
      assert.match(err.hint ?? '', /Remove or rename the file/)
      return true
    })
    // Its parents cannot be made (before the import): the error leaves the thread as data all the same.
    await assert.rejects(pool.link({ storeDir, method: 'auto', packages: [toImport(path.join(file, 'sub', 'linked'), row)] }), (err: Error & { code?: string }) => {
      assert.equal(err.code, 'ERR_LODE_ENOTDIR')
      assert.equal(err.message, `Cannot mkdir ${path.join(file, 'sub')}: a file stands where a directory belongs.`)
      return true
    })
    assert.deepEqual(fs.readdirSync(root), ['a-file'])
  } finally {
    await pool.close()
  }
})

test('a task writes its symlinks relative, parents as needed: a correct one is kept, anything else replaced; one that cannot be written is a coded error', async () => {
  const modules = path.join(tempDir('link-symlinks'), 'node_modules')
  const target = path.join(modules, '.pnpm', 'a@1.0.0', 'node_modules', 'a')
  fs.mkdirSync(target, { recursive: true })
  const kept = path.join(modules, 'kept')
  fs.symlinkSync(path.relative(modules, target), kept)
  const keptIno = fs.lstatSync(kept).ino
  fs.symlinkSync('elsewhere', path.join(modules, 'wrong'))
  fs.mkdirSync(path.join(modules, 'dir-in-place', 'child'), { recursive: true })
  const pool = new LinkPool({ threads: 1 })
  try {
    const links: Array<[string, string]> = ['kept', 'wrong', 'dir-in-place', '@scope/new'].map((name) => [path.join(modules, name), target])
    await pool.link({ storeDir: tempDir('link-store'), method: 'auto', packages: [], links })
    for (const [link] of links) {
      assert.equal(fs.readlinkSync(link), path.relative(path.dirname(link), target), link)
      assert.equal(fs.realpathSync(link), fs.realpathSync(target))
    }
    assert.equal(fs.lstatSync(kept).ino, keptIno, 'a correct link is not written again')

    const file = path.join(modules, 'a-file')
    fs.writeFileSync(file, '')
    await assert.rejects(pool.link({ storeDir: tempDir('link-store'), method: 'auto', packages: [], links: [[path.join(file, 'x'), target]] }), (err: Error & { code?: string }) => {
      assert.equal(err.code, 'ERR_LODE_ENOTDIR')
      assert.equal(err.message, `Cannot symlink ${path.join(file, 'x')}: a file stands where a directory belongs.`)
      return true
    })
  } finally {
    await pool.close()
  }
})

test('a directory in a link\'s place is removed only inside a node_modules directory; elsewhere the link fails and the directory stays', async () => {
  const root = tempDir('link-outside')
  const target = path.join(root, 'node_modules', '.pnpm', 'a@1.0.0', 'node_modules', 'a')
  fs.mkdirSync(target, { recursive: true })
  const precious = path.join(root, 'precious')
  fs.mkdirSync(precious)
  fs.writeFileSync(path.join(precious, 'keep.txt'), 'keep')
  const pool = new LinkPool({ threads: 1 })
  try {
    await assert.rejects(pool.link({ storeDir: tempDir('link-store'), method: 'auto', packages: [], links: [[precious, target]] }), (err: Error & { code?: string }) => {
      assert.equal(err.code, 'ERR_LODE_LINK_FAILED')
      assert.match(err.message, /not inside a node_modules directory/)
      return true
    })
    assert.equal(fs.readFileSync(path.join(precious, 'keep.txt'), 'utf8'), 'keep')
  } finally {
    await pool.close()
  }
})
