import { splitNameAt } from '@lode/core.dep-path'
import { LodeError } from '@lode/core.error'
import { createMatcher } from '@lode/core.matcher'
import type { PeerDependencyRules } from '@lode/pkg-manager.config.settings'
import semver from 'semver'

import type { PeerIssue } from './resolve-peers.js'

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
  const { name, rest: range } = splitNameAt(parent)
  return { peer: selector.slice(split + 1), parent: range === undefined ? { name } : { name, range } }
}

/** Whether the package that wants the peer (`name@version`) is the rule's parent. */
function parentMatches (parent: NonNullable<Selector['parent']>, wantedBy: string): boolean {
  const { name, rest: version } = splitNameAt(wantedBy)
  if (name !== parent.name) return false
  return parent.range === undefined || semver.satisfies(version ?? '', parent.range, { includePrerelease: true })
}

/**
 * `strictPeerDependencies`: the issues left after the rules as `ERR_LODE_PEER_DEP_ISSUES`, listed
 * as pnpm 11 lists them (by peer, then by the version found, then by the range each dependent wants).
 */
export function peerIssuesError (issues: readonly PeerIssue[], opts: { autoInstallPeers: boolean }): LodeError {
  const sections: string[] = []
  const byPeer = new Map<string, PeerIssue[]>()
  for (const issue of issues) byPeer.set(`${issue.kind}\t${issue.peer}`, [...byPeer.get(`${issue.kind}\t${issue.peer}`) ?? [], issue])
  const wanted = (group: readonly PeerIssue[]): string => {
    const byRange = new Map<string, Set<string>>()
    for (const issue of group) byRange.set(issue.range, (byRange.get(issue.range) ?? new Set()).add(issue.wantedBy))
    return ['  Wanted:', ...[...byRange].flatMap(([range, by]) => [`    ${range.includes(' ') || range === '*' ? `"${range}"` : range}:`, ...[...by].map((pkg) => `      ${pkg}`)])].join('\n')
  }
  const unmet = [...byPeer].filter(([key]) => key.startsWith('unmet\t'))
  const missing = [...byPeer].filter(([key]) => key.startsWith('missing\t'))
  for (const [, group] of unmet) {
    const byVersion = new Map<string, PeerIssue[]>()
    for (const issue of group) if (issue.kind === 'unmet') byVersion.set(issue.installed, [...byVersion.get(issue.installed) ?? [], issue])
    for (const [installed, found] of byVersion) sections.push(`✕ unmet peer ${group[0]!.peer}\n  Installed: ${installed}\n${wanted(found)}`)
  }
  for (const [, group] of missing) sections.push(`✕ missing peer ${group[0]!.peer}\n${wanted(group)}`)
  const hints = [
    ...missing.length > 0 && !opts.autoInstallPeers ? ['To install missing peers automatically, set autoInstallPeers: true in pnpm-workspace.yaml.'] : [],
    'To not fail on peer dependency issues, set strictPeerDependencies: false in pnpm-workspace.yaml (or allow them with peerDependencyRules).',
  ]
  return new LodeError('PEER_DEP_ISSUES', `Unmet peer dependencies\n\n${sections.join('\n\n')}`, { hint: hints.join(' ') })
}
