import { createHash } from 'node:crypto'
import fs from 'node:fs'
import fsp from 'node:fs/promises'
import path from 'node:path'

import { STORE_TMP_DIR, WANTED_LOCKFILE } from '@lode/core.constants'
import { LodeError, hasErrno, isLodeError } from '@lode/core.error'
import { parsePackageJson } from '@lode/fs.package-json'
import { runProjectScript, scriptsOf } from '@lode/pkg-manager.building.lifecycle'
import { GitCommandError, gitFetchFailed, invalidGitPath, redactCredentials, runGit } from '@lode/resolving.git-resolver'
import type { GitResolution } from '@lode/resolving.git-resolver'
import { PLACEHOLDER_PACKAGE_JSON, casFilePath, createCasWriter, storePath } from '@lode/store.cafs'
import type { CasFileInfo } from '@lode/store.cafs'

/** A git package to get: its id (the lockfile's `name@<id>` without the name) and where it comes from. */
export interface GitPackageSource {
  id: string
  resolution: GitResolution
  /** Names the dependency in messages (its name, or `alias@specifier` while resolving). */
  subject: string
}

export interface FetchGitOptions {
  storeDir: string
  /** Downloads a hosted repository's archive. */
  download: (url: string) => Promise<Uint8Array>
  /** Checks a tarball against `integrity` and writes its files to the CAS (first path segment stripped). */
  extract: (tarball: Uint8Array, integrity: string) => Promise<Map<string, CasFileInfo>>
  /** `allowBuilds` for a dependency path (`name@<id>`): true, false, or not mentioned. */
  allowBuild: (depPath: string) => boolean | undefined
  ignoreScripts: boolean
  userAgent: string
  onWarning: (message: string) => void
  signal?: AbortSignal | undefined
}

export interface FetchedGitPackage {
  /** The package's files as `npm pack` would pack them, in the CAS. */
  files: Map<string, CasFileInfo>
  manifest: Record<string, unknown>
  /** It has a `prepare` script (or a prepublish one and no main file): pnpm's `requiresPrepare`. */
  requiresPrepare: boolean
  /** Its integrity, for an archive (the lockfile records it). */
  integrity?: string
}

// pnpm's exec/prepare-package: what runs after `<pm> install`, and the setting the nested install gets.
const PREPUBLISH_SCRIPTS = ['prepublish', 'prepack', 'publish']
const PREPARE_ENV = { pnpm_config_strict_dep_builds: 'false', PNPM_CONFIG_STRICT_DEP_BUILDS: 'false' }
// The output of a failed prepare kept in the error.
const OUTPUT_TAIL_LINES = 30

/**
 * Gets a git package's files as pnpm 11's git fetchers do: the commit is cloned (or a hosted
 * repository's archive downloaded and unpacked) into a temp dir in the store, the package (the
 * `path` directory, if any) is prepared when it has to be built and `allowBuilds` allows it
 * (`<pm> install`, then its prepublish scripts: `prepare` runs as part of the install), and what
 * `npm pack` would pack of it is written to the CAS. The temp dir is removed, whatever happens.
 */
export async function fetchGitPackage (source: GitPackageSource, opts: FetchGitOptions): Promise<FetchedGitPackage> {
  const tmpRoot = path.join(storePath(opts.storeDir), STORE_TMP_DIR)
  await fsp.mkdir(tmpRoot, { recursive: true })
  const tmp = await fsp.mkdtemp(path.join(tmpRoot, 'git-'))
  try {
    const { resolution } = source
    let integrity: string | undefined
    if ('type' in resolution) {
      await checkout(source, resolution, tmp, opts)
    } else {
      const tarball = await opts.download(resolution.tarball)
      integrity = resolution.integrity ?? `sha512-${createHash('sha512').update(tarball).digest('base64')}`
      await materialize(await opts.extract(tarball, integrity), tmp, opts.storeDir)
    }
    const pkgDir = await packageDir(tmp, resolution.path, source)
    const requiresPrepare = await prepare(pkgDir, tmp, source, opts)
    const manifest = await readManifest(pkgDir)
    const files = await packFiles(pkgDir, manifest, opts.storeDir)
    // pnpm's placeholder for a package without one.
    if (!files.has('package.json')) files.set('package.json', createCasWriter(opts.storeDir, { now: Date.now }).addFile(PLACEHOLDER_PACKAGE_JSON, 0o644))
    return { files, manifest, requiresPrepare, ...integrity === undefined ? {} : { integrity } }
  } finally {
    await fsp.rm(tmp, { recursive: true, force: true })
  }
}

async function checkout (
  source: GitPackageSource,
  { repo, commit }: { repo: string, commit: string },
  dir: string,
  opts: FetchGitOptions
): Promise<void> {
  // The lockfile is anyone's: a repository that git would read as an option, or a commit that is
  // not one, goes no further.
  if (!/^[0-9a-f]{40}$/i.test(commit)) {
    throw new LodeError('INVALID_GIT_COMMIT', `pnpm-lock.yaml gives ${source.subject} the git commit "${commit}", which is not a 40-character commit hash.`, { hint: 'Fix or remove its entry in pnpm-lock.yaml and install again.' })
  }
  if (repo === '' || repo.startsWith('-') || repo.includes('\0')) {
    throw new LodeError('INVALID_GIT_REPOSITORY', `pnpm-lock.yaml gives ${source.subject} the git repository "${redactCredentials(repo)}", which git cannot be given.`, { hint: 'Fix or remove its entry in pnpm-lock.yaml and install again.' })
  }
  const run = async (args: string[], cwd?: string): Promise<string> =>
    await runGit(args, { cwd, subject: source.subject, signal: opts.signal })
  try {
    await run(['clone', '--', repo, dir])
    await run(['checkout', commit], dir)
    const head = (await run(['rev-parse', 'HEAD'], dir)).trim()
    if (head !== commit) throw new GitCommandError(['checkout'], `received commit ${head}, expected ${commit}`, undefined)
    if (fs.existsSync(path.join(dir, '.gitmodules'))) await run(['submodule', 'update', '--init', '--recursive', '--checkout'], dir)
  } catch (err) {
    throw gitFetchFailed(err, source.subject, repo)
  }
}

/** Writes an unpacked archive's files (from the CAS) into `dir`. */
async function materialize (files: Map<string, CasFileInfo>, dir: string, storeDir: string): Promise<void> {
  for (const [file, info] of files) {
    const target = path.join(dir, file)
    await fsp.mkdir(path.dirname(target), { recursive: true })
    await fsp.copyFile(casFilePath(storeDir, info.digest, info.mode), target)
    await fsp.chmod(target, info.mode & 0o777)
  }
}

/** The package's directory: the repository's root, or its `path` directory, which must be inside it. */
async function packageDir (root: string, sub: string | undefined, source: GitPackageSource): Promise<string> {
  const relative = (sub ?? '').replace(/^[/\\]+/, '')
  if (relative === '') return root
  const invalid = (why: string): LodeError => invalidGitPath(sub, source.subject, why)
  const joined = path.join(root, relative)
  const escapes = (from: string, to: string): boolean => {
    const rel = path.relative(from, to)
    return rel === '..' || rel.startsWith(`..${path.sep}`) || path.isAbsolute(rel)
  }
  if (escapes(root, joined)) throw invalid('is not inside the repository')
  let real: string
  try {
    real = await fsp.realpath(joined)
  } catch (err) {
    if (hasErrno(err, 'ENOENT') || hasErrno(err, 'ENOTDIR')) throw invalid('is not a directory of the repository')
    throw err
  }
  if (escapes(await fsp.realpath(root), real)) throw invalid('is not inside the repository')
  if (!(await fsp.stat(real)).isDirectory()) throw invalid('is not a directory of the repository')
  return joined
}

async function readManifest (dir: string): Promise<Record<string, unknown>> {
  const file = path.join(dir, 'package.json')
  let text: string
  try {
    text = await fsp.readFile(file, 'utf8')
  } catch (err) {
    if (hasErrno(err, 'ENOENT')) return {}
    throw err
  }
  return parsePackageJson(text, file)
}

/**
 * pnpm's `preparePackage`: a package with a `prepare` script, or a prepublish script and no main
 * file, has to be built. It is, when `allowBuilds` allows it (`ERR_LODE_GIT_DEP_PREPARE_NOT_ALLOWED`
 * when it does not mention it), with the package manager its lockfile names (`npm` by default).
 * Returns whether it had to be built.
 */
async function prepare (pkgDir: string, root: string, source: GitPackageSource, opts: FetchGitOptions): Promise<boolean> {
  const manifest = await readManifest(pkgDir)
  const scripts = scriptsOf(manifest)
  const has = (script: string): boolean => scripts[script] !== undefined && scripts[script] !== ''
  const main = typeof manifest['main'] === 'string' ? manifest['main'] : 'index.js'
  const mustBuild = has('prepare') || (PREPUBLISH_SCRIPTS.some(has) && !fs.existsSync(path.join(pkgDir, main)))
  if (!mustBuild) return false
  const name = typeof manifest['name'] === 'string' ? manifest['name'] : source.subject
  const version = typeof manifest['version'] === 'string' ? manifest['version'] : '0.0.0'
  const depPath = `${name}@${source.id}`
  const allowed = opts.ignoreScripts ? false : opts.allowBuild(depPath)
  if (allowed === undefined) {
    throw new LodeError('GIT_DEP_PREPARE_NOT_ALLOWED', `The git-hosted package "${name}@${version}" needs to execute build scripts but is not in the "allowBuilds" allowlist.`, {
      hint: `Add the package to "allowBuilds" in your project's pnpm-workspace.yaml to allow it to run scripts (or false to skip them). For example:\nallowBuilds:\n  ${name}: true`,
    })
  }
  if (!allowed) {
    opts.onWarning(`The git-hosted package fetched from "${redactCredentials(origin(source.resolution))}" has to be built but the build scripts were ignored.`)
    return true
  }
  const pm = packageManagerOf(root)
  const runnable = { ...manifest, scripts: { ...scripts, [`${pm}-install`]: `${pm} install` } as Record<string, string> }
  const steps = [`${pm}-install`]
  for (const script of PREPUBLISH_SCRIPTS.filter(has)) {
    if (pm === 'pnpm') {
      steps.push(script)
    } else {
      runnable.scripts[`${pm}-run-${script}`] = `${pm} run ${script}`
      steps.push(`${pm}-run-${script}`)
    }
  }
  let output = ''
  try {
    for (const step of steps) {
      await runProjectScript(step, { dir: pkgDir, manifest: runnable, stdio: 'pipe', userAgent: opts.userAgent, env: PREPARE_ENV, onOutput: (_event, text) => { output += text } })
    }
  } catch (err) {
    if (!isLodeError(err, 'ERR_LODE_SCRIPT_FAILED')) throw err
    const tail = output.trimEnd().split('\n').slice(-OUTPUT_TAIL_LINES).join('\n')
    throw new LodeError('GIT_PREPARE_FAILED', `Failed to prepare the git-hosted package ${name}@${version} fetched from "${redactCredentials(origin(source.resolution))}": ${err.message}${tail === '' ? '' : `\n${tail}`}`, {
      hint: `Fix its build, or set ${name}: false in allowBuilds (pnpm-workspace.yaml) to install it unbuilt.`,
      cause: err,
    })
  }
  await fsp.rm(path.join(pkgDir, 'node_modules'), { recursive: true, force: true })
  return true
}

/** preferred-pm's choice, as pnpm makes it: the lockfile at the repository's root names it; npm otherwise. */
function packageManagerOf (root: string): 'npm' | 'yarn' | 'pnpm' | 'bun' {
  const has = (file: string): boolean => fs.existsSync(path.join(root, file))
  if (has('package-lock.json')) return 'npm'
  if (has('yarn.lock')) return 'yarn'
  if (has(WANTED_LOCKFILE) || has('shrinkwrap.yaml')) return 'pnpm'
  if (has('bun.lockb') || has('bun.lock')) return 'bun'
  if (has('pnpm-workspace.yaml')) return 'pnpm'
  return 'npm'
}

function origin (resolution: GitResolution): string {
  return 'type' in resolution ? resolution.repo : resolution.tarball
}

/** What `npm pack` would pack of `dir` (npm-packlist, as pnpm 11 uses it), written to the CAS. */
export async function packFiles (dir: string, manifest: Record<string, unknown>, storeDir: string): Promise<Map<string, CasFileInfo>> {
  const cas = createCasWriter(storeDir, { now: Date.now })
  const files = new Map<string, CasFileInfo>()
  // npm-packlist is loaded for a git package only: most installs have none.
  const { packedFiles } = await import('@lode/fs.packlist')
  // Regular files only: a symlink in a repository may point anywhere.
  for (const file of await packedFiles(dir, manifest, { symlinks: false })) {
    const full = path.join(dir, file)
    const stat = await fsp.lstat(full)
    files.set(file, cas.addFile(await fsp.readFile(full), stat.mode & 0o777))
  }
  return files
}

