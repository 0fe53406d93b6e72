import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'

import { parseDocument } from 'yaml'

/**
 * One project of the corpus: a public repository pinned to a commit (`url`, `commit`), or a
 * directory of this repository at its HEAD (`path`: `.` is lode itself, `bench/fixtures/small` a
 * fixture).
 */
export type RepoEntry = (
  | { name: string, url: string, commit: string }
  | { name: string, path: string }
) & {
  /** The project's own tests, as arguments to lode (`["exec", "vitest", "run"]`): run by check (e). */
  test?: string[]
}

/** A repository ready to be checked out: a git directory and the tree to take from it. */
export interface Repo {
  name: string
  gitDir: string
  commit: string
  /** `<commit>` or `<commit>:<dir>`, what `git archive` is given. */
  tree: string
  test: string[] | undefined
}

export function loadRepos (file: string): RepoEntry[] {
  return (JSON.parse(fs.readFileSync(file, 'utf8')) as { repos: RepoEntry[] }).repos
}

/**
 * `name=dir` pairs from `--source` and the environment variable LODE_CORPUS_SOURCES (comma
 * separated): a local clone or git directory to take a repository's commit from instead of its URL.
 */
export function parseSources (values: string[]): Map<string, string> {
  const sources = new Map<string, string>()
  for (const pair of values.flatMap((v) => v.split(',')).filter((v) => v !== '')) {
    const eq = pair.indexOf('=')
    if (eq <= 0) throw new Error(`--source ${pair}: expected <name>=<git dir>`)
    sources.set(pair.slice(0, eq), path.resolve(pair.slice(eq + 1)))
  }
  return sources
}

function git (args: string[], cwd?: string): string {
  return execFileSync('git', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], maxBuffer: 1 << 30 }).trim()
}

/** Finds where each entry's commit comes from: a `--source`, this repository, or a bare clone of its URL in `cloneDir`. */
export function resolveRepo (entry: RepoEntry, opts: { lodeRepo: string, sources: Map<string, string>, cloneDir: string }): Repo {
  if ('path' in entry) {
    const commit = git(['rev-parse', 'HEAD'], opts.lodeRepo)
    return { name: entry.name, gitDir: opts.lodeRepo, commit, tree: entry.path === '.' ? commit : `${commit}:${entry.path}`, test: entry.test }
  }
  let gitDir = opts.sources.get(entry.name)
  if (gitDir === undefined) {
    gitDir = path.join(opts.cloneDir, `${entry.name}.git`)
    if (!fs.existsSync(gitDir)) git(['clone', '--bare', '--quiet', entry.url, gitDir])
  }
  return { name: entry.name, gitDir, commit: entry.commit, tree: entry.commit, test: entry.test }
}

/**
 * Writes the repository's files at its commit into `dest` (a new directory; no `.git`). A partial
 * clone may lack some blobs (large media, say): those files are left out, with a line on stderr.
 */
export function checkout (repo: Repo, dest: string): void {
  fs.rmSync(dest, { recursive: true, force: true })
  fs.mkdirSync(dest, { recursive: true })
  const missing = new Set(git(['rev-list', '--objects', '--missing=print', repo.tree], repo.gitDir).split('\n').filter((l) => l.startsWith('?')).map((l) => l.slice(1)))
  const excluded = missing.size === 0
    ? []
    : git(['ls-tree', '-r', repo.tree], repo.gitDir).split('\n').map((line) => /^\S+ blob (\S+)\t(.*)$/.exec(line)).filter((m) => m !== null && missing.has(m[1]!)).map((m) => m![2]!)
  if (excluded.length > 0) process.stderr.write(`corpus: ${repo.name}: not in the git dir, left out: ${excluded.join(', ')}\n`)
  const pathspecs = excluded.map((file) => `:(exclude,literal)${file}`)
  execFileSync('bash', ['-c', 'set -o pipefail; git -C "$1" archive --format=tar "${@:4}" | tar -x -C "$3"', 'checkout', repo.gitDir, '', dest, repo.tree, '--', ...pathspecs], { stdio: 'inherit' })
}

/** A file of the repository at its commit. */
export function showFile (repo: Repo, file: string): Buffer {
  const spec = repo.tree.includes(':') ? `${repo.tree}/${file}` : `${repo.tree}:${file}`
  return execFileSync('git', ['-C', repo.gitDir, 'show', spec], { maxBuffer: 1 << 30 })
}

/** Takes top-level settings out of a pnpm-workspace.yaml (comments elsewhere kept). */
export function dropSettings (file: string, names: string[]): void {
  if (!fs.existsSync(file)) return
  const doc = parseDocument(fs.readFileSync(file, 'utf8'))
  if (!names.some((name) => doc.has(name))) return
  for (const name of names) doc.delete(name)
  fs.writeFileSync(file, doc.toString())
}

/**
 * Takes `engines.pnpm` out of a manifest. pnpm 11 refuses to run in a project whose root asks for
 * another pnpm (ERR_PNPM_UNSUPPORTED_ENGINE, with no setting to skip it): a version pin, like
 * `packageManager`, that the corpus does not act on. The lockfile does not record it.
 */
export function dropPnpmEngine (file: string): void {
  const text = fs.readFileSync(file, 'utf8')
  const manifest = JSON.parse(text) as { engines?: Record<string, string> }
  if (manifest.engines?.['pnpm'] === undefined) return
  delete manifest.engines['pnpm']
  fs.writeFileSync(file, JSON.stringify(manifest, null, /^[ \t]+/m.exec(text)?.[0] ?? '  ') + '\n')
}
