import fs from 'node:fs'
import path from 'node:path'

import { hasErrno, LodeError } from '@lode/core.error'
import { parsePackageJson } from '@lode/fs.package-json'
import { writeFileAtomicSync } from '@lode/fs.write-file-atomic'
import { writeEditedManifest } from '@lode/pkg-manager.deps.manifest-edit'

import { type BumpType, nextVersion } from './bump.js'

/** One project's bump, as `--json` prints it (without `manifestPath`). */
export interface VersionChange {
  name: string
  currentVersion: string
  newVersion: string
  path: string
  manifestPath: string
}

/** A bump worked out, with the manifest's text as it was (to put it back). */
export interface PlannedBump extends VersionChange {
  text: string
}

export type VersionScript = (stage: 'preversion' | 'version' | 'postversion', dir: string) => Promise<void>

/**
 * Each project's next version, worked out before anything runs or is written: a project whose
 * version is not semver stops the command with nothing changed. A project without a name or a
 * version is left out, as pnpm leaves it.
 */
export function planBumps (
  dirs: readonly string[],
  bump: { step: BumpType, preid?: string | undefined } | { exact: string },
  opts: { allowSameVersion: boolean }
): PlannedBump[] {
  const planned: PlannedBump[] = []
  for (const dir of dirs) {
    const manifestPath = path.join(dir, 'package.json')
    const text = readManifestText(manifestPath, dir)
    const { name, version } = parsePackageJson(text, manifestPath)
    if (typeof name !== 'string' || name === '' || version === undefined || version === '') continue
    const newVersion = nextVersion(version, bump, { projectDir: dir, allowSameVersion: opts.allowSameVersion })
    planned.push({ name, currentVersion: version as string, newVersion, path: dir, manifestPath, text })
  }
  return planned
}

/**
 * The bumps made, per project: `preversion`, package.json written (its indentation kept, and what
 * a preversion script edited in it), `version`. Each manifest is added to `written` before it is
 * written, so a caller whose later step fails can put them back (`restoreManifests`).
 */
export async function applyBumps (
  planned: readonly PlannedBump[],
  runScript: VersionScript | undefined,
  written: PlannedBump[]
): Promise<void> {
  for (const change of planned) {
    await runScript?.('preversion', change.path)
    const current = parsePackageJson(readManifestText(change.manifestPath, change.path), change.manifestPath)
    written.push(change)
    await writeEditedManifest(change.path, { ...current, version: change.newVersion })
    await runScript?.('version', change.path)
  }
}

/** The manifests given their text from before the bump, last written first. */
export function restoreManifests (written: readonly PlannedBump[]): void {
  for (const { manifestPath, text } of [...written].reverse()) writeFileAtomicSync(manifestPath, Buffer.from(text))
}

export function withoutText ({ text: _text, ...change }: PlannedBump): VersionChange {
  return change
}

function readManifestText (file: string, dir: string): string {
  try {
    return fs.readFileSync(file, 'utf8')
  } catch (err) {
    if (!hasErrno(err, 'ENOENT')) throw err
    throw new LodeError('NO_PACKAGE_JSON', `There is no package.json in ${dir}.`, { hint: 'Run lode version in a project directory (or -r in a workspace).' })
  }
}
