import path from 'node:path'

import type { DependencyGroup } from '@lode/core.constants'
import { pkgIdOf, splitNameAt } from '@lode/core.dep-path'
import { currentPlatform, platformMismatch } from '@lode/pkg-manager.installing.package-is-installable'
import type { SupportedArchitectures } from '@lode/pkg-manager.installing.package-is-installable'
import type { Lockfile, PackageInfo } from '@lode/pkg-manager.lockfile.format'
import { dependencyRefs, devOnlyDepPaths, peerSatisfactionEdgesToSkip, walkDependencies } from '@lode/pkg-manager.lockfile.format'
import { registryFor, registryTarballUrl } from '@lode/resolving.npm-resolver/registries'
import type { Registries } from '@lode/resolving.npm-resolver/registries'
import semver from 'semver'

import { purlOf } from './purl.js'

// The packages an SBOM lists and which depends on which, from the lockfile, as pnpm 11 collects them.

/** What the SBOM says of a package beyond its name and version (from its package.json; none with `--lockfile-only`). */
export interface ComponentDetails {
  license?: string | undefined
  description?: string | undefined
  author?: string | undefined
  homepage?: string | undefined
  repository?: string | undefined
  bugsUrl?: string | undefined
}

export interface Component extends ComponentDetails {
  name: string
  version: string
  purl: string
  /** Installed only for development (CycloneDX's `excluded` scope). */
  devOnly: boolean
  integrity?: string | undefined
  tarballUrl?: string | undefined
  /** The lockfile's dependency path (a workspace project's: `link:<importer id>`): where its details are read from. */
  depPath: string
}

/** A workspace project the selected projects depend on (`link:`), with its package.json's fields. */
export interface WorkspaceProject extends ComponentDetails {
  name: string
  version: string
}

export interface CollectOptions {
  rootPurl: string
  /** The projects described (importer ids): their dependencies are the root's. */
  importerIds: readonly string[]
  include: Readonly<Record<DependencyGroup, boolean>>
  registries: Registries
  resolvePeersFromWorkspaceRoot: boolean
  /** Leave out optional packages this platform does not install (pnpm does, unless `--lockfile-only`). */
  supportedArchitectures: SupportedArchitectures | undefined
  lockfileOnly: boolean
  /** A project's peer dependencies that are none of its other dependencies (`--exclude-peers`), by importer id. */
  excludedPeers?: ReadonlyMap<string, ReadonlySet<string>> | undefined
  /** The package.json of a workspace project reached through `link:` (undefined: not read, or no name). */
  workspaceProject: (importerId: string) => Promise<WorkspaceProject | undefined>
}

export interface CollectedComponents {
  components: Component[]
  /** Edges between purls (the root's is `rootPurl`), each once, in the order found. */
  relationships: Array<{ from: string, to: string }>
}

/**
 * The components reached from the projects, each package version once (its purl), and every edge
 * between them. pnpm 12 records each edge; pnpm 11 only the first one its walk meets to each
 * package, so where two packages depend on a third lode (as pnpm 12) says both do.
 */
export async function collectComponents (lockfile: Lockfile, opts: CollectOptions): Promise<CollectedComponents> {
  const devOnly = devOnlyDepPaths(lockfile, opts)
  const skippedEdges = peerSatisfactionEdgesToSkip(lockfile, opts.include, opts)
  const platform = opts.lockfileOnly ? undefined : currentPlatform(opts.supportedArchitectures)
  const components = new Map<string, Component>()
  const relationships = new Map<string, { from: string, to: string }>()
  const relate = (from: string, to: string): void => {
    const key = `${from}\0${to}`
    if (!relationships.has(key)) relationships.set(key, { from, to })
  }

  // Workspace projects reached through `link:` from the described ones (and from those): components of their own.
  const described = new Set(opts.importerIds)
  const projectPurls = new Map<string, string>()
  const reachedProjects: string[] = []
  const projectDevOnly = new Map<string, boolean>()
  const links: Array<{ from: string, to: string }> = []
  const queue = [...opts.importerIds]
  for (let next = 0; next < queue.length; next++) {
    const importerId = queue[next]!
    for (const { target, dev } of projectLinks(lockfile, importerId, opts.include)) {
      links.push({ from: importerId, to: target })
      projectDevOnly.set(target, (projectDevOnly.get(target) ?? true) && dev)
      if (described.has(target) || reachedProjects.includes(target)) continue
      reachedProjects.push(target)
      queue.push(target)
    }
  }
  for (const importerId of reachedProjects) {
    const project = await opts.workspaceProject(importerId)
    if (project === undefined) continue
    const purl = purlOf(project.name, project.version)
    projectPurls.set(importerId, purl)
    if (!components.has(purl)) components.set(purl, { ...project, purl, devOnly: projectDevOnly.get(importerId) === true, depPath: `link:${importerId}` })
  }
  const purlOfImporter = (importerId: string): string | undefined =>
    described.has(importerId) ? opts.rootPurl : projectPurls.get(importerId)
  for (const link of links) {
    const from = purlOfImporter(link.from)
    const to = projectPurls.get(link.to)
    if (from !== undefined && to !== undefined) relate(from, to)
  }

  const walked = new Set<string>()
  // The purl of each package walked, so an edge from it is recorded under its purl.
  const purlOfDepPath = new Map<string, string>()
  for (const importerId of [...opts.importerIds, ...reachedProjects]) {
    const importerPurl = purlOfImporter(importerId)
    const importer = lockfile.importers[importerId]
    if (importerPurl === undefined || importer === undefined) continue
    const excluded = opts.excludedPeers?.get(importerId)
    const refs = Object.fromEntries(Object.entries({
      ...opts.include.devDependencies ? dependencyRefs(importer.devDependencies) : {},
      ...opts.include.dependencies ? dependencyRefs(importer.dependencies) : {},
      ...opts.include.dependencies && opts.include.optionalDependencies ? dependencyRefs(importer.optionalDependencies) : {},
    }).filter(([alias]) => excluded?.has(alias) !== true))
    walkDependencies(refs, {
      skip: skippedEdges,
      visit: (depPath, parentDepPath) => {
        const snapshot = lockfile.snapshots?.[depPath]
        const pkgId = pkgIdOf(depPath)
        const info = lockfile.packages?.[pkgId]
        if (snapshot === undefined || info === undefined) return undefined
        if (platform !== undefined && snapshot.optional === true && platformMismatch(info, platform) !== undefined) return undefined
        const identity = componentIdentity(pkgId, info)
        if (identity === undefined) return undefined
        relate(parentDepPath === undefined ? importerPurl : purlOfDepPath.get(parentDepPath)!, identity.purl)
        purlOfDepPath.set(depPath, identity.purl)
        const component = components.get(identity.purl)
        if (component === undefined) {
          components.set(identity.purl, {
            ...identity,
            devOnly: devOnly.has(depPath),
            integrity: verifiedIntegrity(info),
            tarballUrl: tarballUrlOf(info, identity, opts.registries),
            depPath,
          })
        } else if (!devOnly.has(depPath)) {
          component.devOnly = false
        }
        if (walked.has(depPath)) return undefined
        walked.add(depPath)
        return { ...snapshot.dependencies, ...opts.include.optionalDependencies ? snapshot.optionalDependencies : {} }
      },
    })
  }
  return { components: [...components.values()], relationships: [...relationships.values()] }
}

/** The `link:` dependencies of a project to other projects of the lockfile, each with whether only devDependencies name it. */
function projectLinks (
  lockfile: Lockfile,
  importerId: string,
  include: Readonly<Record<DependencyGroup, boolean>>
): Array<{ target: string, dev: boolean }> {
  const importer = lockfile.importers[importerId]
  if (importer === undefined) return []
  const production = {
    ...include.dependencies ? dependencyRefs(importer.dependencies) : {},
    ...include.optionalDependencies ? dependencyRefs(importer.optionalDependencies) : {},
  }
  const all = { ...production, ...include.devDependencies ? dependencyRefs(importer.devDependencies) : {} }
  const found: Array<{ target: string, dev: boolean }> = []
  for (const [alias, ref] of Object.entries(all)) {
    if (!ref.startsWith('link:')) continue
    const target = path.posix.normalize(importerId === '.' ? ref.slice(5) : path.posix.join(importerId, ref.slice(5)))
    // A link that leaves the lockfile's directory is no project of it.
    if (path.posix.isAbsolute(target) || target === '..' || target.startsWith('../') || !Object.hasOwn(lockfile.importers, target)) continue
    found.push({ target, dev: !(alias in production) })
  }
  return found
}

/** A package's name, version and purl; none for one without a version (a `file:` directory without one in the lockfile). */
function componentIdentity (pkgId: string, info: PackageInfo): { name: string, version: string, purl: string } | undefined {
  const { name, rest } = splitNameAt(pkgId)
  if (rest === undefined || name === '') return undefined
  const semverVersion = semver.valid(rest) === null ? undefined : rest
  const version = typeof info.version === 'string' ? info.version : semverVersion
  if (version === undefined) return undefined
  return { name, version, purl: purlOf(name, version, semverVersion === undefined ? rest : undefined) }
}

/** The integrity of a registry (or binary) tarball: what was checked when it was fetched. */
function verifiedIntegrity (info: PackageInfo): string | undefined {
  const resolution = info.resolution as { type?: unknown, integrity?: unknown }
  if (typeof resolution.integrity !== 'string') return undefined
  return resolution.type === undefined || resolution.type === 'binary' ? resolution.integrity : undefined
}

/** Where the package was downloaded from: its tarball (a registry's, by the configured registries), or `git+<repo>#<commit>`. */
function tarballUrlOf (info: PackageInfo, pkg: { name: string, version: string }, registries: Registries): string | undefined {
  const { name, version } = pkg
  const resolution = info.resolution as { type?: unknown, tarball?: unknown, integrity?: unknown, repo?: unknown, commit?: unknown }
  if (typeof resolution.tarball === 'string') return resolution.tarball
  if (resolution.type === 'git' && typeof resolution.repo === 'string' && typeof resolution.commit === 'string') {
    const prefix = resolution.repo.includes('://') && !resolution.repo.startsWith('git+') ? 'git+' : ''
    return `${prefix}${resolution.repo}#${resolution.commit}`
  }
  if (resolution.type === undefined && typeof resolution.integrity === 'string') return registryTarballUrl(registryFor(registries, name), name, version)
  return undefined
}
