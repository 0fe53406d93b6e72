import assert from 'node:assert/strict'
import crypto from 'node:crypto'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { test } from 'node:test'
import { gzipSync } from 'node:zlib'

import { buildTarball, integrityOf, packTar } from '@lode/__utils__.test-fixtures'
import type { TarEntry } from '@lode/__utils__.test-fixtures'
import { casFileMatches, casFilePath, packFiles } from '@lode/store.cafs'
import type { CasFileInfo } from '@lode/store.cafs'
import { decodeRow } from '@lode/store.index'
import type { BundledManifest } from '@lode/store.index'
import { extract } from '@lode/worker.extract'

function tempStore (): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'lode-extract-'))
}

function arrayBufferOf (data: Buffer): ArrayBuffer {
  return new Uint8Array(data).buffer
}

/** The extracted package's index row decoded, after checking that the other fields agree with it. */
async function run (
  entries: TarEntry[],
  storeDir = tempStore()
): Promise<{ files: Map<string, CasFileInfo>, manifest: BundledManifest | undefined, unpackedSize: number }> {
  const { tarball, integrity } = await buildTarball(entries)
  const result = await extract({ tarball: arrayBufferOf(tarball), integrity, storeDir, pkgId: 'pkg@1.0.0' })
  if (!result.ok) assert.fail(`extract failed: ${result.error.code} ${result.error.message}`)
  const row = decodeRow(result.value.row)
  assert.equal(result.value.files, packFiles(row.files), 'the packed file list is the row\'s')
  assert.equal(result.value.requiresBuild, row.requiresBuild === true)
  return { files: row.files, manifest: row.manifest, unpackedSize: result.value.unpackedSize }
}

async function runError (tarball: Buffer, integrity = integrityOf(tarball)): Promise<{ code: string, message: string, storeDir: string }> {
  const storeDir = tempStore()
  const result = await extract({ tarball: arrayBufferOf(tarball), integrity, storeDir, pkgId: 'bad-pkg@2.0.0' })
  if (result.ok) assert.fail('extract should have failed')
  assert.match(result.error.message, /bad-pkg@2\.0\.0/, 'the error names the package')
  return { ...result.error, storeDir }
}

test('every file lands in the CAS under its digest: many files, nested dirs, executables, unicode, a big entry', async () => {
  const big = crypto.randomBytes(6 * 1024 * 1024)
  const entries: TarEntry[] = [
    { name: 'package/package.json', content: JSON.stringify({ name: 'pkg', version: '1.0.0', bin: { pkg: 'bin/cli.js' } }) },
    { name: 'package/bin/cli.js', content: '#!/usr/bin/env node\n', mode: 0o755 },
    { name: 'package/lib/deep/er/still/x.js', content: 'x' },
    { name: 'package/données/été ☃.txt', content: 'unicode' },
    { name: 'package/big.bin', content: big },
    { name: 'package/empty.txt', content: '' },
    ...Array.from({ length: 500 }, (_, i) => ({ name: `package/many/f${i}.js`, content: `module.exports = ${i}\n` })),
  ]
  const storeDir = tempStore()
  const { files, manifest, unpackedSize } = await run(entries, storeDir)
  assert.equal(files.size, entries.length)
  assert.deepEqual(manifest, { name: 'pkg', version: '1.0.0', bin: { pkg: 'bin/cli.js' } })
  assert.equal(unpackedSize, entries.reduce((sum, e) => sum + Buffer.byteLength(e.content ?? ''), 0))
  for (const entry of entries) {
    const info = files.get(entry.name.slice('package/'.length))
    assert.ok(info !== undefined, entry.name)
    const content = Buffer.isBuffer(entry.content) ? entry.content : Buffer.from(entry.content ?? '')
    assert.equal(info.digest, crypto.createHash('sha512').update(content).digest('hex'))
    assert.equal(info.size, content.length)
    assert.equal(info.mode, entry.mode ?? 0o644)
    assert.ok(casFileMatches(storeDir, info), `${entry.name} is in the CAS with the right content`)
  }
  assert.ok(casFilePath(storeDir, files.get('bin/cli.js')!.digest, 0o755).endsWith('-exec'))
})

test('the first path segment is stripped whatever it is called, and links and directories are skipped', async () => {
  const { files } = await run([
    { name: 'node/', type: 'directory' },
    { name: 'node/package.json', content: '{"name":"n","version":"1.0.0"}' },
    { name: 'node/lib/a.js', content: 'a' },
    { name: 'node/link-to-a.js', type: 'symlink', linkname: 'lib/a.js' },
    { name: 'node/hard-a.js', type: 'link', linkname: 'node/lib/a.js' },
    { name: 'node/evil-link', type: 'symlink', linkname: '../../../../etc/passwd' },
  ])
  assert.deepEqual([...files.keys()].sort(), ['lib/a.js', 'package.json'])
})

test('a tarball without package.json gets pnpm\'s placeholder', async () => {
  const { files, manifest } = await run([{ name: 'package/index.js', content: 'x' }])
  assert.equal(manifest, undefined)
  assert.ok(files.has('package.json'))
})

test('a later entry with the same path wins', async () => {
  const { files } = await run([
    { name: 'package/package.json', content: '{"name":"a","version":"1.0.0"}' },
    { name: 'package/a.js', content: 'first' },
    { name: 'package/a.js', content: 'second' },
  ])
  assert.equal(files.get('a.js')!.digest, crypto.createHash('sha512').update('second').digest('hex'))
})

test('an integrity mismatch is rejected before anything is written', async () => {
  const { tarball } = await buildTarball([{ name: 'package/package.json', content: '{}' }])
  const other = integrityOf(Buffer.from('something else'))
  const { code, message, storeDir } = await runError(tarball, other)
  assert.equal(code, 'ERR_LODE_TARBALL_INTEGRITY')
  assert.match(message, /expected sha512-/)
  assert.equal(fs.existsSync(path.join(storeDir, 'v11')), false, 'nothing was written to the store')
  assert.equal((await runError(tarball, 'not-an-integrity')).code, 'ERR_LODE_INVALID_INTEGRITY')
})

test('data that is not gzip, or damaged gzip, is rejected', async () => {
  assert.equal((await runError(Buffer.from('<html>Not Found</html>'))).code, 'ERR_LODE_TARBALL_NOT_GZIP')
  const { tarball } = await buildTarball([{ name: 'package/package.json', content: '{}' }])
  assert.equal((await runError(tarball.subarray(0, tarball.length - 20))).code, 'ERR_LODE_TARBALL_NOT_GZIP')
})

test('gzip data that is not a tar archive is rejected', async () => {
  assert.equal((await runError(gzipSync(crypto.randomBytes(3000)))).code, 'ERR_LODE_TARBALL_NOT_TAR')
  assert.equal((await runError(gzipSync(Buffer.alloc(0)))).code, 'ERR_LODE_TARBALL_NOT_TAR')
  const tar = await packTar([{ name: 'package/big.js', content: Buffer.alloc(100_000, 1) }])
  assert.equal((await runError(gzipSync(tar.subarray(0, 20_000)))).code, 'ERR_LODE_TARBALL_NOT_TAR')
})

test('entries that escape the package directory reject the whole tarball', async () => {
  for (const name of ['package/../../escape.js', 'package/a/../../../escape.js', '/etc/passwd', 'C:\\evil.js', 'package/..']) {
    const { tarball } = await buildTarball([
      { name: 'package/package.json', content: '{"name":"a","version":"1.0.0"}' },
      { name, content: 'evil' },
    ])
    const { code, message } = await runError(tarball)
    assert.equal(code, 'ERR_LODE_TARBALL_UNSAFE_PATH', name)
    assert.ok(message.includes(name), `the message names the entry ${name}`)
  }
  // `..` that stays inside the package is fine.
  const { files } = await run([{ name: 'package/a/../b.js', content: 'b' }])
  assert.ok(files.has('b.js'))
})

test('a backslash in an entry name is part of the file\'s name on POSIX and a separator on Windows, as pnpm 11 reads it', async () => {
  const windows = path.sep === '\\'
  const { files } = await run([
    { name: 'package/package.json', content: '{"name":"a","version":"1.0.0"}' },
    // Packed on Windows: the package's directory ended by a backslash (pnpm strips it at either).
    { name: 'package\\first.js', content: 'first' },
    { name: '\\lead.js', content: 'lead' },
    { name: 'package/lib/a\\b.js', content: 'b' },
    // A name holding `./` or `.\`: its backslashes are separators everywhere, as pnpm resolves it.
    { name: 'package/.\\dot.js', content: 'dot' },
    { name: 'package/c\\.\\z.js', content: 'z' },
  ])
  assert.deepEqual([...files.keys()].sort(), ['c/z.js', 'dot.js', 'first.js', 'lead.js', windows ? 'lib/a/b.js' : 'lib/a\\b.js', 'package.json'].sort())
  // A file `a` and a file `a\b.js` beside it: two files on POSIX, as pnpm installs them; on Windows one path is both a file and a directory.
  const beside = [{ name: 'package/lib/a', content: 'a' }, { name: 'package/lib/a\\b.js', content: 'b' }]
  if (windows) assert.equal((await runError((await buildTarball(beside)).tarball)).code, 'ERR_LODE_TARBALL_PATH_CONFLICT')
  else assert.deepEqual([...(await run(beside)).files.keys()].filter((file) => file.startsWith('lib/')).sort(), ['lib/a', 'lib/a\\b.js'])
  // A `..\` that climbs out is refused as `../` is (pnpm would keep what is left inside).
  for (const name of ['package/..\\escape.js', 'package/a\\..\\..\\escape.js']) {
    const { tarball } = await buildTarball([{ name: 'package/package.json', content: '{"name":"a","version":"1.0.0"}' }, { name, content: 'evil' }])
    assert.equal((await runError(tarball)).code, 'ERR_LODE_TARBALL_UNSAFE_PATH', name)
  }
})

test('a package.json that is not JSON is reported', async () => {
  const { tarball } = await buildTarball([{ name: 'package/package.json', content: '{ nope' }])
  assert.equal((await runError(tarball)).code, 'ERR_LODE_TARBALL_BAD_MANIFEST')
})

test('the row says the package builds when it has an install script or a binding.gyp, as pnpm\'s does', async () => {
  const withScript = await buildTarball([{ name: 'package/package.json', content: JSON.stringify({ name: 'pkg', version: '1.0.0', scripts: { postinstall: 'node x.js', test: 'x' } }) }])
  const withGyp = await buildTarball([{ name: 'package/package.json', content: '{"name":"pkg","version":"1.0.0"}' }, { name: 'package/binding.gyp', content: '{}' }])
  const plain = await buildTarball([{ name: 'package/package.json', content: '{"name":"pkg","version":"1.0.0"}' }])
  const builds: boolean[] = []
  for (const { tarball, integrity } of [withScript, withGyp, plain]) {
    const result = await extract({ tarball: arrayBufferOf(tarball), integrity, storeDir: tempStore(), pkgId: 'pkg@1.0.0' })
    assert.ok(result.ok)
    assert.equal(decodeRow(result.value.row).requiresBuild, result.value.requiresBuild)
    builds.push(result.value.requiresBuild)
  }
  assert.deepEqual(builds, [true, true, false])
  const row = decodeRow((await extract({ tarball: arrayBufferOf(withScript.tarball), integrity: withScript.integrity, storeDir: tempStore(), pkgId: 'pkg@1.0.0' }) as { ok: true, value: { row: Uint8Array } }).value.row)
  assert.deepEqual(row.manifest?.scripts, { postinstall: 'node x.js' }, 'only lifecycle scripts are kept')
})
