import assert from 'node:assert/strict'
import { execFile, spawn } from 'node:child_process'
import fs from 'node:fs'
import { createRequire } from 'node:module'
import os from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'

import { snapshot, TestRegistry } from '@lode/__utils__.test-fixtures'
import type { PackageSpec } from '@lode/__utils__.test-fixtures'

const run = promisify(execFile)
/** The pnpm 11 the tests compare with, and lode's launcher. */
export const pnpmBin = path.join(path.dirname(createRequire(import.meta.url).resolve('pnpm')), 'bin', 'pnpm.mjs')
export const lodeBin = path.join(import.meta.dirname, '..', '..', 'bin', 'lode')

export interface Project {
  dir: string
  home: string
}

/** A project dir with `package.json` (and optional extra files) and an isolated home whose `.npmrc` names the test registry. */
export function makeProject (
  registry: TestRegistry,
  manifest: Record<string, unknown>,
  files: Record<string, string | Buffer> = {}
): Project {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'lode-cli-'))
  const dir = path.join(root, 'project')
  const home = path.join(root, 'home')
  fs.mkdirSync(dir)
  fs.mkdirSync(home)
  fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify(manifest, null, 2))
  for (const [file, content] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true })
    fs.writeFileSync(path.join(dir, file), content)
  }
  fs.writeFileSync(path.join(home, '.npmrc'), `registry=${registry.url}\n`)
  return { dir, home }
}

/**
 * A copy of `project` and of its home (with the store in it) for the other tool. node_modules'
 * `.modules.yaml` names the store it was linked from: the copy names the copied store, as if it had
 * been installed there (another store would be laid out anew, as pnpm does).
 */
export function cloneProject (project: Project): Project {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'lode-cli-'))
  const dir = path.join(root, 'project')
  fs.cpSync(project.dir, dir, { recursive: true })
  const home = path.join(root, 'home')
  fs.cpSync(project.home, home, { recursive: true })
  const modulesYaml = path.join(dir, 'node_modules', '.modules.yaml')
  if (fs.existsSync(modulesYaml)) fs.writeFileSync(modulesYaml, fs.readFileSync(modulesYaml, 'utf8').replaceAll(project.home, home))
  return { dir, home }
}

/** The store lode and pnpm share in a project's isolated home (pnpm's default: `$XDG_DATA_HOME/pnpm/store`), without its `v11`. */
export function defaultStoreDir (project: Project): string {
  return path.join(project.home, '.local', 'share', 'pnpm', 'store')
}

/** What lode and pnpm run with in the tests: PATH, and a home and XDG directories of their own. */
export function isolatedEnv (home: string): Record<string, string> {
  return {
    PATH: process.env['PATH'] ?? '',
    HOME: home,
    XDG_CONFIG_HOME: path.join(home, '.config'),
    XDG_CACHE_HOME: path.join(home, '.cache'),
    XDG_DATA_HOME: path.join(home, '.local', 'share'),
    XDG_STATE_HOME: path.join(home, '.local', 'state'),
  }
}

export interface RunResult {
  code: number
  stdout: string
  stderr: string
}

async function runNode (script: string, args: string[], project: Project, extraEnv: Record<string, string>): Promise<RunResult> {
  try {
    const { stdout, stderr } = await run(process.execPath, [script, ...args], {
      cwd: project.dir,
      env: { ...isolatedEnv(project.home), ...extraEnv },
    })
    return { code: 0, stdout, stderr }
  } catch (err) {
    const { code, stdout, stderr } = err as { code: number, stdout: string, stderr: string }
    return { code, stdout, stderr }
  }
}

/** Runs pnpm; it must succeed unless `expectFailure`. */
export async function pnpm (project: Project, args: string[], expectFailure = false, env: Record<string, string> = {}): Promise<RunResult> {
  const result = await runNode(pnpmBin, [...args, '--reporter=append-only'], project, env)
  if (expectFailure) assert.notEqual(result.code, 0, `pnpm ${args.join(' ')} was expected to fail:\n${result.stdout}`)
  else assert.equal(result.code, 0, `pnpm ${args.join(' ')} failed:\n${result.stdout}\n${result.stderr}`)
  return result
}

/** pnpm with exactly these arguments (`pnpm` adds `--reporter=append-only`, which a script would take); without a TTY it appends anyway. */
export async function pnpmExactly (project: Project, args: string[], env: Record<string, string> = {}): Promise<RunResult> {
  return await runNode(pnpmBin, args, project, env)
}

export async function lode (project: Project, args: string[], env: Record<string, string> = {}): Promise<RunResult> {
  return await runNode(lodeBin, [...args, '--reporter=append-only'], project, env)
}

/** lode with exactly these arguments (`lode` adds `--reporter=append-only`, which a script or `--` would take). */
export async function lodeExactly (project: Project, args: string[], env: Record<string, string> = {}): Promise<RunResult> {
  return await runNode(lodeBin, args, project, env)
}

/** pnpm 11 and lode resolve copies of one project (`--lockfile-only`): the same pnpm-lock.yaml, byte for byte. */
export async function compareLockfiles (
  registry: TestRegistry,
  manifest: Record<string, unknown>,
  files: Record<string, string | Buffer> = {}
): Promise<{ pnpmProject: Project, lodeProject: Project }> {
  const pnpmProject = makeProject(registry, manifest, files)
  const lodeProject = cloneProject(pnpmProject)
  await pnpm(pnpmProject, ['install', '--lockfile-only'])
  const result = await lode(lodeProject, ['install', '--lockfile-only'])
  assert.equal(result.code, 0, `lode failed:\n${result.stdout}\n${result.stderr}`)
  assert.equal(readLockfileText(lodeProject), readLockfileText(pnpmProject))
  return { pnpmProject, lodeProject }
}

export function readLockfileText (project: Project): string {
  return fs.readFileSync(path.join(project.dir, 'pnpm-lock.yaml'), 'utf8')
}

/** `node_modules/.pnpm`'s package directories, and in each the links beside the package: dir → sorted `alias -> target`. */
export function virtualStore (project: Project): Record<string, string[]> {
  const store = path.join(project.dir, 'node_modules', '.pnpm')
  const out: Record<string, string[]> = {}
  for (const dir of fs.readdirSync(store).filter((d) => d !== 'node_modules' && d !== 'lock.yaml').sort()) {
    const modules = path.join(store, dir, 'node_modules')
    const entries = fs.readdirSync(modules).flatMap((e) => e.startsWith('@') ? fs.readdirSync(path.join(modules, e)).map((s) => `${e}/${s}`) : [e])
    out[dir] = entries.sort().map((alias) => {
      const full = path.join(modules, alias)
      return fs.lstatSync(full).isSymbolicLink() ? `${alias} -> ${fs.readlinkSync(full)}` : alias
    })
  }
  return out
}

/** Every file and symlink under `dir` (symlinks with their targets), state files aside. */
export function listing (dir: string): string[] {
  const out: string[] = []
  const walk = (current: string): void => {
    for (const entry of fs.readdirSync(current, { withFileTypes: true })) {
      const full = path.join(current, entry.name)
      if (['.pnpm-workspace-state-v1.json', '.lode-state.json', '.modules.yaml'].includes(entry.name)) continue
      if (entry.isSymbolicLink()) out.push(`${path.relative(dir, full)} -> ${fs.readlinkSync(full)}`)
      else if (entry.isDirectory()) walk(full)
      else out.push(path.relative(dir, full))
    }
  }
  walk(dir)
  return out.sort()
}

export { snapshot }

/** What changed between two snapshots, outside the paths an install may write. */
export function changesOutside (before: Map<string, string>, after: Map<string, string>, allowed: string[]): string[] {
  const inAllowed = (rel: string): boolean => allowed.some((prefix) => rel === prefix || rel.startsWith(`${prefix}${path.sep}`))
  const changed: string[] = []
  for (const [rel, what] of before) {
    if (!inAllowed(rel) && after.get(rel) !== what) changed.push(`${rel}: ${what} -> ${after.get(rel) ?? 'gone'}`)
  }
  for (const [rel, what] of after) {
    if (!inAllowed(rel) && !before.has(rel)) changed.push(`${rel}: new ${what}`)
  }
  return changed
}

/**
 * A command in a pseudo-terminal (util-linux `script`): each step waits for its prompt in the
 * output, then types its keys. Resolves with the output once the command exits.
 */
export async function inTerminal (
  bin: string,
  args: string[],
  project: { dir: string, home: string },
  steps: Array<[RegExp, string]>
): Promise<string> {
  const quote = (arg: string): string => `'${arg.replaceAll('\'', '\'\\\'\'')}'`
  const child = spawn('script', ['-qec', [process.execPath, bin, ...args].map(quote).join(' '), '/dev/null'], {
    cwd: project.dir,
    env: { PATH: process.env['PATH'] ?? '', HOME: project.home, TERM: 'xterm' },
  })
  let output = ''
  let step = 0
  let seen = 0
  child.stdout.on('data', (chunk: Buffer) => {
    output += chunk.toString()
    const current = steps[step]
    if (current !== undefined && current[0].test(output.slice(seen))) {
      seen = output.length
      step++
      // The prompt is drawn before it listens: a moment for it to start reading.
      setTimeout(() => { child.stdin.write(current[1]) }, 200)
    }
  })
  const timer = setTimeout(() => { child.kill() }, 30_000)
  await new Promise((resolve) => child.on('exit', resolve))
  clearTimeout(timer)
  assert.equal(step, steps.length, `every prompt answered:\n${output}`)
  return output
}

/** A file of the project, or undefined when it has none. */
export function projectFile (project: Project, file: string): string | undefined {
  const full = path.join(project.dir, file)
  return fs.existsSync(full) ? fs.readFileSync(full, 'utf8') : undefined
}

/** A step of `stepsBesidePnpm`: the arguments, and when both tools must fail (with lode's error) or warn. */
export interface Step {
  args: string[]
  fails?: RegExp
  warns?: RegExp
}

/**
 * Each step with pnpm on `project` and lode on a copy (or on `lodeProject`, to go on from earlier steps): the same exit code (a failing lode changing
 * nothing), the same `files` after it (package.json, pnpm-workspace.yaml and the lockfile unless
 * told), and the same node_modules. Returns both projects.
 */
export async function stepsBesidePnpm (
  project: Project,
  steps: ReadonlyArray<Step | string[]>,
  files: readonly string[] = ['package.json', 'pnpm-workspace.yaml', 'pnpm-lock.yaml'],
  lodeProject: Project = cloneProject(project)
): Promise<{ lodeProject: Project, pnpmProject: Project }> {
  const tree = (of: Project): string[] => fs.existsSync(path.join(of.dir, 'node_modules'))
    ? listing(of.dir).filter((file) => !file.endsWith(`.pnpm${path.sep}lock.yaml`))
    : []
  for (const step of steps) {
    const { args, fails, warns } = Array.isArray(step) ? { args: step } as Step : step
    const byPnpm = await pnpm(project, args, fails !== undefined)
    const before = snapshot(lodeProject.dir)
    const byLode = await lode(lodeProject, args)
    if (fails === undefined) {
      assert.equal(byLode.code, 0, `lode ${args.join(' ')}:\n${byLode.stdout}\n${byLode.stderr}`)
    } else {
      assert.equal(byLode.code, 1, `lode ${args.join(' ')} was expected to fail:\n${byLode.stdout}`)
      assert.match(byLode.stderr, fails)
      assert.deepEqual(snapshot(lodeProject.dir), before, `lode ${args.join(' ')} changed nothing`)
    }
    if (warns !== undefined) {
      assert.match(byPnpm.stdout, warns)
      assert.match(byLode.stdout + byLode.stderr, warns)
    }
    for (const file of files) assert.equal(projectFile(lodeProject, file), projectFile(project, file), `${file} after ${args.join(' ')}`)
    assert.deepEqual(tree(lodeProject), tree(project), `node_modules after ${args.join(' ')}`)
  }
  return { lodeProject, pnpmProject: project }
}

/** A project installed by pnpm and its copy installed by lode, as `stepsBesidePnpm` returns them. */
export interface ProjectPair { pnpmProject: Project, lodeProject: Project }

/** A test registry of `body`'s own (what it publishes between steps is seen by no other test), closed after it. */
export async function withRegistry (specs: PackageSpec[], body: (registry: TestRegistry) => Promise<void>): Promise<void> {
  const registry = await TestRegistry.start(specs)
  try {
    await body(registry)
  } finally {
    await registry.close()
  }
}

/** A JSON file's text as pnpm and lode write package.json: two spaces, a final newline. */
export function json (value: unknown): string {
  return `${JSON.stringify(value, null, 2)}\n`
}

/**
 * Versions published between steps are seen as a day later: pnpm 11 takes a package's metadata from
 * its cache while the cache is younger than minimumReleaseAge (a day by default), as nothing
 * published since could be old enough; the caches of both tools are made three days old.
 */
export function aDayLater (pairs: ProjectPair | readonly ProjectPair[]): void {
  const then = new Date(Date.now() - 3 * 24 * 3600 * 1000)
  const age = (dir: string): void => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name)
      if (entry.isDirectory()) age(full)
      fs.utimesSync(full, then, then)
    }
  }
  const all: readonly ProjectPair[] = 'pnpmProject' in pairs ? [pairs] : pairs
  for (const { pnpmProject, lodeProject } of all) {
    for (const { home } of [pnpmProject, lodeProject]) if (fs.existsSync(path.join(home, '.cache'))) age(path.join(home, '.cache'))
  }
}

/** A run's coded error as `CODE message` (pnpm's `ERR_PNPM_` and lode's `ERR_LODE_` alike), to compare the two tools' refusals. */
export function failure (result: RunResult): string {
  const match = /ERR_(?:PNPM|LODE)_([A-Z_]+)\]?\s+(.*)/.exec(`${result.stdout}\n${result.stderr}`)
  return match === null ? `no error in: ${result.stdout}${result.stderr}` : `${match[1]!} ${match[2]!.trim()}`
}
