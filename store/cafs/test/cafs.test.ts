import assert from 'node:assert/strict'
import crypto from 'node:crypto'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { test } from 'node:test'

import { casFileMatches, casFilePath, contentPathFromHex, createCasWriter, storePath } from '@lode/store.cafs'

const now = (): number => 1763700000123
function tempStore (): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'lode-cafs-'))
}

function tempDirFiles (storeDir: string): string[] {
  return fs.readdirSync(path.join(storeDir, 'v11', 'tmp'))
}

test('a file is stored under its SHA-512 in the v11 layout, executables with -exec', () => {
  const storeDir = tempStore()
  const cas = createCasWriter(storeDir, { now })
  const content = Buffer.from('console.log("hi")\n')
  const digest = crypto.createHash('sha512').update(content).digest('hex')

  const plain = cas.addFile(content, 0o644)
  assert.deepEqual(plain, { checkedAt: 1763700000123, digest, mode: 0o644, size: content.length })
  const plainPath = path.join(storeDir, 'v11', 'files', digest.slice(0, 2), digest.slice(2))
  assert.equal(casFilePath(storeDir, digest, 0o644), plainPath)
  assert.deepEqual(fs.readFileSync(plainPath), content)
  assert.equal(fs.statSync(plainPath).mode & 0o111, 0)

  const exec = cas.addFile(content, 0o755)
  assert.equal(exec.mode, 0o755)
  assert.equal(casFilePath(storeDir, digest, 0o755), `${plainPath}-exec`)
  assert.notEqual(fs.statSync(`${plainPath}-exec`).mode & 0o100, 0)
  assert.equal(contentPathFromHex(digest, true), `files/${digest.slice(0, 2)}/${digest.slice(2)}-exec`)
  assert.equal(storePath(storeDir), path.join(storeDir, 'v11'))
  assert.deepEqual(fs.readdirSync(path.join(storeDir, 'v11')), ['files'], 'written in place: no temp file or directory')
})

test('content already in the store is not written again', () => {
  const storeDir = tempStore()
  const content = Buffer.from('same bytes')
  const first = createCasWriter(storeDir, { now }).addFile(content, 0o644)
  const file = casFilePath(storeDir, first.digest, 0o644)
  const before = fs.statSync(file)
  // Make any rewrite visible: a new write would give a new inode and mtime.
  fs.utimesSync(file, new Date(0), new Date(0))
  createCasWriter(storeDir, { now }).addFile(content, 0o644)
  const after = fs.statSync(file)
  assert.equal(after.ino, before.ino)
  assert.equal(after.mtimeMs, 0)
})

test('a file cut short under a digest name (a crashed in-place writer) is replaced', () => {
  const storeDir = tempStore()
  const content = Buffer.alloc(100_000, 7)
  const info = createCasWriter(storeDir, { now }).addFile(content, 0o644)
  const file = casFilePath(storeDir, info.digest, 0o644)
  fs.truncateSync(file, 4096)
  assert.equal(casFileMatches(storeDir, info), false)
  createCasWriter(storeDir, { now }).addFile(content, 0o644)
  assert.equal(casFileMatches(storeDir, info), true)
})

test('casFileMatches sees missing and altered content', () => {
  const storeDir = tempStore()
  const info = createCasWriter(storeDir, { now }).addFile(Buffer.from('abc'), 0o644)
  assert.equal(casFileMatches(storeDir, info), true)
  fs.writeFileSync(casFilePath(storeDir, info.digest, 0o644), 'abd')
  assert.equal(casFileMatches(storeDir, info), false)
  assert.equal(casFileMatches(storeDir, { digest: '00'.repeat(64), mode: 0o644 }), false)
})

test('openFile writes the content to a temp file and renames it to its digest name when finished', () => {
  const storeDir = tempStore()
  const cas = createCasWriter(storeDir, { now })
  const chunks = [Buffer.alloc(70_000, 1), Buffer.from('middle'), Buffer.alloc(10, 2)]
  const content = Buffer.concat(chunks)
  const digest = crypto.createHash('sha512').update(content).digest('hex')
  const file = cas.openFile(0o755)
  for (const chunk of chunks) file.write(chunk)
  const dest = casFilePath(storeDir, digest, 0o755)
  assert.equal(fs.existsSync(dest), false, 'nothing under the digest name before it is finished')
  assert.equal(tempDirFiles(storeDir).length, 1)
  const info = file.finish()
  assert.deepEqual(info, { checkedAt: 1763700000123, digest, mode: 0o755, size: content.length })
  assert.ok(dest.endsWith('-exec'))
  assert.deepEqual(fs.readFileSync(dest), content)
  assert.notEqual(fs.statSync(dest).mode & 0o100, 0)
  assert.deepEqual(tempDirFiles(storeDir), [], 'the temp file became the CAS file')
  file.abort()
  assert.ok(fs.existsSync(dest), 'abort after finish leaves the file')
  // The same record as addFile gives for the same content.
  assert.deepEqual(createCasWriter(tempStore(), { now }).addFile(content, 0o755), info)
})

test('openFile leaves content already in the store as it is, and replaces a file cut short', () => {
  const storeDir = tempStore()
  const content = Buffer.alloc(100_000, 9)
  const info = createCasWriter(storeDir, { now }).addFile(content, 0o644)
  const dest = casFilePath(storeDir, info.digest, 0o644)
  fs.utimesSync(dest, new Date(0), new Date(0))
  const before = fs.statSync(dest)
  const again = createCasWriter(storeDir, { now }).openFile(0o644)
  again.write(content)
  assert.deepEqual(again.finish(), info)
  assert.equal(fs.statSync(dest).ino, before.ino)
  assert.equal(fs.statSync(dest).mtimeMs, 0)
  assert.deepEqual(tempDirFiles(storeDir), [])

  fs.truncateSync(dest, 4096)
  const repair = createCasWriter(storeDir, { now }).openFile(0o644)
  repair.write(content)
  repair.finish()
  assert.equal(casFileMatches(storeDir, info), true)
  assert.deepEqual(tempDirFiles(storeDir), [])
})

test('openFile\'s abort removes the temp file and writes nothing under a digest name', () => {
  const storeDir = tempStore()
  const file = createCasWriter(storeDir, { now }).openFile(0o644)
  file.write(Buffer.from('half of a file'))
  assert.equal(tempDirFiles(storeDir).length, 1)
  file.abort()
  file.abort()
  assert.deepEqual(tempDirFiles(storeDir), [])
  assert.equal(fs.existsSync(path.join(storeDir, 'v11', 'files')), false)
})

/**
 * Runs `fn` with every `fs.writeSync` of this thread going to /dev/full instead of its file: the
 * kernel's own ENOSPC, as Node reports it, at the writer's write (a full disk cannot be had
 * without root otherwise). The files are still created where the writer puts them.
 */
function onFullDisk<T> (fn: () => T): T {
  assert.ok(fs.existsSync('/dev/full'), 'this test needs /dev/full (Linux) for a real ENOSPC')
  const full = fs.openSync('/dev/full', 'w')
  const writeSync = fs.writeSync
  const toFull = (_fd: number, ...rest: unknown[]): number => (writeSync as (...args: unknown[]) => number)(full, ...rest)
  fs.writeSync = toFull
  try {
    return fn()
  } finally {
    fs.writeSync = writeSync
    fs.closeSync(full)
  }
}

/** The regular files under `dir`, at any depth. */
function allFiles (dir: string): string[] {
  if (!fs.existsSync(dir)) return []
  return fs.readdirSync(dir, { recursive: true, withFileTypes: true }).filter((e) => e.isFile()).map((e) => path.join(e.parentPath, e.name))
}

test('a full disk: addFile throws ERR_LODE_ENOSPC naming the CAS file, and leaves no part of it under its digest name', () => {
  const storeDir = tempStore()
  const content = Buffer.alloc(50_000, 3)
  const digest = crypto.createHash('sha512').update(content).digest('hex')
  const dest = casFilePath(storeDir, digest, 0o644)
  const cas = createCasWriter(storeDir, { now })
  assert.throws(() => onFullDisk(() => cas.addFile(content, 0o644)), (err: Error & { code?: string, hint?: string }) => {
    assert.equal(err.code, 'ERR_LODE_ENOSPC')
    assert.equal(err.message, `Cannot write ${dest}: no space left on the device.`)
    assert.match(err.hint ?? '', /Free some disk space/)
    return true
  })
  assert.deepEqual(allFiles(path.join(storeDir, 'v11')), [], 'no file under the digest name, no temp file')
  // The writer did not take the digest as written: with room again, it writes it.
  cas.addFile(content, 0o644)
  assert.equal(casFileMatches(storeDir, { digest, mode: 0o644 }), true)
})

test('a full disk while a file cut short is replaced: the temp file goes, the short file stays for the next write to replace', () => {
  const storeDir = tempStore()
  const content = Buffer.alloc(50_000, 4)
  const info = createCasWriter(storeDir, { now }).addFile(content, 0o644)
  const dest = casFilePath(storeDir, info.digest, 0o644)
  fs.truncateSync(dest, 100)
  assert.throws(() => onFullDisk(() => createCasWriter(storeDir, { now }).addFile(content, 0o644)), { code: 'ERR_LODE_ENOSPC' })
  assert.deepEqual(tempDirFiles(storeDir), [])
  assert.equal(fs.statSync(dest).size, 100)
  createCasWriter(storeDir, { now }).addFile(content, 0o644)
  assert.equal(casFileMatches(storeDir, info), true)
})

test('a full disk under openFile: write throws ERR_LODE_ENOSPC naming the temp file, which abort removes', () => {
  const storeDir = tempStore()
  const file = createCasWriter(storeDir, { now }).openFile(0o644)
  const temp = path.join(storeDir, 'v11', 'tmp', tempDirFiles(storeDir)[0]!)
  assert.throws(() => onFullDisk(() => { file.write(Buffer.alloc(70_000, 5)) }), (err: Error & { code?: string }) => {
    assert.equal(err.code, 'ERR_LODE_ENOSPC')
    assert.equal(err.message, `Cannot write ${temp}: no space left on the device.`)
    return true
  })
  file.abort()
  assert.deepEqual(allFiles(path.join(storeDir, 'v11')), [])
})

test('a file where a CAS directory belongs: ERR_LODE_ENOTDIR naming the path, nothing written', () => {
  const storeDir = tempStore()
  const content = Buffer.from('in the way')
  const digest = crypto.createHash('sha512').update(content).digest('hex')
  const dir = path.join(storeDir, 'v11', 'files', digest.slice(0, 2))
  fs.mkdirSync(path.dirname(dir), { recursive: true })
  fs.writeFileSync(dir, '')
  assert.throws(() => createCasWriter(storeDir, { now }).addFile(content, 0o644), (err: Error & { code?: string, hint?: string }) => {
    assert.equal(err.code, 'ERR_LODE_ENOTDIR')
    assert.equal(err.message, `Cannot open ${casFilePath(storeDir, digest, 0o644)}: a file stands where a directory belongs.`)
    assert.match(err.hint ?? '', /Remove or rename the file/)
    return true
  })
  assert.deepEqual(allFiles(path.join(storeDir, 'v11')), [dir])
})
