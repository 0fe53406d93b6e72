import fs from 'node:fs'
import path from 'node:path'

import { LodeError } from '@lode/core.error'
import { isInsideDir } from '@lode/core.safe-name'

// Where `deploy` may write, by pnpm 11's rules: never the workspace, the project or the current
// directory (nor a directory holding one of them), with `--force` only inside the workspace, and
// never through a symlink inside the workspace. A target that is there must be empty, unless
// `--force` (then it is emptied).

export interface DeployTargetContext {
  /** Where the command runs. */
  dir: string
  projectDir: string
  workspaceDir: string
  force: boolean
}

export function validateDeployTarget (deployDir: string, ctx: DeployTargetContext): void {
  const target = path.resolve(deployDir)
  const checks: Array<[string, string]> = [
    [ctx.workspaceDir, 'the workspace root'],
    [ctx.projectDir, 'the selected project'],
    [ctx.dir, 'the current directory'],
  ]
  for (const [dir, what] of checks) {
    const resolved = path.resolve(dir)
    if (target === resolved) throw unsafe(target, `target is ${what === 'the selected project' ? 'the selected project root' : what}`)
    if (isChild(resolved, target)) throw unsafe(target, `target contains ${what}`)
  }
  const workspace = path.resolve(ctx.workspaceDir)
  if (ctx.force && !isChild(target, workspace)) throw unsafe(target, 'target is outside the workspace')
  if (isChild(target, workspace)) checkNoSymlinks(workspace, target)
}

/** Makes the target an empty directory (its parents inside the workspace made one by one, refusing a symlink among them). */
export function prepareDeployDir (deployDir: string, ctx: Pick<DeployTargetContext, 'workspaceDir' | 'force'>): void {
  const target = path.resolve(deployDir)
  const workspace = path.resolve(ctx.workspaceDir)
  if (!isEmptyOrMissing(target) && !ctx.force) throw new LodeError('DEPLOY_DIR_NOT_EMPTY', `Deploy path ${deployDir} is not empty`)
  fs.rmSync(target, { recursive: true, force: true })
  if (isChild(target, workspace)) {
    let current = workspace
    for (const part of path.relative(workspace, target).split(path.sep)) {
      current = path.join(current, part)
      if (!fs.existsSync(current)) fs.mkdirSync(current)
      const stat = fs.lstatSync(current)
      if (stat.isSymbolicLink()) throw unsafe(current, 'target path contains a symlink')
      if (!stat.isDirectory()) throw unsafe(current, 'target path contains a non-directory')
    }
  } else {
    fs.mkdirSync(target, { recursive: true })
  }
}

function checkNoSymlinks (workspace: string, target: string): void {
  let current = workspace
  for (const part of path.relative(workspace, target).split(path.sep)) {
    current = path.join(current, part)
    const stat = fs.lstatSync(current, { throwIfNoEntry: false })
    if (stat === undefined) return
    if (stat.isSymbolicLink()) throw unsafe(current, 'target path contains a symlink')
  }
}

function isEmptyOrMissing (dir: string): boolean {
  const stat = fs.statSync(dir, { throwIfNoEntry: false })
  if (stat === undefined) return true
  return stat.isDirectory() && fs.readdirSync(dir).length === 0
}

/** `child` is strictly inside `parent`. */
function isChild (child: string, parent: string): boolean {
  return isInsideDir(parent, child) && path.resolve(parent) !== path.resolve(child)
}

function unsafe (dir: string, reason: string): LodeError {
  return new LodeError('INVALID_DEPLOY_TARGET', `Refusing to deploy to unsafe target ${dir}: ${reason}`)
}
