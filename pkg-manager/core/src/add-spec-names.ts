import fs from 'node:fs/promises'
import path from 'node:path'

import { LodeError, hasErrno, printable } from '@lode/core.error'
import { assertValidDependencyName } from '@lode/core.safe-name'
import { parsePackageJson } from '@lode/fs.package-json'
import type { Config } from '@lode/pkg-manager.config'
import { isTarballPath, manifestOfTarball } from '@lode/resolving.local-resolver'

import { registryClientFor } from './installer.js'

/** An `add` argument that names no package: a path (`file:`, `link:` or bare) or a tarball URL. */
type NamelessSpec = { kind: 'path', protocol: 'file' | 'link' | 'path', path: string } | { kind: 'url', url: string }

/**
 * `add`'s arguments with a name for each that has none, as pnpm 11 names them: the name in the
 * package.json of the directory or tarball a path leads to (a directory without one: its own name),
 * or in the tarball a URL serves. Each is given back as `name@spec`, the spec as pnpm saves it: a
 * tarball path as `file:<path>`, a directory as `file:<path>` (`link:<path>` when given bare or as
 * `link:`), the path relative to `projectDir`; a URL as given. Other arguments are left as they are.
 * A tarball without a name is `ERR_LODE_MISSING_PACKAGE_NAME`; a name that is no package name
 * (`../../evil`) is `ERR_LODE_INVALID_DEPENDENCY_NAME`, before anything is written.
 */
export async function namedAddSpecs (
  specs: readonly string[],
  opts: { projectDir: string, config: Config, signal?: AbortSignal | undefined, onWarning: (message: string) => void }
): Promise<string[]> {
  let client: ReturnType<typeof registryClientFor> | undefined
  try {
    return await Promise.all(specs.map(async (raw) => {
      const nameless = namelessSpec(raw)
      if (nameless === undefined) return raw
      if (nameless.kind === 'url') {
        client ??= registryClientFor(opts.config, { onWarning: opts.onWarning, signal: opts.signal })
        // Without validators the client answers 200 or throws.
        const response = await client.get(nameless.url, { accept: '*/*', subject: nameless.url }) as { body: Buffer }
        return named((await manifestOfTarball(response.body, nameless.url)).name, raw, raw)
      }
      const target = path.resolve(opts.projectDir, nameless.path)
      const relative = path.relative(opts.projectDir, target).split(path.sep).join('/') || '.'
      if (nameless.protocol !== 'link' && isTarballPath(nameless.path)) {
        return named((await manifestOfTarball(await readLocal(target, raw), `file:${relative}`)).name, `file:${relative}`, raw)
      }
      const name = await directoryName(target, raw)
      return named(name, `${nameless.protocol === 'file' ? 'file' : 'link'}:${relative}`, raw)
    }))
  } finally {
    await client?.close()
  }
}

/** What of an `add` argument names no package (undefined for `name`, `name@spec`, git specs). */
function namelessSpec (raw: string): NamelessSpec | undefined {
  if (raw.startsWith('file:')) return { kind: 'path', protocol: 'file', path: raw.slice('file:'.length) }
  if (raw.startsWith('link:')) return { kind: 'path', protocol: 'link', path: raw.slice('link:'.length) }
  // A URL that is no git repository (those end in .git, or are git+ URLs).
  if (/^https?:\/\//i.test(raw) && !/\.git(?:#.*)?$/i.test(raw)) return { kind: 'url', url: raw }
  // pnpm's local paths: `./x`, `../x`, `/x`, `~/x`, a drive letter, or a tarball file name.
  if (/^(?:\.{1,2}(?:[/\\]|$)|\/|~\/|[a-z]:[/\\])/i.test(raw) || (!raw.startsWith('@') && !raw.includes('@') && isTarballPath(raw))) {
    return { kind: 'path', protocol: 'path', path: raw.startsWith('~/') ? path.join(process.env['HOME'] ?? '~', raw.slice(2)) : raw }
  }
  return undefined
}

function named (name: string, spec: string, raw: string): string {
  assertValidDependencyName(name, `The package of "${printable(raw)}"`)
  return `${name}@${spec}`
}

async function readLocal (file: string, raw: string): Promise<Buffer> {
  try {
    return await fs.readFile(file)
  } catch (err) {
    if (!hasErrno(err, 'ENOENT')) throw err
    throw new LodeError('TARBALL_READ_LOCAL', `Can't add ${printable(raw)}: ${printable(file)} does not exist.`, { hint: 'Check the path.', cause: err })
  }
}

/** The name in a directory's package.json; a directory without one goes by its own name, as in pnpm. */
async function directoryName (dir: string, raw: string): Promise<string> {
  const file = path.join(dir, 'package.json')
  let text: string
  try {
    text = await fs.readFile(file, 'utf8')
  } catch (err) {
    if (hasErrno(err, 'ENOENT') && await isDirectory(dir)) return path.basename(dir)
    if (hasErrno(err, 'ENOENT') || hasErrno(err, 'ENOTDIR')) {
      throw new LodeError('LINKED_PKG_DIR_NOT_FOUND', `Can't add ${printable(raw)}: ${printable(dir)} does not exist.`, { hint: 'Check the path.', cause: err })
    }
    throw err
  }
  const name = parsePackageJson(text, file)['name']
  return typeof name === 'string' && name !== '' ? name : path.basename(dir)
}

async function isDirectory (dir: string): Promise<boolean> {
  return (await fs.stat(dir).catch(() => undefined))?.isDirectory() === true
}
