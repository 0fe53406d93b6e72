import { LodeError } from '@lode/core.error'
import type { Config } from '@lode/pkg-manager.core'

import type { MainContext } from '../context.js'
import { createReporter } from '../reporter.js'
import type { Reporter, ReporterName } from '../reporter.js'
import { selectProjects } from '../selection.js'
import { runLifecycleScripts } from './lifecycle-scripts.js'
import { packProject } from './pack.js'
import { projectConfig } from './project-config.js'
import { refuseUnsupportedPackSettings } from './publish-settings.js'
import type { CommandInput } from './types.js'

const fs = process.getBuiltinModule('node:fs')
const os = process.getBuiltinModule('node:os')
const path = process.getBuiltinModule('node:path')

// pnpm 11's `publish`: git checks, the project's publish scripts, the project packed as `lode pack`
// packs it (into a temp directory), and the tarball sent to the registry; `-r` publishes the
// workspace's projects whose version the registry does not have yet, dependencies first.

interface PublishFlags {
  tag: string | undefined
  access: 'public' | 'restricted' | undefined
  otp: string | undefined
  dryRun: boolean
  /** pnpm's `skipManifestObfuscation`: the scripts stay in the published package.json. */
  skipManifestObfuscation: boolean
  /** Where the scripts' `$ <script>` lines go; undefined for `--ignore-scripts`. */
  scripts: NodeJS.WritableStream | undefined
}

export async function publishCommand (input: CommandInput, ctx: MainContext): Promise<number> {
  const { values, positionals } = input.args!
  const reporter = createReporter((values['reporter'] ?? 'default') as ReporterName, ctx)
  const { dir, workspaceDir, config } = await projectConfig(input, ctx)
  await refuseUnsupportedPackSettings(workspaceDir ?? dir)
  const settings = config.publish
  const access = values['access'] as string | undefined ?? settings.access
  if (access !== undefined && access !== 'public' && access !== 'restricted') {
    throw new LodeError('BAD_ARGUMENTS', `--access must be public or restricted, not "${access}".`)
  }
  const flags: PublishFlags = {
    tag: values['tag'] as string | undefined ?? settings.tag,
    access,
    otp: values['otp'] as string | undefined ?? ctx.env['PNPM_CONFIG_OTP'] ?? ctx.env['NPM_CONFIG_OTP'] ?? settings.otp,
    dryRun: values['dry-run'] === true,
    skipManifestObfuscation: settings.skipManifestObfuscation,
    scripts: values['ignore-scripts'] === true ? undefined : ctx.stderr,
  }
  if (values['git-checks'] as boolean | undefined ?? settings.gitChecks) {
    const [{ checkGitForPublish }, { isCI }] = await Promise.all([import('@lode/pkg-manager.releasing.publish'), import('@lode/pkg-manager.config.settings')])
    await checkGitForPublish(dir, { publishBranch: values['publish-branch'] as string | undefined ?? settings.publishBranch, ci: isCI(ctx.env) })
  }
  const filters = values['filter'] as string[] | undefined ?? []
  if (values['recursive'] === true || filters.length > 0) return await publishRecursive({ dir, config, flags, filters, force: values['force'] === true, reporter })
  const target = positionals[0]
  if (target !== undefined && /\.t(?:ar\.)?gz$/.test(target)) {
    // A packed tarball goes as it is: no scripts, no pack (pnpm's publish <tarball>).
    const file = path.resolve(dir, target)
    const { packedManifest } = await import('@lode/pkg-manager.releasing.publish')
    let tarball: Buffer
    try {
      tarball = fs.readFileSync(file)
    } catch (err) {
      throw new LodeError('PUBLISH_BAD_TARBALL', `${file} cannot be read: ${(err as Error).message}`, { hint: 'Check the tarball\'s path.' })
    }
    await send(config, await packedManifest(tarball, file), tarball, flags, reporter)
    return 0
  }
  await publishProject(target === undefined ? dir : path.resolve(dir, target), workspaceDir, config, flags, reporter)
  return 0
}

/** One project: prepublishOnly and prepublish, the pack (with its scripts), the upload, then publish and postpublish (a dry run too, as pnpm). */
async function publishProject (
  dir: string,
  workspaceDir: string | undefined,
  config: Config,
  flags: PublishFlags,
  reporter: Reporter
): Promise<void> {
  const run = async (events: readonly string[]): Promise<void> => {
    if (flags.scripts !== undefined) await runLifecycleScripts(dir, events, flags.scripts)
  }
  await run(['prepublishOnly', 'prepublish'])
  const destination = fs.mkdtempSync(path.join(os.tmpdir(), 'lode-publish-'))
  try {
    const packed = await packProject({
      dir,
      workspaceDir,
      catalogs: config.catalogs,
      scripts: flags.scripts,
      keepScripts: flags.skipManifestObfuscation,
      packDestination: destination,
    })
    await send(config, packed.manifest, fs.readFileSync(path.resolve(dir, packed.filename)), flags, reporter)
  } finally {
    fs.rmSync(destination, { recursive: true, force: true })
  }
  await run(['publish', 'postpublish'])
}

/** The packed package sent to its registry, the lines printed as pnpm prints them. */
async function send (
  config: Config,
  manifest: Record<string, unknown>,
  tarball: Buffer,
  flags: PublishFlags,
  reporter: Reporter
): Promise<void> {
  const { publishPackage } = await import('@lode/pkg-manager.releasing.publish')
  await publishPackage({
    config,
    manifest,
    tarball,
    tag: flags.tag,
    access: flags.access,
    otp: flags.otp,
    dryRun: flags.dryRun,
    onInfo: (message) => { reporter.print(message) },
    onWarning: (message) => { reporter.warn(message) },
  })
}

/** `publish -r`: the selected projects with a name and a version, not private, that the registry lacks (all of them with `--force`), dependencies first. */
async function publishRecursive (
  opts: { dir: string, config: Config, flags: PublishFlags, filters: string[], force: boolean, reporter: Reporter }
): Promise<number> {
  const selection = { recursive: true, filters: opts.filters, workspaceRoot: false, failIfNoMatch: false, ifPresent: false }
  const selected = await selectProjects(selection, opts.dir)
  const { isPublished } = await import('@lode/pkg-manager.releasing.publish')
  const candidates = selected.projects.filter(({ manifest }) =>
    typeof manifest['name'] === 'string' && typeof manifest['version'] === 'string' && manifest['private'] !== true)
  const toPublish = []
  for (const project of candidates) {
    if (opts.force || !await isPublished(opts.config, project.manifest)) toPublish.push(project)
  }
  if (toPublish.length === 0) {
    opts.reporter.print('There are no new packages that should be published')
    return 0
  }
  for (const project of toPublish) await publishProject(project.dir, selected.rootDir, opts.config, opts.flags, opts.reporter)
  return 0
}
