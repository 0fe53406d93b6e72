import path from 'node:path'

import type { DependencyGroup } from '@lode/core.constants'
import { LodeError } from '@lode/core.error'
import type { SupportedArchitectures } from '@lode/pkg-manager.installing.package-is-installable'
import { readLockfile } from '@lode/pkg-manager.lockfile.format'
import type { Lockfile } from '@lode/pkg-manager.lockfile.format'
import type { Registries } from '@lode/resolving.npm-resolver/registries'

import { collectComponents } from './components.js'
import { cycloneDx } from './cyclonedx.js'
import { readProjectManifest, rootDetails, workspaceProjectOf } from './details.js'
import { sortedGraph } from './document.js'
import type { SbomGraph } from './document.js'
import { purlOf } from './purl.js'
import { spdx } from './spdx.js'
import { storeDetails } from './store-details.js'

// `lode sbom`: the SBOM of a project (or of a workspace's selected projects), or one per project (`--split`).

export interface SbomFormat {
  format: 'cyclonedx' | 'spdx'
  /** The described project's component type (`--sbom-type`). */
  type: 'library' | 'application'
  /** CycloneDX's spec version (`--sbom-spec-version`). */
  specVersion: string
  /** CycloneDX's metadata authors and supplier (`--sbom-authors`, `--sbom-supplier`). */
  authors: readonly string[]
  supplier: string | undefined
}

export interface SbomOptions extends SbomFormat {
  lockfileDir: string
  /** The projects described, by directory: one is the SBOM's root; more (a workspace) are the root project's. */
  projectDirs: readonly string[]
  /** The workspace root (or the project, outside a workspace): the root component when several projects are described. */
  rootDir: string
  include: Readonly<Record<DependencyGroup, boolean>>
  /** Only the lockfile: no store reads, the optional packages of every platform (`--lockfile-only`). */
  lockfileOnly: boolean
  /** Leave out a project's peer dependencies that are none of its other dependencies (`--exclude-peers`). */
  excludePeers: boolean
  registries: Registries
  resolvePeersFromWorkspaceRoot: boolean
  supportedArchitectures: SupportedArchitectures | undefined
  storeDir: string
  tool: { name: string, version: string }
}

export interface Sbom {
  name: string
  version: string
  text: string
}

/** One SBOM of the projects together, or (`split`) one per project with a name, in the order given. */
export async function sboms (opts: SbomOptions & { split: boolean, compact: boolean }): Promise<Sbom[]> {
  const lockfile = (await readLockfile(opts.lockfileDir))?.lockfile
  if (lockfile === undefined) {
    throw new LodeError('SBOM_NO_LOCKFILE', `No pnpm-lock.yaml found in ${opts.lockfileDir}: cannot generate an SBOM without a lockfile.`, {
      hint: 'Run lode install (or lode install --lockfile-only) first.',
    })
  }
  const projects = await Promise.all(opts.projectDirs.map(async (dir) => ({ dir, manifest: await readProjectManifest(dir) ?? {} })))
  const rootManifest = projects.find((project) => project.dir === opts.rootDir)?.manifest ?? await readProjectManifest(opts.rootDir)
  const workspaceRoot = { dir: opts.rootDir, manifest: rootManifest ?? {} }
  const groups = opts.split ? projects.filter((project) => typeof project.manifest['name'] === 'string').map((project) => [project]) : [projects]
  const documents: Sbom[] = []
  for (const described of groups) {
    documents.push(await sbomOf(lockfile, described, workspaceRoot, opts))
  }
  return documents
}

type Project = { dir: string, manifest: Record<string, unknown> }

async function sbomOf (
  lockfile: Lockfile,
  described: readonly Project[],
  workspaceRoot: Project,
  opts: SbomOptions & { compact: boolean }
): Promise<Sbom> {
  const importerIds = described.map((project) => importerIdOf(opts.lockfileDir, project.dir))
  const missing = importerIds.filter((importerId) => lockfile.importers[importerId] === undefined)
  if (missing.length > 0) {
    throw new LodeError('SBOM_MISSING_IMPORTERS', `pnpm-lock.yaml has no entry for the selected project${missing.length === 1 ? '' : 's'}: ${missing.join(', ')}.`, {
      hint: 'Run lode install to update it.',
    })
  }
  const project = described.length === 1 ? described[0]! : workspaceRoot
  const name = typeof project.manifest['name'] === 'string' ? project.manifest['name'] : 'unknown'
  const version = typeof project.manifest['version'] === 'string' ? project.manifest['version'] : '0.0.0'
  const rootPurl = purlOf(name, version)
  const collected = await collectComponents(lockfile, {
    rootPurl,
    importerIds,
    include: opts.include,
    registries: opts.registries,
    resolvePeersFromWorkspaceRoot: opts.resolvePeersFromWorkspaceRoot,
    supportedArchitectures: opts.supportedArchitectures,
    lockfileOnly: opts.lockfileOnly,
    excludedPeers: opts.excludePeers ? await excludedPeers(lockfile, opts.lockfileDir) : undefined,
    workspaceProject: async (importerId) => {
      if (opts.lockfileOnly) return undefined
      const manifest = await readProjectManifest(path.join(opts.lockfileDir, importerId))
      return manifest === undefined ? undefined : workspaceProjectOf(manifest)
    },
  })
  const components = opts.lockfileOnly ? collected.components : await storeDetails(opts.storeDir, collected.components)
  const graph: SbomGraph = sortedGraph({
    root: { name, version, purl: rootPurl, type: opts.type, ...await rootDetails(project, workspaceRoot) },
    components,
    relationships: collected.relationships,
  })
  const text = opts.format === 'cyclonedx'
    ? cycloneDx(graph, opts)
    : spdx(graph, { tool: opts.tool.name, compact: opts.compact })
  return { name, version, text }
}

/** Each project's peer dependencies that are none of its dependencies, devDependencies or optionalDependencies. */
async function excludedPeers (lockfile: Lockfile, lockfileDir: string): Promise<Map<string, Set<string>>> {
  const byImporter = new Map<string, Set<string>>()
  for (const importerId of Object.keys(lockfile.importers)) {
    // An importer id is the lockfile's: only a directory inside the lockfile's is read.
    const dir = path.resolve(lockfileDir, importerId)
    if (path.relative(lockfileDir, dir).startsWith('..')) continue
    const manifest = await readProjectManifest(dir)
    if (manifest === undefined) continue
    const names = (field: string): string[] => Object.keys(objectField(manifest[field]))
    const regular = new Set([...names('dependencies'), ...names('devDependencies'), ...names('optionalDependencies')])
    byImporter.set(importerId, new Set(names('peerDependencies').filter((peer) => !regular.has(peer))))
  }
  return byImporter
}

function objectField (value: unknown): Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? value as Record<string, unknown> : {}
}

function importerIdOf (lockfileDir: string, dir: string): string {
  return path.relative(lockfileDir, dir).split(path.sep).join('/') || '.'
}
