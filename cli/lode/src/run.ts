import { spawn } from 'node:child_process'
import os from 'node:os'
import path from 'node:path'

import { isLodeError } from '@lode/fs.error'

import type { MainContext } from './index.js'

/**
 * `lode run <script> [args…]`: the project's script with its `pre` and `post` scripts (pnpm's
 * `enablePrePostScripts`), arguments passed to the script itself, `node_modules/.bin` on `PATH`,
 * and the script's exit code as lode's. Without a name, the scripts are listed.
 */
export async function runCommand (argv: readonly string[], ctx: MainContext): Promise<number> {
  const [{ readProjectManifest }, { runProjectScript, scriptsOf }] = await Promise.all([import('@lode/pkg-manager.core'), import('@lode/pkg-manager.lifecycle')])
  let manifest
  try {
    manifest = await readProjectManifest(ctx.cwd)
  } catch (err) {
    if (!isLodeError(err)) throw err
    ctx.stderr.write(`[${err.code}] ${err.message}\n`)
    return 1
  }
  const scripts = scriptsOf(manifest)
  const name = argv[0]
  if (name === undefined) {
    const entries = Object.entries(scripts)
    ctx.stdout.write(entries.length === 0 ? 'There are no scripts in package.json.\n' : `Commands available via "lode run":\n${entries.map(([script, command]) => `  ${script}\n    ${command}`).join('\n')}\n`)
    return 0
  }
  if (scripts[name] === undefined) {
    ctx.stderr.write(`[ERR_LODE_NO_SCRIPT] Missing script: ${name}\n\nCommand "${name}" not found. Run lode run to list the scripts in package.json.\n`)
    return 1
  }
  const userAgent = `lode node/${process.version} ${process.platform} ${process.arch}`
  try {
    for (const [event, args] of [[`pre${name}`, []], [name, argv.slice(1)], [`post${name}`, []]] as const) {
      await runProjectScript(event, { dir: ctx.cwd, manifest, args, stdio: 'inherit', userAgent })
    }
  } catch (err) {
    if (!isLodeError(err)) throw err
    const exitCode = (err as { exitCode?: number }).exitCode ?? 1
    ctx.stderr.write(`[ELIFECYCLE] Command failed with exit code ${exitCode}.\n`)
    return exitCode
  }
  return 0
}

/** `lode exec <command> [args…]`: a command with the project's `node_modules/.bin` first on `PATH`; its exit code is lode's. */
export async function execCommand (argv: readonly string[], ctx: MainContext): Promise<number> {
  const [command, ...args] = argv
  if (command === undefined) {
    ctx.stderr.write('[ERR_LODE_BAD_ARGUMENTS] lode exec needs a command to run.\n\nFor example: lode exec tsc --version\n')
    return 1
  }
  const bin = path.join(ctx.cwd, 'node_modules', '.bin')
  const env = { ...ctx.env, PATH: [bin, ctx.env['PATH'] ?? ''].join(path.delimiter) }
  return await new Promise<number>((resolve) => {
    const child = spawn(command, args, { cwd: ctx.cwd, env, stdio: 'inherit' })
    child.on('error', (err: NodeJS.ErrnoException) => {
      ctx.stderr.write(err.code === 'ENOENT'
        ? `[ERR_LODE_EXEC_NOT_FOUND] Command "${command}" not found in ${bin} or on PATH.\n\nInstall the package that provides it, or check its name.\n`
        : `[ERR_LODE_EXEC_FAILED] ${command}: ${err.message}\n`)
      resolve(1)
    })
    // A command killed by a signal exits as a shell reports it: 128 + the signal's number.
    child.on('exit', (code, signal) => { resolve(code ?? 128 + (signal === null ? 0 : os.constants.signals[signal])) })
  })
}
