import { createHash } from 'node:crypto'

import validVersion from 'semver/functions/valid.js'

/** pnpm's default `virtualStoreDirMaxLength` on Linux and macOS. */
export const VIRTUAL_STORE_DIR_MAX_LENGTH = 120

// Version prefixes that are protocols, not registry names (pnpm's list).
const RESERVED_VERSION_PREFIXES = new Set(['bitbucket', 'catalog', 'custom', 'file', 'git', 'github', 'gitlab', 'http', 'https', 'jsr', 'link', 'npm', 'runtime', 'ssh', 'workspace'])

/**
 * The directory name of a dependency path under `node_modules/.pnpm`, by pnpm's rules: `/` and
 * other characters no file system takes become `+`, peer parentheses become `_`, and a name too
 * long, with upper case, trailing dots or spaces, or an ambiguous escape is cut and suffixed with
 * a hash: `@babel/core@7.0.0(x@1.0.0)` → `@babel+core@7.0.0_x@1.0.0`.
 */
export function depPathToFilename (depPath: string, maxLength = VIRTUAL_STORE_DIR_MAX_LENGTH): string {
  let filename = unescaped(depPath).replace(/[\\/:*?"<>|#]/g, '+')
  if (filename.includes('(')) filename = filename.replace(/\)$/, '').replace(/\)\(|\(|\)/g, '_')
  const ambiguous = hasAmbiguousEscape(depPath)
  const hashInput = ambiguous ? depPath : filename
  let end = filename.length
  while (end > 0 && (filename[end - 1] === '.' || filename[end - 1] === ' ')) end--
  const trailing = end < filename.length
  if (trailing) filename = filename.slice(0, end) + '+'.repeat(filename.length - end)
  if (ambiguous || trailing || filename.length > maxLength || (filename !== filename.toLowerCase() && !filename.startsWith('file+'))) {
    return `${filename.slice(0, maxLength - 33)}_${createHash('sha256').update(hashInput).digest('hex').slice(0, 32)}`
  }
  return filename
}

function unescaped (depPath: string): string {
  if (depPath.startsWith('file:')) return depPath.replace(':', '+')
  return depPath.startsWith('/') ? depPath.slice(1) : depPath
}

/** A location (URL or path) whose characters would escape to `+` like others do: the name needs a hash to stay unique. */
function hasAmbiguousEscape (depPath: string): boolean {
  const pkgId = depPath.split('(', 1)[0]!.replace(/^\//, '')
  const isFile = pkgId.startsWith('file:')
  const at = pkgId.indexOf('@', 1)
  if (!isFile && at === -1) return false
  const version = isFile ? pkgId : pkgId.slice(at + 1)
  const schemeEnd = version.indexOf(':')
  if (schemeEnd === -1 || isRegistryQualified(version)) return false
  return /[+\\:*?"<>|#]/.test(version.slice(schemeEnd + 1).replace(/^\/\//, ''))
}

/** `registryName:1.2.3`, pnpm's named-registry versions. */
function isRegistryQualified (version: string): boolean {
  const colon = version.indexOf(':')
  if (colon < 1) return false
  const name = version.slice(0, colon)
  return !RESERVED_VERSION_PREFIXES.has(name) && /^[A-Z][\w.-]*$/i.test(name) && validVersion(version.slice(colon + 1)) !== null
}
