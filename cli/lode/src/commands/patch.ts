import { LodeError } from '@lode/core.error'
import { isInsideDir } from '@lode/core.safe-name'

import type { MainContext } from '../context.js'
import { editThenInstall } from './edit-then-install.js'
import { projectConfig } from './project-config.js'
import type { CommandInput } from './types.js'

const fs = process.getBuiltinModule('node:fs')
const path = process.getBuiltinModule('node:path')

// pnpm 11's `patch`, `patch-commit` and `patch-remove`: a package copied out for editing, the
// edit turned into a patch file named by pnpm-workspace.yaml's `patchedDependencies`, or such a
// patch removed; the last two then install. The files are pnpm's: either tool reads the other's.

/** `lode patch <pkg>`: the installed package copied into an edit directory, and how to commit it. */
export async function patchCommand (input: CommandInput, ctx: MainContext): Promise<number> {
  const { values, positionals } = input.args!
  const param = positionals[0]
  const editDirOption = values['edit-dir'] as string | undefined
  const { dir, config } = await projectConfig(input, ctx)
  const editDir = editDirOption === undefined ? undefined : path.resolve(dir, editDirOption)
  if (param === undefined) throw new LodeError('MISSING_PACKAGE_NAME', '`lode patch` requires the package name')
  const { preparePatch } = await import('@lode/pkg-manager.patching.commands')
  const terminal = ctx.stdin?.()
  const prepared = await preparePatch({
    config,
    param,
    editDir,
    editDirAsGiven: editDirOption,
    ignoreExisting: values['ignore-existing'] === true,
    // Several versions installed: on a terminal, pnpm's two questions.
    chooseVersion: terminal?.isTTY !== true ? undefined : async (options) => {
      const { confirm, select } = await import('../prompt.js')
      const version = await select({ message: 'Choose which version to patch', choices: options, input: terminal, output: ctx.stdout })
      if (version === undefined) return undefined
      const applyToAll = await confirm({ message: 'Apply this patch to all versions?', default: true, input: terminal, output: ctx.stdout })
      return applyToAll === undefined ? undefined : { version, applyToAll }
    },
    onEvent: (event) => { if (event.type === 'warning') ctx.stderr.write(`WARN  ${event.message}\n`) },
  })
  // Cancelled (Ctrl-C): nothing copied, as pnpm.
  if (prepared === undefined) return 0
  ctx.stdout.write(`Patch: You can now edit the package at:\n\n  ${prepared}\n\nTo commit your changes, run:\n\n  lode patch-commit '${prepared}'\n\n`)
  return 0
}

/** `lode patch-commit <dir>`: the patch file and its `patchedDependencies` entry written, then an install; a failed install takes both back. */
export async function patchCommitCommand (input: CommandInput, ctx: MainContext): Promise<number> {
  const { values, positionals } = input.args!
  const param = positionals[0]
  if (param === undefined) throw new LodeError('MISSING_PACKAGE_NAME', '`lode patch-commit` requires the patch directory or package name')
  const { dir, config } = await projectConfig(input, ctx)
  const { patchCommitDiff, writePatchFile } = await import('@lode/pkg-manager.patching.commands')
  const commit = await patchCommitDiff({
    config,
    param,
    cwd: dir,
    patchesDir: values['patches-dir'] as string | undefined,
    onEvent: (event) => { if (event.type === 'warning') ctx.stderr.write(`WARN  ${event.message}\n`) },
  })
  if (commit.content.length === 0) {
    ctx.stdout.write(`No changes were found to the following directory: ${commit.editDir}\n`)
    return 0
  }
  // pnpm-lock.yaml too: an install can fail after writing it (a build left unapproved).
  const files = [commit.file, path.join(config.dir, 'pnpm-workspace.yaml'), path.join(config.dir, 'pnpm-lock.yaml')]
  return await editThenInstall(files, ctx, input, async () => {
    writePatchFile(commit)
    await updatePatchedDependencies(config.dir, commit.patchedDependencies)
  })
}

/** `lode patch-remove <pkg>...`: the patches' files and entries removed (an emptied patches directory too), then an install. */
export async function patchRemoveCommand (input: CommandInput, ctx: MainContext): Promise<number> {
  const { positionals } = input.args!
  const { config } = await projectConfig(input, ctx)
  const patched = { ...config.patchedDependencies }
  const keys = Object.keys(patched)
  if (positionals.length === 0) {
    if (keys.length === 0) throw new LodeError('NO_PATCHES_TO_REMOVE', 'There are no patches that need to be removed')
    throw new LodeError('PATCH_REMOVE_NAMES_REQUIRED', `Name the patches to remove: ${keys.join(', ')}.`, {
      hint: `lode patch-remove ${keys[0]!} (pnpm asks on a terminal; lode takes the names as arguments).`,
    })
  }
  for (const key of positionals) {
    if (!Object.hasOwn(patched, key)) throw new LodeError('PATCH_NOT_FOUND', `Patch "${key}" not found in patched dependencies`)
  }
  const rootDir = config.dir
  const patchesDir = path.join(rootDir, path.normalize(config.patchesDir))
  if (!isInsideDir(rootDir, patchesDir) || !isInsideDir(realpath(rootDir), realpath(patchesDir))) {
    throw new LodeError('PATCHES_DIR_OUTSIDE_PROJECT', `The configured patches directory is outside the project: ${config.patchesDir}`)
  }
  const targets = positionals.map((key) => {
    const file = path.resolve(rootDir, patched[key]!)
    if (file === patchesDir || !isInsideDir(patchesDir, file) || !isInsideDir(realpath(patchesDir), realpath(path.dirname(file)))) {
      throw new LodeError('PATCH_FILE_OUTSIDE_PATCHES_DIR', `Patch file "${file}" is outside the configured patches directory`)
    }
    if (fs.lstatSync(file, { throwIfNoEntry: false })?.isDirectory() === true) {
      throw new LodeError('PATCH_FILE_IS_DIRECTORY', `Patch file "${file}" is a directory`)
    }
    return { key, file }
  })
  for (const { key } of targets) delete patched[key]
  const remaining = Object.fromEntries(Object.entries(patched).map(([key, file]) => [key, path.relative(rootDir, path.resolve(rootDir, file)).split(path.sep).join('/')]))
  const files = [...targets.map(({ file }) => file), path.join(rootDir, 'pnpm-workspace.yaml'), path.join(rootDir, 'pnpm-lock.yaml')]
  return await editThenInstall(files, ctx, input, async () => {
    for (const { file } of targets) fs.rmSync(file, { force: true })
    // An emptied directory goes; a link to one (a patches directory linked inside the project) stays, as pnpm leaves it.
    for (const parent of new Set(targets.map(({ file }) => path.dirname(file)))) {
      const isDir = fs.lstatSync(parent, { throwIfNoEntry: false })?.isDirectory() === true
      if (isDir && fs.readdirSync(parent).length === 0) fs.rmdirSync(parent)
    }
    await updatePatchedDependencies(rootDir, remaining)
  })
}

async function updatePatchedDependencies (rootDir: string, patchedDependencies: Record<string, string>): Promise<void> {
  const { updateWorkspaceYaml } = await import('@lode/pkg-manager.config.settings/workspace-yaml')
  await updateWorkspaceYaml(rootDir, { patchedDependencies: Object.keys(patchedDependencies).length === 0 ? null : patchedDependencies })
}


/** The real path, or the path itself when it does not exist. */
function realpath (file: string): string {
  try {
    return fs.realpathSync(file)
  } catch {
    return file
  }
}
