import { LodeError } from '@lode/core.error'

import type { MainContext } from '../context.js'
import { VERSION } from '../version.js'
import { includeOf } from './inspect.js'
import { projectDir } from './paths.js'
import type { CommandInput } from './types.js'

const FORMATS = ['table', 'list', 'json'] as const

/**
 * `lode outdated [names…]`: the project's direct dependencies with newer versions, as pnpm 11
 * reports them (a table, `--format list|json`); exits 1 when any is outdated.
 */
export async function outdatedCommand (input: CommandInput, ctx: MainContext): Promise<number> {
  const { values, positionals } = input.args!
  const format = (values['format'] ?? 'table') as string
  if (!(FORMATS as readonly string[]).includes(format)) {
    throw new LodeError('BAD_OUTDATED_FORMAT', `Unsupported format: ${format}`, { hint: 'Use --format table, list or json.' })
  }
  const [{ findWorkspaceDir, getConfig, outdated }, { renderOutdated }] = await Promise.all([import('@lode/pkg-manager.core'), import('@lode/pkg-manager.inspection')])
  const dir = projectDir(values['dir'] as string | undefined, ctx)
  const config = getConfig({ dir: await findWorkspaceDir(dir) ?? dir, env: ctx.env, overrides: input.args!.config, lodeVersion: VERSION })
  const packages = await outdated({
    config,
    now: () => Date.now(),
    projectDir: dir,
    include: includeOf(values),
    names: positionals,
    compatible: values['compatible'] === true,
    onWarning: (message) => { ctx.stderr.write(`WARN  ${message}\n`) },
  })
  const output = renderOutdated(packages, format as typeof FORMATS[number])
  if (output !== '') ctx.stdout.write(output.endsWith('\n') ? output : `${output}\n`)
  return packages.length === 0 ? 0 : 1
}
