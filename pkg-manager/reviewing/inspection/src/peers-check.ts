import { parseDepPath, pkgIdOf, refToDepPath } from '@lode/core.dep-path'
import type { PeerDependencyRules } from '@lode/pkg-manager.config.settings'
import { peerVersionRange } from '@lode/pkg-manager.deps.resolve-dependencies/peer-range'
import { applyPeerDependencyRules } from '@lode/pkg-manager.deps.resolve-dependencies/peer-rules'
import type { Lockfile } from '@lode/pkg-manager.lockfile.format'
import semver from 'semver'

/** The issue as an install reports it (what `peerDependencyRules` are applied to). */
type PeerIssue = Parameters<typeof applyPeerDependencyRules>[0][number]

// pnpm 11's `peers check`: the peers each package of the lockfile wants, against what the lockfile
// resolved them to, per project. A peer resolved outside the range is `bad`; one not resolved (and
// not optional) is `missing`, kept when the ranges wanted of it intersect and a `conflict` when not.

export interface PeerParent { name: string, version: string }

export interface LockfilePeerIssue {
  /** The packages from the project down to the one that wants the peer. */
  parents: PeerParent[]
  optional: boolean
  wantedRange: string
  foundVersion?: string
  resolvedFrom?: []
}

export interface ProjectPeerIssues {
  bad: Record<string, LockfilePeerIssue[]>
  missing: Record<string, LockfilePeerIssue[]>
  conflicts: string[]
  intersections: Record<string, string>
}

/**
 * The issues of each project (by its importer id), as pnpm's lockfile walk finds them: from the
 * project's dev, prod and optional dependencies down, each package visited once for all the
 * projects (the first project to reach it reports it).
 */
export function lockfilePeerIssues (
  lockfile: Lockfile,
  importerIds: readonly string[],
  rules: PeerDependencyRules | undefined
): Record<string, ProjectPeerIssues> {
  const walked = new Set<string>()
  const result: Record<string, ProjectPeerIssues> = {}
  for (const importerId of importerIds) {
    const importer = lockfile.importers[importerId]
    const issues: ProjectPeerIssues = { bad: {}, missing: {}, conflicts: [], intersections: {} }
    const refs = { ...importer?.devDependencies, ...importer?.dependencies, ...importer?.optionalDependencies }
    walk(lockfile, Object.entries(refs).map(([alias, { version }]) => depPathOf(alias, version)), [], walked, issues)
    const merged = mergeMissing(issues.missing)
    issues.conflicts = merged.conflicts
    issues.intersections = merged.intersections
    result[importerId] = rules === undefined ? issues : applyRules(issues, rules)
  }
  return result
}

/** Whether every project is free of issues. */
export function noPeerIssues (issues: Readonly<Record<string, ProjectPeerIssues>>): boolean {
  return Object.values(issues).every((project) => Object.keys(project.bad).length === 0 && Object.keys(project.missing).length === 0)
}

interface Snapshot {
  version?: unknown
  peerDependencies?: Record<string, string>
  peerDependenciesMeta?: Record<string, { optional?: boolean }>
  dependencies?: Record<string, string>
  optionalDependencies?: Record<string, string>
}

function snapshotOf (lockfile: Lockfile, depPath: string): Snapshot | undefined {
  const snapshot = lockfile.snapshots?.[depPath]
  const info = lockfile.packages?.[pkgIdOf(depPath)]
  if (snapshot === undefined && info === undefined) return undefined
  return { ...info, ...snapshot }
}

/** A reference's dependency path; none for a `link:` (a project of the workspace, walked as its own). */
function depPathOf (alias: string, ref: string): string | undefined {
  return ref.startsWith('link:') ? undefined : refToDepPath(alias, ref)
}

function walk (
  lockfile: Lockfile,
  depPaths: ReadonlyArray<string | undefined>,
  parents: readonly PeerParent[],
  walked: Set<string>,
  issues: ProjectPeerIssues
): void {
  const steps: Array<{ depPath: string, snapshot: Snapshot }> = []
  for (const depPath of depPaths) {
    if (depPath === undefined || walked.has(depPath)) continue
    walked.add(depPath)
    const snapshot = snapshotOf(lockfile, depPath)
    if (snapshot !== undefined) steps.push({ depPath, snapshot })
  }
  for (const { depPath, snapshot } of steps) {
    const parsed = parseDepPath(depPath)
    const version = typeof snapshot.version === 'string' ? snapshot.version : parsed.version
    const here = [...parents, { name: parsed.name, version }]
    for (const [peer, raw] of Object.entries(snapshot.peerDependencies ?? {})) {
      checkPeer(lockfile, snapshot, peer, peerVersionRange(raw), here, issues)
    }
    const children = { ...snapshot.dependencies, ...snapshot.optionalDependencies }
    walk(lockfile, Object.entries(children).map(([alias, ref]) => depPathOf(alias, ref)), here, walked, issues)
  }
}

function checkPeer (
  lockfile: Lockfile,
  snapshot: Snapshot,
  peer: string,
  range: string,
  parents: PeerParent[],
  issues: ProjectPeerIssues
): void {
  const optional = snapshot.peerDependenciesMeta?.[peer]?.optional === true
  const ref = snapshot.dependencies?.[peer] ?? snapshot.optionalDependencies?.[peer]
  if (ref === undefined) {
    if (!optional) (issues.missing[peer] ??= []).push({ parents, optional, wantedRange: range })
    return
  }
  const found = resolvedVersion(lockfile, peer, ref)
  if (found !== '' && !satisfies(found, range)) {
    (issues.bad[peer] ??= []).push({ parents, optional, wantedRange: range, foundVersion: found, resolvedFrom: [] })
  }
}

function resolvedVersion (lockfile: Lockfile, alias: string, ref: string): string {
  const depPath = depPathOf(alias, ref)
  const recorded = depPath === undefined ? undefined : snapshotOf(lockfile, depPath)
  if (depPath !== undefined && recorded !== undefined) return typeof recorded.version === 'string' ? recorded.version : parseDepPath(depPath).version
  return parseDepPath(`${alias}@${ref}`).version
}

function satisfies (version: string, range: string): boolean {
  return range === '*' || semver.satisfies(version, range, { includePrerelease: true, loose: true })
}

/** The missing peers wanted by several packages: the intersection of the ranges, or a conflict when there is none. */
function mergeMissing (missing: Record<string, LockfilePeerIssue[]>): { conflicts: string[], intersections: Record<string, string> } {
  const conflicts: string[] = []
  const intersections: Record<string, string> = {}
  for (const [peer, issues] of Object.entries(missing)) {
    if (issues.every((issue) => issue.optional)) continue
    const ranges = [...new Set(issues.map((issue) => issue.wantedRange))]
    const intersection = ranges.length === 1 ? ranges[0]! : intersectRanges(ranges)
    if (intersection === undefined) conflicts.push(peer)
    else intersections[peer] = intersection
  }
  return { conflicts, intersections }
}

/**
 * The versions every range takes in, as one range (each range's comparator sets crossed with the
 * others', the ones some version satisfies kept); undefined when no version fits them all.
 */
export function intersectRanges (ranges: readonly string[]): string | undefined {
  let sets: string[][] = [[]]
  for (const range of ranges) {
    let parsed: semver.Range
    try {
      parsed = new semver.Range(range, { includePrerelease: true })
    } catch {
      return undefined
    }
    const next: string[][] = []
    for (const set of sets) {
      for (const comparators of parsed.set) {
        const combined = [...set, ...comparators.map((comparator) => comparator.value).filter((value) => value !== '')]
        if (satisfiable(combined)) next.push(combined)
      }
    }
    // A product of many `||` alternatives: past a bound, the answer is not worth its cost.
    if (next.length === 0 || next.length > 256) return undefined
    sets = next
  }
  const alternatives = [...new Set(sets.map((set) => set.length === 0 ? '*' : set.join(' ')))]
  return alternatives.join(' || ')
}

function satisfiable (comparators: readonly string[]): boolean {
  if (comparators.length === 0) return true
  try {
    return semver.minVersion(comparators.join(' ')) !== null
  } catch {
    return false
  }
}

/** pnpm's `peerDependencyRules` over the issues: ignored missing peers, any version allowed, versions allowed. */
function applyRules (issues: ProjectPeerIssues, rules: PeerDependencyRules): ProjectPeerIssues {
  const wantedBy = (issue: LockfilePeerIssue): string => {
    const parent = issue.parents.at(-1)
    return parent === undefined ? '' : `${parent.name}@${parent.version}`
  }
  const kept = (kind: 'missing' | 'unmet', peer: string, issue: LockfilePeerIssue): boolean => {
    const asInstalled: PeerIssue = kind === 'missing'
      ? { kind, peer, range: issue.wantedRange, wantedBy: wantedBy(issue) }
      : { kind, peer, range: issue.wantedRange, installed: issue.foundVersion ?? '', wantedBy: wantedBy(issue) }
    return applyPeerDependencyRules([asInstalled], rules).length > 0
  }
  const missing: Record<string, LockfilePeerIssue[]> = {}
  const intersections: Record<string, string> = {}
  for (const [peer, list] of Object.entries(issues.missing)) {
    if (list.every((issue) => issue.optional) || !kept('missing', peer, list[0]!)) continue
    missing[peer] = list
    if (issues.intersections[peer] !== undefined) intersections[peer] = issues.intersections[peer]
  }
  const bad: Record<string, LockfilePeerIssue[]> = {}
  for (const [peer, list] of Object.entries(issues.bad)) {
    const remaining = list.filter((issue) => kept('unmet', peer, issue))
    if (remaining.length > 0) bad[peer] = remaining
  }
  return { bad, missing, conflicts: issues.conflicts.filter((peer) => missing[peer] !== undefined), intersections }
}
