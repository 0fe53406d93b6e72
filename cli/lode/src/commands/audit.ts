import { LodeError } from '@lode/core.error'

import type { MainContext } from '../context.js'
import { includeOf } from './inspect.js'
import { projectConfig, workspaceProjectDirs } from './project-config.js'
import type { CommandInput } from './types.js'

const path = process.getBuiltinModule('node:path')

const SEVERITIES = ['info', 'low', 'moderate', 'high', 'critical'] as const

/**
 * `lode audit`: the registry's advisories for the packages pnpm-lock.yaml installs, as pnpm 11
 * reports them; `--fix` writes overrides to the fixed versions, `--ignore`/`--ignore-unfixable`
 * add GHSAs to the ignored ones. Exits 1 when an advisory at `--audit-level` is left.
 */
export async function auditCommand (input: CommandInput, ctx: MainContext): Promise<number> {
  const { values, positionals } = input.args!
  if (positionals[0] === 'deprecations' || positionals[0] === 'engines') return await installedCheck(positionals[0], input, ctx)
  if (positionals.length > 0) {
    if (positionals[0] === 'signatures') {
      throw new LodeError('COMMAND_NOT_IMPLEMENTED', 'lode audit signatures is not implemented yet.', { hint: 'Run pnpm audit signatures to verify the registry signatures.' })
    }
    throw new LodeError('AUDIT_UNKNOWN_SUBCOMMAND', `Unknown audit subcommand: ${positionals[0]!}`, { hint: 'Run lode audit --help.' })
  }
  if (values['interactive'] === true) {
    throw new LodeError('COMMAND_NOT_IMPLEMENTED', 'lode audit --interactive is not implemented yet.', { hint: 'Run lode audit --fix, or pnpm audit --interactive to pick the fixes.' })
  }
  const level = values['audit-level'] as string | undefined
  if (level !== undefined && !(SEVERITIES as readonly string[]).includes(level)) {
    throw new LodeError('BAD_ARGUMENTS', `Invalid value for --audit-level: ${level}`, { hint: `Use one of ${SEVERITIES.join(', ')}.` })
  }
  const fix = fixMethod(values['fix'] as string | undefined)
  const ignore = values['ignore'] as string[] | undefined
  const ignoreUnfixable = values['ignore-unfixable'] === true
  if (fix && (ignore !== undefined || ignoreUnfixable)) {
    throw new LodeError('AUDIT_FIX_WITH_IGNORE', `"--fix" may not be used with "${ignore !== undefined ? '--ignore' : '--ignore-unfixable'}"`)
  }
  const { config, importerIds } = await auditedProjects(input, ctx)
  const { audit } = await import('@lode/pkg-manager.reviewing.audit')
  const { output, exitCode } = await audit({
    config,
    include: includeOf(values),
    importerIds,
    level: level as typeof SEVERITIES[number] | undefined,
    json: values['json'] === true,
    fix,
    ignore,
    ignoreUnfixable,
    ignoreRegistryErrors: values['ignore-registry-errors'] === true,
    command: 'lode',
    now: () => Date.now(),
    onInfo: (message) => { ctx.stdout.write(`${message}\n`) },
    onWarning: (message) => { ctx.stderr.write(`WARN  ${message}\n`) },
  })
  ctx.stdout.write(output.endsWith('\n') ? output : `${output}\n`)
  return exitCode
}

/** `--fix` alone or `--fix override`: overrides; `--fix update` is pnpm's alone for now. */
function fixMethod (value: string | undefined): boolean {
  if (value === undefined) return false
  if (value === '' || value === 'override' || value === 'true') return true
  if (value === 'update') {
    throw new LodeError('COMMAND_NOT_IMPLEMENTED', 'lode audit --fix update is not implemented yet.', {
      hint: 'Run lode audit --fix (overrides in pnpm-workspace.yaml), or pnpm audit --fix update to update the lockfile instead.',
    })
  }
  throw new LodeError('INVALID_FIX_OPTION', `Invalid value for --fix: ${value}. Should be one of "override" or "update"`)
}

/**
 * `lode audit deprecations` / `lode audit engines` (pnpm 12.24's): the installed packages the
 * registry marks deprecated, or that do not support this Node.js or platform; exit code 1 when any.
 */
async function installedCheck (check: 'deprecations' | 'engines', input: CommandInput, ctx: MainContext): Promise<number> {
  const { values } = input.args!
  const { config, importerIds } = await auditedProjects(input, ctx)
  const { auditDeprecations, auditEngines } = await import('@lode/pkg-manager.reviewing.audit')
  const { output, exitCode } = await (check === 'deprecations' ? auditDeprecations : auditEngines)({
    config,
    include: includeOf(values),
    importerIds,
    json: values['json'] === true,
    onWarning: (message) => { ctx.stderr.write(`WARN  ${message}\n`) },
  })
  ctx.stdout.write(output.endsWith('\n') ? output : `${output}\n`)
  return exitCode
}

/** The projects audited: every one of the lockfile, or in a workspace those --filter (or -w) selects. */
async function auditedProjects (input: CommandInput, ctx: MainContext): Promise<{ config: Awaited<ReturnType<typeof projectConfig>>['config'], importerIds: string[] | undefined }> {
  const { values } = input.args!
  const { dir, workspaceDir, config } = await projectConfig(input, ctx)
  const filters = values['filter'] as string[] | undefined ?? []
  if (workspaceDir === undefined || (filters.length === 0 && values['workspace-root'] !== true)) return { config, importerIds: undefined }
  const dirs = values['workspace-root'] === true ? [workspaceDir] : await workspaceProjectDirs(workspaceDir, filters, dir)
  return { config, importerIds: dirs.map((projectDir) => path.relative(workspaceDir, projectDir).split(path.sep).join('/') || '.') }
}
