import fs from 'node:fs'
import path from 'node:path'

import { writeDiff } from './diff.js'
import { checkout, dropPnpmEngine, dropSettings } from './repos.js'
import type { Repo } from './repos.js'
import { failure } from './tools.js'
import type { Run, Tool, ToolName } from './tools.js'
import { compareSnapshots, countByKind, readImporters, snapshot } from './tree.js'
import type { Snapshot } from './tree.js'
import { missingDependencies, removeDependency } from './trim.js'
import type { Missing } from './trim.js'

export interface Context {
  repo: Repo
  tools: Record<ToolName, Tool>
  /** This repository's dir in the work dir: project copies and each run's HOME. */
  work: string
  /** This repository's dir in the out dir: logs, diffs, differences. */
  out: string
  /** One store per tool for the whole corpus, so (c) and (d) download a package once. */
  stores: Record<ToolName, string>
  /** The lockfile of the commit, kept aside before any tool runs. */
  committedLockfile: string
  /** Settings taken out of pnpm-workspace.yaml for both tools (`--drop-settings`: ones lode refuses, to compare the rest). */
  dropSettings: string[]
  /** Whether pnpm 11 rejected the committed lockfile in (a) (a registry that lacks some of its versions, say). */
  pnpmRejectedCommitted: () => boolean
  log: (line: string) => void
}

/**
 * Where (b) keeps pnpm's fresh lockfile, pnpm-workspace.yaml (pnpm may add to
 * minimumReleaseAgeExclude) and the manifests it left a missing dependency out of: what (c) and
 * (d) install when pnpm rejects the committed lockfile, so that node_modules are still compared.
 */
const freshDir = (ctx: Context): string => path.join(ctx.work, 'fresh-pnpm')

export type InstalledLockfile = 'committed' | 'fresh'

export function installedLockfile (ctx: Context): InstalledLockfile {
  return ctx.pnpmRejectedCommitted() && fs.existsSync(freshDir(ctx)) ? 'fresh' : 'committed'
}

/** `ok`, or why a run failed (its error code). */
export type Outcome = 'ok' | { failed: string }

export const outcome = (run: Run): Outcome => run.ok ? 'ok' : { failed: failure(run) }

interface Copy { project: string, home: string, lockfile: string }

/** A fresh copy of the repository (with pnpm's fresh lockfile for `fresh`) and a fresh HOME for one tool's part of a check. */
export function prepare (ctx: Context, label: string, lockfile: InstalledLockfile = 'committed'): Copy {
  const dir = path.join(ctx.work, label)
  fs.rmSync(dir, { recursive: true, force: true })
  const project = path.join(dir, 'project')
  checkout(ctx.repo, project)
  if (lockfile === 'fresh') fs.cpSync(freshDir(ctx), project, { recursive: true })
  if (ctx.dropSettings.length > 0) dropSettings(path.join(project, 'pnpm-workspace.yaml'), ctx.dropSettings)
  dropPnpmEngine(path.join(project, 'package.json'))
  return { project, home: path.join(dir, 'home'), lockfile: path.join(project, 'pnpm-lock.yaml') }
}

export async function run (
  ctx: Context,
  tool: ToolName,
  label: string,
  args: string[],
  at: { project: string, home: string },
  store?: string
): Promise<Run> {
  ctx.log(`${ctx.repo.name}: ${tool} ${args.join(' ')}`)
  const result = await ctx.tools[tool].run(args, { cwd: at.project, home: at.home, log: path.join(ctx.out, `${label}.log`), ...(store === undefined ? {} : { store }) })
  ctx.log(`${ctx.repo.name}: ${tool} ${result.ok ? 'done' : 'FAILED'} in ${(result.ms / 1000).toFixed(1)} s`)
  return result
}

export interface AResult {
  frozen: Record<ToolName, Outcome>
  lockfileOnly: Record<ToolName, Outcome>
  /** Lines `install --lockfile-only` changed in the committed lockfile, per tool. */
  changed: Record<ToolName, number>
  /** Lines lode's lockfile differs from pnpm's, after both ran `install --lockfile-only`. */
  vsPnpm: number
}

/** (a) The committed lockfile: accepted as up to date, and left as it is by `--lockfile-only`. */
export async function checkA (ctx: Context): Promise<AResult> {
  const copies = {} as Record<ToolName, Copy>
  const result: AResult = { frozen: {} as AResult['frozen'], lockfileOnly: {} as AResult['lockfileOnly'], changed: { lode: 0, pnpm: 0 }, vsPnpm: 0 }
  for (const tool of ['pnpm', 'lode'] as const) {
    const copy = copies[tool] = prepare(ctx, `a-${tool}`)
    result.frozen[tool] = outcome(await run(ctx, tool, `a-${tool}-frozen`, ['install', '--frozen-lockfile', '--lockfile-only'], copy))
    result.lockfileOnly[tool] = outcome(await run(ctx, tool, `a-${tool}-lockfile-only`, ['install', '--lockfile-only'], copy))
    result.changed[tool] = writeDiff(ctx.committedLockfile, copy.lockfile, ['committed', tool], path.join(ctx.out, `a-${tool}.diff`))
  }
  result.vsPnpm = writeDiff(copies.pnpm.lockfile, copies.lode.lockfile, ['pnpm', 'lode'], path.join(ctx.out, 'a-vs-pnpm.diff'))
  return result
}

export interface BResult {
  /** Direct dependencies left out because the registry has no version for them or theirs (`importer > name (why)`). */
  withoutMissing: string[]
  resolved: Record<ToolName, Outcome>
  seconds: Record<ToolName, number>
  /** Lines lode's fresh lockfile differs from pnpm's. */
  lines: number
  /** Lines lode's pnpm-workspace.yaml differs from pnpm's after resolving (both may add to minimumReleaseAgeExclude). */
  workspaceLines: number
  /** pnpm 11 `install --frozen-lockfile --lockfile-only` on lode's fresh lockfile. */
  pnpmAcceptsLode: Outcome | 'not run'
}

/** (b) A fresh resolution, the lockfile deleted: the same lockfile as pnpm's, byte for byte. */
export async function checkB (ctx: Context): Promise<BResult> {
  const copies = {} as Record<ToolName, Copy>
  const result: BResult = { withoutMissing: [], resolved: {} as BResult['resolved'], seconds: { lode: 0, pnpm: 0 }, lines: 0, workspaceLines: 0, pnpmAcceptsLode: 'not run' }
  const missing: Missing[] = []
  const trimmed = new Set<string>()
  for (;;) {
    // One after the other, so the registry's state and the minimumReleaseAge cut-off move by minutes at most.
    for (const tool of ['lode', 'pnpm'] as const) {
      const copy = copies[tool] = prepare(ctx, `b-${tool}`)
      for (const m of missing) removeDependency(copy.project, m)
      fs.rmSync(copy.lockfile)
      const resolved = await run(ctx, tool, `b-${tool}`, ['install', '--lockfile-only'], copy)
      result.resolved[tool] = outcome(resolved)
      result.seconds[tool] = resolved.ms / 1000
      if (tool === 'pnpm' && !resolved.ok) {
        for (const next of missingDependencies(resolved.output, copy.project, readImporters(ctx.committedLockfile))) {
          const file = removeDependency(copy.project, next)
          if (file === null) continue
          missing.push(next)
          trimmed.add(file)
        }
      }
    }
    if (result.resolved.pnpm === 'ok' || missing.length === result.withoutMissing.length) break
    result.withoutMissing = missing.map((m) => `${m.importer} > ${m.name} (${m.why})`)
    ctx.log(`${ctx.repo.name}: the registry has no version of ${missing.at(-1)!.why}; both resolve again without ${missing.at(-1)!.name}`)
  }
  fs.rmSync(freshDir(ctx), { recursive: true, force: true })
  if (result.resolved.pnpm === 'ok') {
    for (const file of ['pnpm-lock.yaml', 'pnpm-workspace.yaml', ...trimmed]) {
      const from = path.join(copies.pnpm.project, file)
      if (!fs.existsSync(from)) continue
      fs.mkdirSync(path.dirname(path.join(freshDir(ctx), file)), { recursive: true })
      fs.copyFileSync(from, path.join(freshDir(ctx), file))
    }
  }
  result.lines = writeDiff(copies.pnpm.lockfile, copies.lode.lockfile, ['pnpm', 'lode'], path.join(ctx.out, 'b.diff'))
  const workspaceYaml = (copy: Copy): string => path.join(copy.project, 'pnpm-workspace.yaml')
  result.workspaceLines = writeDiff(workspaceYaml(copies.pnpm), workspaceYaml(copies.lode), ['pnpm', 'lode'], path.join(ctx.out, 'b-workspace.diff'))
  if (result.resolved.lode === 'ok') {
    const home = path.join(ctx.work, 'b-pnpm-on-lode-home')
    fs.rmSync(home, { recursive: true, force: true })
    result.pnpmAcceptsLode = outcome(await run(ctx, 'pnpm', 'b-pnpm-on-lode', ['install', '--frozen-lockfile', '--lockfile-only'], { project: copies.lode.project, home }))
  }
  return result
}

export interface CResult {
  lockfile: InstalledLockfile
  installed: Record<ToolName, Outcome>
  seconds: Record<ToolName, number>
  /** Entries of node_modules that differ (see tree.ts), written to c.txt. */
  differences: number
  /** The same, counted by kind (`403 .bin shims, 3 .modules.yaml`). */
  byKind: string
  /**
   * What differs outside what (c) compares, listed apart: lode's own state file, and values of
   * `.modules.yaml` keys both write that name the tool (`packageManager`) or hold the same entries
   * in another order (`pendingBuilds`, in the order pnpm's fetches finished).
   */
  outside?: string[]
}

/** Differences (c) leaves out: see CResult.outside. */
function outsideCheck (key: string, pnpm: string | undefined, lode: string | undefined): string | undefined {
  if (pnpm === undefined && /(^|\/)node_modules\/\.lode-state\.json$/.test(key)) return 'lode\'s state file'
  if (pnpm === undefined || lode === undefined) return undefined
  if (key === '.modules.yaml#packageManager') return 'packageManager (the tool)'
  const sorted = (value: string): string => value.split('\n').sort().join('\n')
  if (key === '.modules.yaml#pendingBuilds' && sorted(pnpm) === sorted(lode)) return 'pendingBuilds order'
  return undefined
}

/** (c) A frozen install without scripts: the same node_modules as pnpm's. */
export async function checkC (ctx: Context): Promise<CResult> {
  const copies = {} as Record<ToolName, Copy>
  const result: CResult = { lockfile: installedLockfile(ctx), installed: {} as CResult['installed'], seconds: { lode: 0, pnpm: 0 }, differences: 0, byKind: '' }
  for (const tool of ['pnpm', 'lode'] as const) {
    const copy = copies[tool] = prepare(ctx, `c-${tool}`, result.lockfile)
    const installed = await run(ctx, tool, `c-${tool}`, ['install', '--frozen-lockfile', '--ignore-scripts'], copy, ctx.stores[tool])
    result.installed[tool] = outcome(installed)
    result.seconds[tool] = installed.ms / 1000
  }
  const report = path.join(ctx.out, 'c.txt')
  fs.rmSync(report, { force: true })
  if (result.installed.lode !== 'ok' || result.installed.pnpm !== 'ok') return result
  const importers = readImporters(copies.pnpm.lockfile).map((i) => i.importer)
  const byPnpm = snapshot(copies.pnpm.project, importers, ctx.stores.pnpm)
  const byLode = snapshot(copies.lode.project, importers, ctx.stores.lode)
  const outside = new Map<string, string>()
  for (const key of new Set([...byPnpm.keys(), ...byLode.keys()])) {
    const what = byPnpm.get(key) === byLode.get(key) ? undefined : outsideCheck(key, byPnpm.get(key), byLode.get(key))
    if (what !== undefined) outside.set(key, what)
  }
  const keep = (snap: Snapshot): Snapshot => new Map([...snap].filter(([key]) => !outside.has(key)))
  const differences = compareSnapshots(keep(byPnpm), keep(byLode), ['pnpm', 'lode'])
  result.outside = [...outside.values()]
  result.differences = differences.length
  result.byKind = countByKind(differences)
  if (differences.length > 0) fs.writeFileSync(report, differences.map((d) => d.text).join('\n') + '\n')
  return result
}

export interface DResult {
  lockfile: InstalledLockfile
  lodeInstall: Outcome
  /** pnpm 11 `install --frozen-lockfile --ignore-scripts` on lode's tree (with lode's store). */
  pnpmInstall: Outcome | 'not run'
  pnpmSaysUpToDate: boolean
  /** What pnpm's install changed in lode's node_modules and lockfile, written to d.txt. */
  changes: number
  /**
   * Of those, the ones pnpm also makes installing again over a tree it installed itself (it relinks
   * the shims inside `.pnpm` through the links there): pnpm's own, not lode's. Undefined when not measured.
   */
  pnpmOwn?: number
  /** Whether pnpm says `Already up to date` installing again over its own tree (kit's file: dependencies, say, it copies again anyway). */
  pnpmOwnUpToDate?: boolean
  /** The node_modules changes counted by kind. */
  byKind: string
  /** `pnpm exec node` resolving every importer's direct dependencies. */
  exec: Outcome | 'not run'
  unresolved: string[]
}

/** (d) pnpm 11 takes lode's lockfile and node_modules as they are, and runs commands in them. */
export async function checkD (ctx: Context): Promise<DResult> {
  const result: DResult = { lockfile: installedLockfile(ctx), lodeInstall: 'ok', pnpmInstall: 'not run', pnpmSaysUpToDate: false, changes: 0, byKind: '', exec: 'not run', unresolved: [] }
  const copy = prepare(ctx, 'd-lode', result.lockfile)
  result.lodeInstall = outcome(await run(ctx, 'lode', 'd-lode', ['install', '--frozen-lockfile', '--ignore-scripts'], copy, ctx.stores.lode))
  if (result.lodeInstall !== 'ok') return result
  const importers = readImporters(copy.lockfile)
  const names = importers.map((i) => i.importer)
  const before = snapshot(copy.project, names, ctx.stores.lode)
  const lockfileBefore = path.join(ctx.work, 'd-lode', 'lockfile-by-lode.yaml')
  fs.copyFileSync(copy.lockfile, lockfileBefore)

  const pnpmAt = { project: copy.project, home: path.join(ctx.work, 'd-lode', 'pnpm-home') }
  const install = await run(ctx, 'pnpm', 'd-pnpm-install', ['install', '--frozen-lockfile', '--ignore-scripts'], pnpmAt, ctx.stores.lode)
  result.pnpmInstall = outcome(install)
  result.pnpmSaysUpToDate = /Already up to date/i.test(install.output)
  const after = snapshot(copy.project, names, ctx.stores.lode)
  const changes = compareSnapshots(before, after, ['lode', 'after pnpm'])
  // pnpm over its own tree: installed, then installed again the same way, without its
  // .pnpm-workspace-state-v1.json as over lode's tree: lode writes that file, but not the route
  // pnpm adds by default for the @jsr scope (a registry host lode does not name), so pnpm does not
  // take it as its own and goes through its install again there.
  const own = prepare(ctx, 'd-pnpm', result.lockfile)
  if (outcome(await run(ctx, 'pnpm', 'd-pnpm-first', ['install', '--frozen-lockfile', '--ignore-scripts'], own, ctx.stores.pnpm)) === 'ok') {
    fs.rmSync(path.join(own.project, 'node_modules', '.pnpm-workspace-state-v1.json'), { force: true })
    const ownBefore = snapshot(own.project, names, ctx.stores.pnpm)
    const again = await run(ctx, 'pnpm', 'd-pnpm-again', ['install', '--frozen-lockfile', '--ignore-scripts'], own, ctx.stores.pnpm)
    result.pnpmOwnUpToDate = /Already up to date/i.test(again.output)
    if (outcome(again) === 'ok') {
      const ownAfter = snapshot(own.project, names, ctx.stores.pnpm)
      const changedKeys = (a: Snapshot, b: Snapshot): string[] => [...new Set([...a.keys(), ...b.keys()])]
        .filter((k) => a.get(k) !== b.get(k))
      const ownKeys = new Set(changedKeys(ownBefore, ownAfter).filter((k) => ownAfter.get(k) === after.get(k)))
      result.pnpmOwn = changedKeys(before, after).filter((k) => ownKeys.has(k)).length
    }
  }
  const lockfileLines = writeDiff(lockfileBefore, copy.lockfile, ['lode', 'after pnpm'], path.join(ctx.out, 'd-lockfile.diff'))
  result.changes = changes.length + lockfileLines
  result.byKind = [countByKind(changes), lockfileLines > 0 ? `${lockfileLines} lockfile lines` : ''].filter((s) => s !== '').join(', ')
  const report = path.join(ctx.out, 'd.txt')
  fs.rmSync(report, { force: true })

  const list = path.join(ctx.work, 'd-lode', 'direct-deps.json')
  fs.writeFileSync(list, JSON.stringify(importers))
  const exec = await run(ctx, 'pnpm', 'd-pnpm-exec', ['exec', 'node', path.join(import.meta.dirname, 'resolve-check.js'), list], pnpmAt)
  result.exec = outcome(exec)
  result.unresolved = exec.output.split('\n').filter((line) => line.startsWith('unresolved ')).map((line) => line.slice('unresolved '.length))
  const lines = [...changes.map((c) => c.text), ...result.unresolved.map((u) => `unresolved by pnpm exec node: ${u}`)]
  if (lines.length > 0) fs.writeFileSync(report, lines.join('\n') + '\n')
  return result
}
