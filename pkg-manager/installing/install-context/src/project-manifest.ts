import fs from 'node:fs/promises'
import path from 'node:path'

import { LodeError, hasErrno } from '@lode/core.error'
import { checkDependencyGroups, parsePackageJson } from '@lode/fs.package-json'
import type { ProjectManifest } from '@lode/pkg-manager.deps.resolve-dependencies'

/**
 * The project's package.json; invalid JSON is an error naming the file and the position. With
 * `missingIsEmpty` (pnpm's `add` in a directory without one), a missing file reads as `{}`.
 */
export async function readProjectManifest (dir: string, opts: { missingIsEmpty?: boolean } = {}): Promise<ProjectManifest> {
  const file = path.join(dir, 'package.json')
  let text: string
  try {
    text = await fs.readFile(file, 'utf8')
  } catch (err) {
    if (hasErrno(err, 'ENOENT') && opts.missingIsEmpty === true) return {}
    if (hasErrno(err, 'ENOENT')) {
      throw new LodeError('NO_PACKAGE_JSON', `There is no package.json in ${dir}.`, { hint: 'Run lode in a project directory, or create package.json (npm init -y).' })
    }
    throw err
  }
  const manifest = parsePackageJson(text, file)
  checkDependencyGroups(manifest, file)
  return manifest
}
