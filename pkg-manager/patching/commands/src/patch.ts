import { createHash } from 'node:crypto'
import fs from 'node:fs'
import path from 'node:path'

import { MODULES_DIR } from '@lode/core.constants'
import { LodeError } from '@lode/core.error'
import { packedFiles } from '@lode/fs.packlist'
import type { Config } from '@lode/pkg-manager.config.settings'
import type { InstallEvent } from '@lode/pkg-manager.installing.installer'
import { Installer } from '@lode/pkg-manager.installing.installer'
import { readInstalledLockfile, readLockfile } from '@lode/pkg-manager.lockfile.format'
import type { PackageInfo, Resolution } from '@lode/pkg-manager.lockfile.format'
import {
  PATCHES_STATE_DIR, diffFolders, findEditDir, patchFileName, patchKey, patchTarget, writeEditDirState,
} from '@lode/pkg-manager.patching.patches'
import type { InstalledPackage, VersionChoice, VersionOption } from '@lode/pkg-manager.patching.patches'
import { isGitHostedArchive } from '@lode/resolving.npm-resolver'
import { storePath } from '@lode/store.cafs'
import { importPackages } from '@lode/worker.link'
import { applyPatchFile } from '@lode/worker.link/apply-patch'


// pnpm's `patch` and `patch-commit`, without the install that follows a commit (the CLI runs it,
// and puts the files back when it fails). Packages are copied out of the store, never hardlinked:
// an edit must not reach the store's files.

export interface PatchOptions {
  config: Config
  /** The package to edit: `name`, `name@version` or `name@range`. */
  param: string
  /** `--edit-dir`, absolute: where to copy the package instead of `node_modules/.pnpm_patches/<name>@<version>`. */
  editDir?: string | undefined
  /** `--edit-dir` as the user wrote it, named in errors as pnpm names it (default: `editDir`). */
  editDirAsGiven?: string | undefined
  /** `--ignore-existing`: the package as published, without the patch `patchedDependencies` has for it. */
  ignoreExisting?: boolean | undefined
  /** Asks which of several installed versions to patch, and whether for every version (a terminal's questions); undefined: cancelled. */
  chooseVersion?: ((options: VersionOption[]) => Promise<VersionChoice | undefined>) | undefined
  signal?: AbortSignal | undefined
  onEvent?: ((event: InstallEvent) => void) | undefined
}

/**
 * `patch <pkg>`: the installed version of the package copied into an edit directory, recorded in
 * `node_modules/.pnpm_patches/state.json`, with the existing patch for it applied. Returns the
 * directory (undefined when the choice of a version was cancelled). A failure leaves no directory
 * and no record.
 */
export async function preparePatch (opts: PatchOptions): Promise<string | undefined> {
  const { config } = opts
  const editDirName = opts.editDirAsGiven ?? opts.editDir
  if (opts.editDir !== undefined && isNonEmptyDir(opts.editDir)) {
    throw new LodeError('PATCH_EDIT_DIR_EXISTS', `The target directory already exists: '${editDirName}'`)
  }
  if (opts.editDir !== undefined && fs.existsSync(opts.editDir) && !fs.statSync(opts.editDir).isDirectory()) {
    throw new LodeError('PATCH_EDIT_DIR_EXISTS', `The target directory already exists: '${editDirName}' is a file`)
  }
  const installed = await readInstalledLockfile(config.dir)
  if (installed === undefined) {
    throw new LodeError('PATCH_NO_LOCKFILE', 'The modules directory is not ready for patching', { hint: 'Run lode install first' })
  }
  const packages = installed.lockfile.packages ?? {}
  const target = await patchTarget(opts.param, config.dir, installedPackages(packages), opts.chooseVersion)
  if (target === undefined) return undefined
  const modulesDir = path.join(config.dir, MODULES_DIR)
  const editDir = opts.editDir ?? path.join(modulesDir, PATCHES_STATE_DIR, target.editDirName)
  if (isNonEmptyDir(editDir)) {
    throw new LodeError('EDIT_DIR_NOT_EMPTY', `The directory ${editDir} is not empty`, {
      hint: `Either run \`lode patch-commit '${editDir}'\` to commit or delete it then run \`lode patch\` to recreate it`,
    })
  }
  const existingPatch = opts.ignoreExisting === true ? undefined : existingPatchFile(config, target)
  await copyFromStore(opts, target.pkgId, packages[target.pkgId]!.resolution, editDir)
  try {
    if (existingPatch !== undefined) applyPatchFile(editDir, existingPatch, target.pkgId)
    writeEditDirState(modulesDir, editDir, { patchedPkg: opts.param, applyToAll: target.applyToAll })
  } catch (err) {
    fs.rmSync(editDir, { recursive: true, force: true })
    throw err
  }
  return editDir
}

/** The patch file `patchedDependencies` has for the target (pnpm looks for `name@version`, then the bare name when every version is patched). */
function existingPatchFile (config: Config, target: { name: string, version: string, applyToAll: boolean }): string | undefined {
  const relative = config.patchedDependencies[`${target.name}@${target.version}`] ?? (target.applyToAll ? config.patchedDependencies[target.name] : undefined)
  if (relative === undefined) return undefined
  const file = path.resolve(config.dir, relative)
  if (!fs.existsSync(file)) throw new LodeError('PATCH_FILE_NOT_FOUND', `Unable to find patch file ${file}`)
  return file
}

export interface PatchCommitOptions {
  config: Config
  /** The edit directory `patch` made, or the package it holds (`name`, `name@version`). */
  param: string
  /** Where the command runs: a relative `param` is resolved from here first. */
  cwd: string
  /** `--patches-dir`: relative to the workspace root (default: the `patchesDir` setting, `patches`). */
  patchesDir?: string | undefined
  signal?: AbortSignal | undefined
  onEvent?: ((event: InstallEvent) => void) | undefined
}

/** What `patch-commit` writes: the patch file and the `patchedDependencies` that name it. */
export interface PatchCommit {
  editDir: string
  /** The diff; empty when the directory holds the package as published (then nothing is to be written). */
  content: string
  /** The `patchedDependencies` key: `name@version`, or the bare name when every version is patched. */
  key: string
  /** The patch file, absolute. */
  file: string
  /** `patchedDependencies` with the new patch, each file relative to the workspace root, `/`-separated. */
  patchedDependencies: Record<string, string>
}

/**
 * `patch-commit <dir>`, the diff: the edit directory's packed files (as `npm pack` would pack
 * them) against the package as published, copied out of the store, compared by git as pnpm
 * does. Nothing is written; `writePatchCommit` writes the result.
 */
export async function patchCommitDiff (opts: PatchCommitOptions): Promise<PatchCommit> {
  const { config } = opts
  const modulesDir = path.join(config.dir, MODULES_DIR)
  const { editDir, state } = findEditDir(opts.param, { dir: opts.cwd, lockfileDir: config.dir, modulesDir })
  const manifest = readEditedManifest(editDir)
  const key = patchKey(manifest, state.applyToAll)
  const patchesDirName = path.normalize(opts.patchesDir ?? config.patchesDir).split(path.sep).join('/').replace(/\/$/, '')
  const file = path.join(config.dir, patchesDirName, patchFileName(key))
  const patchedDependencies: Record<string, string> = {}
  for (const [patched, relative] of Object.entries(config.patchedDependencies)) {
    patchedDependencies[patched] = path.relative(config.dir, path.resolve(config.dir, relative)).split(path.sep).join('/')
  }
  patchedDependencies[key] = `${patchesDirName}/${patchFileName(key)}`
  // A version patched alone is diffed against the git-hosted package of that version when there is one, as pnpm does.
  const nameAndVersion = `${manifest.name}@${manifest.version}`
  const installed = await readInstalledLockfile(config.dir)
  const gitHosted = state.applyToAll ? undefined : installedPackages(installed?.lockfile.packages ?? {})
    .find((pkg) => pkg.gitTarballUrl !== undefined && pkg.version === manifest.version && pkg.pkgId.startsWith(`${manifest.name}@`))
  const pkgId = gitHosted?.pkgId ?? nameAndVersion
  // The record read above first; pnpm-lock.yaml when node_modules has none.
  const resolution = installed?.lockfile.packages?.[pkgId]?.resolution ?? (await installedResolution(config.dir, pkgId))
  if (resolution === undefined) {
    throw new LodeError('PATCH_VERSION_NOT_FOUND', `${pkgId} (the package in ${editDir}) is not installed in ${config.dir}.`, {
      hint: 'Run lode install, then lode patch-commit again (or lode patch for a version that is installed).',
    })
  }
  const tempName = createHash('sha256').update(editDir).digest('hex').slice(0, 32)
  const tempDir = path.join(storePath(config.storeDir), 'tmp', 'patch-commit')
  const original = path.join(tempDir, tempName)
  fs.rmSync(original, { recursive: true, force: true })
  let edited = editDir
  try {
    edited = await packedCopy(editDir, manifest.raw, tempDir)
    await copyFromStore(opts, pkgId, resolution, original)
    const content = await diffFolders(original, edited)
    return { editDir, content, key, file, patchedDependencies }
  } finally {
    fs.rmSync(original, { recursive: true, force: true })
    if (edited !== editDir) fs.rmSync(edited, { recursive: true, force: true })
  }
}

/** Writes the patch file of a commit (its directory made as needed); `patchedDependencies` is the caller's to write with it. */
export function writePatchFile (commit: Pick<PatchCommit, 'file' | 'content'>): void {
  fs.mkdirSync(path.dirname(commit.file), { recursive: true })
  fs.writeFileSync(commit.file, commit.content, 'utf8')
}

function readEditedManifest (editDir: string): { name: string, version: string, raw: Record<string, unknown> } {
  const file = path.join(editDir, 'package.json')
  let raw: Record<string, unknown>
  try {
    raw = JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, unknown>
  } catch (err) {
    throw new LodeError('INVALID_PATCH_DIR', `${file} cannot be read as JSON: ${(err as Error).message}`, {
      hint: 'The edited package must keep its package.json: fix it, or delete the directory and run lode patch again.',
    })
  }
  const { name, version } = raw
  if (typeof name !== 'string' || typeof version !== 'string') {
    throw new LodeError('INVALID_PATCH_DIR', `${file} has no name or version.`, {
      hint: 'The edited package must keep its name and version: put them back, or delete the directory and run lode patch again.',
    })
  }
  return { name, version, raw }
}

/** The lockfile's packages as `patch` offers them: each with its version, and a git-hosted one's archive URL (pnpm offers that one by it). */
function installedPackages (packages: Record<string, PackageInfo>): InstalledPackage[] {
  return Object.entries(packages).map(([pkgId, info]) => {
    const keyed = pkgId.slice(pkgId.indexOf('@', 1) + 1)
    const tarball = (info.resolution as { tarball?: unknown }).tarball
    return {
      pkgId,
      version: info.version ?? keyed,
      ...typeof tarball === 'string' && isGitHostedArchive(tarball) ? { gitTarballUrl: tarball } : {},
    }
  })
}

/** The lockfile resolution of an installed package (what the last install laid out, else pnpm-lock.yaml). */
async function installedResolution (dir: string, pkgId: string): Promise<Resolution | undefined> {
  return (await readInstalledLockfile(dir))?.lockfile.packages?.[pkgId]?.resolution ??
    (await readLockfile(dir))?.lockfile.packages?.[pkgId]?.resolution
}

/**
 * The edit directory as it would be packed (pnpm diffs that, so files `npm pack` leaves out never
 * enter a patch): the directory itself when it holds exactly those files, else a new directory in
 * `tempDir` with hard links to them (pnpm empties `<dir>_tmp` for that, whatever it held).
 */
async function packedCopy (editDir: string, manifest: Record<string, unknown>, tempDir: string): Promise<string> {
  const packed = await packedFiles(editDir, manifest)
  const all = visibleFiles(editDir)
  if (packed.length === all.length && packed.every((file, i) => file === all[i])) return editDir
  fs.mkdirSync(tempDir, { recursive: true })
  const copy = fs.mkdtempSync(path.join(tempDir, 'edited-'))
  for (const file of packed) {
    const target = path.join(copy, file)
    fs.mkdirSync(path.dirname(target), { recursive: true })
    try {
      fs.linkSync(path.join(editDir, file), target)
    } catch {
      fs.copyFileSync(path.join(editDir, file), target)
    }
  }
  return copy
}

/** Every file under `dir`, relative, `/`-separated and sorted, not descending into dot-directories or listing dot-files (pnpm's glob). */
function visibleFiles (dir: string, prefix = ''): string[] {
  const files: string[] = []
  for (const entry of fs.readdirSync(path.join(dir, prefix), { withFileTypes: true })) {
    if (entry.name.startsWith('.')) continue
    const relative = prefix === '' ? entry.name : `${prefix}/${entry.name}`
    if (entry.isDirectory()) files.push(...visibleFiles(dir, relative))
    else files.push(relative)
  }
  return prefix === '' ? files.sort() : files
}

/** A package's files copied (not linked) from the store into `dir`, fetched first when the store lacks it. */
async function copyFromStore (
  opts: { config: Config, signal?: AbortSignal | undefined, onEvent?: ((event: InstallEvent) => void) | undefined },
  pkgId: string,
  resolution: Resolution,
  dir: string
): Promise<void> {
  const onWarning = (message: string): void => { opts.onEvent?.({ type: 'warning', message }) }
  const { config, signal } = opts
  const installer = new Installer({ config, linking: false, ignoreScripts: true, tracePipeline: undefined, signal, onWarning })
  try {
    const stored = await installer.fetcher.rows([{ pkgId, resolution }]).rows[0]!
    // An empty directory (an `--edit-dir` made beforehand) is filled; the import makes it anew.
    if (fs.existsSync(dir)) fs.rmdirSync(dir)
    importPackages({ storeDir: opts.config.storeDir, method: 'copy', packages: [{ dir, files: stored.files }] })
  } finally {
    await installer.close()
  }
}

function isNonEmptyDir (dir: string): boolean {
  try {
    return fs.readdirSync(dir).length > 0
  } catch {
    return false
  }
}
