import fs from 'node:fs'
import path from 'node:path'

import { prepare, installedLockfile, outcome, run } from './checks.js'
import type { Context, InstalledLockfile, Outcome } from './checks.js'

/** Where lode puts the packages: node_modules/.pnpm (pnpm's default) or the global virtual store's slots. */
export const VIRTUAL_STORES = ['project', 'global'] as const
export type VirtualStore = typeof VIRTUAL_STORES[number]

export interface TestRun {
  /** `install --frozen-lockfile`, scripts on, as a user runs it. */
  install: Outcome
  /** When that failed (a build the global virtual store refuses, say): the same with `--ignore-scripts`, so the tests still run. */
  withoutScripts?: Outcome
  /** The project's own test command (`test` in repos.json), run by `lode` in the installed copy. */
  test: Outcome | 'not run'
  /** The test runner's summary line (vitest's `Tests  2 failed | 1125 passed (1127)`), when it printed one. */
  summary: string | undefined
  /** The tests it reported failed (vitest's `FAIL` lines), written to `e-<store>-failed.txt`. */
  failed: string[]
  seconds: { install: number, test: number }
}

export interface EResult {
  lockfile: InstalledLockfile
  runs: Record<VirtualStore, TestRun>
  /** Tests that failed with the global virtual store and passed without it. */
  onlyGlobal: string[]
}

const ANSI = /\x1b\[[0-9;]*m/g // eslint-disable-line no-control-regex

/** vitest's failed tests (`FAIL  @trpc/server  test/x.test.ts > suite > name`), each once. */
function failedTests (output: string): string[] {
  const lines = output.replace(ANSI, '').split('\n')
  return [...new Set(lines.map((l) => /^\s*FAIL\s+(.*\S)\s*$/.exec(l)?.[1]).filter((l): l is string => l !== undefined))].sort()
}

const summaryLine = (output: string): string | undefined =>
  output.replace(ANSI, '').split('\n').map((l) => /^\s*Tests\s+(.*\d.*\))\s*$/.exec(l)?.[1]).filter((l) => l !== undefined).at(-1)

/**
 * (e) The project's own tests, on lode's node_modules with and without the global virtual store:
 * the evidence for (not) making it the default. An install is run as a user runs it (scripts on);
 * when that fails in a way the tests cannot go past, it is run again with `--ignore-scripts` so
 * the tests still compare, and the cell says so.
 */
export async function checkE (ctx: Context): Promise<EResult | undefined> {
  if (ctx.repo.test === undefined) return undefined
  const lockfile = installedLockfile(ctx)
  const runs = {} as EResult['runs']
  for (const store of VIRTUAL_STORES) {
    const flags = [`--config.enable-global-virtual-store=${String(store === 'global')}`]
    const copy = prepare(ctx, `e-${store}`, lockfile)
    let installed = await run(ctx, 'lode', `e-${store}-install`, ['install', '--frozen-lockfile', ...flags], copy, ctx.stores.lode)
    const result: TestRun = { install: outcome(installed), test: 'not run', summary: undefined, failed: [], seconds: { install: installed.ms / 1000, test: 0 } }
    if (!installed.ok) {
      installed = await run(ctx, 'lode', `e-${store}-install-ignore-scripts`, ['install', '--frozen-lockfile', '--ignore-scripts', ...flags], copy, ctx.stores.lode)
      result.withoutScripts = outcome(installed)
    }
    if (installed.ok) {
      const tested = await run(ctx, 'lode', `e-${store}-test`, ctx.repo.test, copy)
      result.test = outcome(tested)
      result.summary = summaryLine(tested.output)
      result.failed = failedTests(tested.output)
      result.seconds.test = tested.ms / 1000
      fs.writeFileSync(path.join(ctx.out, `e-${store}-failed.txt`), result.failed.map((f) => `${f}\n`).join(''))
    }
    runs[store] = result
  }
  const passedWithout = new Set(runs.project.failed)
  const onlyGlobal = runs.project.test === 'not run' ? [] : runs.global.failed.filter((f) => !passedWithout.has(f))
  return { lockfile, runs, onlyGlobal }
}
