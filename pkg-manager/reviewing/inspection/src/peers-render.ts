import type { LockfilePeerIssue, ProjectPeerIssues } from './peers-check.js'

// `peers check`'s report, as pnpm 11 prints it without colours: per project (its id underlined in
// pnpm's colours, plain here) the unmet peers by the version found, then the missing peers whose
// ranges intersect and the conflicting ones, each with the ranges wanted and by whom.

export function renderPeerIssues (byProject: Readonly<Record<string, ProjectPeerIssues>>): string {
  const ids = Object.keys(byProject)
  if (ids.length === 1 && ids[0] === '.') return sections(byProject['.']!).join('\n\n')
  return Object.entries(byProject)
    .map(([id, issues]) => [id, sections(issues)] as const)
    .filter(([, list]) => list.length > 0)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([id, list]) => `${id}\n${list.map(indent).join('\n\n')}`)
    .join('\n\n')
}

function sections ({ bad, missing, conflicts, intersections }: ProjectPeerIssues): string[] {
  const out: string[] = []
  for (const [peer, issues] of Object.entries(bad)) {
    const byVersion = new Map<string, LockfilePeerIssue[]>()
    for (const issue of issues) byVersion.set(issue.foundVersion ?? '', [...byVersion.get(issue.foundVersion ?? '') ?? [], issue])
    for (const [found, group] of byVersion) out.push(`✕ unmet peer ${peer}\n  Installed: ${found}\n${wanted(group)}`)
  }
  for (const [peer, issues] of Object.entries(missing)) {
    const conflict = conflicts.includes(peer)
    if (intersections[peer] === undefined && !conflict) continue
    out.push(`${conflict ? '✕ conflicting peer' : '✕ missing peer'} ${peer}\n${wanted(issues)}`)
  }
  return out
}

/** The ranges wanted, each with the packages that want it (the last of each issue's parents). */
function wanted (issues: readonly LockfilePeerIssue[]): string {
  const byRange = new Map<string, Set<string>>()
  for (const issue of issues) {
    const declaring = issue.parents.at(-1)
    const pkg = declaring === undefined ? '<unknown>' : `${declaring.name}@${declaring.version}`
    byRange.set(issue.wantedRange, (byRange.get(issue.wantedRange) ?? new Set()).add(pkg))
  }
  const lines = ['  Wanted:']
  for (const [range, pkgs] of byRange) {
    lines.push(`    ${range.includes(' ') || range === '*' ? `"${range}"` : range}:`)
    for (const pkg of pkgs) lines.push(`      ${pkg}`)
  }
  return lines.join('\n')
}

function indent (section: string): string {
  return section.split('\n').map((line) => `  ${line}`).join('\n')
}
