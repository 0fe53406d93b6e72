import { LodeError } from '@lode/core.error'

import type { MainContext } from '../context.js'
import type { CommandInput } from './types.js'

const fs = process.getBuiltinModule('node:fs')
const path = process.getBuiltinModule('node:path')

/**
 * The project a command acts on, as pnpm finds it: `--dir` as given (it must exist), else the
 * nearest directory from the working directory up that has a package.json, else the working
 * directory itself.
 */
export function projectDir (dirOption: string | undefined, ctx: MainContext): string {
  if (dirOption !== undefined) {
    const dir = path.resolve(ctx.cwd, dirOption)
    if (!fs.statSync(dir, { throwIfNoEntry: false })?.isDirectory()) {
      throw new LodeError('DIR_NOT_FOUND', `The directory ${dir} (--dir) does not exist.`, { hint: 'Give --dir (-C) a directory that exists.' })
    }
    return dir
  }
  for (let dir = ctx.cwd; ; dir = path.dirname(dir)) {
    if (fs.existsSync(path.join(dir, 'package.json'))) return dir
    if (path.dirname(dir) === dir) return ctx.cwd
  }
}

/** `lode root` (the project's node_modules) and `lode bin` (its `.bin`), printed as pnpm prints them. */
export function pathCommand (input: CommandInput, ctx: MainContext): number {
  const { values } = input.args!
  const command = input.name === 'bin' || input.name === 'prefix' ? input.name : 'root'
  if (values['global'] === true) {
    throw new LodeError('GLOBAL_NOT_SUPPORTED', `lode installs no global packages, so \`lode ${command} --global\` has nothing to print.`, {
      hint: `Use pnpm ${command} -g for pnpm's global directory.`,
    })
  }
  const dir = projectDir(values['dir'] as string | undefined, ctx)
  const modulesDir = path.join(dir, 'node_modules')
  ctx.stdout.write(`${command === 'prefix' ? dir : command === 'bin' ? path.join(modulesDir, '.bin') : modulesDir}\n`)
  return 0
}
