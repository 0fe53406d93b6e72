import type { MainContext } from '../context.js'
import { selectedProjects } from '../selection.js'
import { runLifecycleScripts } from './lifecycle-scripts.js'
import { projectConfig } from './project-config.js'
import type { CommandInput } from './types.js'

/**
 * `lode version <bump>`: pnpm 11's `version` (pkg-manager/releasing/version): the project's
 * package.json, or with `-r`/`--filter` the selected projects', moved to the next version; for one
 * project in a git repository, a commit and a tag. The flags win over the settings.
 */
export async function versionCommand (input: CommandInput, ctx: MainContext): Promise<number> {
  const { values, positionals } = input.args!
  const [{ LodeError }, version] = await Promise.all([import('@lode/core.error'), import('@lode/pkg-manager.releasing.version')])
  if (positionals.length === 0 && values['recursive'] === true) {
    throw new LodeError('COMMAND_NOT_IMPLEMENTED', 'lode version -r without a version (pnpm\'s release from change intents) is not implemented yet.', {
      hint: 'Give the version or the step (lode version -r minor), or run pnpm version -r.',
    })
  }
  const bump = version.parseBump(positionals[0])
  const { dir, workspaceDir, config } = await projectConfig(input, ctx)
  const filters = values['filter'] as string[] | undefined ?? []
  const recursive = values['recursive'] === true || filters.length > 0
  let projectDirs = [dir]
  if (recursive) {
    const selection = { recursive: true, filters, workspaceRoot: false, failIfNoMatch: false, ifPresent: false }
    const selected = await selectedProjects(selection, { ...ctx, cwd: dir })
    if (typeof selected === 'number') return selected
    // pnpm bumps them in the workspace's order (the root first, then by directory), not dependencies first.
    projectDirs = selected.map((project) => project.dir).sort((a, b) => a < b ? -1 : a > b ? 1 : 0)
  }
  const flag = <T>(name: string, fallback: T): T => values[name] as T | undefined ?? fallback
  const dryRun = values['dry-run'] === true
  const changes = await version.versionProjects({
    projectDirs,
    recursive,
    gitDir: workspaceDir ?? dir,
    bump,
    preid: values['preid'] as string | undefined,
    dryRun,
    settings: {
      allowSameVersion: flag('allow-same-version', config.version.allowSameVersion),
      commitHooks: flag('commit-hooks', config.version.commitHooks),
      gitChecks: flag('git-checks', config.publish.gitChecks),
      gitTagVersion: flag('git-tag-version', config.version.gitTagVersion),
      message: flag('message', config.version.message),
      signGitTag: flag('sign-git-tag', config.version.signGitTag),
      tagVersionPrefix: flag('tag-version-prefix', config.version.tagVersionPrefix),
    },
    runScript: values['ignore-scripts'] === true || config.ignoreScripts
      ? undefined
      : async (stage, projectDir) => { await runLifecycleScripts(projectDir, [stage], ctx.stderr) },
  })
  ctx.stdout.write(`${version.renderVersionChanges(changes, { json: values['json'] === true, dryRun })}${values['json'] === true ? '\n' : ''}`)
  return 0
}
