import { LodeError } from '@lode/core.error'

import type { MainContext } from '../context.js'
import { VERSION } from '../version.js'
import { includeOf } from './inspect.js'
import { projectConfig, workspaceProjectDirs } from './project-config.js'
import type { CommandInput } from './types.js'

/**
 * `lode sbom`: a CycloneDX or SPDX SBOM of the project, as pnpm 11 writes it. In a workspace, of
 * every project (or those --filter selects) together; `--split` (or an `--out` with `%s`), one per project.
 */
export async function sbomCommand (input: CommandInput, ctx: MainContext): Promise<number> {
  const { values } = input.args!
  const { sboms, sbomFormatOf, writeSbomFiles } = await import('@lode/pkg-manager.reviewing.sbom')
  const text = (name: string): string | undefined => typeof values[name] === 'string' ? values[name] : undefined
  const format = sbomFormatOf({ format: text('sbom-format'), type: text('sbom-type'), specVersion: text('sbom-spec-version'), authors: text('sbom-authors'), supplier: text('sbom-supplier') })
  const { dir, workspaceDir, config } = await projectConfig(input, ctx)
  const out = text('out')
  const split = values['split'] === true || (out?.includes('%s') === true && workspaceDir !== undefined)
  if (split && workspaceDir === undefined) {
    throw new LodeError('SBOM_NO_PROJECTS', 'No workspace projects found. --split requires a workspace.')
  }
  if (split && out !== undefined && !out.includes('%s')) {
    throw new LodeError('SBOM_OUT_MISSING_PLACEHOLDER', 'When using --split with --out, the path must contain %s as a placeholder for the package name.', { hint: 'For example: --out sboms/%s.cdx.json' })
  }
  // Every project of a workspace unless --filter (or -w) picks some (pnpm's sbom is recursive there).
  const projectDirs = workspaceDir === undefined
    ? [dir]
    : values['workspace-root'] === true ? [workspaceDir] : await workspaceProjectDirs(workspaceDir, values['filter'] as string[] | undefined ?? [], dir)
  const documents = await sboms({
    ...format,
    lockfileDir: workspaceDir ?? dir,
    projectDirs,
    rootDir: workspaceDir ?? dir,
    include: includeOf(values),
    lockfileOnly: values['lockfile-only'] === true,
    excludePeers: values['exclude-peers'] === true,
    registries: { default: config.registry, scoped: config.scopedRegistries },
    resolvePeersFromWorkspaceRoot: config.resolvePeersFromWorkspaceRoot,
    supportedArchitectures: config.supportedArchitectures,
    storeDir: config.storeDir,
    tool: { name: 'lode', version: VERSION },
    split,
    // Several to standard output: one per line (NDJSON).
    compact: split && out === undefined,
  })
  if (out === undefined) {
    ctx.stdout.write(`${documents.map((document) => document.text).join('\n')}\n`)
    return 0
  }
  const files = await writeSbomFiles(documents, out, ctx.cwd)
  ctx.stdout.write(split ? `Generated ${files.length} SBOMs:\n${files.map((file) => `  ${file}`).join('\n')}\n` : `${files[0]!}\n`)
  return 0
}
