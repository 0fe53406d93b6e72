import type { Check } from './checks.js'

const MARKS: Readonly<Record<Check['status'], string>> = { pass: '✓', warn: '‼', fail: '✗' }

/** The checks as pnpm 11's doctor prints them (without colours): a line each, a fix under a warning or failure, then the sum. */
export function renderDoctorReport (checks: readonly Check[]): string {
  const lines = checks.map((check) => {
    const head = `${MARKS[check.status]} ${check.title}${check.detail === undefined || check.detail === '' ? '' : `: ${check.detail}`}`
    if (check.status === 'pass' || check.fix === undefined) return check.durationMs === undefined ? head : `${head} (${check.durationMs}ms)`
    return `${head}\n    ${check.fix}`
  })
  const failed = checks.filter((check) => check.status === 'fail').length
  const warned = checks.filter((check) => check.status === 'warn').length
  const summary = failed > 0 ? `${failed} check(s) failed` : warned > 0 ? `All checks passed with ${warned} warning(s)` : 'All checks passed'
  return `${lines.join('\n')}\n\n${summary}`
}

/** pnpm's `--json`: `{ checks }`, fields without a value left out. */
export function renderDoctorJson (checks: readonly Check[]): string {
  return JSON.stringify({ checks }, undefined, 2)
}
