import { gzipSync } from 'node:zlib'

import ssri from 'ssri'
import { pack as tarPack } from 'tar-stream'
import type { Header } from 'tar-stream'

export interface TarEntry {
  /** The path as stored in the tarball, prefix included (e.g. `package/index.js`). */
  name: string
  content?: string | Buffer
  mode?: number
  type?: 'file' | 'directory' | 'symlink' | 'link'
  /** For symlink and link entries. */
  linkname?: string
}

/** A gzipped tarball built from explicit entries, with its integrity. */
export async function buildTarball (entries: TarEntry[]): Promise<{ tarball: Buffer, integrity: string }> {
  const tarData = await packTar(entries)
  const tarball = gzipSync(tarData)
  return { tarball, integrity: integrityOf(tarball) }
}

/** The uncompressed tar archive of `entries`. */
export async function packTar (entries: TarEntry[]): Promise<Buffer> {
  const pack = tarPack()
  const chunks: Buffer[] = []
  pack.on('data', (chunk: unknown) => { chunks.push(chunk as Buffer) })
  const done = new Promise<void>((resolve, reject) => {
    pack.on('end', resolve)
    pack.on('error', reject)
  })
  for (const entry of entries) {
    const type = entry.type ?? 'file'
    const header: Partial<Header> & { name: string } = { name: entry.name, type, mode: entry.mode ?? (type === 'directory' ? 0o755 : 0o644), mtime: new Date(499162500000) }
    if (entry.linkname !== undefined) header.linkname = entry.linkname
    await new Promise<void>((resolve, reject) => {
      const callback = (err?: Error | null): void => { if (err) reject(err); else resolve() }
      if (type === 'file') pack.entry(header, entry.content ?? '', callback)
      else pack.entry(header, callback)
    })
  }
  pack.finalize()
  await done
  return Buffer.concat(chunks)
}

export function integrityOf (data: Buffer): string {
  return ssri.fromData(data, { algorithms: ['sha512'] }).toString()
}

export interface PackageSpec {
  name: string
  version: string
  dependencies?: Record<string, string>
  bin?: Record<string, string>
  scripts?: Record<string, string>
  /** Extra files, by path inside the package. */
  files?: Record<string, string | Buffer | { content: string | Buffer, mode: number }>
  /** Any other `package.json` fields (peerDependencies, optionalDependencies, os, cpu, engines, …). */
  manifest?: Record<string, unknown>
  /** Registry-side facts, not in the tarball. */
  deprecated?: string
  /** ISO time of publication; defaults to 2025-01-01. */
  publishedAt?: string
  /** The full packument's `_npmUser` (who published it: `trustedPublisher`, `approver` for a staged publish). */
  npmUser?: Record<string, unknown>
  /** `dist.attestations` (`{ url, provenance: { predicateType } }` for a provenance attestation). */
  attestations?: Record<string, unknown>
}

/** An npm-style package tarball: `package/package.json`, an `index.js` that exports its name and version, and `files`. */
export async function buildPackageTarball (
  spec: PackageSpec
): Promise<{ tarball: Buffer, integrity: string, manifest: Record<string, unknown> }> {
  const manifest: Record<string, unknown> = { name: spec.name, version: spec.version, main: 'index.js' }
  if (spec.dependencies !== undefined) manifest['dependencies'] = spec.dependencies
  if (spec.bin !== undefined) manifest['bin'] = spec.bin
  if (spec.scripts !== undefined) manifest['scripts'] = spec.scripts
  Object.assign(manifest, spec.manifest)
  const entries: TarEntry[] = [
    { name: 'package/package.json', content: JSON.stringify(manifest, null, 2) },
    { name: 'package/index.js', content: `module.exports = ${JSON.stringify({ name: spec.name, version: spec.version })}\n` },
  ]
  for (const [file, value] of Object.entries(spec.files ?? {})) {
    const entry = typeof value === 'string' || Buffer.isBuffer(value) ? { content: value, mode: 0o644 } : value
    entries.push({ name: `package/${file}`, content: entry.content, mode: entry.mode })
  }
  return { ...await buildTarball(entries), manifest }
}

/**
 * A ustar header for a regular file (`name` at most 100 bytes): for tarballs written chunk by chunk,
 * too large to build in memory (gzip bombs, huge files).
 */
export function ustarHeader (name: string, size: number, mode = 0o644): Buffer {
  const header = Buffer.alloc(512)
  header.write(name, 0, 100, 'utf8')
  header.write(`${mode.toString(8).padStart(7, '0')}\0`, 100)
  header.write('0000000\0', 108)
  header.write('0000000\0', 116)
  header.write(`${size.toString(8).padStart(11, '0')}\0`, 124)
  header.write('00000000000\0', 136)
  header.write('        ', 148)
  header.write('0', 156)
  header.write('ustar\u000000', 257)
  let sum = 0
  for (const byte of header) sum += byte
  header.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148)
  return header
}
