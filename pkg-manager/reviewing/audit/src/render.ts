import { renderTable } from '@lode/pkg-manager.reviewing.inspection'

import { normalizeGhsaId, SEVERITIES } from './report.js'
import type { AuditReport, ReportedAdvisory, Severity } from './report.js'

// pnpm's `audit` output: a table per advisory at or above the level, most severe first, then the
// counts by severity.

/** A table shows this many paths, then a line pointing at `why`. */
const MAX_PATHS_SHOWN = 3

export function severityRank (severity: Severity): number {
  return SEVERITIES.indexOf(severity)
}

/** The advisories at `level` or above, in the report's order. */
export function advisoriesAtLevel (report: AuditReport, level: Severity): Array<[string, ReportedAdvisory]> {
  return Object.entries(report.advisories).filter(([, advisory]) => severityRank(advisory.severity) >= severityRank(level))
}

/**
 * Takes the advisories whose GHSA is in `ignore` out of `report`; the counts of those taken, by
 * severity.
 */
export function removeIgnored (report: AuditReport, ignore: readonly string[]): Record<Severity, number> {
  const ignored: Record<Severity, number> = { info: 0, low: 0, moderate: 0, high: 0, critical: 0 }
  if (ignore.length === 0) return ignored
  const set = new Set(ignore.map(normalizeGhsaId))
  report.advisories = Object.fromEntries(Object.entries(report.advisories).filter(([, advisory]) => {
    if (!set.has(normalizeGhsaId(advisory.github_advisory_id))) return true
    ignored[advisory.severity] += 1
    return false
  }))
  return ignored
}

/** The text report and its exit code (1 when a table was printed). */
export function renderAuditReport (
  report: AuditReport,
  opts: { level: Severity, ignored: Record<Severity, number>, command: string }
): { output: string, exitCode: number } {
  const shown = advisoriesAtLevel(report, opts.level)
    .sort(([, a], [, b]) => severityRank(b.severity) - severityRank(a.severity))
  const tables = shown.map(([, advisory]) => advisoryTable(advisory, opts.command)).join('')
  const found: Record<Severity, number> = { info: 0, low: 0, moderate: 0, high: 0, critical: 0 }
  for (const advisory of Object.values(report.advisories)) found[advisory.severity] += 1
  return { output: `${tables}${summary(found, opts.ignored)}`, exitCode: tables === '' ? 0 : 1 }
}

/** `--json`: the report with only the advisories at `level` or above (the counts stay whole, as pnpm's). */
export function renderAuditJson (report: AuditReport, level: Severity): { output: string, exitCode: number } {
  const advisories = Object.fromEntries(advisoriesAtLevel(report, level))
  return { output: JSON.stringify({ ...report, advisories }, null, 2), exitCode: Object.keys(advisories).length > 0 ? 1 : 0 }
}

function advisoryTable (advisory: ReportedAdvisory, command: string): string {
  const paths = advisory.findings.flatMap((finding) => finding.paths)
  const shownPaths = paths.length <= MAX_PATHS_SHOWN
    ? paths
    : [...paths.slice(0, MAX_PATHS_SHOWN), `... Found ${paths.length} paths, run \`${command} why ${advisory.module_name}\` for more information`]
  const patched = advisory.patched_versions ?? (advisory.patched_versions_unpublished === true ? 'None' : '(unknown)')
  return renderTable([
    [advisory.severity, advisory.title],
    ['Package', advisory.module_name],
    ['Vulnerable versions', advisory.vulnerable_versions],
    ['Patched versions', patched],
    ['Paths', shownPaths.join('\n\n')],
    ['More info', advisory.url],
  ], { wrap: { 1: 54 } })
}

function summary (found: Record<Severity, number>, ignored: Record<Severity, number>): string {
  const total = (counts: Record<Severity, number>): number => SEVERITIES.reduce((sum, severity) => sum + counts[severity], 0)
  const list = (counts: Record<Severity, number>): string =>
    SEVERITIES.filter((severity) => counts[severity] > 0).map((severity) => `${counts[severity]} ${severity}`).join(' | ')
  const ignoredLine = total(ignored) === 0 ? '' : `\n${total(ignored)} ignored: ${list(ignored)}`
  if (total(found) === 0) {
    const headline = total(ignored) === 0 ? 'No known vulnerabilities found' : 'All found vulnerabilities were already reviewed and decided to be ignored'
    return `${headline}${ignoredLine}\n`
  }
  return `${total(found)} vulnerabilities found\nSeverity: ${list(found)}${ignoredLine}`
}
