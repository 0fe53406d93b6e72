import fs from 'node:fs/promises'
import path from 'node:path'

// A package's license as pnpm 11 finds it: package.json's `license` (or the old `licenses`), else
// the license names its license file's text holds. `licenses list` and `sbom` read it so.

/** The license files pnpm looks at, in its order. */
export const LICENSE_FILES = ['LICENSE', 'LICENCE', 'LICENSE.md', 'LICENCE.md', 'LICENSE.txt', 'LICENCE.txt', 'MIT-LICENSE.txt', 'MIT-LICENSE.md', 'MIT-LICENSE']
// The names pnpm looks for in a license file when package.json names none.
const LICENSE_NAMES = [
  'Apache1_1', 'Apache-1.1', 'Apache 1.1', 'Apache2', 'Apache-2.0', 'Apache 2.0', 'BSD', 'BSD-4-Clause', 'CC01', 'CC0-1.0', 'CC0 1.0', 'CDDL1',
  'CDDL-1.0', 'Common Development and Distribution License 1.0', 'EPL1', 'EPL-1.0', 'Eclipse Public License 1.0', 'GPLv2', 'GPL-2.0-only',
  'GPLv3', 'GPL-3.0-only', 'ISC', 'LGPL', 'LGPL-3.0-only', 'LGPL2_1', 'LGPL-2.1-only', 'MIT', 'MPL1_1', 'MPL-1.1', 'Mozilla Public License 1.1',
  'MPL2', 'MPL-2.0', 'Mozilla Public License 2.0', 'NewBSD', 'BSD-3-Clause', 'New BSD', 'OFL', 'OFL-1.1', 'SIL OPEN FONT LICENSE Version 1.1',
  'Python', 'PSF-2.0', 'Python Software Foundation License', 'Ruby', 'SimplifiedBSD', 'BSD-2-Clause', 'Simplified BSD', 'WTFPL', '0BSD',
  'BSD Zero Clause License', 'Zlib', 'zlib/libpng license',
]
const LICENSE_NAME_PATTERN = new RegExp(`\\b(${LICENSE_NAMES.map((name) => name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|')})\\b`, 'gi')

export interface FoundLicense {
  /** The license, or `Unknown` for a license file that names none pnpm knows. */
  name: string
  /** Read from a license file's text (package.json named none, or pointed at the file). */
  fromFile: boolean
}

/** Reads one of a package's files by name: its text, or undefined when the package has none. */
export type PackageFileReader = (name: string) => Promise<string | undefined>

/** The files of a package directory. */
export function licenseFileReader (dir: string): PackageFileReader {
  return async (name) => await fs.readFile(path.join(dir, name), 'utf8').catch(() => undefined)
}

/** package.json's license (unless it points at a file), else what the first license file names, else package.json's words. */
export async function licenseOf (manifest: Record<string, unknown>, readFile: PackageFileReader): Promise<FoundLicense | undefined> {
  const declared = licenseField(manifest['license']) ?? licenseField(manifest['licenses'])
  if (declared !== undefined && !/see license/i.test(declared)) return { name: declared, fromFile: false }
  for (const file of LICENSE_FILES) {
    const text = await readFile(file)
    if (text === undefined) continue
    const found = text.match(LICENSE_NAME_PATTERN)
    return { name: found === null ? 'Unknown' : [...new Set(found)].join(' OR '), fromFile: true }
  }
  return declared === undefined ? undefined : { name: declared, fromFile: false }
}

function licenseField (field: unknown): string | undefined {
  if (typeof field === 'string') return field === '' ? undefined : field
  if (Array.isArray(field)) {
    const types = field.map(licenseType).filter((type): type is string => type !== undefined)
    return types.length === 0 ? undefined : types.length === 1 ? types[0] : `(${types.join(' OR ')})`
  }
  return licenseType(field)
}

function licenseType (entry: unknown): string | undefined {
  if (typeof entry === 'string') return entry === '' ? undefined : entry
  if (entry === null || typeof entry !== 'object') return undefined
  const { type, name } = entry as { type?: unknown, name?: unknown }
  if (typeof type === 'string' && type !== '') return type
  return typeof name === 'string' && name !== '' ? name : undefined
}
