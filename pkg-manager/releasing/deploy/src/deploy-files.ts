import path from 'node:path'
import { pathToFileURL } from 'node:url'

import type { DependencyGroup } from '@lode/core.constants'
import { WANTED_LOCKFILE } from '@lode/core.constants'
import { parseDepPath, pkgIdOf, refToDepPath, splitNameAt, withoutPeersSuffix } from '@lode/core.dep-path'
import { LodeError } from '@lode/core.error'
import { joinRecorded } from '@lode/core.safe-name'
import type { Lockfile, PackageInfo, ProjectSnapshot, ResolvedDependency, Resolution, SnapshotInfo } from '@lode/pkg-manager.lockfile.format'
import semver from 'semver'

// pnpm 11's deploy files: the deployed project as a workspace of its own, whose lockfile is the
// shared lockfile cut down to what the project reaches. Its workspace dependencies become
// directory packages named by file URL (`lib@file:///…/packages/lib`), copied into the deploy
// directory's node_modules by the install that follows, as pnpm's `createDeployFiles` makes them.

export interface DeployFilesInput {
  lockfile: Lockfile
  /** The workspace root, where pnpm-lock.yaml is (absolute). */
  lockfileDir: string
  /** The deployed project's importer id (`packages/app`). */
  projectId: string
  /** Every project of the workspace (absolute, real directories) with its manifest. */
  projects: ReadonlyArray<{ dir: string, manifest: Record<string, unknown> }>
  deployDir: string
  include: Readonly<Record<DependencyGroup, boolean>>
  /** The deployed project's package.json. */
  manifest: Record<string, unknown>
  /** `patchedDependencies` as configured (key → file, relative to the workspace root). */
  patchedDependencies: Readonly<Record<string, string>>
  allowBuilds: Readonly<Record<string, boolean>>
}

export interface DeployFiles {
  lockfile: Lockfile
  manifest: Record<string, unknown>
  /** The deploy directory's pnpm-workspace.yaml, in pnpm's key order. */
  workspaceManifest: Record<string, unknown>
}

const GROUPS = ['dependencies', 'devDependencies', 'optionalDependencies'] as const

interface LinkTarget {
  resolvedPath: string
  /** The patch hash and peers suffix a `name@file:…` reference carried. */
  suffix: string
  packageName?: string
}

export function createDeployFiles (input: DeployFilesInput): DeployFiles {
  const { lockfile, lockfileDir, deployDir } = input
  const deployedDir = path.resolve(lockfileDir, input.projectId)
  const fileDepPath = (target: LinkTarget): string => {
    const project = input.projects.find((candidate) => candidate.dir === target.resolvedPath)
    const name = typeof project?.manifest['name'] === 'string' ? project.manifest['name'] : target.packageName ?? path.basename(target.resolvedPath)
    return `${name}@${pathToFileURL(target.resolvedPath).toString()}${target.suffix}`
  }
  /** A reference as the deploy lockfile names it: `file:`/`link:` ones by file URL (`link:.` for the deployed project), others as they were. */
  const convertRef = (alias: string, ref: string, baseDir: string): string => {
    const target = linkOrFileTarget(ref, lockfileDir, baseDir)
    if (target === undefined) return ref
    if (target.resolvedPath === deployedDir) return 'link:.'
    return fileDepPath({ ...target, packageName: target.packageName ?? alias })
  }
  const convertRefs = (refs: Record<string, string> | undefined, baseDir: string): Record<string, string> | undefined =>
    refs === undefined ? undefined : mapValues(refs, (ref, alias) => convertRef(alias, ref, baseDir))

  // The lockfile's packages, under their deploy names.
  const packages = new Map<string, PackageInfo>()
  const snapshots = new Map<string, SnapshotInfo>()
  for (const [depPath, snapshot] of Object.entries(lockfile.snapshots ?? {})) {
    const target = linkOrFileTarget(depPath, lockfileDir, lockfileDir)
    const outPath = target === undefined ? depPath : fileDepPath(target)
    const dependencies = convertRefs(snapshot.dependencies, lockfileDir)
    snapshots.set(outPath, withDeps(snapshot, dependencies, convertRefs(snapshot.optionalDependencies, lockfileDir)))
    const info = lockfile.packages?.[pkgIdOf(depPath)]
    if (info !== undefined) {
      packages.set(pkgIdOf(outPath), { ...info, resolution: convertResolution(info.resolution, lockfileDir, deployDir) })
    }
  }
  // The other projects: directory packages.
  for (const [importerId, importer] of Object.entries(lockfile.importers)) {
    if (importerId === input.projectId) continue
    const dir = importerDir(lockfileDir, importerId)
    const manifest = input.projects.find((project) => project.dir === dir)?.manifest
    const depPath = fileDepPath({ resolvedPath: dir, suffix: '' })
    const versions = (group: 'dependencies' | 'optionalDependencies'): Record<string, string> | undefined =>
      importer[group] === undefined ? undefined : mapValues(importer[group], (dep) => dep.version)
    snapshots.set(depPath, withDeps({}, convertRefs(versions('dependencies'), dir), convertRefs(versions('optionalDependencies'), dir)))
    packages.set(depPath, {
      resolution: { directory: toPosix(path.relative(deployDir, dir)), type: 'directory' },
      ...manifest === undefined ? {} : lockfilePeers(manifest),
    })
  }

  const target = deployImporter(input, lockfile.importers[input.projectId] ?? {}, (alias, ref) => convertRef(alias, ref, deployedDir))
  const reachable = reachableDepPaths(target, snapshots, input.include.optionalDependencies)
  const keptSnapshots: Record<string, SnapshotInfo> = {}
  const keptPackages: Record<string, PackageInfo> = {}
  for (const depPath of reachable) {
    const snapshot = { ...snapshots.get(depPath)! }
    if (!input.include.optionalDependencies) delete snapshot.optionalDependencies
    keptSnapshots[depPath] = snapshot
    const info = packages.get(pkgIdOf(depPath))
    if (info !== undefined) keptPackages[pkgIdOf(depPath)] = info
  }
  // Catalogs, overrides, extensions and the pnpmfile are in the packages already; patches are added back below when used.
  const kept: Lockfile = { ...lockfile }
  for (const key of ['catalogs', 'patchedDependencies', 'overrides', 'packageExtensionsChecksum', 'pnpmfileChecksum'] as const) delete kept[key]
  const { injectWorkspacePackages: _inject, ...settings } = lockfile.settings ?? {}
  const deployLockfile: Lockfile = { ...kept, settings, importers: { '.': target }, packages: keptPackages, snapshots: keptSnapshots }
  const workspaceManifest: Record<string, unknown> = {
    autoInstallPeers: lockfile.settings?.autoInstallPeers ?? true,
    dedupeInjectedDeps: false,
    dedupePeerDependents: false,
    dedupePeers: lockfile.settings?.dedupePeers ?? false,
    excludeLinksFromLockfile: lockfile.settings?.excludeLinksFromLockfile ?? false,
    ignorePnpmfile: true,
    ignoredOptionalDependencies: lockfile.ignoredOptionalDependencies ?? [],
    injectWorkspacePackages: false,
    packages: ['.'],
    peersSuffixMaxLength: lockfile.settings?.peersSuffixMaxLength ?? 1000,
    virtualStoreType: 'project',
  }
  // The patches that a deployed package still uses, their files named from the deploy directory.
  const applied = Object.entries(lockfile.patchedDependencies ?? {})
    .filter(([key, hash]) => Object.hasOwn(input.patchedDependencies, key) && Object.keys(keptSnapshots).some((depPath) => depPath.includes(`(patch_hash=${hash})`)))
  if (applied.length > 0) {
    deployLockfile.patchedDependencies = Object.fromEntries(applied)
    workspaceManifest['patchedDependencies'] = Object.fromEntries(applied.map(([key]) =>
      [key, toPosix(path.relative(deployDir, path.resolve(lockfileDir, input.patchedDependencies[key]!)))]))
  }
  if (Object.keys(input.allowBuilds).length > 0) workspaceManifest['allowBuilds'] = { ...input.allowBuilds }
  return { lockfile: deployLockfile, manifest: deployManifest(input.manifest, target), workspaceManifest }
}

/**
 * An importer's directory: the workspace root (`.`) or a directory under it. The lockfile is the
 * repository's, and each importer becomes a directory the deploy copies: one outside the workspace
 * (absolute, or climbing out) is refused before anything is written.
 */
function importerDir (lockfileDir: string, importerId: string): string {
  const dir = importerId === '.' ? lockfileDir : joinRecorded(lockfileDir, importerId)
  if (dir === undefined) {
    throw new LodeError('INVALID_LOCKFILE_IMPORTER', `${path.join(lockfileDir, WANTED_LOCKFILE)} has an importer outside the workspace: ${JSON.stringify(importerId)}. lode deploy will not copy it.`, {
      hint: 'An importer is a project of the workspace, named by its directory relative to the root (`packages/app`). Remove that entry from pnpm-lock.yaml (lode install writes the projects\' entries anew), then deploy again.',
    })
  }
  return dir
}

/**
 * The deployed project's importer: its dependencies of the included groups (and those that only
 * stand in for a peer of the project), each specifier the version it resolved to (`npm:` for an
 * alias), a workspace or local dependency by its deploy name.
 */
function deployImporter (
  input: DeployFilesInput,
  importer: ProjectSnapshot,
  convert: (alias: string, ref: string) => string
): ProjectSnapshot {
  const declared = new Set(GROUPS.flatMap((group) => Object.keys(input.manifest[group] as object | undefined ?? {})))
  const peerOnly = new Set(Object.keys(input.manifest['peerDependencies'] as object | undefined ?? {}).filter((name) => !declared.has(name)))
  const out: ProjectSnapshot = { ...importer }
  for (const group of GROUPS) {
    const deps: Record<string, ResolvedDependency> = {}
    for (const [alias, dep] of Object.entries(importer[group] ?? {})) {
      if (!input.include[group] && !peerOnly.has(alias) && !dep.version.startsWith('runtime:')) continue
      const converted = convert(alias, dep.version)
      deps[alias] = converted === dep.version
        ? { specifier: deploySpecifier(alias, dep.version), version: dep.version }
        : { specifier: converted, version: converted }
    }
    if (Object.keys(deps).length > 0) out[group] = deps
    else delete out[group]
  }
  return out
}

/** What package.json asks for a locked version: the version itself, `npm:name@version` under an alias, the reference for anything else. */
function deploySpecifier (alias: string, ref: string): string {
  const { name, rest } = splitNameAt(withoutPeersSuffix(refToDepPath(alias, ref)))
  const version = rest === undefined ? undefined : rest.replace(/\(.*$/, '')
  if (version === undefined || semver.valid(version) === null) return ref
  return name === alias ? version : `npm:${name}@${version}`
}

/** The deployed package.json: the project's, with the three dependency fields as the deploy lockfile has them (peers of left-out dependencies dropped). */
function deployManifest (manifest: Record<string, unknown>, target: ProjectSnapshot): Record<string, unknown> {
  const out: Record<string, unknown> = { ...manifest }
  for (const group of GROUPS) out[group] = mapValues(target[group] ?? {}, (dep) => dep.specifier)
  const kept = new Set(GROUPS.flatMap((group) => Object.keys(target[group] ?? {})))
  const declared = GROUPS.flatMap((group) => Object.keys(manifest[group] as object | undefined ?? {}))
  const excluded = new Set(declared.filter((name) => !kept.has(name)))
  if (excluded.size === 0) return out
  for (const field of ['peerDependencies', 'peerDependenciesMeta'] as const) {
    const value = manifest[field] as Record<string, unknown> | undefined
    if (value !== undefined) out[field] = Object.fromEntries(Object.entries(value).filter(([name]) => !excluded.has(name)))
  }
  return out
}

/** The dependency paths the importer reaches through dependencies (and optional ones when included). */
function reachableDepPaths (importer: ProjectSnapshot, snapshots: ReadonlyMap<string, SnapshotInfo>, optional: boolean): Set<string> {
  const reached = new Set<string>()
  const queue: string[] = []
  const enqueue = (refs: Record<string, string> | undefined): void => {
    for (const [alias, ref] of Object.entries(refs ?? {})) {
      if (ref.startsWith('link:')) continue
      const depPath = refToDepPath(alias, ref)
      if (snapshots.has(depPath)) queue.push(depPath)
    }
  }
  for (const group of GROUPS) enqueue(Object.fromEntries(Object.entries(importer[group] ?? {}).map(([alias, dep]) => [alias, dep.version])))
  while (queue.length > 0) {
    const depPath = queue.shift()!
    if (reached.has(depPath)) continue
    reached.add(depPath)
    const snapshot = snapshots.get(depPath)!
    enqueue(snapshot.dependencies)
    if (optional) enqueue(snapshot.optionalDependencies)
  }
  return reached
}

/**
 * Where a `file:` or `link:` reference (or a `name@file:…` dependency path) points: `file:` from
 * the lockfile's directory, `link:` from `baseDir`; undefined for any other reference.
 */
function linkOrFileTarget (ref: string, lockfileDir: string, baseDir: string): LinkTarget | undefined {
  for (const [scheme, base] of [['file:', lockfileDir], ['link:', baseDir]] as const) {
    if (!ref.startsWith(scheme)) continue
    const { name, version, peersSuffix } = parseDepPath(`x@${ref.slice(scheme.length)}`)
    void name
    return { resolvedPath: path.resolve(base, version), suffix: peersSuffix }
  }
  const { name, version, peersSuffix } = parseDepPath(ref)
  if (!version.startsWith('file:') && !version.startsWith('link:')) return undefined
  const target = linkOrFileTarget(version, lockfileDir, baseDir)
  return target === undefined ? undefined : { ...target, suffix: peersSuffix, packageName: name }
}

function convertResolution (resolution: Resolution, lockfileDir: string, deployDir: string): Resolution {
  const fromDeploy = (relative: string): string => toPosix(path.relative(deployDir, path.resolve(lockfileDir, relative)))
  if ('integrity' in resolution) return resolution
  const fields = resolution as Record<string, unknown>
  if (typeof fields['tarball'] === 'string' && fields['tarball'].startsWith('file:')) {
    const converted = fromDeploy(fields['tarball'].slice('file:'.length))
    return { ...fields, tarball: `file:${converted}`, ...typeof fields['path'] === 'string' ? { path: converted } : {} }
  }
  if (fields['type'] === 'directory' && typeof fields['directory'] === 'string') return { ...fields, directory: fromDeploy(fields['directory']) }
  return resolution
}

function withDeps (
  snapshot: SnapshotInfo,
  dependencies: Record<string, string> | undefined,
  optionalDependencies: Record<string, string> | undefined
): SnapshotInfo {
  const out: SnapshotInfo = { ...snapshot }
  if (dependencies === undefined) delete out.dependencies
  else out.dependencies = dependencies
  if (optionalDependencies === undefined) delete out.optionalDependencies
  else out.optionalDependencies = optionalDependencies
  return out
}

/** A project's peers as the lockfile records a package's. */
function lockfilePeers (manifest: Record<string, unknown>): Pick<PackageInfo, 'peerDependencies' | 'peerDependenciesMeta'> {
  const peers = manifest['peerDependencies'] as Record<string, string> | undefined
  const meta = manifest['peerDependenciesMeta'] as Record<string, { optional?: boolean }> | undefined
  const out: Pick<PackageInfo, 'peerDependencies' | 'peerDependenciesMeta'> = {}
  if (peers !== undefined && Object.keys(peers).length > 0) out.peerDependencies = peers
  const optional = Object.entries(meta ?? {}).filter(([, value]) => value.optional === true)
  if (optional.length > 0) out.peerDependenciesMeta = Object.fromEntries(optional.map(([name]) => [name, { optional: true as const }]))
  return out
}

function toPosix (relative: string): string {
  return relative.split(path.sep).join('/')
}

function mapValues<T, U> (record: Readonly<Record<string, T>>, map: (value: T, key: string) => U): Record<string, U> {
  return Object.fromEntries(Object.entries(record).map(([key, value]) => [key, map(value, key)]))
}
