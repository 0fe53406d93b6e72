import fs from 'node:fs'
import path from 'node:path'

import { LodeError } from '@lode/core.error'
import satisfies from 'semver/functions/satisfies.js'

import { parseWanted } from './patch-target.js'

/**
 * pnpm's edit directories: `patch` copies a package into `node_modules/.pnpm_patches/<name>@<version>`
 * (or `--edit-dir`) and records it in `.pnpm_patches/state.json`, by absolute path, with what was
 * asked for and whether the patch is to apply to every version; `patch-commit` finds it again by
 * its path or by the package it holds. The file is pnpm's, so either tool commits the other's.
 */

export interface EditDirState {
  /** What `patch` was given (`is-positive`, `is-positive@1`). */
  patchedPkg: string
  /** No version was asked for: the patch's key is the bare name. */
  applyToAll: boolean
}

export const PATCHES_STATE_DIR = '.pnpm_patches'

export function stateFilePath (modulesDir: string): string {
  return path.join(modulesDir, PATCHES_STATE_DIR, 'state.json')
}

/** The recorded edit directories, by path; undefined when there is no state file. */
export function readEditDirStates (modulesDir: string): Record<string, EditDirState> | undefined {
  const file = stateFilePath(modulesDir)
  let text: string
  try {
    text = fs.readFileSync(file, 'utf8')
  } catch {
    return undefined
  }
  let states: unknown
  try {
    states = JSON.parse(text)
  } catch {
    throw new LodeError('INVALID_PATCH_STATE', `${file} is not valid JSON.`, { hint: 'Remove it and run lode patch again.' })
  }
  // Input like any file in node_modules: each entry an absolute directory with pnpm's two fields.
  const valid = typeof states === 'object' && states !== null && !Array.isArray(states) && Object.entries(states).every(([dir, state]) =>
    path.isAbsolute(dir) && !dir.includes('\0') && typeof state === 'object' && state !== null &&
    typeof (state as Record<string, unknown>)['patchedPkg'] === 'string' && typeof (state as Record<string, unknown>)['applyToAll'] === 'boolean')
  if (!valid) {
    throw new LodeError('INVALID_PATCH_STATE', `${file} is not as lode or pnpm writes it: it maps absolute directories to { patchedPkg, applyToAll }.`, { hint: 'Remove it and run lode patch again.' })
  }
  return Object.fromEntries(Object.entries(states as Record<string, EditDirState>))
}

/** Records an edit directory (pnpm's format: two-space JSON, no final newline). */
export function writeEditDirState (modulesDir: string, editDir: string, state: EditDirState): void {
  const states = readEditDirStates(modulesDir) ?? {}
  states[editDir] = { patchedPkg: state.patchedPkg, applyToAll: state.applyToAll }
  fs.mkdirSync(path.join(modulesDir, PATCHES_STATE_DIR), { recursive: true })
  fs.writeFileSync(stateFilePath(modulesDir), JSON.stringify(states, undefined, 2))
}

export interface FoundEditDir {
  editDir: string
  state: EditDirState
}

/**
 * The edit directory `patch-commit <param>` means, as pnpm 11 finds it: a directory at that path
 * (from `dir`, then from the workspace root) that the state file records; else the recorded
 * directory holding that package (an exact match, `name@version`, a satisfied range or the
 * name `patch` was given with, before one by name). Two matches is `ERR_LODE_AMBIGUOUS_PATCH_TARGET`,
 * none `ERR_LODE_INVALID_PATCH_DIR`.
 */
export function findEditDir (param: string, opts: { dir: string, lockfileDir: string, modulesDir: string }): FoundEditDir {
  for (const candidate of new Set([path.resolve(opts.dir, param), path.resolve(opts.lockfileDir, param)])) {
    if (!isDirectory(candidate)) continue
    const modulesDirs = [opts.modulesDir]
    if (path.basename(path.dirname(candidate)) === PATCHES_STATE_DIR) modulesDirs.push(path.dirname(path.dirname(candidate)))
    for (const modulesDir of modulesDirs) {
      const state = readEditDirStates(modulesDir)?.[candidate]
      if (state !== undefined) return { editDir: candidate, state }
    }
  }
  const wanted = parseWanted(param)
  const patchesDir = path.join(opts.modulesDir, PATCHES_STATE_DIR)
  const exact: FoundEditDir[] = []
  const byName: FoundEditDir[] = []
  for (const [editDir, state] of Object.entries(readEditDirStates(opts.modulesDir) ?? {})) {
    const manifest = isDirectory(editDir) ? readManifest(editDir) : undefined
    if (manifest?.name === undefined) continue
    const nameAndVersion = manifest.version === undefined ? manifest.name : `${manifest.name}@${manifest.version}`
    const relative = path.relative(patchesDir, editDir).split(path.sep).join('/')
    const found = { editDir, state }
    if ((wanted.range !== undefined && state.patchedPkg === param) || nameAndVersion === param || relative === param.split(path.sep).join('/') ||
      (wanted.name === manifest.name && wanted.range !== undefined && manifest.version !== undefined &&
        (wanted.range === manifest.version || satisfies(manifest.version, wanted.range)))) {
      exact.push(found)
    } else if ((wanted.name === manifest.name && wanted.range === undefined) || manifest.name === param || state.patchedPkg === param) {
      byName.push(found)
    }
  }
  const match = single(exact, param) ?? single(byName, param)
  if (match !== undefined) return match
  throw new LodeError('INVALID_PATCH_DIR', `${param} is not a valid patch directory`, {
    hint: 'A valid patch directory should be created by `lode patch`',
  })
}

function single (matches: FoundEditDir[], param: string): FoundEditDir | undefined {
  if (matches.length <= 1) return matches[0]
  const list = matches.map((match) => match.editDir).sort().map((dir) => `  ${dir}`).join('\n')
  throw new LodeError('AMBIGUOUS_PATCH_TARGET', `Found multiple patch directories for "${param}":\n${list}`, {
    hint: 'Specify the exact patch directory or version',
  })
}

function isDirectory (dir: string): boolean {
  try {
    return fs.statSync(dir).isDirectory()
  } catch {
    return false
  }
}

function readManifest (dir: string): { name?: string, version?: string } | undefined {
  try {
    const manifest = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8')) as Record<string, unknown>
    return {
      ...typeof manifest['name'] === 'string' ? { name: manifest['name'] } : {},
      ...typeof manifest['version'] === 'string' ? { version: manifest['version'] } : {},
    }
  } catch {
    return undefined
  }
}
