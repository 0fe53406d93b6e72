import semver from 'semver'

/**
 * The semver range a peer range means: `workspace:` ranges as the workspace protocol reads them
 * (`*`, `^`, `~` take any version), `npm:name@range` and other schemes by their range, each part
 * of an `||` alone; what is no range, any version (pnpm's getPeerVersionRange).
 */
export function peerVersionRange (range: string): string {
  if (range.includes('||')) return range.split('||').map((part) => peerVersionRange(part.trim())).join(' || ')
  if (semver.validRange(range) !== null) return range
  if (range.startsWith('workspace:')) {
    const bare = range.slice('workspace:'.length)
    return bare !== '' && semver.validRange(bare) !== null ? bare : '*'
  }
  const colon = range.indexOf(':')
  if (colon > 0) {
    const body = range.slice(colon + 1)
    if (semver.validRange(body) !== null) return body
    const at = body.lastIndexOf('@')
    if (at > 0 && semver.validRange(body.slice(at + 1)) !== null) return body.slice(at + 1)
  }
  return '*'
}
