import { LodeError } from '@lode/core.error'

import type { OptionSpecs } from '../args.js'
import type { MainContext } from '../context.js'
import { projectConfig } from './project-config.js'
import type { CommandInput } from './types.js'

const childProcess = process.getBuiltinModule('node:child_process')

/**
 * `lode edit <pkg>[/<dep>…]`: pnpm 12's, the installed package's directory opened in the editor
 * (`--editor`, else EDITOR, VISUAL, vi), then an install, which puts back what the edit must not
 * leave behind (as pnpm 12 runs one). An editor that fails stops it, nothing installed.
 */
export async function editCommand (input: CommandInput, ctx: MainContext, installOptions: OptionSpecs): Promise<number> {
  const { values, positionals } = input.args!
  const packagePath = positionals[0]
  if (packagePath === undefined || packagePath === '') throw new LodeError('BAD_ARGUMENTS', 'lode edit needs the package to edit.', { hint: 'lode edit <name> (or <name>/<dependency>).' })
  const [{ installedPackageDir }, { dir }] = await Promise.all([import('@lode/pkg-manager.reviewing.inspection'), projectConfig(input, ctx)])
  const target = installedPackageDir(dir, packagePath)
  const editor = values['editor'] as string | undefined ?? nonEmpty(ctx.env['EDITOR']) ?? nonEmpty(ctx.env['VISUAL']) ?? (process.platform === 'win32' ? 'notepad.exe' : 'vi')
  // The editor setting is a command line of the user's (`code --wait`): run by the shell, the directory quoted.
  const quoted = process.platform === 'win32' ? `"${target}"` : `'${target.replaceAll('\'', '\'\\\'\'')}'`
  const result = childProcess.spawnSync(`${editor} ${quoted}`, { shell: true, stdio: 'inherit', cwd: dir, env: { ...ctx.env } })
  if (result.status !== 0) throw new LodeError('EDITOR_FAILED', 'Editor command exited with failure status', { hint: `The editor was: ${editor}. Set another with --editor or EDITOR.` })
  const { installCommand } = await import('./install.js')
  const { parseCommandArgs } = await import('../args.js')
  return await installCommand({ name: 'install', leading: [], rest: [], args: parseCommandArgs([], installOptions, 'install') }, ctx)
}

function nonEmpty (value: string | undefined): string | undefined {
  return value === undefined || value === '' ? undefined : value
}
