// The install benchmark: lode beside pnpm 11, pnpm 12 and bun, on a fixture, over a frozen mirror
// of the registry, in pnpm's benchmark scenarios, with the floors. See ../README.md.
//
//   npm run bench -- [--fixture alotta-files] [--tools lode,pnpm11,pnpm12,bun] [--scenarios clean,…]
//                    [--runs 5] [--warmups 1] [--work-dir DIR] [--out DIR] [--rtt MS] [--bandwidth MBIT]
//                    [--defaults] [--global-virtual-store]
import { spawn, spawnSync } from 'node:child_process'
import type { ChildProcess } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import readline from 'node:readline'
import { parseArgs } from 'node:util'

import { buildMirror, configuredRegistry } from '@lode/bench.mirror'

import { copyFixture, listFixtures, loadFixture } from './fixtures.js'
import type { Fixture } from './fixtures.js'
import { generatedCount, generatedFixture } from './generated.js'
import { measure } from './measure.js'
import type { Command, Measurement } from './measure.js'
import { renderMarkdown } from './report.js'
import type { BenchResult, ScenarioResult } from './report.js'
import { ADDED_PACKAGE, pickScenarios } from './scenarios.js'
import type { Scenario } from './scenarios.js'
import { summarize } from './stats.js'
import { parseTrace, renderTimeline } from './timeline.js'
import { DEFAULT_TOOLS, installTools, loadTools, TOOL_NAMES } from './tools.js'
import type { Tool, ToolDirs, ToolName } from './tools.js'

/** The mirror's publish-time cut-off: the date the fixtures' lockfiles were resolved at. */
const CUTOFF = new Date('2026-11-01T00:00:00Z')

const benchDir = path.resolve(import.meta.dirname, '..', '..', '..')
const repoDir = path.dirname(benchDir)
const { values } = parseArgs({
  options: {
    fixture: { type: 'string', default: 'alotta-files' },
    tools: { type: 'string', default: DEFAULT_TOOLS.join(',') },
    scenarios: { type: 'string' },
    runs: { type: 'string', default: '5' },
    warmups: { type: 'string', default: '1' },
    'work-dir': { type: 'string', default: path.join(benchDir, '.work') },
    out: { type: 'string' },
    rtt: { type: 'string', default: '0' },
    bandwidth: { type: 'string' },
    'no-floors': { type: 'boolean', default: false },
    'no-trace': { type: 'boolean', default: false },
    'global-virtual-store': { type: 'boolean', default: false },
    defaults: { type: 'boolean', default: false },
  },
})
const log = (line: string): void => { process.stderr.write(`bench: ${line}\n`) }
const fixturesDir = path.join(benchDir, 'fixtures')
const workDir = path.resolve(values['work-dir'])
const outDir = path.resolve(values.out ?? path.join(workDir, 'results'))
const runs = Number(values.runs)
const warmups = Number(values.warmups)
const rttMs = Number(values.rtt)
const bandwidthMbit = values.bandwidth === undefined ? null : Number(values.bandwidth)
// pnpm's global virtual store, for the tools that have it (lode and pnpm 11): packages materialized
// once in the store, projects only symlink into it.
const globalVirtualStore = values['global-virtual-store']
const GVS_TOOLS: readonly string[] = ['lode', 'pnpm11']
// Each tool with the settings its users run: the fixtures' `minimumReleaseAge: 0` taken out, so
// lode, pnpm 11 and pnpm 12 check release ages (1440 minutes) as they do by default.
const defaultSettings = values.defaults
const toolNames = values.tools.split(',').map((name) => {
  if (!(TOOL_NAMES as readonly string[]).includes(name)) throw new Error(`unknown tool ${name} (tools: ${TOOL_NAMES.join(', ')})`)
  return name as ToolName
})
const scenarios = pickScenarios(values.scenarios)

function rmrf (...paths: string[]): void {
  // rm(1) deletes a large tree faster than fs.rmSync.
  const existing = paths.filter((p) => fs.existsSync(p))
  if (existing.length > 0) spawnSync('rm', ['-rf', ...existing], { stdio: 'inherit' })
}

/** Writes `content` to `file` only when it differs, so an unchanged file keeps its mtime (pnpm's no-op check reads mtimes). */
function writeIfChanged (file: string, content: Buffer): void {
  if (fs.existsSync(file) && fs.readFileSync(file).equals(content)) return
  fs.writeFileSync(file, content)
}

async function startMirror (mirrorDir: string): Promise<{ url: string, child: ChildProcess }> {
  // Misses (a packument no lockfile names, such as another platform's optional dependency) are
  // filled from the configured registry during the warm-up runs, then served like the rest.
  const args = [path.join(benchDir, 'mirror', 'dist', 'src', 'serve.js'), '--dir', mirrorDir, '--upstream-fill']
  if (rttMs > 0) args.push('--rtt', String(rttMs))
  if (bandwidthMbit !== null) args.push('--bandwidth', String(bandwidthMbit))
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'inherit'] })
  const lines = readline.createInterface({ input: child.stdout })
  const url = await new Promise<string>((resolve, reject) => {
    child.on('exit', (code) => { reject(new Error(`the mirror server exited with ${String(code)}`)) })
    lines.on('line', (line) => { if (line.startsWith('mirror ')) resolve(line.slice('mirror '.length).trim()) })
  })
  return { url: url.endsWith('/') ? url : `${url}/`, child }
}

/** The fixture's workspace file without its `minimumReleaseAge: 0` (the tools' defaults apply). */
function withoutReleaseAgeOff (file: string): void {
  if (!fs.existsSync(file)) return
  const text = fs.readFileSync(file, 'utf8')
  fs.writeFileSync(file, text.split('\n').filter((line) => !/^minimumReleaseAge:\s*0\s*$/.test(line)).join('\n'))
}

interface Contender {
  name: string
  /** Puts the tool's dirs in the state the scenario starts from. */
  prepare: (scenario: Scenario) => void
  /** For a scenario with `restore`: takes out of node_modules what the last run added (not measured). */
  restore?: () => Promise<void>
  command: (scenario: Scenario) => Command
}

interface ToolContender extends Contender {
  dirs: ToolDirs
  command: (scenario: Scenario, extra?: string[]) => Command
  prime: () => Promise<void>
}

function toolContender (tool: Tool, fixture: Fixture, fixtureWork: string, registry: string): ToolContender {
  const base = path.join(fixtureWork, tool.name)
  const dirs: ToolDirs = { project: path.join(base, 'project'), cache: path.join(base, 'cache'), store: path.join(base, 'cache', 'store') }
  const savedLockfile = path.join(base, tool.lockfile)
  const manifests = fixture.projects.map((rel) => ({ file: path.join(dirs.project, rel, 'package.json'), content: fs.readFileSync(path.join(fixture.dir, rel, 'package.json')) }))
  const env = (extra: Record<string, string>): Record<string, string | undefined> => {
    const inherited = { ...process.env }
    for (const key of Object.keys(inherited)) {
      if (/^(npm|pnpm)_config_/i.test(key) || key === 'CI' || key.startsWith('LODE_')) delete inherited[key]
    }
    return { ...inherited, ...extra, npm_config_registry: registry }
  }
  // `add` runs in the first project that lacks the package (the root of a single-project fixture).
  const addProject = fixture.projects.find((rel) => {
    const manifest = JSON.parse(fs.readFileSync(path.join(fixture.dir, rel, 'package.json'), 'utf8')) as Record<string, unknown>
    return (rel !== '.' || fixture.projects.length === 1) && !JSON.stringify(manifest).includes(`"${ADDED_PACKAGE}"`)
  }) ?? '.'
  const command = (scenario: Scenario, extra: string[] = []): Command => {
    const adding = scenario.command === 'add'
    const c = tool.command(scenario.command, dirs, adding ? [...extra, ADDED_PACKAGE] : extra)
    return { file: c.file, args: c.args, cwd: adding ? path.join(dirs.project, addProject) : dirs.project, env: env(c.env) }
  }
  const install = { name: 'restore', cache: true, lockfile: true, nodeModules: true, command: 'install' } as const
  return {
    name: tool.name,
    dirs,
    prepare (scenario) {
      for (const m of manifests) writeIfChanged(m.file, m.content)
      const lockfile = path.join(dirs.project, tool.lockfile)
      if (scenario.lockfile) writeIfChanged(lockfile, fs.readFileSync(savedLockfile))
      else rmrf(lockfile)
      if (!scenario.nodeModules) rmrf(...fixture.projects.map((rel) => path.join(dirs.project, rel, 'node_modules')))
      if (!scenario.cache) rmrf(dirs.cache)
      for (const dir of [dirs.store, path.join(dirs.cache, 'home')]) fs.mkdirSync(dir, { recursive: true })
    },
    async restore () {
      // bun keeps a package that neither the manifest nor bun.lock names any more: take it out first.
      rmrf(...[...new Set([addProject, '.'])].map((rel) => path.join(dirs.project, rel, 'node_modules', ADDED_PACKAGE)))
      await measure(command(install), path.join(base, 'restore.log'))
    },
    command,
    /**
     * The first install: fills the store and, for a tool that doesn't read pnpm-lock.yaml, makes
     * the lockfile its lockfile scenarios start from. The pnpm-compatible tools start from the
     * fixture's, and should leave it as it is.
     */
    async prime () {
      rmrf(base)
      copyFixture(fixture, dirs.project, registry)
      if (defaultSettings) withoutReleaseAgeOff(path.join(dirs.project, 'pnpm-workspace.yaml'))
      if (globalVirtualStore && GVS_TOOLS.includes(tool.name)) {
        fs.appendFileSync(path.join(dirs.project, 'pnpm-workspace.yaml'), '\nenableGlobalVirtualStore: true\n')
      }
      const reads = tool.lockfile === 'pnpm-lock.yaml'
      if (reads) fs.copyFileSync(fixture.lockfile, savedLockfile)
      const first = { name: 'prime', cache: false, lockfile: reads, nodeModules: false, command: 'install' } as const
      this.prepare(first)
      const measured = await measure(command(first), path.join(base, 'prime.log'))
      log(`${tool.name} ${tool.version}: primed in ${(measured.wallMs / 1000).toFixed(2)} s`)
      const written = path.join(dirs.project, tool.lockfile)
      if (!reads) fs.copyFileSync(written, savedLockfile)
      else if (!fs.readFileSync(written).equals(fs.readFileSync(fixture.lockfile))) log(`${tool.name} rewrote the fixture's lockfile (see ${written})`)
    },
  }
}

function hardlinkFloor (source: string, dest: string): Contender {
  // Every file of the installed virtual store hardlinked again (directories made, symlinks copied),
  // in as many cp processes as there are cores: what a warm restore cannot beat.
  const jobs = os.availableParallelism()
  const script = `set -e
src="$1/.pnpm"; dest="$2/.pnpm"; mkdir -p "$dest"
ls -A "$src" | awk -v n=${jobs} -v d="$3" '{ print > (d "/part-" (NR % n)) }'
for part in "$3"/part-*; do (cd "$src" && tr '\\n' '\\0' < "$part" | xargs -0 cp -al -t "$dest") & done
wait`
  const parts = path.join(path.dirname(dest), 'parts')
  return {
    name: 'floor:hardlink',
    prepare () { rmrf(dest, parts); fs.mkdirSync(parts, { recursive: true }) },
    command: () => ({ file: 'bash', args: ['-c', script, 'floor', source, dest, parts], cwd: path.dirname(dest), env: process.env }),
  }
}

function downloadFloor (fixture: Fixture, registry: string, dest: string): Contender {
  return {
    name: 'floor:download+untar',
    prepare () { rmrf(dest); fs.mkdirSync(path.dirname(dest), { recursive: true }) },
    command: () => ({
      file: process.execPath,
      args: [path.join(import.meta.dirname, 'floor-download.js'), registry, fixture.lockfile, dest],
      cwd: path.dirname(dest),
      env: process.env,
    }),
  }
}

/**
 * Writes what the last run and the preparation left dirty (a removed node_modules is tens of
 * thousands of entries) before the next run starts: otherwise each tool pays, in CPU and I/O, for
 * the write-back of the tool before it, and the figures depend on the order.
 */
function settleWrites (): void {
  spawnSync('sync', { stdio: 'ignore' })
}

async function benchFixture (fixture: Fixture, tools: Tool[], registry: string): Promise<BenchResult> {
  const fixtureWork = path.join(workDir, fixture.name)
  const contenders = tools.map((tool) => toolContender(tool, fixture, fixtureWork, registry))
  for (const c of contenders) await c.prime()
  const pnpmLayout = contenders.find((c) => c.name === 'lode') ?? contenders.find((c) => c.name.startsWith('pnpm'))
  const floorsFor = (scenario: Scenario): Contender[] => {
    if (values['no-floors']) return []
    if (scenario.name === 'clean' || scenario.name === 'lockfile') return [downloadFloor(fixture, registry, path.join(fixtureWork, 'floor', 'untar'))]
    if (scenario.name === 'cache+lockfile' && pnpmLayout !== undefined) {
      return [hardlinkFloor(path.join(pnpmLayout.dirs.project, 'node_modules'), path.join(fixtureWork, 'floor', 'hardlink'))]
    }
    return []
  }
  const results: ScenarioResult[] = []
  for (const scenario of scenarios) {
    const round = [...contenders, ...floorsFor(scenario)]
    const measured = new Map<string, Measurement[]>(round.map((c) => [c.name, []]))
    for (let i = 0; i < warmups + runs; i++) {
      // Tools in turn (A B A B …), so drift on the machine hits all of them alike.
      for (const c of round) {
        c.prepare(scenario)
        if (scenario.restore === true) await c.restore?.()
        settleWrites()
        const m = await measure(c.command(scenario), path.join(fixtureWork, `${c.name.replace(/[:+]/g, '-')}.log`))
        if (i >= warmups) measured.get(c.name)!.push(m)
      }
    }
    const entries = Object.fromEntries([...measured].map(([name, ms]) => [name, { runs: ms, summary: summarize(ms) }]))
    results.push({ scenario: scenario.name, entries })
    log(`${fixture.name} ${scenario.name}: ${[...measured].map(([name, ms]) => `${name} ${(summarize(ms).wall.median / 1000).toFixed(3)} s`).join(', ')}`)
    const lode = contenders.find((c) => c.name === 'lode')
    if (lode !== undefined && !values['no-trace'] && ['clean', 'lockfile', 'cache+lockfile'].includes(scenario.name)) {
      // One more run, not counted, with the pipeline trace, drawn as a timeline.
      lode.prepare(scenario)
      settleWrites()
      const trace = path.join(outDir, `${fixture.name}-${scenario.name}.trace.jsonl`)
      await measure(lode.command(scenario, ['--trace-pipeline', trace]), path.join(fixtureWork, 'lode-traced.log'))
      const svg = path.join(outDir, `${fixture.name}-${scenario.name}.svg`)
      fs.writeFileSync(svg, renderTimeline(parseTrace(fs.readFileSync(trace, 'utf8')), `lode, ${fixture.name}, ${scenario.name}`))
      log(`timeline: ${path.relative(process.cwd(), svg)}`)
    }
  }
  return {
    fixture: fixture.name,
    date: new Date().toISOString(),
    machine: {
      cpus: os.availableParallelism(),
      memoryGb: Math.round(os.totalmem() / 2 ** 30),
      node: process.version,
      kernel: os.release(),
    },
    network: { rttMs, bandwidthMbit },
    defaultSettings,
    globalVirtualStore: globalVirtualStore ? GVS_TOOLS.filter((name) => tools.some((t) => t.name === name)) : [],
    tools: tools.map((t) => ({ name: t.name, version: t.version })),
    runs,
    warmups,
    scenarios: results,
  }
}

const cacheDir = path.join(benchDir, '.cache')
installTools(path.join(cacheDir, 'tools'), log)
const toolPaths = { node: process.execPath, lodeBin: path.join(repoDir, 'cli', 'lode', 'bin', 'lode'), toolsDir: path.join(cacheDir, 'tools') }
const tools = loadTools(toolPaths, toolNames)
const fixtureNames = values.fixture.split(',')
// The repository's fixtures are checked now; generated ones (`many-1000`) are written once the mirror runs.
for (const name of fixtureNames) if (generatedCount(name) === undefined) loadFixture(fixturesDir, name)
const mirrorDir = path.join(cacheDir, 'mirror')
const built = await buildMirror({
  lockfiles: listFixtures(fixturesDir).map((name) => path.join(fixturesDir, name, 'pnpm-lock.yaml')),
  upstream: configuredRegistry(process.env),
  dir: mirrorDir,
  cutoff: CUTOFF,
  log,
})
log(`mirror: ${built.packuments} packuments, ${built.tarballs} tarballs (${built.fetched} fetched now)`)
fs.mkdirSync(outDir, { recursive: true })
const mirror = await startMirror(mirrorDir)
try {
  for (const name of fixtureNames) {
    const count = generatedCount(name)
    const fixture = count === undefined
      ? loadFixture(fixturesDir, name)
      : generatedFixture(name, count, path.join(cacheDir, 'generated'), { pnpm12: loadTools(toolPaths, ['pnpm12'])[0]!, registry: mirror.url, log })
    const result = await benchFixture(fixture, tools, mirror.url)
    const stem = path.join(outDir, `${fixture.name}${defaultSettings ? '-defaults' : ''}${globalVirtualStore ? '-gvs' : ''}${rttMs > 0 ? `-rtt${rttMs}` : ''}`)
    fs.writeFileSync(`${stem}.json`, JSON.stringify(result, null, 2) + '\n')
    const markdown = renderMarkdown(result)
    fs.writeFileSync(`${stem}.md`, markdown)
    process.stdout.write(`\n${markdown}\n`)
    log(`results: ${path.relative(process.cwd(), stem)}.{md,json}`)
  }
} finally {
  mirror.child.kill('SIGTERM')
}
