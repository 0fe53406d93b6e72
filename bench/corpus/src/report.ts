import type { EResult, TestRun } from './check-e.js'
import type { AResult, BResult, CResult, DResult, InstalledLockfile, Outcome } from './checks.js'

export interface RepoResult {
  commit: string
  lockfileLines: number
  /** Per check, how it last ran: the repository's commit, lode's commit (`+changes` when its tree had uncommitted changes) and pnpm's version, the settings dropped. */
  runs: Partial<Record<Check, { commit: string, versions: string, droppedSettings: string[] }>>
  a?: AResult
  b?: BResult
  c?: CResult
  d?: DResult
  /** Undefined for a repository without a `test` command. */
  e?: EResult
}

export const CHECKS = ['a', 'b', 'c', 'd', 'e'] as const
export type Check = typeof CHECKS[number]

const failed = (o: Outcome | 'not run'): string | null => typeof o === 'object' ? o.failed : null

function cellA (a: AResult): string {
  const lodeRejects = failed(a.frozen.lode)
  const accept = failed(a.frozen.pnpm) !== null
    ? `pnpm rejects (${failed(a.frozen.pnpm)}), lode ${lodeRejects === null ? 'accepts' : 'rejects'}`
    : lodeRejects === null ? '✔' : `✘ ${lodeRejects}`
  const rewrite = failed(a.lockfileOnly.lode)
  if (rewrite !== null) return `${accept}; --lockfile-only ✘ ${rewrite}`
  const pnpmChanged = a.changed.pnpm > 0 ? ` (pnpm changes ${a.changed.pnpm}, lode vs pnpm ${a.vsPnpm})` : ''
  return `${accept}, ${a.changed.lode}${pnpmChanged}`
}

function cellB (b: BResult): string {
  const without = b.withoutMissing.length > 0 ? ` (without ${b.withoutMissing.length} dependencies the registry lacks)` : ''
  const tool = failed(b.resolved.lode) !== null ? `lode ✘ ${failed(b.resolved.lode)}` : failed(b.resolved.pnpm) !== null ? `pnpm ✘ ${failed(b.resolved.pnpm)}` : null
  if (tool !== null) return `${tool}${without}`
  const workspace = b.workspaceLines > 0 ? ` (+${b.workspaceLines} in pnpm-workspace.yaml)` : ''
  const accepted = failed(b.pnpmAcceptsLode) !== null ? `; pnpm rejects it (${failed(b.pnpmAcceptsLode)})` : ''
  return `${b.lines}${workspace}${accepted}${without}`
}

/** (c) and (d) install pnpm's fresh lockfile from (b) when pnpm rejected the committed one. */
const fresh = (lockfile: InstalledLockfile): string => lockfile === 'fresh' ? ' (fresh lockfile)' : ''

function cellC (c: CResult): string {
  const tool = failed(c.installed.lode) !== null ? `lode ✘ ${failed(c.installed.lode)}` : failed(c.installed.pnpm) !== null ? `pnpm ✘ ${failed(c.installed.pnpm)}` : null
  const outside = c.outside === undefined || c.outside.length === 0 ? '' : ` (apart: ${c.outside.join(', ')})`
  return `${tool ?? (c.differences === 0 ? `✔${outside}` : `${c.differences} differences (${c.byKind})${outside}`)}${fresh(c.lockfile)}`
}

function cellD (d: DResult): string {
  if (failed(d.lodeInstall) !== null) return `lode ✘ ${failed(d.lodeInstall)}`
  if (failed(d.pnpmInstall) !== null) return `pnpm install ✘ ${failed(d.pnpmInstall)}`
  const own = d.pnpmOwn === undefined || d.pnpmOwn === 0 ? '' : `, ${d.pnpmOwn} of them pnpm's own (it makes them over its own tree too)`
  const reinstalls = d.pnpmOwnUpToDate === false ? 'reinstalls (as over its own tree)' : 'reinstalls'
  const install = d.changes === 0 && d.pnpmSaysUpToDate ? '✔' : `pnpm ${d.pnpmSaysUpToDate ? 'up to date' : reinstalls}, ${d.changes} changes (${d.byKind}${own})`
  const exec = failed(d.exec) !== null ? `exec ✘ ${failed(d.exec)}` : d.unresolved.length === 0 ? 'exec ✔' : `exec: ${d.unresolved.length} unresolved`
  return `${install}; ${exec}${fresh(d.lockfile)}`
}

function cellTestRun (t: TestRun): string {
  const install = failed(t.install) === null
    ? ''
    : `install ✘ ${failed(t.install)}${t.withoutScripts === undefined ? '' : failed(t.withoutScripts) === null ? ', ✔ with --ignore-scripts' : `, ✘ ${failed(t.withoutScripts)} with --ignore-scripts`}`
  if (t.test === 'not run') return install
  // vitest's summary has `|` between its counts: escaped, it stays in its table cell.
  const tests = `tests ${failed(t.test) === null ? '✔' : '✘'}${t.summary === undefined ? '' : ` (${t.summary.replaceAll('|', '\\|')})`}`
  return install === '' ? tests : `${install}; ${tests}`
}

function cellE (e: EResult): string {
  const onlyGlobal = e.runs.global.test === 'not run' || e.runs.project.test === 'not run'
    ? ''
    : e.onlyGlobal.length === 0 ? '; none fails only with it' : `; ${e.onlyGlobal.length} fail only with it`
  return `without: ${cellTestRun(e.runs.project)}; with: ${cellTestRun(e.runs.global)}${onlyGlobal}${fresh(e.lockfile)}`
}

function dropped (r: RepoResult, check: Check): string {
  const names = r.runs[check]?.droppedSettings ?? []
  return names.length > 0 ? ` [without ${names.join(', ')}]` : ''
}

const seconds = (b: BResult): string => `${b.seconds.lode.toFixed(1)} / ${b.seconds.pnpm.toFixed(1)}`

/** The corpus table: one row per repository, `·` for a check not run. */
export function renderTable (results: Record<string, RepoResult>): string {
  const rows = Object.entries(results).map(([name, r]) => [
    name,
    r.commit.slice(0, 10),
    String(r.lockfileLines),
    r.a === undefined ? '·' : cellA(r.a) + dropped(r, 'a'),
    r.b === undefined ? '·' : cellB(r.b) + dropped(r, 'b'),
    r.c === undefined ? '·' : cellC(r.c) + dropped(r, 'c'),
    r.d === undefined ? '·' : cellD(r.d) + dropped(r, 'd'),
    r.e === undefined ? '·' : cellE(r.e) + dropped(r, 'e'),
    r.b === undefined ? '·' : seconds(r.b),
  ])
  const header = ['repo', 'commit', 'lockfile lines', 'a: frozen, lines changed', 'b: differing lines', 'c: node_modules', 'd: pnpm on lode\'s tree', 'e: own tests without / with the global virtual store', 'resolution s lode / pnpm']
  return [header, header.map(() => '---'), ...rows].map((cells) => `| ${cells.join(' | ')} |`).join('\n') + '\n'
}
