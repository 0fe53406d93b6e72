import semver from 'semver'

import type { Lockfile, LockfileSettings, ProjectSnapshot, ResolvedDependency, SnapshotInfo } from './types.js'

/**
 * A pnpm-lock.yaml that git left with conflict markers, as pnpm 11 reads it: the lines outside the
 * conflicts belong to both sides, those between `<<<<<<<` and `=======` to ours, those between
 * `=======` and `>>>>>>>` to theirs, and a diff3 base (after `|||||||`) to neither. `undefined`
 * unless all three markers are there.
 */
export function conflictSides (text: string): { ours: string, theirs: string } | undefined {
  const lines = text.split(/\r?\n/)
  if (!lines.some((line) => line.startsWith('<<<<<<<')) || !lines.includes('=======') || !lines.some((line) => line.startsWith('>>>>>>>'))) {
    return undefined
  }
  const ours: string[] = []
  const theirs: string[] = []
  let side: 'both' | 'ours' | 'base' | 'theirs' = 'both'
  for (const line of lines) {
    if (line.startsWith('<<<<<<<')) side = 'ours'
    else if (line.startsWith('|||||||')) side = 'base'
    else if (line === '=======') side = 'theirs'
    else if (line.startsWith('>>>>>>>')) side = 'both'
    else {
      if (side === 'both' || side === 'ours') ours.push(line)
      if (side === 'both' || side === 'theirs') theirs.push(line)
    }
  }
  return { ours: ours.join('\n'), theirs: theirs.join('\n') }
}

const DEPENDENCY_GROUPS = ['dependencies', 'devDependencies', 'optionalDependencies'] as const

/**
 * Both sides of a conflicted lockfile in one, as pnpm 11 merges them: every importer, package and
 * snapshot of either side; where both resolved a dependency, the higher version, and the specifier
 * that changed (theirs, when they differ). The install that follows resolves what no longer fits
 * package.json. Objects are built from entries, so a key such as `__proto__` stays a plain key.
 */
export function mergeLockfiles (ours: Lockfile, theirs: Lockfile): Lockfile {
  const merged: Record<string, unknown> = {
    lockfileVersion: newerLockfileVersion(ours.lockfileVersion, theirs.lockfileVersion),
    settings: mergeSettings(ours.settings, theirs.settings),
    catalogs: mergeCatalogs(ours.catalogs, theirs.catalogs),
    overrides: mergeShallow(ours.overrides, theirs.overrides),
    packageExtensionsChecksum: ours.packageExtensionsChecksum ?? theirs.packageExtensionsChecksum,
    pnpmfileChecksum: ours.pnpmfileChecksum ?? theirs.pnpmfileChecksum,
    patchedDependencies: mergeShallow(ours.patchedDependencies, theirs.patchedDependencies),
    ignoredOptionalDependencies: mergeLists(ours.ignoredOptionalDependencies, theirs.ignoredOptionalDependencies),
    importers: mergeRecords(ours.importers, theirs.importers, mergeImporter),
    packages: ours.packages === undefined && theirs.packages === undefined
      ? undefined
      : mergeRecords(ours.packages ?? {}, theirs.packages ?? {}, (our, their) => ({ ...our, ...their })),
    snapshots: ours.snapshots === undefined && theirs.snapshots === undefined
      ? undefined
      : mergeRecords(ours.snapshots ?? {}, theirs.snapshots ?? {}, mergeSnapshot),
    time: mergeShallow(ours.time, theirs.time),
  }
  // Keys lode does not know: ours where both have them.
  const known = new Set(Object.keys(merged))
  const foreign = [...Object.entries(theirs), ...Object.entries(ours)].filter(([key]) => !known.has(key))
  return Object.fromEntries([...Object.entries(merged).filter(([, value]) => value !== undefined), ...foreign]) as Lockfile
}

function newerLockfileVersion (our: string, their: string): string {
  const [ourMajor = 0, ourMinor = 0] = our.split('.').map(Number)
  const [theirMajor = 0, theirMinor = 0] = their.split('.').map(Number)
  return theirMajor > ourMajor || (theirMajor === ourMajor && theirMinor > ourMinor) ? their : our
}

/** pnpm keeps the settings it knows: a flag either side set, the peer settings ours first. */
function mergeSettings (ours: LockfileSettings | undefined, theirs: LockfileSettings | undefined): LockfileSettings | undefined {
  if (ours === undefined && theirs === undefined) return undefined
  const settings: Array<[string, unknown]> = []
  for (const flag of ['autoInstallPeers', 'excludeLinksFromLockfile', 'injectWorkspacePackages'] as const) {
    if (ours?.[flag] != null || theirs?.[flag] != null) settings.push([flag, (ours?.[flag] ?? false) || (theirs?.[flag] ?? false)])
  }
  for (const setting of ['dedupePeers', 'peersSuffixMaxLength'] as const) {
    if (ours?.[setting] != null || theirs?.[setting] != null) settings.push([setting, ours?.[setting] ?? theirs?.[setting]])
  }
  return settings.length === 0 ? undefined : Object.fromEntries(settings)
}

function mergeCatalogs (ours: Lockfile['catalogs'], theirs: Lockfile['catalogs']): Lockfile['catalogs'] {
  if (ours === undefined && theirs === undefined) return undefined
  return mergeRecords(ours ?? {}, theirs ?? {}, (our, their) => mergeRecords(our, their, mergeResolved))
}

function mergeImporter (ours: ProjectSnapshot, theirs: ProjectSnapshot): ProjectSnapshot {
  // pnpm keeps one specifier per alias across the groups, theirs where both have one.
  const specifiers = new Map<string, string>()
  for (const importer of [ours, theirs]) {
    for (const group of DEPENDENCY_GROUPS) {
      for (const [alias, { specifier }] of Object.entries(importer[group] ?? {})) specifiers.set(alias, specifier)
    }
  }
  const groups: readonly string[] = DEPENDENCY_GROUPS
  const merged: Array<[string, unknown]> = Object.entries({ ...ours, ...theirs }).filter(([key]) => !groups.includes(key))
  for (const group of DEPENDENCY_GROUPS) {
    if (ours[group] === undefined && theirs[group] === undefined) continue
    const deps = Object.entries(mergeRecords(ours[group] ?? {}, theirs[group] ?? {}, mergeResolved))
      .map(([alias, dep]) => [alias, { specifier: specifiers.get(alias) ?? dep.specifier, version: dep.version }] as const)
    if (deps.length > 0) merged.push([group, Object.fromEntries(deps)])
  }
  return Object.fromEntries(merged)
}

function mergeResolved (ours: ResolvedDependency, theirs: ResolvedDependency): ResolvedDependency {
  return { specifier: theirs.specifier, version: mergeVersions(ours.version, theirs.version) }
}

function mergeSnapshot (ours: SnapshotInfo, theirs: SnapshotInfo): SnapshotInfo {
  const merged: Array<[string, unknown]> = Object.entries({ ...ours, ...theirs }).filter(([key]) => key !== 'dependencies' && key !== 'optionalDependencies')
  for (const group of ['dependencies', 'optionalDependencies'] as const) {
    const deps = mergeRecords(ours[group] ?? {}, theirs[group] ?? {}, mergeVersions)
    if (Object.keys(deps).length > 0) merged.push([group, deps])
  }
  return Object.fromEntries(merged)
}

/** The higher of two resolved versions (their peer suffixes aside); theirs when either is not a version. */
export function mergeVersions (ours: string, theirs: string): string {
  if (ours === theirs) return ours
  const ourVersion = ours.split('(')[0]!
  const theirVersion = theirs.split('(')[0]!
  if (semver.valid(ourVersion) !== null && semver.valid(theirVersion) !== null) return semver.gt(ourVersion, theirVersion) ? ours : theirs
  return theirs
}

/** Every key of either record; where both have one, `both` decides. */
function mergeRecords<T> (ours: Record<string, T>, theirs: Record<string, T>, both: (our: T, their: T) => T): Record<string, T> {
  const keys = new Set([...Object.keys(ours), ...Object.keys(theirs)])
  return Object.fromEntries([...keys].map((key) => {
    const our = Object.hasOwn(ours, key) ? ours[key] : undefined
    const their = Object.hasOwn(theirs, key) ? theirs[key] : undefined
    return [key, our === undefined ? their! : their === undefined ? our : both(our, their)]
  }))
}

function mergeShallow<T> (ours: Record<string, T> | undefined, theirs: Record<string, T> | undefined): Record<string, T> | undefined {
  const merged = { ...ours, ...theirs }
  return Object.keys(merged).length > 0 ? merged : undefined
}

function mergeLists (ours: readonly string[] | undefined, theirs: readonly string[] | undefined): string[] | undefined {
  const merged = [...new Set([...ours ?? [], ...theirs ?? []])]
  return merged.length > 0 ? merged : undefined
}
