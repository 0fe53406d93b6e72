import type { MainContext } from '../context.js'
import { VERSION } from '../version.js'
import { projectConfig } from './project-config.js'
import type { CommandInput } from './types.js'

/**
 * `lode pack`: the project as the tarball pnpm 11 would publish (npm's file list, pnpm's packed
 * package.json), `<name>-<version>.tgz` in the project or `--pack-destination`, with the project's
 * `prepack`/`prepare` scripts before and `postpack` after; prints the files, or `--json`.
 */
export async function packCommand (input: CommandInput, ctx: MainContext): Promise<number> {
  const { values } = input.args!
  const { dir, workspaceDir, config } = await projectConfig(input, ctx)
  const [core, { pack }, { runProjectScript }] = await Promise.all([
    import('@lode/pkg-manager.core'),
    import('@lode/pkg-manager.pack'),
    import('@lode/pkg-manager.lifecycle'),
  ])
  const scripts = values['ignore-scripts'] !== true
  const run = async (events: readonly string[]): Promise<void> => {
    if (!scripts) return
    const manifest = await core.readProjectManifest(dir)
    for (const event of events) await runProjectScript(event, { dir, manifest, stdio: 'inherit', userAgent: core.lodeUserAgent(VERSION) })
  }
  await run(['prepack', 'prepare'])
  const projects = workspaceDir === undefined
    ? []
    : await core.findWorkspaceProjects(workspaceDir, core.readWorkspacePackages(workspaceDir) ?? [])
  const packed = await pack({
    dir,
    workspaceDir,
    catalogs: config.catalogs,
    workspaceManifests: new Map(projects.flatMap((project) => typeof project.manifest['name'] === 'string' ? [[project.manifest['name'], project.manifest]] : [])),
    keepScripts: values['skip-manifest-obfuscation'] === true,
    packDestination: values['pack-destination'] as string | undefined,
    out: values['out'] as string | undefined,
    dryRun: values['dry-run'] === true,
  })
  if (values['dry-run'] !== true) await run(['postpack'])
  if (values['json'] === true) {
    ctx.stdout.write(`${JSON.stringify({ name: packed.name, version: packed.version, filename: packed.filename, files: packed.files.map((file) => ({ path: file })) }, null, 2)}\n`)
    return 0
  }
  // pnpm 11 sets no `unicode` option for pack: its report always starts `package:`.
  ctx.stdout.write(`package: ${packed.name}@${packed.version}\nTarball Contents\n${packed.files.join('\n')}\nTarball Details\n${packed.filename}\n`)
  return 0
}
