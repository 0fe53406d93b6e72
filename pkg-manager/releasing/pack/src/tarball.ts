import fs from 'node:fs'
import { pipeline } from 'node:stream/promises'
import { createGzip } from 'node:zlib'

import tar from 'tar-stream'

// npm's fixed time for every entry (reproducible tarballs), as pnpm writes it.
const MTIME = new Date('1985-10-26T08:15:00.000Z')

export interface TarEntry {
  /** The path inside the package (`lib/index.js`). */
  name: string
  /** The file to read; `content` instead for the rewritten package.json. */
  source?: string
  content?: string
  executable: boolean
  /** A symlink inside the package: its target, relative. */
  linkname?: string
}

/**
 * Writes a package tarball: every entry under `package/`, mode 0644 (0755 for executables), npm's
 * fixed mtime, in pnpm's order (by extension, then base name, then path: like files compress well
 * together), gzipped.
 */
export async function writePackageTarball (file: string, entries: readonly TarEntry[]): Promise<void> {
  const pack = tar.pack()
  const written = pipeline(pack, createGzip(), fs.createWriteStream(file))
  for (const entry of [...entries].sort((a, b) => compareForCompression(a.name, b.name))) {
    const name = `package/${entry.name}`
    if (entry.linkname !== undefined) {
      pack.entry({ name, mode: 0o777, mtime: MTIME, type: 'symlink', linkname: entry.linkname })
      continue
    }
    const content = entry.content ?? fs.readFileSync(entry.source!)
    pack.entry({ name, mode: entry.executable ? 0o755 : 0o644, mtime: MTIME }, content)
  }
  pack.finalize()
  await written
}

function compareForCompression (a: string, b: string): number {
  const ext = (name: string): string => {
    const base = name.slice(name.lastIndexOf('/') + 1)
    const dot = base.lastIndexOf('.')
    return dot <= 0 ? '' : base.slice(dot).toLowerCase()
  }
  const base = (name: string): string => name.slice(name.lastIndexOf('/') + 1).toLowerCase()
  return ext(a).localeCompare(ext(b), 'en') || base(a).localeCompare(base(b), 'en') || `package/${a}`.localeCompare(`package/${b}`, 'en')
}
