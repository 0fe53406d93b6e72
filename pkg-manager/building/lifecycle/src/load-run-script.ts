import type { ChildProcess } from 'node:child_process'

import type runScript from '@npmcli/run-script'

/**
 * @npmcli/run-script and what it loads (which, node-gyp's finder, promise-spawn), imported when a
 * script first runs: most installs run none, and an install's start-up is measured in ms.
 */
export async function loadRunScript (): Promise<typeof runScript> {
  return (await import('@npmcli/run-script')).default
}

/** What a dependency's build script is run with: run-script's options for one script. */
export interface PackageScriptOptions {
  event: string
  /** The package's directory. */
  path: string
  pkg: Record<string, unknown>
  /** The command line to run (the package's script, or node-gyp's default). */
  cmd: string
  binPaths: string[]
  env: Record<string, string>
}

/** A running script: the promise run-script's would be (rejected with `code`, `signal`, `stdout`, `stderr` on failure), and its child process. */
export type RunningScript = Promise<{ code: number | null, signal: string | null, stdout: string, stderr: string }> & {
  process: ChildProcess
}

type MakeSpawnArgs = (opts: Record<string, unknown>) => [string, string[], Record<string, unknown>]
type PromiseSpawn = (cmd: string, args: string[], opts: Record<string, unknown>, extra: Record<string, unknown>) => RunningScript

/**
 * Runs a package's script exactly as run-script runs it with `stdio: 'pipe'` (its environment,
 * PATH, shell and node-gyp, from run-script's own modules), but hands back the child process, so
 * that the output can be read as it comes: run-script gives piped output only once the script
 * has ended, and a build of minutes would show nothing until then.
 */
export async function loadPackageScriptRunner (): Promise<(opts: PackageScriptOptions) => RunningScript> {
  const { createRequire } = await import('node:module')
  const fromRunScript = createRequire(createRequire(import.meta.url).resolve('@npmcli/run-script'))
  const makeSpawnArgs = fromRunScript('./make-spawn-args.js') as MakeSpawnArgs
  const packageEnvs = fromRunScript('./package-envs.js') as (pkg: Record<string, unknown>) => Record<string, string>
  const promiseSpawn = fromRunScript('@npmcli/promise-spawn') as PromiseSpawn
  return (opts) => {
    const [shell, args, spawnOpts] = makeSpawnArgs({
      args: [],
      binPaths: opts.binPaths,
      cmd: opts.cmd,
      env: { ...opts.env, ...packageEnvs(opts.pkg) },
      event: opts.event,
      path: opts.path,
      stdio: 'pipe',
    })
    const running = promiseSpawn(shell, args, spawnOpts, { event: opts.event, script: opts.cmd, pkgid: opts.pkg['_id'], path: opts.path })
    // As run-script: the script's input is closed (a script that reads it would wait forever).
    running.process.stdin?.end()
    return running
  }
}
