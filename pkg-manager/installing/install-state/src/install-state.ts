import { createHash } from 'node:crypto'
import fs from 'node:fs'
import fsp from 'node:fs/promises'
import path from 'node:path'

import type { DependencyGroup } from '@lode/core.constants'
import { INSTALLING_MARKER, LODE_STATE_FILE, MODULES_DIR, MODULES_MANIFEST_FILE, PNPM_WORKSPACE_STATE_FILE, WANTED_LOCKFILE } from '@lode/core.constants'
import { writeFileAtomic } from '@lode/fs.write-file-atomic'
import type { Config } from '@lode/pkg-manager.config.settings'

import { INSTALLED_LOCKFILE, fileStamp, filesDigest, modulesDirsThere, parseInstallState, readOrNull, realParents, watchedDirs } from './quick-check.js'
import type { FileStamp, InstallState } from './quick-check.js'

/** What of an install's options its record depends on (the install's options have them under these names). */
export interface StateOptions {
  config: Config
  frozenLockfile?: boolean | undefined
  include?: Readonly<Record<DependencyGroup, boolean>> | undefined
  preferFrozenLockfile?: boolean | undefined
  projects?: readonly string[] | undefined
  /** The CLI's key for the quick check (see quick-check.ts). */
  quickKey?: string | undefined
}

export interface InstallInputs {
  digest: string
  /** The files hashed, relative to the install's directory. */
  files: string[]
  /** Each file's stamp, taken before it was read (see `fileStamp`). */
  stamps: FileStamp[]
  /** What was read of each file (a stand-in's content for a missing lockfile). */
  contents: Record<string, Uint8Array>
  /**
   * pnpm-lock.yaml is missing and node_modules' own lockfile stood in for it (see `installInputs`):
   * its text, for pnpm-lock.yaml when the install turns out to be up to date.
   */
  lockfileStandIn?: Buffer
  /** An input file is outside the project (a patch file): the quick check cannot watch it, so none is recorded. */
  unwatched?: boolean
}

/**
 * The digest of everything an install of `config.dir` depends on; undefined when an input file is
 * missing. The files whose content decides the install: every project's manifest (a workspace is
 * globbed again, so an added or removed project counts), the lockfile, the patch files of
 * `patchedDependencies`, and what node_modules says it holds. `--frozen-lockfile` is no input: the inputs recorded are those of a complete install,
 * whose lockfile satisfied these very manifests. Without pnpm-lock.yaml, an install that is not
 * frozen puts node_modules' lockfile in its place (pnpm does, and the CLI's quick check too), so a
 * deleted lockfile over an intact node_modules is up to date once that is written back.
 */
export async function installInputs (opts: StateOptions): Promise<InstallInputs | undefined> {
  const frozen = opts.frozenLockfile ?? opts.config.frozenLockfile
  const hash = createHash('sha256')
  hash.update(JSON.stringify({
    config: opts.config,
    // No groups given is every group, as the CLI gives them: `add` then `install` is up to date.
    include: opts.include ?? { dependencies: true, devDependencies: true, optionalDependencies: true },
    preferFrozen: opts.preferFrozenLockfile,
    projects: opts.projects,
  }))
  const patterns = opts.config.workspacePackages ?? []
  const manifests = patterns.length === 0 ? ['package.json'] : await (await import('@lode/pkg-manager.config.workspace')).findWorkspaceManifests(opts.config.dir, patterns)
  // A patch file edited in place changes the install (its hash is in the lockfile): its content is an
  // input too. One outside the project is read by its absolute path, and the quick check, which
  // watches only files inside, is not recorded then.
  const relative = (file: string): string => path.relative(opts.config.dir, path.resolve(opts.config.dir, file))
  const patchFiles = [...new Set(Object.values(opts.config.patchedDependencies).map(relative))].sort()
  const outside = patchFiles.some((file) => file === '' || file.startsWith('..') || path.isAbsolute(file))
  // With `lockfile: false`, pnpm-lock.yaml is no input (and is never written back).
  const lockfiles = opts.config.useLockfile ? [WANTED_LOCKFILE] : []
  const files = [...manifests, ...lockfiles, ...patchFiles, path.join(MODULES_DIR, MODULES_MANIFEST_FILE)]
  let lockfileStandIn: Buffer | undefined
  const stamps: FileStamp[] = []
  const contents: Record<string, Uint8Array> = {}
  // Synchronously: small files, read one after the other, each cheaper than a round trip through libuv's threads.
  for (const file of files) {
    const full = path.resolve(opts.config.dir, file)
    stamps.push(fileStamp(full))
    let content = readOrNull(full)
    if (content === null) {
      if (file !== WANTED_LOCKFILE || frozen || lockfileStandIn !== undefined) return undefined
      content = readOrNull(path.join(opts.config.dir, INSTALLED_LOCKFILE))
      if (content === null) return undefined
      lockfileStandIn = content
    }
    contents[file] = content
    hash.update('\0').update(file).update('\0').update(content)
  }
  const inputs = { digest: hash.digest('hex'), files, stamps, contents, ...outside ? { unwatched: true } : {} }
  return lockfileStandIn === undefined ? inputs : { ...inputs, lockfileStandIn }
}

/** The last install's recorded state when its inputs were exactly these (and no install was cut short since), else undefined. */
export async function upToDateState (dir: string, inputs: string): Promise<InstallState | undefined> {
  if (fs.existsSync(path.join(dir, MODULES_DIR, INSTALLING_MARKER))) return undefined
  let state: InstallState | undefined
  try {
    state = parseInstallState(await fsp.readFile(path.join(dir, MODULES_DIR, LODE_STATE_FILE)))
  } catch {
    return undefined
  }
  if (state === undefined || !modulesDirsThere(state, (relative) => path.join(dir, relative))) return undefined
  return state.inputs === inputs ? state : undefined
}

/**
 * Records a complete install's inputs; with the CLI's quick key, also what its check before
 * loading anything compares (see quick-check.ts).
 */
export async function writeInstallState (opts: StateOptions, inputs: InstallInputs, packages: number): Promise<void> {
  const { dir } = opts.config
  const state: InstallState = { inputs: inputs.digest, packages }
  // The projects' node_modules there now (a project without dependencies may have none).
  const modulesDirs = inputs.files.filter((file) => path.basename(file) === 'package.json' && path.dirname(file) !== '.')
    .map((file) => path.join(path.dirname(file), MODULES_DIR))
    .filter((modules) => fs.statSync(path.join(dir, modules), { throwIfNoEntry: false })?.isDirectory() === true)
  if (modulesDirs.length > 0) state.modulesDirs = modulesDirs
  if (opts.quickKey !== undefined && inputs.unwatched !== true) {
    // Stamped (by installInputs) before the content was read: a write in between shows in the next
    // run's stamps. A lockfile missing then has been written back since, as it was read.
    const stamps = inputs.stamps.map((stamp, i) => stamp ?? fileStamp(path.join(dir, inputs.files[i]!)))
    state.quick = {
      key: opts.quickKey,
      files: inputs.files,
      digest: filesDigest(dir, inputs.files, inputs.contents),
      stamps,
      dirs: watchedDirs(dir, opts.config.workspacePackages ?? []),
      frozenSetting: opts.config.frozenLockfile,
    }
  }
  await writeFileAtomic(path.join(dir, 'node_modules', LODE_STATE_FILE), JSON.stringify(state))
}

/**
 * A tree pnpm 11 installed, without a record of lode's: when pnpm's record vouches for this
 * install's very inputs (`pnpmStateVouches`; an unfiltered install, none interrupted), lode takes
 * it as its own record and the tree stays as pnpm left it. Returns the lockfile's package count,
 * or undefined when pnpm's record does not vouch (there is work).
 */
export async function adoptPnpmState (opts: StateOptions): Promise<number | undefined> {
  const modulesDir = path.join(opts.config.dir, MODULES_DIR)
  // lode's record is written in the project's own node_modules, never through a link.
  if (opts.projects !== undefined || !fs.existsSync(path.join(modulesDir, PNPM_WORKSPACE_STATE_FILE))
    || fs.existsSync(path.join(modulesDir, INSTALLING_MARKER)) || !realParents(opts.config.dir, path.join(modulesDir, LODE_STATE_FILE))) {
    return undefined
  }
  const inputs = await installInputs(opts)
  if (inputs === undefined || inputs.lockfileStandIn !== undefined) return undefined
  const include = opts.include ?? { dependencies: true, devDependencies: true, optionalDependencies: true }
  const manifestFiles = inputs.files.filter((file) => path.basename(file) === 'package.json')
  // pnpm's record and the lockfile parser load only here: an install over a tree pnpm made.
  const { pnpmStateVouches } = await import('./pnpm-workspace-state.js')
  if (!pnpmStateVouches({ config: opts.config, include, contents: inputs.contents, manifestFiles })) return undefined
  const { localSources, parseLockfile } = await import('@lode/pkg-manager.lockfile.format')
  const lockfileFile = path.join(opts.config.dir, WANTED_LOCKFILE)
  const { lockfile } = parseLockfile(Buffer.from(inputs.contents[WANTED_LOCKFILE]!).toString('utf8'), lockfileFile)
  // Local tarballs and directories are read again by every install: never up to date.
  const local = localSources(lockfile, opts.config.dir)
  if (local.tarballs.length > 0 || local.directories.length > 0) return undefined
  // pnpm's record leaves the catalogs out: a catalog entry that is not what the lockfile resolved (put back by hand) is work.
  const inConfig = (name: string, alias: string): string | undefined => {
    const catalog = Object.hasOwn(opts.config.catalogs, name) ? opts.config.catalogs[name] : undefined
    return catalog !== undefined && Object.hasOwn(catalog, alias) ? catalog[alias] : undefined
  }
  const resolvedAnother = Object.entries(lockfile.catalogs ?? {})
    .some(([name, entries]) => Object.entries(entries).some(([alias, { specifier }]) => inConfig(name, alias) !== specifier))
  if (resolvedAnother) return undefined
  const packages = Object.keys(lockfile.packages ?? {}).length
  await writeInstallState(opts, inputs, packages)
  return packages
}

