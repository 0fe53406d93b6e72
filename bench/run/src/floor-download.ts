// The cold floor: every tarball of a lockfile downloaded from the mirror by a parallel client,
// gunzipped and unpacked to disk, with no resolution, integrity check, hashing, store or linking.
// An install that needs the network cannot beat it on this machine.
//
// Unpacking is done here (Node's zlib on the thread pool, a minimal tar reader, plain writes)
// rather than by one `tar -xzf` process per tarball: a tar process costs about 5 ms on these
// machines, which made a tar-per-tarball "floor" of 11 s slower than every installer.
//
//   node floor-download.js <registry> <lockfile> <dest> [connections]
import fs from 'node:fs/promises'
import path from 'node:path'
import { promisify } from 'node:util'
import zlib from 'node:zlib'

import { Agent, request } from 'undici'

import { lockedTarballs } from './lockfile.js'

const gunzip = promisify(zlib.gunzip)
const [registry, lockfile, destArg, connectionsArg] = process.argv.slice(2)
if (registry === undefined || lockfile === undefined || destArg === undefined) {
  throw new Error('usage: floor-download.js <registry> <lockfile> <dest> [connections]')
}
const dest = destArg
const connections = Number(connectionsArg ?? 16)
const tarballs = lockedTarballs(await fs.readFile(lockfile, 'utf8'), registry)
const dispatcher = new Agent({ connections, pipelining: 1, keepAliveTimeout: 30_000 })

/** Writes the regular files of a tar archive under `dir` (directories made as needed; links and the rest skipped). */
async function untar (tar: Buffer, dir: string): Promise<void> {
  const made = new Set<string>()
  const writes: Array<Promise<void>> = []
  for (let offset = 0; offset + 512 <= tar.length;) {
    const header = tar.subarray(offset, offset + 512)
    if (header[0] === 0) break
    const field = (start: number, length: number): string => header.toString('utf8', start, start + length).replace(/\0.*$/s, '')
    const size = parseInt(field(124, 12).trim() || '0', 8)
    const type = field(156, 1) || '0'
    const prefix = field(345, 155)
    const name = (prefix === '' ? '' : `${prefix}/`) + field(0, 100)
    const body = tar.subarray(offset + 512, offset + 512 + size)
    offset += 512 + Math.ceil(size / 512) * 512
    if (type !== '0' || name.includes('..')) continue
    const file = path.join(dir, name)
    const parent = path.dirname(file)
    if (!made.has(parent)) {
      made.add(parent)
      await fs.mkdir(parent, { recursive: true })
    }
    writes.push(fs.writeFile(file, body))
  }
  await Promise.all(writes)
}

let next = 0
async function worker (): Promise<void> {
  while (next < tarballs.length) {
    const i = next++
    const tarball = tarballs[i]!
    const response = await request(tarball.url, { dispatcher })
    if (response.statusCode !== 200) throw new Error(`GET ${tarball.url}: HTTP ${response.statusCode}`)
    const body = Buffer.from(await response.body.arrayBuffer())
    await untar(await gunzip(body), path.join(dest, String(i)))
  }
}
await Promise.all(Array.from({ length: connections }, worker))
await dispatcher.close()
