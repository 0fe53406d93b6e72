import { LodeError } from '@lode/core.error'

import type { MainContext } from '../context.js'
import { createReporter } from '../reporter.js'
import type { ReporterName } from '../reporter.js'
import { projectConfig } from './project-config.js'
import type { CommandInput } from './types.js'

const path = process.getBuiltinModule('node:path')

/**
 * `lode ignored-builds`: the dependencies whose build scripts the last install did not run
 * (`.modules.yaml`'s ignored builds, by the `allowBuilds` key that would decide each), and the
 * ones `allowBuilds` turns down, printed as pnpm 11 prints them.
 */
export async function ignoredBuildsCommand (input: CommandInput, ctx: MainContext): Promise<number> {
  const [{ allowBuildKeyOf }, { readModulesManifest }] = await Promise.all([
    import('@lode/pkg-manager.building.lifecycle'),
    import('@lode/pkg-manager.installing.linker/modules-manifest'),
  ])
  const { config } = await projectConfig(input, ctx)
  const rootDir = config.dir
  const refused = Object.entries(config.allowBuilds).filter(([, allowed]) => !allowed).map(([key]) => key)
  const ignored = (await readModulesManifest(path.join(rootDir, 'node_modules')))?.ignoredBuilds
  const names = ignored === undefined ? undefined : [...new Set(ignored.map(allowBuildKeyOf))].filter((key) => !refused.includes(key))
  let output = 'Automatically ignored builds during installation:\n'
  if (names === undefined) output += '  Cannot identify as no node_modules found'
  else if (names.length === 0) output += '  None'
  else {
    output += `  ${names.join('\n  ')}
hint: To allow the execution of build scripts for a package, add its name to "allowBuilds" and set to "true", then run "lode rebuild".
hint: For example:
hint: allowBuilds:
hint:   esbuild: true
hint: If you don't want to build a package, set it to "false" instead.`
  }
  output += '\n'
  if (refused.length > 0) output += `\nExplicitly ignored package builds (via allowBuilds):\n  ${refused.join('\n  ')}\n`
  ctx.stdout.write(output)
  return 0
}

/**
 * `lode approve-builds`: on a terminal, pnpm's picker (the builds the last install left out; the
 * ones checked become `true` in `allowBuilds` and run now after a confirmation, the others
 * `false`); `<name>...` (`!<name>` to deny) or `--all` without asking. Their build lines are
 * printed as an install prints them.
 */
export async function approveBuildsCommand (input: CommandInput, ctx: MainContext): Promise<number> {
  const { values, positionals } = input.args!
  const all = values['all'] === true
  const reporter = createReporter((values['reporter'] ?? 'default') as ReporterName, ctx)
  const { approveBuilds, buildsAwaitingApproval } = await import('@lode/pkg-manager.core')
  const { config } = await projectConfig(input, ctx)
  let chosen: string[] | undefined
  if (!all && positionals.length === 0) {
    const awaiting = await buildsAwaitingApproval(config)
    if (awaiting.length === 0) {
      reporter.print('There are no packages awaiting approval')
      return 0
    }
    const terminal = ctx.stdin?.()
    if (terminal?.isTTY !== true) {
      throw new LodeError('APPROVE_BUILDS_NEEDS_NAMES', `lode approve-builds asks which builds to allow on a terminal, and there is none: name them, or --all. Awaiting approval: ${awaiting.join(', ')}.`, {
        hint: `lode approve-builds ${awaiting[0]!} (or !${awaiting[0]!} to deny it), or lode approve-builds --all.`,
      })
    }
    const { checkbox, confirm } = await import('../prompt.js')
    chosen = await checkbox({
      message: 'Choose which packages to build (Press <space> to select, <a> to toggle all, <i> to invert selection)',
      choices: awaiting,
      input: terminal,
      output: ctx.stdout,
    })
    // Cancelled (Ctrl-C): nothing written, as pnpm.
    if (chosen === undefined) return 0
    if (chosen.length === 0) {
      reporter.print('All packages were added to allowBuilds with value false.')
    } else if (await confirm({ message: `The next packages will now be built: ${chosen.join(', ')}.\nDo you approve?`, default: false, input: terminal, output: ctx.stdout }) !== true) {
      return 0
    }
  }
  const approved = await approveBuilds({
    config,
    names: positionals,
    all,
    chosen,
    onWarning: (message) => { reporter.onEvent({ type: 'warning', message }) },
    onLifecycle: (log) => { reporter.onEvent({ type: 'lifecycle', ...log, dir: path.relative(config.dir, log.dir).split(path.sep).join('/') || '.' }) },
  })
  if (approved === undefined) reporter.print('There are no packages awaiting approval')
  return 0
}
