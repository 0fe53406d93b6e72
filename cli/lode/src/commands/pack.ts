import type { PackOptions, PackResult } from '@lode/pkg-manager.pack'

import type { MainContext } from '../context.js'
import { runLifecycleScripts } from './lifecycle-scripts.js'
import { projectConfig } from './project-config.js'
import { refuseUnsupportedPackSettings } from './publish-settings.js'
import type { CommandInput } from './types.js'

/**
 * `lode pack`: the project as the tarball pnpm 11 would publish (npm's file list, pnpm's packed
 * package.json), `<name>-<version>.tgz` in the project or `--pack-destination`, with the project's
 * `prepack`/`prepare` scripts before and `postpack` after; prints the files, or `--json`.
 */
export async function packCommand (input: CommandInput, ctx: MainContext): Promise<number> {
  const { values } = input.args!
  const { dir, workspaceDir, config } = await projectConfig(input, ctx)
  await refuseUnsupportedPackSettings(workspaceDir ?? dir)
  const settings = config.publish
  const packed = await packProject({
    dir,
    workspaceDir,
    catalogs: config.catalogs,
    scripts: values['ignore-scripts'] === true ? undefined : ctx.stderr,
    keepScripts: values['skip-manifest-obfuscation'] as boolean | undefined ?? settings.skipManifestObfuscation,
    packDestination: values['pack-destination'] as string | undefined ?? settings.packDestination,
    out: values['out'] as string | undefined,
    dryRun: values['dry-run'] === true,
  })
  if (values['json'] === true) {
    ctx.stdout.write(`${JSON.stringify({ name: packed.name, version: packed.version, filename: packed.filename, files: packed.files.map((file) => ({ path: file })) }, null, 2)}\n`)
    return 0
  }
  // pnpm 11 sets no `unicode` option for pack: its report always starts `package:`.
  ctx.stdout.write(`package: ${packed.name}@${packed.version}\nTarball Contents\n${packed.files.join('\n')}\nTarball Details\n${packed.filename}\n`)
  return 0
}

export interface PackProjectOptions extends Pick<PackOptions, 'dir' | 'workspaceDir' | 'catalogs' | 'keepScripts' | 'packDestination' | 'out' | 'dryRun'> {
  /** Run the project's `prepack`/`prepare` before and `postpack` after (not for `--ignore-scripts`), echoed on this stream. */
  scripts: NodeJS.WritableStream | undefined
}

/** A project packed as `lode pack` packs it (its workspace's projects give `workspace:` versions), with its pack scripts. */
export async function packProject (opts: PackProjectOptions): Promise<PackResult> {
  const [core, { pack }] = await Promise.all([import('@lode/pkg-manager.core'), import('@lode/pkg-manager.pack')])
  const { dir, workspaceDir, scripts } = opts
  const run = async (events: readonly string[]): Promise<void> => {
    if (scripts !== undefined) await runLifecycleScripts(dir, events, scripts)
  }
  await run(['prepack', 'prepare'])
  const projects = workspaceDir === undefined
    ? []
    : await core.findWorkspaceProjects(workspaceDir, core.readWorkspacePackages(workspaceDir) ?? [])
  const packed = await pack({
    ...opts,
    workspaceManifests: new Map(projects.flatMap((project) => typeof project.manifest['name'] === 'string' ? [[project.manifest['name'], project.manifest]] : [])),
  })
  if (opts.dryRun !== true) await run(['postpack'])
  return packed
}
