import { existsSync } from 'node:fs'
import fs from 'node:fs/promises'
import path from 'node:path'

import { nameOf } from '@lode/core.dep-path'
import { LodeError } from '@lode/core.error'
import { parsePackageJson } from '@lode/fs.package-json'
import pLimit from 'p-limit'

import { loadPackageScriptRunner } from './load-run-script.js'
import { isSkippedScript } from './project-scripts.js'
import { forEachLine } from './spawn-script.js'

/** A dependency to build in its directory in `node_modules/.pnpm`. */
export interface BuildTarget {
  depPath: string
  pkgId: string
  dir: string
  /** Dependency paths of its dependencies: those that build too build first. */
  deps: readonly string[]
  /** An optional dependency: a failing build is a warning and the package is left unbuilt. */
  optional: boolean
}

export interface BuildOptions {
  /** pnpm's `childConcurrency`: builds at a time. */
  concurrency: number
  /** The project directory (`INIT_CWD`). */
  initCwd: string
  userAgent: string
  onWarning: (message: string) => void
  /** Each script as it runs, as pnpm logs it: its start (`script`), its output's lines (`line`), its end (`exitCode`). */
  onLifecycle?: ((log: LifecycleLog) => void) | undefined
  signal?: AbortSignal | undefined
}

/** One line of a build's progress: the package's directory, the lifecycle event, then the script, a line of its output, or its exit code. */
export interface LifecycleLog {
  dir: string
  stage: string
  script?: string
  line?: string
  exitCode?: number
}

// The dependency lifecycle, in order; `install` defaults to `node-gyp rebuild` for a package with binding.gyp.
const EVENTS = ['preinstall', 'install', 'postinstall'] as const
const OUTPUT_TAIL_LINES = 30

/**
 * Runs the build scripts of `targets` in dependency order (a package after the packages it
 * depends on), `concurrency` at a time, each in its own directory with the environment pnpm gives
 * them: `npm_*` variables, `node_modules/.bin` up the tree and the running Node on `PATH`,
 * `INIT_CWD`, the lifecycle event. A failing script fails with the package, the script and the
 * tail of its output; an optional package's failure is a warning. Returns the dependency paths
 * built, and those of the optional packages whose build failed.
 */
export async function runDependencyBuilds (targets: readonly BuildTarget[], opts: BuildOptions): Promise<BuildOutcome> {
  const byDepPath = new Map(targets.map((target) => [target.depPath, target]))
  const limit = pLimit(Math.max(1, opts.concurrency))
  const started = new Map<string, Promise<boolean>>()
  const outcome: BuildOutcome = { built: [], failed: [] }
  const run = async (target: BuildTarget, deps: ReadonlyArray<Promise<boolean>>): Promise<boolean> => {
    await Promise.all(deps)
    return await limit(async () => {
      opts.signal?.throwIfAborted()
      if (await runBuild(target, opts)) outcome.built.push(target.depPath)
      else outcome.failed.push(target.depPath)
      return true
    })
  }
  // Each target starts once its dependencies among the targets have built. Walked depth first on a
  // stack of its own (a chain of builds is as deep as a registry makes it); a dependency on the way
  // down to a target is one it is in a cycle with, and is not waited for.
  for (const first of targets) {
    if (started.has(first.depPath)) continue
    const onPath = new Set([first.depPath])
    const frames = [{ target: first, next: 0, deps: [] as Array<Promise<boolean>> }]
    while (frames.length > 0) {
      const frame = frames[frames.length - 1]!
      const dep = frame.target.deps[frame.next++]
      if (dep !== undefined) {
        const other = byDepPath.get(dep)
        if (other === undefined || onPath.has(dep)) continue
        const promise = started.get(dep)
        if (promise !== undefined) frame.deps.push(promise)
        else {
          onPath.add(dep)
          frames.push({ target: other, next: 0, deps: [] })
        }
        continue
      }
      const promise = run(frame.target, frame.deps)
      started.set(frame.target.depPath, promise)
      onPath.delete(frame.target.depPath)
      frames.pop()
      frames.at(-1)?.deps.push(promise)
    }
  }
  await Promise.all(started.values())
  return outcome
}

/** The dependency paths built, and those of the optional packages whose build failed (warned). */
export interface BuildOutcome {
  built: string[]
  failed: string[]
}

/** One package's lifecycle; false when an optional package's build failed (warned). */
async function runBuild (target: BuildTarget, opts: BuildOptions): Promise<boolean> {
  const file = path.join(target.dir, 'package.json')
  const manifest = parsePackageJson(await fs.readFile(file, 'utf8'), file)
  const scripts = (manifest['scripts'] ?? {}) as Record<string, unknown>
  for (const event of EVENTS) {
    if (isSkippedScript(scripts[event] as string | undefined)) continue
    const script = typeof scripts[event] === 'string' ? scripts[event] : event === 'install' && scripts['preinstall'] === undefined && existsSync(path.join(target.dir, 'binding.gyp')) ? 'node-gyp rebuild' : undefined
    // A script the package does not have is no line (run-script skips it).
    const log = (fields: Omit<LifecycleLog, 'dir' | 'stage'>): void => { if (script !== undefined) opts.onLifecycle?.({ dir: target.dir, stage: event, ...fields }) }
    if (script === undefined) continue
    log({ script })
    try {
      const running = (await loadPackageScriptRunner())({
        event,
        path: target.dir,
        pkg: manifest,
        cmd: script,
        // The user's Node on PATH runs the scripts (node-gyp builds for it), as pnpm's builds.
        binPaths: [],
        env: { INIT_CWD: opts.initCwd, npm_config_user_agent: opts.userAgent, npm_node_execpath: process.execPath },
      })
      // Each line as it comes (pnpm's reporter shows a long build moving), standard output's and error output's as they interleave.
      for (const stream of [running.process.stdout, running.process.stderr]) {
        if (stream !== null) forEachLine(stream, (line) => { log({ line }) })
      }
      await running
      log({ exitCode: 0 })
    } catch (err) {
      const failure = err as { code?: number | null, signal?: string | null, stdout?: string, stderr?: string }
      log({ exitCode: typeof failure.code === 'number' ? failure.code : 1 })
      const script = (manifest['scripts'] as Record<string, string> | undefined)?.[event] ?? 'node-gyp rebuild'
      const status = failure.signal != null ? `was killed by ${failure.signal}` : `exited with code ${String(failure.code)}`
      const output = `${failure.stdout ?? ''}${failure.stderr ?? ''}`.trimEnd().split('\n').slice(-OUTPUT_TAIL_LINES).join('\n')
      const message = `${target.pkgId} ${event}: \`${script}\` ${status}.${output === '' ? '' : `\n${output}`}`
      if (target.optional) {
        opts.onWarning(`${message}\nIt is an optional dependency: the install goes on without its build.`)
        return false
      }
      throw new LodeError('LIFECYCLE_SCRIPT_FAILED', message, {
        hint: `Fix the cause above, or set ${JSON.stringify(nameOf(target.pkgId))}: false in allowBuilds (pnpm-workspace.yaml) to skip its build.`,
        cause: err,
      })
    }
  }
  return true
}

