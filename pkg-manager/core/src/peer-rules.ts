import { createMatcher } from '@lode/fs.matcher'
import type { PeerDependencyRules } from '@lode/pkg-manager.config'
import type { PeerIssue } from '@lode/pkg-manager.resolve-dependencies'
import semver from 'semver'

/**
 * The peer issues pnpm's `peerDependencyRules` leave to report: `ignoreMissing` patterns drop
 * missing peers, `allowAny` patterns any version found, and `allowedVersions` (`peer`, or
 * `parent>peer` with an optional `@range` on the parent) versions in the range it gives.
 */
export function applyPeerDependencyRules (issues: readonly PeerIssue[], rules: PeerDependencyRules): PeerIssue[] {
  const ignoreMissing = createMatcher(rules.ignoreMissing ?? [])
  const allowAny = createMatcher(rules.allowAny ?? [])
  const allowed = Object.entries(rules.allowedVersions ?? {}).map(([selector, range]) => ({ ...parseSelector(selector), range }))
  return issues.filter((issue) => {
    if (issue.kind === 'missing') return !ignoreMissing(issue.peer)
    if (allowAny(issue.peer)) return false
    return !allowed.some((rule) => rule.peer === issue.peer && (rule.parent === undefined || parentMatches(rule.parent, issue.wantedBy)) &&
      semver.satisfies(issue.installed, rule.range, { includePrerelease: true }))
  })
}

interface Selector { peer: string, parent?: { name: string, range?: string } }

/** `peer`, `parent>peer` or `parent@range>peer` (scoped names too). */
function parseSelector (selector: string): Selector {
  const split = selector.lastIndexOf('>')
  if (split === -1) return { peer: selector }
  const parent = selector.slice(0, split)
  const at = parent.indexOf('@', 1)
  return { peer: selector.slice(split + 1), parent: at === -1 ? { name: parent } : { name: parent.slice(0, at), range: parent.slice(at + 1) } }
}

/** Whether the package that wants the peer (`name@version`) is the rule's parent. */
function parentMatches (parent: NonNullable<Selector['parent']>, wantedBy: string): boolean {
  const at = wantedBy.indexOf('@', 1)
  if (wantedBy.slice(0, at) !== parent.name) return false
  return parent.range === undefined || semver.satisfies(wantedBy.slice(at + 1), parent.range, { includePrerelease: true })
}
