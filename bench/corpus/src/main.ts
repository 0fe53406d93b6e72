// The compatibility corpus: lode beside pnpm 11 on real pnpm monorepos, over the configured
// registry, in five checks (a: the committed lockfile, b: a fresh resolution, c: node_modules,
// d: pnpm on lode's tree, e: the project's own tests with and without the global virtual store). See ../README.md.
//
//   npm run corpus -- [--only kit,vueuse] [--checks a,b,c,d,e] [--source kit=DIR]... [--drop-settings a,b] [--work-dir DIR] [--out DIR]
import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { parseArgs } from 'node:util'

import { checkE } from './check-e.js'
import { checkA, checkB, checkC, checkD } from './checks.js'
import type { Context } from './checks.js'
import { lineCount } from './diff.js'
import { CHECKS, renderTable } from './report.js'
import type { Check, RepoResult } from './report.js'
import { loadRepos, parseSources, resolveRepo, showFile } from './repos.js'
import { loadTools } from './tools.js'

const corpusDir = path.resolve(import.meta.dirname, '..', '..')
const lodeRepo = path.resolve(corpusDir, '..', '..')
const { values } = parseArgs({
  options: {
    only: { type: 'string' },
    checks: { type: 'string', default: CHECKS.join(',') },
    source: { type: 'string', multiple: true, default: [] },
    repos: { type: 'string', default: path.join(corpusDir, 'repos.json') },
    'work-dir': { type: 'string', default: path.join(lodeRepo, 'bench', '.work', 'corpus') },
    out: { type: 'string' },
    'drop-settings': { type: 'string', default: '' },
  },
})
const log = (line: string): void => { process.stderr.write(`corpus: ${line}\n`) }
const workDir = path.resolve(values['work-dir'])
const outDir = path.resolve(values.out ?? path.join(workDir, 'results'))
const checks = values.checks.split(',').map((c) => {
  if (!(CHECKS as readonly string[]).includes(c)) throw new Error(`unknown check ${c} (checks: ${CHECKS.join(', ')})`)
  return c as Check
})
const entries = loadRepos(values.repos)
const only = values.only?.split(',')
for (const name of only ?? []) {
  if (!entries.some((e) => e.name === name)) throw new Error(`no repository ${name} in ${values.repos} (${entries.map((e) => e.name).join(', ')})`)
}
const dropSettings = values['drop-settings'].split(',').filter((s) => s !== '')
const sources = parseSources([process.env['LODE_CORPUS_SOURCES'] ?? '', ...values.source])

// Every tool asks the registry the user's npm configuration names, through its HOME's .npmrc.
const registry = process.env['npm_config_registry'] ?? execFileSync('npm', ['config', 'get', 'registry'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim()
const tools = loadTools(lodeRepo, registry)
const git = (args: string[]): string => execFileSync('git', args, { cwd: lodeRepo, encoding: 'utf8' }).trim()
const lodeVersion = `lode ${git(['rev-parse', '--short', 'HEAD'])}${git(['status', '--porcelain', '--untracked-files=no']) === '' ? '' : '+changes'}, pnpm ${tools.pnpm.version}`
log(`${lodeVersion}; work dir ${workDir}, results in ${outDir}`)

const resultsFile = path.join(outDir, 'results.json')
fs.mkdirSync(outDir, { recursive: true })
const results = (fs.existsSync(resultsFile) ? JSON.parse(fs.readFileSync(resultsFile, 'utf8')) : {}) as Record<string, RepoResult>
const save = (): void => {
  fs.writeFileSync(resultsFile, JSON.stringify(results, null, 2) + '\n')
  fs.writeFileSync(path.join(outDir, 'corpus.md'), renderTable(results))
}

const run = { a: checkA, b: checkB, c: checkC, d: checkD, e: checkE }
for (const entry of entries.filter((e) => only === undefined || only.includes(e.name))) {
  const repo = resolveRepo(entry, { lodeRepo, sources, cloneDir: path.join(workDir, 'sources') })
  const ctx: Context = {
    repo,
    tools,
    work: path.join(workDir, repo.name),
    out: path.join(outDir, repo.name),
    stores: { lode: path.join(workDir, 'stores', 'lode'), pnpm: path.join(workDir, 'stores', 'pnpm') },
    committedLockfile: path.join(workDir, repo.name, 'pnpm-lock.committed.yaml'),
    dropSettings,
    pnpmRejectedCommitted: () => results[repo.name]?.a !== undefined && results[repo.name]?.a?.frozen.pnpm !== 'ok',
    log,
  }
  for (const dir of [ctx.out, ctx.work]) fs.mkdirSync(dir, { recursive: true })
  fs.writeFileSync(ctx.committedLockfile, showFile(repo, 'pnpm-lock.yaml'))
  // Checks run separately end in one row; each check says which commit it ran on (this repository's HEAD moves).
  const result: RepoResult = results[repo.name] ?? { commit: repo.commit, lockfileLines: 0, runs: {} }
  result.commit = repo.commit
  result.lockfileLines = lineCount(ctx.committedLockfile)
  results[repo.name] = result
  for (const check of checks) {
    log(`${repo.name} (${repo.commit.slice(0, 10)}): check ${check}`)
    Object.assign(result, { [check]: await run[check](ctx) })
    result.runs[check] = { commit: repo.commit, versions: lodeVersion, droppedSettings: dropSettings }
    save()
  }
}
process.stdout.write(`\n${renderTable(results)}\nresults: ${outDir}\n`)
