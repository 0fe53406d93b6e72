// bench/extract peak RSS: extracts adversarial and very large tarballs through the store pool,
// each in a process of its own, and prints the peak RSS of that process (main thread and store
// thread together). The tarballs are written by streaming, so this script stays small itself.
//
//   node bench/extract/dist/src/peak-rss.js [--work-dir DIR]
//
// Cases: a 2 GiB zero-filled file (2 MB gzipped) with the default limits and with the size limit
// raised to let it through, 100,000 small files (package.json included), and a 40 MB file.
import { spawnSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { pipeline } from 'node:stream/promises'
import { parseArgs } from 'node:util'
import { createGzip } from 'node:zlib'

import { ustarHeader } from '@lode/__utils__.test-fixtures'
import { StorePool } from '@lode/worker.pools'
import ssri from 'ssri'

const { values } = parseArgs({
  options: {
    'work-dir': { type: 'string', default: path.join(os.tmpdir(), 'lode-peak-rss') },
    // Internal: run one extraction in this process and print its peak RSS.
    child: { type: 'string' },
    'max-size': { type: 'string' },
  },
})

interface Entry { name: string, size: number, content?: Buffer }

/** The tar archive of `entries`, chunk by chunk; entries without `content` are zeros. */
function * tarChunks (entries: Iterable<Entry>): Generator<Buffer> {
  const zeros = Buffer.alloc(1024 * 1024)
  for (const entry of entries) {
    yield ustarHeader(entry.name, entry.size)
    if (entry.content !== undefined) {
      yield entry.content
    } else {
      for (let left = entry.size; left > 0; left -= zeros.length) yield left >= zeros.length ? zeros : zeros.subarray(0, left)
    }
    const padding = (512 - (entry.size % 512)) % 512
    if (padding > 0) yield zeros.subarray(0, padding)
  }
  yield zeros.subarray(0, 1024)
}

async function writeTarball (file: string, entries: () => Iterable<Entry>): Promise<void> {
  if (fs.existsSync(file)) return
  const temp = `${file}.${process.pid}.tmp`
  await pipeline(tarChunks(entries()), createGzip(), fs.createWriteStream(temp))
  fs.renameSync(temp, file)
}

function * manifestAnd (files: Iterable<Entry>): Generator<Entry> {
  const manifest = Buffer.from('{"name":"big","version":"1.0.0"}')
  yield { name: 'package/package.json', size: manifest.length, content: manifest }
  yield * files
}

async function runChild (file: string): Promise<void> {
  const tarball = fs.readFileSync(file)
  const integrity = ssri.fromData(tarball, { algorithms: ['sha512'] }).toString()
  const storeDir = fs.mkdtempSync(path.join(path.dirname(file), 'store-'))
  const pool = new StorePool({ threads: 1 })
  let outcome: string
  try {
    const maxSize = values['max-size']
    const limits = maxSize === undefined ? {} : { limits: { maxSize: Number(maxSize) } }
    const extracted = await pool.extract(tarball, { integrity, storeDir, pkgId: 'big@1.0.0', ...limits })
    // `packFiles`' list: path, digest and mode of each file, NUL-separated (counted without splitting it).
    let fields = 1
    for (let i = extracted.files.indexOf('\0'); i !== -1; i = extracted.files.indexOf('\0', i + 1)) fields++
    outcome = `ok, ${fields / 3} files`
  } catch (err) {
    outcome = (err as { code?: string }).code ?? String(err)
  } finally {
    await pool.close()
    fs.rmSync(storeDir, { recursive: true, force: true })
  }
  console.log(JSON.stringify({ maxRssMb: Math.round(process.resourceUsage().maxRSS / 1024), outcome }))
}

if (values.child !== undefined) {
  await runChild(values.child)
} else {
  const workDir = path.resolve(values['work-dir'])
  fs.mkdirSync(workDir, { recursive: true })
  const bomb = path.join(workDir, 'bomb-2g.tgz')
  const many = path.join(workDir, 'files-100k.tgz')
  const large = path.join(workDir, 'file-40m.tgz')
  await writeTarball(bomb, () => manifestAnd([{ name: 'package/bomb.bin', size: 2 * 1024 ** 3 }]))
  await writeTarball(many, () => manifestAnd(Array.from({ length: 99_999 }, (_, i) => {
    const content = Buffer.from(`module.exports = ${i}\n`)
    return { name: `package/lib/${i % 100}/f${i}.js`, size: content.length, content }
  })))
  await writeTarball(large, () => manifestAnd([{ name: 'package/data.bin', size: 40 * 1024 * 1024, content: Buffer.alloc(40 * 1024 * 1024, 'lode') }]))
  const cases: Array<{ label: string, file: string, maxSize?: number }> = [
    { label: '2 GiB bomb, default limits', file: bomb },
    { label: '2 GiB bomb, size limit 3 GiB', file: bomb, maxSize: 3 * 1024 ** 3 },
    { label: '100,000 small files (the default limit)', file: many },
    { label: 'one 40 MB file', file: large },
  ]
  console.log('| case | tarball | peak RSS | outcome |\n|---|---|---|---|')
  for (const { label, file, maxSize } of cases) {
    const args = [import.meta.filename, '--child', file, ...(maxSize === undefined ? [] : ['--max-size', String(maxSize)])]
    const child = spawnSync(process.execPath, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] })
    const line = child.stdout.trim().split('\n').at(-1) ?? ''
    let result: { maxRssMb: number, outcome: string }
    try {
      result = JSON.parse(line) as typeof result
    } catch {
      result = { maxRssMb: Number.NaN, outcome: `crashed (${child.signal ?? child.status}): ${child.stderr.trim().split('\n').slice(0, 2).join(' ')}` }
    }
    console.log(`| ${label} | ${(fs.statSync(file).size / 1e6).toFixed(1)} MB | ${result.maxRssMb} MB | ${result.outcome} |`)
  }
}
