import { createHash } from 'node:crypto'
import fs from 'node:fs/promises'
import path from 'node:path'
import { Readable } from 'node:stream'
import { gunzipSync } from 'node:zlib'

import { LodeError, hasErrno } from '@lode/core.error'
import { parsePackageJson } from '@lode/fs.package-json'
import { trimManifest } from '@lode/resolving.npm-resolver'
import type { PackageMeta } from '@lode/resolving.npm-resolver'
import tar from 'tar-stream'

/** What pnpm counts as a tarball file name. */
const TARBALL = /\.(?:tgz|tar\.gz|tar|tar\.bz2|tbz2|tbz)$/i

/** Whether a path names a tarball file, as pnpm tells one from a directory. */
export function isTarballPath (file: string): boolean {
  return TARBALL.test(file)
}

/**
 * A dependency that does not come from registry metadata, resolved:
 * - `link`: a symlink to a directory (no lockfile package entry);
 * - `package`: a directory (`file:dir`) or a tarball (`file:x.tgz`, a URL), with its manifest.
 */
export type LocalResolution =
  | { kind: 'link', ref: string }
  | {
    kind: 'package'
    /** `name@file:path` or `name@<url>`: the lockfile's package key. */
    id: string
    resolution: { directory: string, type: 'directory' } | { integrity: string, tarball: string }
    meta: PackageMeta
    /** For a directory: where it is, so its own `file:` dependencies resolve from there. */
    dir?: string
  }

export interface LocalSpec {
  /** `file:` and `link:` as written; `path` for a bare path (`./x`, `../x`, `/x`). */
  protocol: 'file' | 'link' | 'path'
  path: string
}

export interface ResolveLocalOptions {
  /** The directory a relative path starts from (the project, or the package that declares a `file:` dependency). */
  baseDir: string
  /** Paths in the lockfile are relative to it. */
  lockfileDir: string
  /** Who wants it, for errors. */
  wantedBy: string
  onWarning: (message: string) => void
}

/**
 * Resolves `file:`, `link:` and bare-path specs as pnpm 11 does: a bare path to a directory is a
 * link, `file:` to a directory a package read from there, a tarball file a package with the
 * integrity of its bytes.
 */
export async function resolveLocal (alias: string, spec: LocalSpec, opts: ResolveLocalOptions): Promise<LocalResolution> {
  const target = path.resolve(opts.baseDir, spec.path)
  const rel = relativePath(opts.lockfileDir, target)
  if (TARBALL.test(spec.path) && spec.protocol !== 'link') {
    const bytes = await readFile(target, alias, opts.wantedBy)
    const meta = await manifestOfTarball(bytes, `file:${rel}`)
    return { kind: 'package', id: `${meta.name}@file:${rel}`, resolution: { integrity: integrityOf(bytes), tarball: `file:${rel}` }, meta }
  }
  if (spec.protocol !== 'file') {
    if (!await isDirectory(target)) opts.onWarning(`Installing a dependency from a non-existent directory: ${target}`)
    return { kind: 'link', ref: `link:${rel}` }
  }
  const raw = await readDirectoryManifest(target, alias, opts.wantedBy)
  const name = typeof raw['name'] === 'string' ? raw['name'] : alias
  const version = typeof raw['version'] === 'string' ? raw['version'] : '0.0.0'
  return {
    kind: 'package',
    id: `${name}@file:${rel}`,
    resolution: { directory: rel, type: 'directory' },
    meta: trimManifest(name, version, raw, { tarball: '', integrity: '' }),
    dir: target,
  }
}

/** A tarball at a URL (not a registry's own): its bytes give the integrity and the manifest. */
export async function resolveTarballUrl (url: string, fetchBytes: (url: string) => Promise<Buffer>): Promise<LocalResolution> {
  const normalized = new URL(url).toString()
  const bytes = await fetchBytes(normalized)
  const meta = await manifestOfTarball(bytes, normalized)
  return { kind: 'package', id: `${meta.name}@${normalized}`, resolution: { integrity: integrityOf(bytes), tarball: normalized }, meta }
}

function relativePath (from: string, to: string): string {
  const rel = path.relative(from, to).split(path.sep).join('/')
  return rel === '' ? '.' : rel
}

function integrityOf (bytes: Buffer): string {
  return `sha512-${createHash('sha512').update(bytes).digest('base64')}`
}

async function isDirectory (dir: string): Promise<boolean> {
  try {
    return (await fs.stat(dir)).isDirectory()
  } catch (err) {
    if (hasErrno(err, 'ENOENT') || hasErrno(err, 'ENOTDIR')) return false
    throw err
  }
}

async function readFile (file: string, alias: string, wantedBy: string): Promise<Buffer> {
  try {
    return await fs.readFile(file)
  } catch (err) {
    if (hasErrno(err, 'ENOENT')) throw notFound(file, alias, wantedBy)
    throw err
  }
}

async function readDirectoryManifest (dir: string, alias: string, wantedBy: string): Promise<Record<string, unknown>> {
  if (!await isDirectory(dir)) throw notFound(dir, alias, wantedBy)
  const file = path.join(dir, 'package.json')
  let text: string
  try {
    text = await fs.readFile(file, 'utf8')
  } catch (err) {
    if (hasErrno(err, 'ENOENT')) return {}
    throw err
  }
  return parsePackageJson(text, file)
}

function notFound (target: string, alias: string, wantedBy: string): LodeError {
  return new LodeError('LINKED_PKG_DIR_NOT_FOUND', `Could not install ${alias} from "${target}" as it does not exist (wanted by ${wantedBy}).`, {
    hint: 'Fix the path in package.json, or create the directory.',
  })
}

/** The `package.json` at the tarball's top directory (whatever that directory is called). */
export async function manifestOfTarball (bytes: Buffer, where: string): Promise<PackageMeta> {
  const text = await packageJsonOfTarball(bytes, where)
  if (text === undefined) throw new LodeError('TARBALL_BAD_MANIFEST', `${where} has no package.json in its top directory.`, { hint: 'Check the file or URL.' })
  const raw = parsePackageJson(text, `package.json in ${where}`)
  if (typeof raw['name'] !== 'string' || raw['name'] === '') {
    throw new LodeError('MISSING_PACKAGE_NAME', `Can't install ${where}: Missing package name`, { hint: 'The package.json in the tarball needs a "name"; pack it again with one.' })
  }
  if (typeof raw['version'] !== 'string') {
    throw new LodeError('TARBALL_BAD_MANIFEST', `The package.json in ${where} has no version.`, { hint: 'Check the file or URL.' })
  }
  return trimManifest(raw['name'], raw['version'], raw, { tarball: where, integrity: '' })
}

/**
 * The text of the `package.json` in `dir` (a path below the tarball's top directory, whatever that
 * is called; the top directory itself by default), or undefined when it has none.
 */
export async function packageJsonOfTarball (bytes: Buffer, where: string, dir = ''): Promise<string | undefined> {
  let tarBytes: Buffer
  try {
    tarBytes = bytes[0] === 0x1f && bytes[1] === 0x8b ? gunzipSync(bytes) : bytes
  } catch (err) {
    throw new LodeError('TARBALL_NOT_GZIP', `${where} is not a valid gzipped tarball.`, { hint: 'Check the file or URL.', cause: err })
  }
  const wanted = dir === '' ? 'package.json' : `${dir}/package.json`
  const extract = tar.extract()
  let text: string | undefined
  const done = new Promise<void>((resolve, reject) => {
    extract.on('entry', (header, stream, next) => {
      const below = header.name.slice(header.name.indexOf('/') + 1)
      if (text === undefined && header.type === 'file' && header.name.includes('/') && below === wanted) {
        const chunks: Buffer[] = []
        stream.on('data', (chunk: unknown) => { chunks.push(chunk as Buffer) })
        stream.on('end', () => { text = Buffer.concat(chunks).toString('utf8'); next() })
      } else {
        stream.on('end', next)
        stream.resume()
      }
    })
    extract.on('finish', resolve)
    extract.on('error', reject)
  })
  Readable.from([tarBytes]).pipe(extract)
  try {
    await done
  } catch (err) {
    throw new LodeError('TARBALL_NOT_TAR', `${where} is not a valid tarball.`, { hint: 'Check the file or URL.', cause: err })
  }
  return text
}
