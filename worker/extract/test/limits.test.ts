import assert from 'node:assert/strict'
import crypto from 'node:crypto'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { after, test } from 'node:test'
import { gzipSync } from 'node:zlib'

import { buildTarball, integrityOf } from '@lode/__utils__.test-fixtures'
import type { TarEntry } from '@lode/__utils__.test-fixtures'
import { casFileMatches, casFilePath } from '@lode/store.cafs'
import { decodeRow } from '@lode/store.index'
import { DEFAULT_EXTRACT_LIMITS, extract } from '@lode/worker.extract'
import type { ExtractedPackage, ExtractLimits } from '@lode/worker.extract'

import { gzipTar, gzipTrailerSize, patterned, tempFiles, withTrailerSize } from './streamed-tarball.js'
import type { StreamedEntry } from './streamed-tarball.js'

const MiB = 1024 * 1024
const MANIFEST: StreamedEntry = { name: 'package/package.json', size: 32, content: Buffer.from('{"name":"big","version":"1.0.0"}') }

// These stores hold files of tens of MB: removed when the tests are done.
const stores: string[] = []
after(() => {
  for (const storeDir of stores) fs.rmSync(storeDir, { recursive: true, force: true })
})

function tempStore (): string {
  const storeDir = fs.mkdtempSync(path.join(os.tmpdir(), 'lode-extract-limits-'))
  stores.push(storeDir)
  return storeDir
}

async function extractTarball (
  tarball: Buffer,
  opts: { storeDir?: string, limits?: Partial<ExtractLimits> } = {}
): Promise<ExtractedPackage> {
  const result = await extract({ tarball: new Uint8Array(tarball).buffer, integrity: integrityOf(tarball), storeDir: opts.storeDir ?? tempStore(), pkgId: 'big@1.0.0', ...(opts.limits === undefined ? {} : { limits: opts.limits }) })
  if (!result.ok) assert.fail(`extract failed: ${result.error.code} ${result.error.message}`)
  return result.value
}

/** The error extracting `tarball` gives; it must name the package, and leave no temp file behind. */
async function extractError (
  tarball: Buffer,
  limits?: Partial<ExtractLimits>
): Promise<{ code: string, message: string, hint: string | undefined, storeDir: string }> {
  const storeDir = tempStore()
  const result = await extract({ tarball: new Uint8Array(tarball).buffer, integrity: integrityOf(tarball), storeDir, pkgId: 'evil@6.6.6', ...(limits === undefined ? {} : { limits }) })
  if (result.ok) assert.fail('extract should have failed')
  assert.match(result.error.message, /evil@6\.6\.6/, 'the error names the package')
  assert.ok((result.error.hint ?? '').length > 0, 'the error has a hint')
  assert.deepEqual(tempFiles(storeDir) ?? [], [], 'no temp file is left in the store')
  return { code: result.error.code, message: result.error.message, hint: result.error.hint, storeDir }
}

test('the default limits are exported and generous enough for real packages', () => {
  assert.deepEqual(DEFAULT_EXTRACT_LIMITS, { maxSize: 1024 * MiB, maxFiles: 100_000, maxPathLength: 1024 })
  assert.ok(Object.isFrozen(DEFAULT_EXTRACT_LIMITS))
})

test('a gzip bomb past the size limit is rejected: a file larger than the limit', async () => {
  const bomb = await gzipTar([MANIFEST, { name: 'package/bomb.bin', size: 64 * MiB }], { level: 1 })
  assert.ok(bomb.length < MiB, `a small tarball (${bomb.length} bytes)`)
  const { code, message, hint } = await extractError(bomb, { maxSize: 16 * MiB })
  assert.equal(code, 'ERR_LODE_TARBALL_TOO_LARGE')
  assert.match(message, /more than 16 MiB/)
  assert.match(hint!, /raise tarballMaxUnpackedSize in pnpm-workspace.yaml/)
  // The same tarball under a limit it fits.
  const extracted = await extractTarball(bomb, { limits: { maxSize: 65 * MiB } })
  assert.equal(extracted.unpackedSize, 64 * MiB + 32)
})

test('a gzip bomb past the size limit is rejected: many files that add up past it', async () => {
  const files = Array.from({ length: 12 }, (_, i) => ({ name: `package/part${i}.bin`, size: 2 * MiB }))
  const { code } = await extractError(await gzipTar([MANIFEST, ...files], { level: 1 }), { maxSize: 16 * MiB })
  assert.equal(code, 'ERR_LODE_TARBALL_TOO_LARGE')
})

test('an entry whose header claims more than the size limit is rejected before it is inflated', async () => {
  // The header says 2 GiB; the archive holds 1 MiB of it. Reading on would find it cut short
  // (ERR_LODE_TARBALL_NOT_TAR); the header alone is enough to refuse it.
  const claim = await gzipTar([MANIFEST, { name: 'package/bomb.bin', size: 2048 * MiB, written: MiB }], { end: false })
  assert.equal((await extractError(claim)).code, 'ERR_LODE_TARBALL_TOO_LARGE')
})

test('zeros after the end of the archive count against the size limit', async () => {
  const tarball = await gzipTar([MANIFEST, { name: 'package/index.js', size: 2, content: Buffer.from('{}') }], { trailingZeros: 40 * MiB, level: 1 })
  assert.equal((await extractError(tarball, { maxSize: 8 * MiB })).code, 'ERR_LODE_TARBALL_TOO_LARGE')
  const extracted = await extractTarball(tarball, { limits: { maxSize: 41 * MiB } })
  assert.equal(extracted.unpackedSize, 34)
})

test('a package.json larger than 8 MiB is refused before it is read', async () => {
  const tarball = await gzipTar([{ name: 'package/package.json', size: 8 * MiB + 1 }], { level: 1 })
  const { code, message } = await extractError(tarball)
  assert.equal(code, 'ERR_LODE_TARBALL_BAD_MANIFEST')
  assert.match(message, /package\.json in the tarball of evil@6\.6\.6 is larger than 8 MiB/)
})

test('more files than the limit are rejected; as many as the limit are fine', async () => {
  const entries: TarEntry[] = [
    { name: 'package/package.json', content: '{"name":"many","version":"1.0.0"}' },
    { name: 'package/a.js', content: 'a' },
    { name: 'package/b.js', content: 'b' },
    // Directories and links are not files.
    { name: 'package/lib/', type: 'directory' },
    { name: 'package/link.js', type: 'symlink', linkname: 'a.js' },
  ]
  const { tarball } = await buildTarball(entries)
  const extracted = await extractTarball(tarball, { limits: { maxFiles: 3 } })
  assert.equal(decodeRow(extracted.row).files.size, 3)
  const { tarball: more } = await buildTarball([...entries, { name: 'package/c.js', content: 'c' }])
  const { code, message } = await extractError(more, { maxFiles: 3 })
  assert.equal(code, 'ERR_LODE_TARBALL_TOO_MANY_FILES')
  assert.match(message, /more than 3 files/)
})

test('a file path longer than the limit is rejected; one as long as the limit is fine', async () => {
  // 1024 bytes in all: `package/`, then 1016 bytes, of which `é` takes two each.
  const atLimit = `package/${'é'.repeat(500)}/${'x'.repeat(15)}`
  assert.equal(Buffer.byteLength(atLimit), DEFAULT_EXTRACT_LIMITS.maxPathLength)
  const { tarball } = await buildTarball([{ name: atLimit, content: 'fine' }])
  const extracted = await extractTarball(tarball)
  assert.ok(decodeRow(extracted.row).files.has(atLimit.slice('package/'.length)))

  const { tarball: tooLong } = await buildTarball([{ name: `${atLimit}y`, content: 'too long' }])
  const { code, message } = await extractError(tooLong)
  assert.equal(code, 'ERR_LODE_TARBALL_PATH_TOO_LONG')
  assert.match(message, /longer than 1024 bytes \(1025\)/)
  const { tarball: short } = await buildTarball([{ name: 'package/abcdefghij.js', content: 'x' }])
  assert.equal((await extractError(short, { maxPathLength: 20 })).code, 'ERR_LODE_TARBALL_PATH_TOO_LONG')
})

test('a path that is both a file and a directory is rejected, whichever comes first', async () => {
  const orders: TarEntry[][] = [
    [{ name: 'package/lib', content: 'a file' }, { name: 'package/lib.js', content: 'x' }, { name: 'package/lib-b/c.js', content: 'x' }, { name: 'package/lib/index.js', content: 'under it' }],
    [{ name: 'package/lib/index.js', content: 'under it' }, { name: 'package/lib.js', content: 'x' }, { name: 'package/lib', content: 'a file' }],
    [{ name: 'package/lib/deep/er/index.js', content: 'under it' }, { name: 'package/lib', content: 'a file' }],
  ]
  for (const entries of orders) {
    const { tarball } = await buildTarball([{ name: 'package/package.json', content: '{"name":"pkg","version":"1.0.0"}' }, ...entries])
    const { code, message, hint } = await extractError(tarball)
    assert.equal(code, 'ERR_LODE_TARBALL_PATH_CONFLICT', entries.map((e) => e.name).join(', '))
    assert.match(message, /a file "lib" and a file "lib\/(deep\/er\/)?index\.js" under it/)
    assert.match(hint!, /another version/)
  }
  // No package.json, but a directory of that name: pnpm's placeholder would be a file there.
  const { tarball } = await buildTarball([{ name: 'package/package.json/x', content: 'x' }])
  assert.equal((await extractError(tarball)).code, 'ERR_LODE_TARBALL_PATH_CONFLICT')
  // Neighbours that only share a prefix are no conflict, and neither is a path repeated.
  const { tarball: fine } = await buildTarball([
    { name: 'package/lib', content: 'a file' },
    { name: 'package/lib.js', content: 'x' },
    { name: 'package/lib-b/c.js', content: 'x' },
    { name: 'package/lib', content: 'again' },
    { name: 'package/libs/index.js', content: 'x' },
  ])
  assert.deepEqual([...decodeRow((await extractTarball(fine)).row).files.keys()].sort(), ['lib', 'lib-b/c.js', 'lib.js', 'libs/index.js', 'package.json'])
})

test('a 40 MB file in a tarball of over 64 MiB is streamed to the CAS through a temp file, with its digest and content', async () => {
  const content = crypto.randomBytes(40 * 1000 * 1000)
  const tarball = await gzipTar([
    MANIFEST,
    { name: 'package/data.bin', size: content.length, content, mode: 0o755 },
    { name: 'package/zeros.bin', size: 30 * MiB },
    { name: 'package/small.js', size: 1, content: Buffer.from('x') },
  ])
  assert.ok(gzipTrailerSize(tarball) > 64 * MiB, 'the trailer says it is large: the streaming path')
  const storeDir = tempStore()
  const extracted = await extractTarball(tarball, { storeDir })
  const files = decodeRow(extracted.row).files
  const info = files.get('data.bin')!
  assert.equal(info.digest, crypto.createHash('sha512').update(content).digest('hex'))
  assert.equal(info.size, content.length)
  assert.equal(info.mode, 0o755)
  assert.ok(casFileMatches(storeDir, info), 'the CAS file holds the content')
  assert.ok(casFilePath(storeDir, info.digest, info.mode).endsWith('-exec'))
  assert.notEqual(fs.statSync(casFilePath(storeDir, info.digest, info.mode)).mode & 0o100, 0)
  assert.equal(files.get('zeros.bin')!.digest, crypto.createHash('sha512').update(Buffer.alloc(30 * MiB)).digest('hex'))
  assert.ok(casFileMatches(storeDir, files.get('zeros.bin')!))
  assert.ok(casFileMatches(storeDir, files.get('small.js')!))
  assert.deepEqual(tempFiles(storeDir), [], 'it went through the temp dir, which is left empty')
  assert.equal(extracted.unpackedSize, content.length + 30 * MiB + 33)
})

test('a tarball cut short inside a streamed file, or rejected after one, leaves no temp file', async () => {
  const cut = await gzipTar([MANIFEST, { name: 'package/data.bin', size: 128 * MiB, written: 80 * MiB }], { end: false, level: 1 })
  assert.equal((await extractError(cut)).code, 'ERR_LODE_TARBALL_NOT_TAR')
  const conflict = await gzipTar([MANIFEST, { name: 'package/a', size: 80 * MiB }, { name: 'package/a/b', size: 1 }], { level: 1 })
  assert.equal((await extractError(conflict)).code, 'ERR_LODE_TARBALL_PATH_CONFLICT')
})

test('a trailer that understates the size (a last gzip member that is small) gives the right files', async () => {
  const cases: Array<{ label: string, entries: StreamedEntry[] }> = [
    { label: 'inflates to 5 MB', entries: [MANIFEST, { name: 'package/data.bin', size: 5 * MiB, content: patterned(5 * MiB) }] },
    { label: 'inflates to 40 MB', entries: [MANIFEST, { name: 'package/data.bin', size: 40 * MiB, content: patterned(40 * MiB) }] },
  ]
  for (const { label, entries } of cases) {
    entries.push(...Array.from({ length: 50 }, (_, i) => ({ name: `package/f${i}.js`, size: 3, content: Buffer.from(`${i}`.padStart(3)) })))
    const honest = await extractTarball(await gzipTar(entries))
    // The end-of-archive blocks in a second gzip member: the trailer then says 1024.
    const twoMembers = Buffer.concat([await gzipTar(entries, { end: false }), gzipSync(Buffer.alloc(1024))])
    assert.equal(gzipTrailerSize(twoMembers), 1024)
    const storeDir = tempStore()
    const lied = await extractTarball(twoMembers, { storeDir })
    assert.equal(lied.files, honest.files, label)
    assert.equal(lied.unpackedSize, honest.unpackedSize, label)
    for (const info of decodeRow(lied.row).files.values()) assert.ok(casFileMatches(storeDir, info), label)
  }
})

test('a trailer that overstates the size is damaged gzip, on either path', async () => {
  const tarball = await gzipTar([MANIFEST, { name: 'package/data.bin', size: 10 * MiB, content: patterned(10 * MiB) }])
  // 30 MiB: inflated in one go into a buffer that size; 4 GiB - 1: streamed.
  for (const size of [30 * MiB, 2 ** 32 - 1]) {
    const { code, message } = await extractError(withTrailerSize(tarball, size))
    assert.equal(code, 'ERR_LODE_TARBALL_NOT_GZIP', String(size))
    assert.match(message, /incorrect length check/)
  }
})
