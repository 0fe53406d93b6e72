import fs from 'node:fs'
import path from 'node:path'

import { LodeError } from '@lode/core.error'
import { prepareFileAtomic } from '@lode/fs.write-file-atomic'
import type { PreparedFile } from '@lode/fs.write-file-atomic'

import type { Sbom } from './sbom.js'

// `--out`: the SBOMs written to files, all or none.

/**
 * Writes each SBOM where `pattern` puts it (`%s` its name, `%v` its version), relative to `cwd`;
 * returns the paths as the pattern made them. Two SBOMs for one path, or a directory in the way,
 * are refused before anything is written; a write that fails leaves none of them written.
 */
export async function writeSbomFiles (documents: readonly Sbom[], pattern: string, cwd: string): Promise<string[]> {
  const files = documents.map((document) => sbomOutPath(pattern, document.name, document.version))
  const seen = new Set<string>()
  for (const file of files) {
    const resolved = path.resolve(cwd, file)
    if (seen.has(resolved)) {
      throw new LodeError('SBOM_OUT_PATH_COLLISION', `Multiple workspace packages resolve to the same output path "${file}".`, { hint: 'Include %v in the --out pattern to disambiguate.' })
    }
    seen.add(resolved)
    if (fs.statSync(resolved, { throwIfNoEntry: false })?.isDirectory() === true) {
      throw new LodeError('SBOM_OUT_IS_DIRECTORY', `The SBOM cannot be written to ${resolved}: it is a directory.`, { hint: 'Give --out a file name (a directory can hold it: --out sboms/%s.json).' })
    }
  }
  const prepared: PreparedFile[] = []
  try {
    for (const [index, document] of documents.entries()) {
      prepared.push(await prepareFileAtomic(path.resolve(cwd, files[index]!), document.text))
    }
  } catch (err) {
    await Promise.all(prepared.map(async (file) => { await file.discard() }))
    throw err
  }
  for (const file of prepared) await file.commit()
  return files
}

/**
 * Where `--out` writes an SBOM: `%s` is the package name (`@scope/a` → `scope-a`), `%v` its
 * version, each made one safe path segment.
 */
export function sbomOutPath (pattern: string, name: string, version: string): string {
  return pattern.replaceAll('%s', pathSegment(name.replace(/^@/, '').replace(/\//g, '-'))).replaceAll('%v', pathSegment(version))
}

function pathSegment (value: string): string {
  // eslint-disable-next-line no-control-regex -- control characters are no file name's
  const safe = value.replace(/[/\\:*?"<>|\x00-\x1F\x7F]/g, '-')
  return safe === '.' || safe === '..' || safe.trim() === '' ? '-' : safe
}
