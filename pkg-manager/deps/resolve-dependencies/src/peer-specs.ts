import { LodeError, printable } from '@lode/core.error'
import semver from 'semver'

/**
 * pnpm 11's check of a project's own peerDependencies before it resolves: each value is a semver
 * range, a `workspace:` or `catalog:` spec, or another specifier with a protocol (`npm:`, `file:`, a
 * git URL). Anything else is `ERR_LODE_INVALID_PEER_DEPENDENCY_SPECIFICATION`, before anything is written.
 */
export function checkPeerSpecs (manifest: { name?: unknown, peerDependencies?: unknown }, dir: string): void {
  const peers = manifest.peerDependencies
  if (peers === null || typeof peers !== 'object') return
  const project = typeof manifest.name === 'string' ? manifest.name : dir
  for (const [name, value] of Object.entries(peers)) {
    if (typeof value === 'string' && (semver.validRange(value) !== null || value.includes(':'))) continue
    throw new LodeError('INVALID_PEER_DEPENDENCY_SPECIFICATION', `The peerDependencies field named '${printable(name)}' of package '${printable(project)}' has an invalid value: '${printable(String(value))}'`, {
      hint: 'The values in peerDependencies should be a valid semver range, a `workspace:`/`catalog:` spec, or a dependency specifier such as `npm:`, `file:`, or git/URL spec.',
    })
  }
}
