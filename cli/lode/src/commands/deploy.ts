import { LodeError } from '@lode/core.error'

import type { MainContext } from '../context.js'
import { createReporter, formatDuration } from '../reporter.js'
import type { ReporterName } from '../reporter.js'
import { selectProjects } from '../selection.js'
import { VERSION } from '../version.js'
import { settingsOf } from './settings.js'
import type { CommandInput } from './types.js'

const path = process.getBuiltinModule('node:path')

/**
 * `lode --filter <project> deploy <dir>`: one project of the workspace, with its dependencies,
 * into a directory of its own (see core's `deploy`), as pnpm 11's deploy does with the workspace's
 * lockfile. The selection is pnpm's: exactly one project, named by `--filter`.
 */
export async function deployCommand (input: CommandInput, ctx: MainContext): Promise<number> {
  const { values, positionals } = input.args!
  const started = Date.now()
  const cwd = path.resolve(ctx.cwd, values['dir'] as string | undefined ?? '.')
  const core = await import('@lode/pkg-manager.core')
  const workspaceDir = await core.findWorkspaceDir(cwd)
  if (workspaceDir === undefined) {
    const manifest = await core.readProjectManifest(cwd).catch(() => undefined) as { scripts?: Record<string, unknown> } | undefined
    throw new LodeError('CANNOT_DEPLOY', 'A deploy is only possible from inside a workspace', {
      ...manifest?.scripts?.['deploy'] !== undefined ? { hint: 'Maybe you wanted to invoke "lode run deploy"' } : {},
    })
  }
  if (values['legacy'] === true) {
    throw new LodeError('COMMAND_NOT_IMPLEMENTED', 'lode deploy has no legacy form (pnpm\'s --legacy, forceLegacyDeploy): it deploys from the workspace\'s lockfile.', {
      hint: 'Run it without --legacy, or use pnpm deploy --legacy.',
    })
  }
  const filters = values['filter'] as string[] | undefined ?? []
  const selection = { recursive: false, filters, workspaceRoot: false, failIfNoMatch: false, ifPresent: false }
  const selected = filters.length === 0 ? [] : (await selectProjects(selection, cwd)).projects
  if (selected.length === 0) throw new LodeError('NOTHING_TO_DEPLOY', 'No project was selected for deployment')
  if (selected.length > 1) throw new LodeError('CANNOT_DEPLOY_MANY', 'Cannot deploy more than 1 project')
  if (positionals.length !== 1) throw new LodeError('INVALID_DEPLOY_TARGET', 'This command requires one parameter')
  const deployDir = path.isAbsolute(positionals[0]!) ? positionals[0]! : path.join(cwd, positionals[0]!)
  // The command line's settings (--store-dir, --registry, …), then its --config. ones, as install takes them.
  const overrides = { ...settingsOf(values), ...input.args!.config }
  const config = core.getConfig({ dir: workspaceDir, env: ctx.env, overrides, lodeVersion: VERSION })
  const { readWorkspaceYaml } = await import('@lode/pkg-manager.config.settings')
  for (const key of ['deployAllFiles', 'forceLegacyDeploy'] as const) {
    if (readWorkspaceYaml(workspaceDir)[key] === true) {
      throw new LodeError('UNSUPPORTED_SETTING', `${key}: true (in pnpm-workspace.yaml) is not supported by lode deploy yet.`, {
        hint: 'Remove it to deploy with lode, or use pnpm deploy for this project.',
      })
    }
  }
  const reporter = createReporter((values['reporter'] ?? 'default') as ReporterName, ctx)
  const production = values['prod'] === true || values['production'] === true
  const include = {
    dependencies: values['dev'] !== true,
    devDependencies: !production,
    optionalDependencies: values['optional'] !== false,
  }
  await core.deploy({
    config,
    configFor: (dir) => core.getConfig({
      dir,
      env: ctx.env,
      overrides: { ...overrides, frozenLockfile: true },
      lodeVersion: VERSION,
    }),
    projectDir: selected[0]!.dir,
    deployDir,
    cwd,
    force: values['force'] === true,
    ignoreScripts: values['ignore-scripts'] === true,
    include,
    now: () => Date.now(),
    onEvent: reporter.onEvent,
  })
  reporter.print(`Done in ${formatDuration(Date.now() - started)} using lode v${VERSION}`)
  return 0
}
