import { LodeError } from '@lode/fs.error'

/**
 * A `package.json`'s text as an object. Invalid JSON is `ERR_LODE_INVALID_PACKAGE_JSON` naming
 * `where` (a file, or a file inside a tarball) and the line and column; so is anything but an object.
 */
export function parsePackageJson (text: string, where: string): Record<string, unknown> {
  let value: unknown
  try {
    value = JSON.parse(text)
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

const DEPENDENCY_GROUPS = ['dependencies', 'devDependencies', 'optionalDependencies'] as const

/**
 * Checks a project's dependency groups: each, when present, must map names to version strings.
 * Otherwise `ERR_LODE_INVALID_PACKAGE_JSON` names the group and `where`.
 */
export function checkDependencyGroups (manifest: Record<string, unknown>, where: string): void {
  for (const group of DEPENDENCY_GROUPS) {
    const deps = manifest[group]
    if (deps === undefined) continue
    if (typeof deps !== 'object' || deps === null || Array.isArray(deps) || !Object.values(deps).every((v) => typeof v === 'string')) {
      throw new LodeError('INVALID_PACKAGE_JSON', `"${group}" in ${where} must map package names to version strings.`, { hint: 'Fix the file and run again.' })
    }
  }
}
