// Tarballs too large to build in memory (gzip bombs, files of tens of MB), gzipped a chunk at a
// time so a test holds only the compressed bytes.
import crypto from 'node:crypto'
import fs from 'node:fs'
import path from 'node:path'
import { Readable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import { createGzip } from 'node:zlib'

import { ustarHeader } from '@lode/__utils__.test-fixtures'
import { storePath } from '@lode/store.cafs'

export interface StreamedEntry {
  /** The path as the tarball has it (e.g. `package/big.bin`), at most 100 bytes. */
  name: string
  /** The size the header gives. */
  size: number
  /** The content; without it, `size` zero bytes. */
  content?: Buffer
  mode?: number
  /** Bytes of content actually written, to cut the archive short inside this entry. */
  written?: number
}

export interface GzipTarOptions {
  /** The two zero blocks that end a tar archive; false leaves them out. Default true. */
  end?: boolean
  /** Zero bytes after the end of the archive. */
  trailingZeros?: number
  /** gzip level; 1 gzips a GiB of zeros in about half a second. */
  level?: number
}


const ZEROS = Buffer.alloc(1024 * 1024)

function * zeros (count: number): Generator<Buffer> {
  for (let left = count; left > 0; left -= ZEROS.length) yield left >= ZEROS.length ? ZEROS : ZEROS.subarray(0, left)
}

function * tarChunks (entries: StreamedEntry[], opts: GzipTarOptions): Generator<Buffer> {
  for (const entry of entries) {
    yield ustarHeader(entry.name, entry.size, entry.mode)
    const written = entry.written ?? entry.size
    if (entry.content !== undefined) yield entry.content.subarray(0, written)
    else yield * zeros(written)
    if (written < entry.size) return
    yield * zeros((512 - (entry.size % 512)) % 512)
  }
  if (opts.end !== false) yield * zeros(1024)
  yield * zeros(opts.trailingZeros ?? 0)
}

/** The gzipped tar archive of `entries`, built a chunk at a time. */
export async function gzipTar (entries: StreamedEntry[], opts: GzipTarOptions = {}): Promise<Buffer> {
  const out: Buffer[] = []
  await pipeline(
    Readable.from(tarChunks(entries, opts), { objectMode: false }),
    createGzip({ level: opts.level ?? 6 }),
    async (source: AsyncIterable<Buffer>) => {
      for await (const chunk of source) out.push(chunk)
    }
  )
  return Buffer.concat(out)
}

/** The uncompressed size a gzip file's trailer claims (its last member's ISIZE). */
export function gzipTrailerSize (gzip: Buffer): number {
  return gzip.readUInt32LE(gzip.length - 4)
}

/** A copy of `gzip` whose trailer claims `size`: zlib then rejects it at the end (incorrect length check). */
export function withTrailerSize (gzip: Buffer, size: number): Buffer {
  const copy = Buffer.from(gzip)
  copy.writeUInt32LE(size, copy.length - 4)
  return copy
}

/** Bytes that gzip well but are not all the same: a repeated 1 KiB random block. */
export function patterned (size: number): Buffer {
  const block = crypto.randomBytes(1024)
  const content = Buffer.alloc(size)
  for (let offset = 0; offset < size; offset += block.length) block.copy(content, offset)
  return content
}

/** The names left in the store's temp dir, or undefined when it was never made. */
export function tempFiles (storeDir: string): string[] | undefined {
  const dir = path.join(storePath(storeDir), 'tmp')
  return fs.existsSync(dir) ? fs.readdirSync(dir) : undefined
}
