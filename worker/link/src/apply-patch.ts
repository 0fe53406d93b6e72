import { randomBytes } from 'node:crypto'
import fs from 'node:fs'
import path from 'node:path'

import { LodeError } from '@lode/core.error'
import { joinInside } from '@lode/core.safe-name'
import { applyPatch, parsePatch } from 'diff'

/**
 * Applies a unified (git-style) patch to a package directory whose files are hardlinks into the
 * store: every changed file is written anew and renamed over its link, so the store's copy is
 * never touched. A hunk that does not fit is `ERR_LODE_PATCH_FAILED` naming the patch and file.
 */
export function applyPatchFile (dir: string, patchFile: string, pkgLabel: string): void {
  let text: string
  try {
    text = fs.readFileSync(patchFile, 'utf8')
  } catch (err) {
    throw new LodeError('PATCH_NOT_FOUND', `The patch ${patchFile} for ${pkgLabel} cannot be read: ${(err as Error).message}`, {
      hint: 'Fix the path in patchedDependencies (pnpm-workspace.yaml), or restore the file.',
      cause: err,
    })
  }
  const failed = (file: string, why: string): LodeError => new LodeError('PATCH_FAILED', `The patch ${patchFile} does not apply to ${pkgLabel}: ${file}: ${why}.`, {
    hint: 'Recreate the patch for this version of the package, or remove it from patchedDependencies.',
  })
  for (const filePatch of parsePatch(text)) {
    const oldName = stripPrefix(filePatch.oldFileName)
    const newName = stripPrefix(filePatch.newFileName)
    const target = newName ?? oldName
    if (target === undefined) continue
    const targetPath = safeJoin(dir, target)
    if (targetPath === undefined) throw failed(target, 'the path leaves the package')
    // git's `deleted file mode` (made with --irreversible-delete, it has no hunks).
    if (newName === undefined || filePatch.isDelete === true) {
      fs.rmSync(targetPath, { force: true })
      continue
    }
    const sourcePath = oldName === undefined || filePatch.isCreate === true ? undefined : safeJoin(dir, oldName)
    if (oldName !== undefined && filePatch.isCreate !== true && sourcePath === undefined) throw failed(oldName, 'the path leaves the package')
    let source = ''
    if (sourcePath !== undefined) {
      try {
        source = fs.readFileSync(sourcePath, 'utf8')
      } catch {
        throw failed(oldName!, 'the file is missing')
      }
    }
    const patched = applyPatch(source, filePatch)
    if (patched === false) throw failed(target, 'a hunk does not match')
    // git's `new file mode`/`new mode` set the mode (an executable bit added or taken away); else the file keeps its own.
    const mode = gitMode(filePatch.newMode) ?? (sourcePath !== undefined ? fs.statSync(sourcePath).mode & 0o777 : 0o644)
    fs.mkdirSync(path.dirname(targetPath), { recursive: true })
    const temp = `${targetPath}.${randomBytes(4).toString('hex')}.patch-tmp`
    fs.writeFileSync(temp, patched, { mode })
    // The file's mode as the patch says, whatever the umask made of it.
    fs.chmodSync(temp, mode)
    fs.renameSync(temp, targetPath)
    if (sourcePath !== undefined && sourcePath !== targetPath) fs.rmSync(sourcePath, { force: true })
  }
}

/** A git file mode (`100755`) as permission bits; undefined for none. */
function gitMode (mode: string | undefined): number | undefined {
  if (mode === undefined || !/^[0-7]{6}$/.test(mode)) return undefined
  return Number.parseInt(mode, 8) & 0o777
}

/** `a/lib/x.js` → `lib/x.js`; `/dev/null` (no file) → undefined. */
function stripPrefix (name: string | undefined): string | undefined {
  if (name === undefined || name === '/dev/null') return undefined
  return name.replace(/^[ab]\//, '')
}

/** A file the patch names inside the package directory (never the directory itself), or undefined when it leaves it. */
function safeJoin (dir: string, file: string): string | undefined {
  const joined = joinInside(dir, file)
  return joined === dir ? undefined : joined
}
