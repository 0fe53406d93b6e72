import { LodeError } from '@lode/core.error'
import semver from 'semver'

import type { FindingPaths } from './paths.js'
import type { AuditRequest } from './request.js'

export const SEVERITIES = ['info', 'low', 'moderate', 'high', 'critical'] as const
export type Severity = typeof SEVERITIES[number]

/** An advisory as the bulk endpoint answers it (the fields lode reads). */
export interface RegistryAdvisory {
  id: number
  title?: string
  severity: Severity
  vulnerable_versions: string
  url?: string
  cwe?: string | string[]
}

export interface Finding {
  version: string
  paths: string[]
  dev: boolean
  optional: boolean
  bundled: false
}

/** An advisory as pnpm's report holds it (its JSON keys and order). */
export interface ReportedAdvisory {
  findings: Finding[]
  id: number
  title: string
  module_name: string
  vulnerable_versions: string
  /** `>=<first fixed version>`; undefined when it cannot be told from the range, null when no fixed version is published. */
  patched_versions: string | null | undefined
  severity: Severity
  cwe: string
  github_advisory_id: string
  url: string
  patched_versions_unpublished?: true
}

export interface AuditReport {
  advisories: Record<string, ReportedAdvisory>
  metadata: {
    vulnerabilities: Record<Severity, number>
    dependencies: number
    devDependencies: number
    optionalDependencies: number
    totalDependencies: number
  }
}

/** The bulk endpoint's answer, checked: an object of advisory lists by package name. */
export function parseBulkResponse (url: string, text: string): Record<string, RegistryAdvisory[]> {
  let body: unknown
  try {
    body = JSON.parse(text)
  } catch (err) {
    throw new LodeError('AUDIT_BAD_RESPONSE', `The audit endpoint (at ${url}) returned invalid JSON: ${(err as Error).message}. Response body: ${text.slice(0, 500)}`)
  }
  const isAdvisoryList = (list: unknown): boolean => Array.isArray(list) && list.every((advisory) =>
    typeof advisory === 'object' && advisory !== null && !Array.isArray(advisory) && typeof (advisory as { vulnerable_versions?: unknown }).vulnerable_versions === 'string')
  if (typeof body !== 'object' || body === null || Array.isArray(body) || !Object.values(body).every(isAdvisoryList)) {
    throw new LodeError('AUDIT_BAD_RESPONSE', `The audit endpoint (at ${url}) returned an unexpected body. Expected an object keyed by package name; got: ${JSON.stringify(body).slice(0, 500)}`)
  }
  return body as Record<string, RegistryAdvisory[]>
}

/**
 * pnpm's report: each advisory (with a numeric id and a known severity) that an installed version
 * falls in, with that version's paths; the counts by severity and the request's package counts.
 */
export function auditReport (
  bulk: Readonly<Record<string, readonly RegistryAdvisory[]>>,
  request: AuditRequest,
  paths: ReadonlyMap<string, ReadonlyMap<string, FindingPaths>>
): AuditReport {
  const advisories: Record<string, ReportedAdvisory> = {}
  const vulnerabilities: Record<Severity, number> = { info: 0, low: 0, moderate: 0, high: 0, critical: 0 }
  for (const [name, list] of Object.entries(bulk)) {
    for (const advisory of list) {
      if (typeof advisory.id !== 'number' || !Number.isFinite(advisory.id) || !(SEVERITIES as readonly unknown[]).includes(advisory.severity)) continue
      const findings = [...paths.get(name) ?? []]
        .filter(([version]) => satisfies(version, advisory.vulnerable_versions))
        .map(([version, info]): Finding => ({ version, paths: info.paths, dev: info.dev, optional: info.optional, bundled: false }))
      if (findings.length === 0) continue
      advisories[String(advisory.id)] = {
        findings,
        id: advisory.id,
        title: advisory.title ?? '',
        module_name: name,
        vulnerable_versions: advisory.vulnerable_versions,
        patched_versions: inferPatchedVersions(advisory.vulnerable_versions),
        severity: advisory.severity,
        cwe: (Array.isArray(advisory.cwe) ? advisory.cwe.join(', ') : advisory.cwe) ?? '',
        github_advisory_id: ghsaIdOf(advisory.url),
        url: advisory.url ?? '',
      }
      vulnerabilities[advisory.severity] += 1
    }
  }
  const { dependencies, devDependencies, optionalDependencies, totalDependencies } = request
  return { advisories, metadata: { vulnerabilities, dependencies, devDependencies, optionalDependencies, totalDependencies } }
}

/** What a package's full packument tells of its versions: when each was published, which are deprecated. */
export interface PublishInfo {
  time: Readonly<Record<string, unknown>>
  deprecated: ReadonlySet<string>
}

/**
 * The inferred `>=x` of each advisory made the lowest version actually published in that range
 * and not deprecated (none: `null`, "None" in the table). A package whose packument cannot be had
 * keeps the inferred range.
 */
export async function correctPatchedVersions (
  report: AuditReport,
  publishInfoOf: (name: string) => Promise<PublishInfo | undefined>
): Promise<void> {
  await Promise.all(Object.values(report.advisories).map(async (advisory) => {
    if (advisory.patched_versions == null) return
    const info = await publishInfoOf(advisory.module_name)
    if (info === undefined) return
    const lowest = lowestFixedVersion(info, advisory.patched_versions)
    if (lowest === undefined) {
      advisory.patched_versions = null
      advisory.patched_versions_unpublished = true
    } else {
      advisory.patched_versions = `>=${lowest.version}`
    }
  }))
}

/** The lowest published, not deprecated version in `range` (a release before a prerelease), with its key in `time`. */
export function lowestFixedVersion (info: PublishInfo, range: string): { key: string, version: string } | undefined {
  let lowest: { key: string, parsed: semver.SemVer } | undefined
  for (const key of Object.keys(info.time)) {
    if (key === 'created' || key === 'modified') continue
    const parsed = semver.parse(key, { loose: true })
    if (parsed === null || info.deprecated.has(parsed.version) || !satisfies(parsed.version, range)) continue
    if (lowest === undefined || compareCandidates(parsed, lowest.parsed) < 0) lowest = { key, parsed }
  }
  return lowest === undefined ? undefined : { key: lowest.key, version: lowest.parsed.version }
}

function compareCandidates (a: semver.SemVer, b: semver.SemVer): number {
  const aPre = a.prerelease.length > 0
  const bPre = b.prerelease.length > 0
  if (aPre !== bPre) return aPre ? 1 : -1
  return semver.compare(a, b)
}

/** pnpm's guess from the vulnerable range alone: `<x` → `>=x`, `<=x` → `>=` the next patch; else unknown. */
function inferPatchedVersions (vulnerable: string): string | undefined {
  const range = vulnerable.trim()
  const below = /(?:^|\s)<\s*(\d+\.\d+\.\d[\w\-.+]*)\s*$/.exec(range)
  if (below !== null) return `>=${below[1]!}`
  const upTo = /(?:^|\s)<=\s*(\d+\.\d+\.\d[\w\-.+]*)\s*$/.exec(range)
  if (upTo !== null) {
    const next = semver.inc(upTo[1]!, 'patch')
    if (next !== null) return `>=${next}`
  }
  return undefined
}

/** The GHSA id in an advisory's URL (`GHSA-` upper case, the rest lower), or ''. */
function ghsaIdOf (url: string | undefined): string {
  const match = url === undefined ? null : /\/(GHSA-[\w-]+)/i.exec(url)
  return match === null ? '' : normalizeGhsaId(match[1]!)
}

export function normalizeGhsaId (id: string): string {
  const trimmed = id.trim()
  const dash = trimmed.indexOf('-')
  return dash < 0 ? trimmed.toUpperCase() : trimmed.slice(0, dash).toUpperCase() + trimmed.slice(dash).toLowerCase()
}

export function satisfies (version: string, range: string): boolean {
  try {
    return semver.satisfies(version, range, { includePrerelease: true, loose: true })
  } catch {
    return false
  }
}
