import type { MainContext } from '../context.js'
import { installCommand } from './install.js'
import { projectDir } from './paths.js'
import { projectConfig, workspaceProjectDirs } from './project-config.js'
import { runCommand } from './run.js'
import type { CommandInput } from './types.js'

const path = process.getBuiltinModule('node:path')

/** `lode clean` (`purge`): pnpm 11's, over every project of the workspace (or the one project). */
export async function cleanCommand (input: CommandInput, ctx: MainContext): Promise<number> {
  await cleanInstalled(input, ctx, input.args!.values['lockfile'] === true)
  return 0
}

/** `lode ci` (`clean-install`, `ic`, `install-clean`): `clean`, then `install --frozen-lockfile`, as pnpm 11's. */
export async function cleanInstallCommand (input: CommandInput, ctx: MainContext): Promise<number> {
  await cleanInstalled(input, ctx, false)
  const args = input.args!
  return await installCommand({ ...input, name: 'install', args: { ...args, values: { ...args.values, 'frozen-lockfile': true } } }, ctx)
}

/** `lode install-test` (`it`): `install`, then the project's `test` script with the arguments given, as pnpm 11's. */
export async function installTestCommand (input: CommandInput, ctx: MainContext): Promise<number> {
  const args = input.args!
  const installed = await installCommand({ ...input, name: 'install', args: { ...args, positionals: [] } }, ctx)
  if (installed !== 0) return installed
  const { values } = args
  // The test runs where the install did, in the projects it selected (`-r`, `--filter`), `--no-bail` passed on.
  const selection = [
    ...values['recursive'] === true ? ['-r'] : [],
    ...(values['filter'] as string[] | undefined ?? []).flatMap((filter) => ['--filter', filter]),
    ...values['bail'] === false ? ['--no-bail'] : [],
  ]
  return await runCommand([...selection, 'test', ...args.positionals], { ...ctx, cwd: projectDir(values['dir'] as string | undefined, ctx) })
}

async function cleanInstalled (input: CommandInput, ctx: MainContext, removeLockfile: boolean): Promise<void> {
  const { dir, workspaceDir, config } = await projectConfig(input, ctx)
  const { cleanProjects } = await import('@lode/pkg-manager.installing.clean')
  await cleanProjects({
    projectDirs: workspaceDir === undefined ? [dir] : await workspaceProjectDirs(workspaceDir, [], dir),
    rootDir: workspaceDir ?? dir,
    virtualStoreDir: config.virtualStoreDir,
    removeLockfile,
    onRemove: (target) => { ctx.stdout.write(`Removing ${path.relative(ctx.cwd, target) || '.'}\n`) },
  })
}
