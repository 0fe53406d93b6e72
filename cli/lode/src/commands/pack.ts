import type { PackOptions, PackResult } from '@lode/pkg-manager.releasing.pack'

import type { MainContext } from '../context.js'
import { inChunkOrder, selectedProjects } from '../selection.js'
import { runLifecycleScripts } from './lifecycle-scripts.js'
import { projectConfig } from './project-config.js'
import { refuseUnsupportedPackSettings } from './publish-settings.js'
import type { CommandInput } from './types.js'

const path = process.getBuiltinModule('node:path')

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
  const filters = values['filter'] as string[] | undefined ?? []
  const recursive = values['recursive'] === true || filters.length > 0
  const destination = values['pack-destination'] as string | undefined ?? settings.packDestination
  const out = values['out'] as string | undefined
  const packIn = async (
    projectDir: string,
    opts: Pick<PackProjectOptions, 'packDestination' | 'out'>,
    root: string | undefined = workspaceDir
  ): Promise<PackResult> => await packProject({
    dir: projectDir,
    workspaceDir: root,
    catalogs: config.catalogs,
    scripts: values['ignore-scripts'] === true ? undefined : ctx.stderr,
    keepScripts: values['skip-manifest-obfuscation'] as boolean | undefined ?? settings.skipManifestObfuscation,
    dryRun: values['dry-run'] === true,
    ...opts,
  })
  let packed: PackResult[]
  if (!recursive) {
    packed = [await packIn(dir, { packDestination: destination, out })]
  } else {
    // pnpm's `pack -r`: every selected project with a name and a version, dependencies first, into the current directory (or the destination, from there).
    const selection = { recursive: true, filters, workspaceRoot: false, failIfNoMatch: false, ifPresent: false }
    const selected = await selectedProjects(selection, { ...ctx, cwd: dir })
    if (typeof selected === 'number') return selected
    const packable = (await inChunkOrder(selected, dir)).filter(({ manifest }) => typeof manifest['name'] === 'string' && typeof manifest['version'] === 'string')
    if (packable.length === 0) ctx.stdout.write('There are no packages that should be packed\n')
    const where = out !== undefined ? { out: path.resolve(dir, out) } : { packDestination: path.resolve(dir, destination ?? '.') }
    packed = []
    // Outside a workspace, `-r` makes the directory one (its ignore files and LICENSE count), as pnpm's.
    for (const project of packable) packed.push(await packIn(project.dir, where, workspaceDir ?? dir))
  }
  const json = (result: PackResult): Record<string, unknown> =>
    ({ name: result.name, version: result.version, filename: result.filename, files: result.files.map((file) => ({ path: file })) })
  if (values['json'] === true) {
    ctx.stdout.write(`${JSON.stringify(recursive ? packed.map(json) : json(packed[0]!), null, 2)}\n`)
    return 0
  }
  // pnpm 11 sets no `unicode` option for pack: its report always starts `package:`.
  ctx.stdout.write(packed.map((result) =>
    `package: ${result.name}@${result.version}\nTarball Contents\n${result.files.join('\n')}\nTarball Details\n${result.filename}\n`).join('\n'))
  return 0
}

export interface PackProjectOptions extends Pick<PackOptions, 'dir' | 'workspaceDir' | 'catalogs' | 'keepScripts' | 'packDestination' | 'out' | 'dryRun'> {
  /** Run the project's `prepack`/`prepare` before and `postpack` after (not for `--ignore-scripts`), echoed on this stream. */
  scripts: NodeJS.WritableStream | undefined
}

/** A project packed as `lode pack` packs it (its workspace's projects give `workspace:` versions), with its pack scripts. */
export async function packProject (opts: PackProjectOptions): Promise<PackResult> {
  const [core, { pack }] = await Promise.all([import('@lode/pkg-manager.core'), import('@lode/pkg-manager.releasing.pack')])
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
