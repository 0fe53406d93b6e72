import { LodeError } from '@lode/core.error'

import type { MainContext } from '../context.js'
import type { CommandInput } from './types.js'

const fs = process.getBuiltinModule('node:fs')
const path = process.getBuiltinModule('node:path')

// pnpm's order of a new package.json's keys; others (`type`) follow in the order they were added.
const KEY_ORDER = ['name', 'version', 'private', 'description', 'main', 'scripts', 'keywords', 'author', 'license', 'devEngines', 'packageManager']

/**
 * `lode init`: pnpm 11's package.json for a new project (`--bare` for a nearly empty one), an ES
 * module unless `--init-type commonjs`, pinned to the pnpm release lode stands in for
 * (`devEngines.packageManager` and `packageManager`) unless `--no-init-package-manager` or the
 * directory is a project inside a workspace. An existing package.json is never overwritten.
 */
export async function initCommand (input: CommandInput, ctx: MainContext): Promise<number> {
  const { values, positionals } = input.args!
  if (positionals.length > 0) {
    throw new LodeError('INIT_ARG', 'init command does not accept any arguments', { hint: `Maybe you wanted to run "lode create ${positionals.join(' ')}"` })
  }
  const initType = values['init-type'] as string | undefined ?? 'module'
  if (initType !== 'module' && initType !== 'commonjs') throw new LodeError('BAD_ARGUMENTS', `--init-type is "${initType}".`, { hint: 'Use --init-type module or --init-type commonjs.' })
  const dir = values['dir'] === undefined ? ctx.cwd : path.resolve(ctx.cwd, values['dir'] as string)
  const found = ['package.json', 'package.json5', 'package.yaml'].find((file) => fs.existsSync(path.join(dir, file)))
  if (found !== undefined) throw new LodeError('PACKAGE_JSON_EXISTS', `${found} already exists`, { hint: 'lode init writes a new package.json only.' })
  const manifest: Record<string, unknown> = values['bare'] === true
    ? {}
    : {
        // As pnpm: the name of the directory lode runs in, as it is.
        name: path.basename(ctx.cwd),
        version: '1.0.0',
        description: '',
        main: 'index.js',
        scripts: { test: 'echo "Error: no test specified" && exit 1' },
        keywords: [],
        author: '',
        license: 'ISC',
      }
  if (initType === 'module') manifest['type'] = 'module'
  const [{ findWorkspaceDir }, { PNPM_VERSION }] = await Promise.all([import('@lode/pkg-manager.core'), import('@lode/pkg-manager.config.settings')])
  const workspaceDir = await findWorkspaceDir(dir)
  if (values['init-package-manager'] !== false && (workspaceDir === undefined || path.resolve(workspaceDir) === path.resolve(dir))) {
    manifest['devEngines'] = { ...manifest['devEngines'] as object | undefined, packageManager: { name: 'pnpm', version: PNPM_VERSION, onFail: 'download' } }
    manifest['packageManager'] = `pnpm@${PNPM_VERSION}`
  }
  const ordered = Object.fromEntries(Object.entries(manifest).sort(([a], [b]) => rank(a) - rank(b)))
  const text = JSON.stringify(ordered, null, 2)
  const file = path.join(dir, 'package.json')
  // `wx`: a package.json that appeared meanwhile is not overwritten either.
  try {
    fs.writeFileSync(file, `${text}\n`, { flag: 'wx' })
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') throw new LodeError('PACKAGE_JSON_EXISTS', 'package.json already exists', { hint: 'lode init writes a new package.json only.' })
    throw err
  }
  ctx.stdout.write(`Wrote to ${file}\n\n${text}\n`)
  return 0
}

function rank (key: string): number {
  const at = KEY_ORDER.indexOf(key)
  return at === -1 ? KEY_ORDER.length : at
}
