import { LodeError } from '@lode/core.error'

import type { MainContext } from '../context.js'
import { projectConfig, workspaceProjectDirs } from './project-config.js'
import type { CommandInput } from './types.js'

const fs = process.getBuiltinModule('node:fs')
const path = process.getBuiltinModule('node:path')

/**
 * `lode why <pkg>…`: the packages that depend on it, up to the projects, as pnpm 11 prints them.
 * In a workspace every project is searched (pnpm's `why` is recursive by default), or the ones
 * `--filter` selects.
 */
export async function whyCommand (input: CommandInput, ctx: MainContext): Promise<number> {
  const { values, positionals } = input.args!
  const depth = depthOf(values['depth'])
  const { why } = await import('@lode/pkg-manager.reviewing.inspection')
  const { dir, workspaceDir, config } = await projectConfig(input, ctx)
  const projectDirs = workspaceDir === undefined ? [dir] : await workspaceProjectDirs(workspaceDir, values['filter'] as string[] | undefined ?? [], dir)
  const output = await why({
    queries: positionals,
    lockfileDir: workspaceDir ?? dir,
    projectDirs,
    include: includeOf(values),
    resolvePeersFromWorkspaceRoot: config.resolvePeersFromWorkspaceRoot,
    depth,
    format: values['parseable'] === true ? 'parseable' : values['json'] === true ? 'json' : 'text',
    long: values['long'] === true,
  })
  if (output !== '') ctx.stdout.write(output.endsWith('\n') ? output : `${output}\n`)
  return 0
}

/**
 * `lode list` / `lode ls`: the projects' dependencies as pnpm 11 lists them. In a workspace, from
 * its root (or with `-r`, `--filter`) every selected project in one listing; from a project's
 * directory, that project.
 */
export async function listCommand (input: CommandInput, ctx: MainContext): Promise<number> {
  const { values, positionals } = input.args!
  const depth = depthOf(values['depth']) ?? 0
  const { createPackageSearch, list } = await import('@lode/pkg-manager.reviewing.inspection')
  // `lode ls <pattern>…`: only the paths to the packages the patterns match (`babel-*`, `react@^18`).
  const search = positionals.length > 0 ? createPackageSearch(positionals) : undefined
  // The registries, for `--json`'s tarball URLs.
  const { dir, workspaceDir, config } = await projectConfig(input, ctx)
  const filters = values['filter'] as string[] | undefined ?? []
  const recursive = workspaceDir !== undefined && (values['recursive'] === true || filters.length > 0 || fs.realpathSync(dir) === fs.realpathSync(workspaceDir))
  const projectDirs = workspaceDir !== undefined && recursive ? await workspaceProjectDirs(workspaceDir, filters, dir) : [dir]
  // pnpm's words when there is nothing to list (none with --parseable).
  const none = projectDirs.length === 0 && filters.length > 0
    ? `No projects matched the filters in "${workspaceDir ?? dir}"`
    : values['recursive'] === true && workspaceDir === undefined && !fs.existsSync(path.join(dir, 'package.json')) ? `No projects found in "${dir}"` : undefined
  if (none !== undefined) {
    if (values['parseable'] !== true) ctx.stdout.write(`${none}\n`)
    return values['fail-if-no-match'] === true ? 1 : 0
  }
  const output = await list({
    registries: { default: config.registry, scoped: config.scopedRegistries },
    lockfileDir: workspaceDir ?? dir,
    projectDirs,
    include: includeOf(values),
    resolvePeersFromWorkspaceRoot: config.resolvePeersFromWorkspaceRoot,
    depth,
    recursive,
    lockfileOnly: values['lockfile-only'] === true,
    format: values['parseable'] === true ? 'parseable' : values['json'] === true ? 'json' : 'text',
    // `ll` and `la` are `list --long`.
    long: values['long'] === true || input.name === 'll' || input.name === 'la',
    search,
  })
  if (output !== '') ctx.stdout.write(output.endsWith('\n') ? output : `${output}\n`)
  return 0
}

/** pnpm's dependency-group flags of the inspecting commands: `--prod` leaves out dev dependencies, `--dev` production ones, `--no-optional` optional ones. */
export function includeOf (values: Readonly<Record<string, unknown>>): Record<'dependencies' | 'devDependencies' | 'optionalDependencies', boolean> {
  const prod = values['prod'] === true || values['production'] === true
  const dev = values['dev'] === true
  return {
    dependencies: !dev,
    devDependencies: !prod,
    // `--dev` keeps the packages' optional dependencies, as pnpm's inspecting commands do (a project's own come with its production ones).
    optionalDependencies: values['optional'] !== false,
  }
}

function depthOf (value: unknown): number | undefined {
  if (typeof value !== 'string') return undefined
  const depth = Number(value)
  if (value.trim() === '' || Number.isNaN(depth)) {
    throw new LodeError('BAD_ARGUMENTS', `--depth takes a number, not "${value}".`, { hint: 'For example: --depth 1, --depth Infinity.' })
  }
  return depth
}

/**
 * `lode peers [check]`: pnpm 11's check of the lockfile's peers (what is installed, or with
 * `--lockfile-only` pnpm-lock.yaml); in a workspace every project unless a selection says which.
 */
export async function peersCommand (input: CommandInput, ctx: MainContext): Promise<number> {
  const { values } = input.args!
  const { peersCheck } = await import('@lode/pkg-manager.reviewing.inspection')
  const { dir, workspaceDir, config } = await projectConfig(input, ctx)
  const projectDirs = workspaceDir === undefined ? [dir] : await workspaceProjectDirs(workspaceDir, values['filter'] as string[] | undefined ?? [], dir)
  const { output, exitCode } = await peersCheck({
    lockfileDir: workspaceDir ?? dir,
    projectDirs,
    lockfileOnly: values['lockfile-only'] === true,
    json: values['json'] === true,
    rules: config.peerDependencyRules,
  })
  ctx.stdout.write(`${output}\n`)
  return exitCode
}

/**
 * `lode fund [<pkg>]`: pnpm 12's, the installed packages' funding as a tree or `--json`; with a
 * package, its funding URLs (`--which N` picks one), the one chosen opened on a terminal.
 */
export async function fundCommand (input: CommandInput, ctx: MainContext): Promise<number> {
  const { values, positionals } = input.args!
  const inspection = await import('@lode/pkg-manager.reviewing.inspection')
  const { dir, workspaceDir } = await projectConfig(input, ctx)
  const tree = await inspection.fundingTree(dir, workspaceDir ?? dir)
  const name = positionals[0]
  if (name === undefined) {
    ctx.stdout.write(`${values['json'] === true ? inspection.fundingJson(tree) : inspection.renderFundingTree(tree)}\n`)
    return 0
  }
  const which = values['which'] === undefined ? undefined : Number(values['which'])
  if (which !== undefined && (!Number.isInteger(which) || which < 1)) {
    const { LodeError } = await import('@lode/core.error')
    throw new LodeError('BAD_ARGUMENTS', `--which must be a whole number from 1, got ${String(values['which'])}.`)
  }
  const { text, url } = inspection.renderFundingChoice(name, inspection.fundingOf(tree, name), which)
  ctx.stdout.write(`${text}\n`)
  if (url !== undefined && ctx.stdout.isTTY === true) (await import('../open-url.js')).openInBrowser(url, ctx.env)
  return 0
}
