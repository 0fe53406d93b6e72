import { MANIFEST_DEPENDENCY_FIELDS } from '@lode/core.constants'
import { LodeError } from '@lode/core.error'

/**
 * A `package.json`'s text as an object. Invalid JSON is `ERR_LODE_INVALID_PACKAGE_JSON` naming
 * `where` (a file, or a file inside a tarball) and the line and column; so is anything but an object.
 * A byte order mark before the JSON is skipped, as npm and pnpm skip it.
 */
export function parsePackageJson (text: string, where: string): Record<string, unknown> {
  let value: unknown
  try {
    value = JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text)
  } catch (err) {
    const message = (err as Error).message
    throw new LodeError('INVALID_PACKAGE_JSON', `${where} is not valid JSON${positionOf(text, message)}: ${message}`, { hint: 'Fix the syntax error and run again.' })
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new LodeError('INVALID_PACKAGE_JSON', `${where} must contain a JSON object.`, { hint: 'Fix the file and run again.' })
  }
  return value as Record<string, unknown>
}

/** ` (line L, column C)` from V8's "at position N" message, when it has one. */
function positionOf (text: string, message: string): string {
  const match = /position (\d+)/.exec(message)
  if (match === null) return ''
  const before = text.slice(0, Number(match[1]))
  const line = before.split('\n').length
  const column = before.length - before.lastIndexOf('\n')
  return ` (line ${line}, column ${column})`
}

const isMap = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value)

/**
 * Checks the fields of a project's manifest that the install reads as typed values: each dependency
 * group (peers too), when present, maps names to version strings; `peerDependenciesMeta` maps names
 * to maps; `name` and `version` are strings (a number reaches semver, which throws on it).
 * Otherwise `ERR_LODE_INVALID_PACKAGE_JSON` names the field and `where`.
 */
export function checkDependencyGroups (manifest: Record<string, unknown>, where: string): void {
  const invalid = (field: string, what: string): LodeError =>
    new LodeError('INVALID_PACKAGE_JSON', `"${field}" in ${where} must ${what}.`, { hint: `Fix "${field}" in ${where} and run again.` })
  for (const group of MANIFEST_DEPENDENCY_FIELDS) {
    const deps = manifest[group]
    if (deps !== undefined && (!isMap(deps) || !Object.values(deps).every((v) => typeof v === 'string'))) throw invalid(group, 'map package names to version strings')
  }
  const meta = manifest['peerDependenciesMeta']
  if (meta !== undefined && (!isMap(meta) || !Object.values(meta).every(isMap))) throw invalid('peerDependenciesMeta', 'map package names to maps such as { "optional": true }')
  for (const field of ['name', 'version']) {
    if (manifest[field] !== undefined && typeof manifest[field] !== 'string') throw invalid(field, 'be a string')
  }
}
