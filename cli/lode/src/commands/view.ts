import type { LodeError as LodeErrorClass } from '@lode/core.error'

import type { MainContext } from '../context.js'
import { createReporter } from '../reporter.js'
import type { ReporterName } from '../reporter.js'
import { projectConfig } from './project-config.js'
import type { CommandInput } from './types.js'

const fs = process.getBuiltinModule('node:fs')
const path = process.getBuiltinModule('node:path')

/**
 * `lode view [<package>[@<version|range|tag>]] [<field>...]` (`info`, `show`, `v`): pnpm 11's,
 * the package's registry document summed up, a field of it, or JSON. Without a package, the name
 * of the nearest package.json up from the project.
 */
export async function viewCommand (input: CommandInput, ctx: MainContext): Promise<number> {
  const { values, positionals } = input.args!
  const reporter = createReporter((values['reporter'] ?? 'default') as ReporterName, ctx)
  const [{ LodeError }, inspection] = await Promise.all([import('@lode/core.error'), import('@lode/pkg-manager.reviewing.inspection')])
  const { dir, config } = await projectConfig(input, ctx)
  const spec = positionals[0] ?? await projectName(dir, LodeError)
  const info = await inspection.viewPackage(config, spec, { onWarning: (message) => { reporter.warn(message) } })
  ctx.stdout.write(`${inspection.renderView(info, positionals.slice(1), { json: values['json'] === true, now: Date.now() })}\n`)
  return 0
}

/** The project's name (`projectDir` found the nearest package.json up from the current directory); none is MISSING_PACKAGE_NAME. */
async function projectName (dir: string, LodeError: typeof LodeErrorClass): Promise<string> {
  if (!fs.existsSync(path.join(dir, 'package.json'))) {
    throw new LodeError('MISSING_PACKAGE_NAME', 'Package name is required. Usage: lode view [<package-name>]', { hint: 'Name the package, or run lode view in a project.' })
  }
  const { readProjectManifest } = await import('@lode/pkg-manager.core')
  const name = (await readProjectManifest(dir))['name']
  if (typeof name !== 'string' || name === '') {
    throw new LodeError('INVALID_PACKAGE_JSON', `Invalid package.json at "${dir}". The "name" field is required and must be a non-empty string.`)
  }
  return name
}
