import fs from 'node:fs/promises'
import path from 'node:path'

import { splitNameAt } from '@lode/core.dep-path'
import { LodeError, hasErrno, printable } from '@lode/core.error'
import { assertValidDependencyName, isValidPackageName } from '@lode/core.safe-name'
import { parsePackageJson } from '@lode/fs.package-json'
import type { Config } from '@lode/pkg-manager.config.settings'
import { isRepositoryPublic } from '@lode/pkg-manager.deps.resolve-dependencies/install'
import { registryClientFor } from '@lode/pkg-manager.installing.installer'
import { packageJsonAtCommit, packagePathInRepository, parseGitSpec, resolveGit } from '@lode/resolving.git-resolver'
import type { GitSpec, ResolvedGit } from '@lode/resolving.git-resolver'
import { isTarballPath, manifestOfTarball, packageJsonOfTarball } from '@lode/resolving.local-resolver'


/**
 * An `add` argument to name or to normalize: a path (`file:`, `link:` or bare), a tarball URL, or
 * a git repository (with an alias only when on a known host, whose spec `add` normalizes).
 */
type SpecToName =
  | { kind: 'path', protocol: 'file' | 'link' | 'path', path: string }
  | { kind: 'url', url: string }
  | { kind: 'git', alias: string | undefined, spec: string, git: GitSpec }

/**
 * `add`'s arguments with a name for each that has none, as pnpm 11 names them: the name in the
 * package.json of the directory or tarball a path leads to (a directory without one: its own name),
 * in the tarball a URL serves, or in the git repository (at the commit and `path:` asked for). Each
 * is given back as `name@spec`, the spec as pnpm saves it: a tarball path as `file:<path>`, a
 * directory as `file:<path>` (`link:<path>` when given bare or as `link:`), the path relative to
 * `projectDir`; a URL as given; a repository on a known host as `github:user/repo#…` (its
 * `git+https://` URL when git reaches it only with credentials), aliased or not; another git URL
 * as given. Other arguments are left as they are. A package without a name is
 * `ERR_LODE_MISSING_PACKAGE_NAME`; a name that is no package name (`../../evil`) is
 * `ERR_LODE_INVALID_DEPENDENCY_NAME`, before anything is written.
 */
export async function namedAddSpecs (
  specs: readonly string[],
  opts: { projectDir: string, config: Config, signal?: AbortSignal | undefined, onWarning: (message: string) => void }
): Promise<string[]> {
  let client: ReturnType<typeof registryClientFor> | undefined
  const clientOf = (): ReturnType<typeof registryClientFor> =>
    client ??= registryClientFor(opts.config, { onWarning: opts.onWarning, signal: opts.signal })
  const download = async (url: string): Promise<Buffer> => {
    // Without validators the client answers 200 or throws.
    return (await clientOf().get(url, { accept: '*/*', subject: url }) as { body: Buffer }).body
  }
  try {
    return await Promise.all(specs.map(async (raw) => {
      const toName = specToName(raw)
      if (toName === undefined) return raw
      if (toName.kind === 'url') return named((await manifestOfTarball(await download(toName.url), toName.url)).name, raw, raw)
      if (toName.kind === 'git') {
        const isPublic = async (url: string): Promise<boolean> => await isRepositoryPublic(clientOf(), url)
        const resolved = await resolveGit(toName.git, { subject: raw, isPublic, signal: opts.signal })
        const spec = resolved.savedSpecifier ?? toName.spec
        if (toName.alias !== undefined) return `${toName.alias}@${spec}`
        return named(await gitPackageName(resolved, raw, { download, signal: opts.signal }), spec, raw)
      }
      const target = path.resolve(opts.projectDir, toName.path)
      const relative = path.relative(opts.projectDir, target).split(path.sep).join('/') || '.'
      if (toName.protocol !== 'link' && isTarballPath(toName.path)) {
        return named((await manifestOfTarball(await readLocal(target, raw), `file:${relative}`)).name, `file:${relative}`, raw)
      }
      const name = await directoryName(target, raw)
      return named(name, `${toName.protocol === 'file' ? 'file' : 'link'}:${relative}`, raw)
    }))
  } finally {
    await client?.close()
  }
}

/** What of an `add` argument is to be named or normalized (undefined for `name`, `name@spec` and the like). */
function specToName (raw: string): SpecToName | undefined {
  if (raw.startsWith('file:')) return { kind: 'path', protocol: 'file', path: raw.slice('file:'.length) }
  if (raw.startsWith('link:')) return { kind: 'path', protocol: 'link', path: raw.slice('link:'.length) }
  // A URL that is no git repository (`https://host/x.tgz`, not `https://github.com/user/repo` nor `….git`).
  if (/^https?:\/\//i.test(raw) && parseGitSpec(raw) === undefined) return { kind: 'url', url: raw }
  // pnpm's local paths: `./x`, `../x`, `/x`, `~/x`, a drive letter, or a tarball file name.
  if (/^(?:\.{1,2}(?:[/\\]|$)|\/|~\/|[a-z]:[/\\])/i.test(raw) || (!raw.startsWith('@') && !raw.includes('@') && isTarballPath(raw))) {
    return { kind: 'path', protocol: 'path', path: raw.startsWith('~/') ? path.join(process.env['HOME'] ?? '~', raw.slice(2)) : raw }
  }
  // pnpm's rule: what comes before an `@` (past the first character) is an alias when it is a package name.
  const { name, rest } = splitNameAt(raw)
  if (rest !== undefined && isValidPackageName(name)) {
    const git = parseGitSpec(rest)
    return git?.hosted === undefined ? undefined : { kind: 'git', alias: name, spec: rest, git }
  }
  if (isValidPackageName(raw)) return undefined
  const git = parseGitSpec(raw)
  return git === undefined ? undefined : { kind: 'git', alias: undefined, spec: raw, git }
}

/**
 * The name in a git package's package.json, as the repository has it at the commit (from the host's
 * archive, or a clone); without a package.json, the last part of the spec, as pnpm names it.
 */
async function gitPackageName (
  resolved: ResolvedGit,
  raw: string,
  opts: { download: (url: string) => Promise<Buffer>, signal?: AbortSignal | undefined }
): Promise<string> {
  const { resolution } = resolved
  const text = 'type' in resolution
    ? await packageJsonAtCommit(resolution, { subject: raw, signal: opts.signal })
    : await packageJsonOfTarball(await opts.download(resolution.tarball), resolution.tarball, packagePathInRepository(resolution.path, raw))
  // pnpm's name for a package without a package.json: the last part of the spec.
  if (text === undefined) return raw.split('/').pop()!
  const name = parsePackageJson(text, `package.json of ${raw}`)['name']
  if (typeof name !== 'string' || name === '') {
    throw new LodeError('MISSING_PACKAGE_NAME', `Can't add ${printable(raw)}: its package.json has no "name".`, {
      hint: 'Give it a name to be saved under: lode add <name>@<git URL>.',
    })
  }
  return name
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
