// pnpm 11's record of the last install, `node_modules/.pnpm-workspace-state-v1.json`, written as
// pnpm 11.28 writes it (its workspace/state package). pnpm reads it before `pnpm install` (its
// optimistic repeat install: "Already up to date" without touching node_modules) and before
// `pnpm run` (verifyDepsBeforeRun): without it, a tree lode installed looks unchecked to pnpm.
// lode keeps its own record (`.lode-state.json`) for its own no-op; this one is for pnpm.
import { createHash, randomBytes } from 'node:crypto'
import fs from 'node:fs'
import path from 'node:path'
import { setTimeout } from 'node:timers/promises'
import { isDeepStrictEqual } from 'node:util'

import type { DependencyGroup } from '@lode/core.constants'
import { CURRENT_LOCKFILE, MANIFEST_DEPENDENCY_FIELDS, MODULES_DIR, MODULES_MANIFEST_FILE, PNPM_WORKSPACE_STATE_FILE, STORE_VERSION, VIRTUAL_STORE_DIR, WANTED_LOCKFILE } from '@lode/core.constants'
import { hasErrno } from '@lode/core.error'
import { parsePackageJson } from '@lode/fs.package-json'
import { writeFileAtomic } from '@lode/fs.write-file-atomic'
import type { Config } from '@lode/pkg-manager.config.settings'
import { localSources } from '@lode/pkg-manager.lockfile.format'
import type { Lockfile } from '@lode/pkg-manager.lockfile.format'

/** The settings pnpm records, in its order (its `WORKSPACE_STATE_SETTING_KEYS`, then the registry keys). */
const SETTING_KEYS = [
  'enableGlobalVirtualStore', 'allowBuilds', 'autoInstallPeers', 'catalogs', 'dangerouslyAllowAllBuilds', 'dedupeDirectDeps',
  'dedupeInjectedDeps', 'dedupePeerDependents', 'dedupePeers', 'dev', 'excludeLinksFromLockfile', 'extendNodePath', 'hoistPattern',
  'hoistWorkspacePackages', 'ignoredOptionalDependencies', 'injectWorkspacePackages', 'linkWorkspacePackages', 'minimumReleaseAge',
  'minimumReleaseAgeStrict', 'minimumReleaseAgeExclude', 'minimumReleaseAgeIgnoreMissingTime', 'nodeLinker', 'optional', 'overrides',
  'packageExtensions', 'patchedDependencies', 'peersSuffixMaxLength', 'preferWorkspacePackages', 'production', 'publicHoistPattern',
  'runtime', 'storeDir', 'supportedArchitectures', 'trustLockfile', 'trustPolicy', 'trustPolicyExclude', 'trustPolicyIgnoreAfter',
  'virtualStoreDir', 'virtualStoreDirMaxLength', 'workspacePackagePatterns', 'autoDedupe', 'defaultRegistry', 'registryPrefixes',
  'registryRoutes',
] as const

// pnpm's digests are SHA-256 cut to 32 hex digits.
const DIGEST_LENGTH = 32

export interface PnpmWorkspaceStateOptions {
  config: Config
  /** Every project of the install (the root alone outside a workspace): its directory and importer id. */
  projects: ReadonlyArray<{ id: string, dir: string }>
  /** The importer ids installed by a filtered install (undefined: all). */
  selected: ReadonlySet<string> | undefined
  include: Readonly<Record<DependencyGroup, boolean>>
  /** The lockfile installed (for the local dependencies pnpm records). */
  lockfile: Lockfile
  now: () => number
}

interface FileSignature {
  mtimeNs: number
  ctimeNs: number
  size: number
  digest: string
}

/**
 * Writes `node_modules/.pnpm-workspace-state-v1.json` after a complete install, as pnpm 11 does:
 * the projects, the settings that decide the install, and the validation record (digests of the
 * lockfile and of each installed project's package.json, taken now, when they are what was
 * installed) that lets pnpm trust the tree without reading the lockfile. Best effort, as pnpm's:
 * a failure to write it is a warning.
 */
export async function writePnpmWorkspaceState (opts: PnpmWorkspaceStateOptions, onWarning: (message: string) => void): Promise<void> {
  const { config } = opts
  const file = path.join(config.dir, 'node_modules', PNPM_WORKSPACE_STATE_FILE)
  try {
    const manifests = opts.projects.map((project) => ({ ...project, manifest: readManifest(project.dir) }))
    const filteredInstall = opts.selected !== undefined && opts.projects.some((project) => !opts.selected!.has(project.id))
    const state: Record<string, unknown> = {
      lastValidatedTimestamp: opts.now(),
      projects: Object.fromEntries(manifests.map(({ dir, manifest }) => [dir, { name: manifest['name'], version: manifest['version'], ...hoistedModulesDir(config, dir) }])),
      pnpmfiles: [],
      settings: stateSettings(opts),
      filteredInstall,
    }
    const validation = recordValidation(opts, manifests)
    const changedNs = Math.max(0, ...Object.values(validation?.files ?? {})
      .map((signature) => Math.max(signature.mtimeNs, signature.ctimeNs)))
    const recordedAtNs = await filesystemNowNs(path.dirname(file), changedNs)
    if (recordedAtNs === undefined) {
      state['filteredInstall'] = true
    } else {
      state['lastValidatedTimestamp'] = Math.trunc(recordedAtNs / 1e6)
      if (validation !== undefined) state['validation'] = { recordedAtNs, ...validation }
    }
    await writeFileAtomic(file, JSON.stringify(state, undefined, 2) + '\n')
  } catch (err) {
    if (!(err instanceof Error)) throw err
    onWarning(`Failed to write the workspace state: ${err.message}`)
  }
}

// pnpm's values for settings it did not record (its `SETTING_UNSET_EQUIVALENTS`).
const UNSET_EQUIVALENTS: Readonly<Record<string, unknown>> = {
  allowBuilds: {},
  dangerouslyAllowAllBuilds: false,
  enableGlobalVirtualStore: false,
  extendNodePath: true,
  runtime: true,
  trustLockfile: false,
  virtualStoreDirMaxLength: 120,
}
// Not compared: catalogs (pnpm does not either), and the registry keys, compared on their own below.
const UNCOMPARED = new Set(['catalogs', 'autoDedupe', 'defaultRegistry', 'registryPrefixes', 'registryRoutes'])

export interface PnpmVouchOptions {
  config: Config
  include: Readonly<Record<DependencyGroup, boolean>>
  /** Every project's package.json (relative path → content) and the other files of the install's inputs, as read. */
  contents: Readonly<Record<string, Uint8Array>>
  manifestFiles: readonly string[]
}

/**
 * Whether pnpm 11's record says node_modules holds what an install with these settings, manifests
 * and lockfile would put there: an unfiltered install, recorded with the same settings (the ones
 * pnpm records; every scoped registry lode has), the same projects, and digests of this very
 * lockfile and of these very package.json files; node_modules laid out for lode's store and
 * layout. lode asks when it has no record of its own (a tree pnpm installed), so that its first
 * install there is "up to date", as pnpm's own repeat install is.
 */
export function pnpmStateVouches (opts: PnpmVouchOptions): boolean {
  const { config } = opts
  const state = readPnpmWorkspaceState(path.join(config.dir, MODULES_DIR, PNPM_WORKSPACE_STATE_FILE))
  const modules = modulesLocations(opts.contents[path.join(MODULES_DIR, MODULES_MANIFEST_FILE)])
  if (state === undefined || modules === undefined) return false
  const { settings, validation } = state
  if (state.filteredInstall || validation === undefined) return false
  const wanted = stateSettings(opts)
  const unset = (key: string, value: unknown): unknown => value ?? UNSET_EQUIVALENTS[key]
  for (const key of SETTING_KEYS) {
    if (!UNCOMPARED.has(key) && !isDeepStrictEqual(unset(key, settings.get(key)), unset(key, wanted[key]))) return false
  }
  const routes = settings.get('registryRoutes') ?? {}
  if (!isPlainObject(routes)) return false
  if (Object.entries(config.scopedRegistries).some(([scope, url]) => !Object.hasOwn(routes, scope) || routes[scope] !== url)) return false
  if (modules.storeDir !== path.join(config.storeDir, STORE_VERSION)
    || path.resolve(config.dir, MODULES_DIR, modules.virtualStoreDir ?? VIRTUAL_STORE_DIR) !== config.virtualStoreDir) {
    return false
  }
  const lockfile = opts.contents[WANTED_LOCKFILE]
  if (lockfile === undefined || validation.lockfile !== createHash('sha256').update(lockfile).digest('hex').slice(0, DIGEST_LENGTH)) return false
  const projects = opts.manifestFiles.map((file) => ({
    id: path.dirname(file) === '.' ? '.' : path.dirname(file).split(path.sep).join('/'),
    dir: path.join(config.dir, path.dirname(file)),
    content: opts.contents[file],
  }))
  if (state.projects.size !== projects.length || validation.manifests.size !== projects.length) return false
  return projects.every(({ id, dir, content }) => {
    if (content === undefined || !state.projects.has(dir)) return false
    const file = path.join(dir, 'package.json')
    return validation.manifests.get(id) === manifestDigest(parsePackageJson(Buffer.from(content).toString('utf8'), file))
  })
}

/** What lode compares of pnpm 11's record, as `readPnpmWorkspaceState` read it. */
export interface PnpmWorkspaceState {
  filteredInstall: boolean
  /** The projects' directories (absolute, as pnpm records them). */
  projects: ReadonlySet<string>
  settings: ReadonlyMap<string, unknown>
  /** The lockfile's digest and each project's manifest digest, by importer id. */
  validation?: { lockfile: string, manifests: ReadonlyMap<string, string> } | undefined
}

/**
 * pnpm's record as lode compares it, or undefined when there is none or it is not one pnpm writes
 * (not JSON, a field of another type). A repository can carry the file: it is read here, once, into
 * maps (no key finds Object.prototype's members), and what does not read is no record, as if
 * absent. lode only compares it with the install's own inputs; no path in it is acted on.
 */
export function readPnpmWorkspaceState (file: string): PnpmWorkspaceState | undefined {
  let value: unknown
  try {
    value = JSON.parse(fs.readFileSync(file, 'utf8'))
  } catch {
    return undefined
  }
  if (!isPlainObject(value) || typeof value['filteredInstall'] !== 'boolean' || !isPlainObject(value['projects']) || !isPlainObject(value['settings'])) return undefined
  const state: PnpmWorkspaceState = {
    filteredInstall: value['filteredInstall'],
    projects: new Set(Object.keys(value['projects'])),
    settings: new Map(Object.entries(value['settings'])),
  }
  const validation = value['validation']
  if (validation === undefined) return state
  if (!isPlainObject(validation) || typeof validation['lockfile'] !== 'string' || !isPlainObject(validation['manifests'])) return undefined
  const manifests = Object.entries(validation['manifests'])
  if (!manifests.every(([, digest]) => typeof digest === 'string')) return undefined
  return { ...state, validation: { lockfile: validation['lockfile'], manifests: new Map(manifests as Array<[string, string]>) } }
}

/**
 * The two places of `.modules.yaml` (pnpm writes it as JSON) the vouch compares, or undefined
 * when it does not read or either is of another type (then it does not vouch, and the full install
 * reads the file with its own checks).
 */
function modulesLocations (bytes: Uint8Array | undefined): { storeDir: string, virtualStoreDir?: string | undefined } | undefined {
  let value: unknown
  try {
    value = JSON.parse(Buffer.from(bytes ?? '').toString('utf8'))
  } catch {
    return undefined
  }
  if (!isPlainObject(value)) return undefined
  const { storeDir, virtualStoreDir } = value
  if (typeof storeDir !== 'string' || (virtualStoreDir !== undefined && (typeof virtualStoreDir !== 'string' || virtualStoreDir.includes('\0')))) return undefined
  return { storeDir, virtualStoreDir }
}

function isPlainObject (value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

function readManifest (dir: string): Record<string, unknown> {
  const file = path.join(dir, 'package.json')
  return parsePackageJson(fs.readFileSync(file, 'utf8'), file)
}

/** pnpm's hoisted layout records which projects have a node_modules of their own. */
function hoistedModulesDir (config: Config, dir: string): { hasModulesDir?: true } {
  return config.nodeLinker === 'hoisted' && fs.statSync(path.join(dir, 'node_modules'), { throwIfNoEntry: false })?.isDirectory() === true ? { hasModulesDir: true } : {}
}

/**
 * The settings as pnpm 11 records them. Settings without a pnpm default appear only when given;
 * the ones lode refuses unless left at pnpm's default are recorded with that default.
 */
function stateSettings ({ config, include }: Pick<PnpmWorkspaceStateOptions, 'config' | 'include'>): Record<string, unknown> {
  const given = new Set(config.explicitSettings)
  const ifGiven = <T>(name: string, value: T): T | undefined => given.has(name) || (name === 'minimumReleaseAgeStrict' && given.has('minimumReleaseAge')) ? value : undefined
  const buildsGiven = given.has('allowBuilds') || given.has('dangerouslyAllowAllBuilds')
  const storeDir = path.join(config.storeDir, STORE_VERSION)
  const workspace = config.workspacePackages !== undefined
  const values: Record<(typeof SETTING_KEYS)[number], unknown> = {
    // pnpm records it when given (virtualStoreType is given as it), with the value in effect.
    enableGlobalVirtualStore: given.has('enableGlobalVirtualStore') || given.has('virtualStoreType') ? config.enableGlobalVirtualStore : undefined,
    // The global virtual store's default is `{}`, recorded as given.
    allowBuilds: ifGiven('allowBuilds', config.allowBuilds) ?? (config.enableGlobalVirtualStore ? {} : undefined),
    autoInstallPeers: config.autoInstallPeers,
    // pnpm's catalogs: the default one first, as it reads them.
    catalogs: workspace ? { ...config.catalogs['default'] === undefined ? {} : { default: config.catalogs['default'] }, ...config.catalogs } : undefined,
    // pnpm applies its default only when neither build setting is given.
    dangerouslyAllowAllBuilds: buildsGiven ? ifGiven('dangerouslyAllowAllBuilds', false) : false,
    dedupeDirectDeps: false,
    dedupeInjectedDeps: true,
    dedupePeerDependents: config.dedupePeerDependents,
    dedupePeers: config.dedupePeers,
    dev: include.devDependencies,
    excludeLinksFromLockfile: false,
    extendNodePath: true,
    hoistPattern: config.hoistPattern,
    hoistWorkspacePackages: true,
    ignoredOptionalDependencies: ifGiven('ignoredOptionalDependencies', config.ignoredOptionalDependencies),
    injectWorkspacePackages: config.injectWorkspacePackages,
    linkWorkspacePackages: config.linkWorkspacePackages,
    minimumReleaseAge: config.minimumReleaseAge,
    minimumReleaseAgeStrict: ifGiven('minimumReleaseAgeStrict', config.minimumReleaseAgeStrict),
    minimumReleaseAgeExclude: ifGiven('minimumReleaseAgeExclude', config.minimumReleaseAgeExclude),
    minimumReleaseAgeIgnoreMissingTime: true,
    nodeLinker: config.nodeLinker,
    optional: include.optionalDependencies,
    overrides: ifGiven('overrides', config.overrides),
    packageExtensions: ifGiven('packageExtensions', config.packageExtensions),
    patchedDependencies: ifGiven('patchedDependencies', config.patchedDependencies),
    peersSuffixMaxLength: config.peersSuffixMaxLength,
    preferWorkspacePackages: config.preferWorkspacePackages,
    production: include.dependencies,
    publicHoistPattern: config.publicHoistPattern,
    runtime: undefined,
    storeDir: ifGiven('storeDir', storeDir),
    supportedArchitectures: undefined,
    trustLockfile: ifGiven('trustLockfile', config.trustLockfile),
    trustPolicy: ifGiven('trustPolicy', config.trustPolicy),
    trustPolicyExclude: ifGiven('trustPolicyExclude', config.trustPolicyExclude),
    trustPolicyIgnoreAfter: ifGiven('trustPolicyIgnoreAfter', config.trustPolicyIgnoreAfter),
    virtualStoreDir: ifGiven('virtualStoreDir', config.virtualStoreDir),
    virtualStoreDirMaxLength: config.virtualStoreDirMaxLength,
    workspacePackagePatterns: config.workspacePackages,
    autoDedupe: undefined,
    // Named registries (`registries`) are refused by lode: pnpm records these two only with them.
    defaultRegistry: undefined,
    registryPrefixes: undefined,
    // The scoped registries. pnpm's own default route for the `@jsr` scope is not among them unless
    // .npmrc names it (lode installs no `jsr:` packages and names no registry it is not given).
    registryRoutes: Object.fromEntries(Object.keys(config.scopedRegistries).sort().map((scope) => [scope, config.scopedRegistries[scope]])),
  }
  return Object.fromEntries(SETTING_KEYS.filter((key) => values[key] !== undefined).map((key) => [key, values[key]]))
}

/**
 * pnpm's validation record: when it was taken (the file system's clock, from a probe file), the
 * lockfile's signature and digest, each recorded project's manifest digest, the bins of workspace
 * projects, and the lockfile's local dependencies. A filtered install records its projects only.
 */
function recordValidation (
  opts: PnpmWorkspaceStateOptions,
  manifests: ReadonlyArray<{ id: string, dir: string, manifest: Record<string, unknown> }>
): (Record<string, unknown> & { files: Record<string, FileSignature> }) | undefined {
  const { dir } = opts.config
  const files: Record<string, FileSignature> = {}
  for (const patch of Object.values(opts.config.patchedDependencies)) {
    const patchFile = path.resolve(dir, patch)
    const signature = fileSignature(patchFile)
    if (signature !== undefined) files[patchFile] = signature
  }
  const wantedPath = path.join(dir, WANTED_LOCKFILE)
  const lockfilePath = fs.existsSync(wantedPath) ? wantedPath : path.join(dir, MODULES_DIR, VIRTUAL_STORE_DIR, CURRENT_LOCKFILE)
  const lockfile = fileSignature(lockfilePath)
  if (lockfile === undefined) return undefined
  files[lockfilePath] = lockfile
  const validation: Record<string, unknown> & { files: Record<string, FileSignature> } = { files, lockfile: lockfile.digest, manifests: {} }
  const bins = workspaceBins(manifests)
  for (const project of manifests) {
    if (opts.selected !== undefined && !opts.selected.has(project.id)) continue
    ;(validation['manifests'] as Record<string, string>)[project.id] = manifestDigest(project.manifest)
    const projectBins = project.id === '.' || hasDependencies(project.manifest) ? bins : undefined
    if (projectBins !== undefined) {
      validation['workspaceBins'] ??= {}
      ;(validation['workspaceBins'] as Record<string, string>)[project.id] = projectBins
    }
  }
  const local = localDependenciesOf(opts.lockfile, dir)
  for (const tarball of local.tarballs ?? []) {
    const signature = fileSignature(tarball)
    if (signature !== undefined) files[tarball] = signature
  }
  validation['localDependencies'] = { [lockfile.digest]: local }
  return validation
}

function hasDependencies (manifest: Record<string, unknown>): boolean {
  return MANIFEST_DEPENDENCY_FIELDS.some((group) => {
    const deps = manifest[group]
    return typeof deps === 'object' && deps !== null && Object.keys(deps).length > 0
  })
}

/** The digest of the bins every workspace project declares, undefined when none does. */
function workspaceBins (manifests: ReadonlyArray<{ id: string, manifest: Record<string, unknown> }>): string | undefined {
  const bins: Record<string, unknown> = {}
  for (const { id, manifest } of manifests) {
    const bin = manifest['bin'] ?? null
    const directories = manifest['directories']
    const directory = (typeof directories === 'object' && directories !== null ? (directories as Record<string, unknown>)['bin'] : undefined) ?? null
    if (bin === null && directory === null) continue
    bins[id] = { name: manifest['name'] ?? null, bin, directory }
  }
  return Object.keys(bins).length === 0 ? undefined : manifestDigest(bins)
}

function fileSignature (file: string): FileSignature | undefined {
  let stat: fs.BigIntStats | undefined
  try {
    stat = fs.statSync(file, { bigint: true, throwIfNoEntry: false })
    if (stat === undefined || !stat.isFile()) return undefined
    const digest = createHash('sha256').update(fs.readFileSync(file)).digest('hex').slice(0, DIGEST_LENGTH)
    return { mtimeNs: Number(stat.mtimeNs), ctimeNs: Number(stat.ctimeNs), size: Number(stat.size), digest }
  } catch (err) {
    if (hasErrno(err, 'ENOENT') || hasErrno(err, 'ENOTDIR')) return undefined
    throw err
  }
}

/**
 * The file system's clock in nanoseconds: the mtime of a probe file created now, as pnpm takes it.
 * pnpm trusts a recorded file only when it changed before this time; on a file system whose clock
 * ticks coarsely, the lockfile written a moment ago may carry the same time, so the probe is taken
 * again (for up to a second) until the clock has moved past `afterNs`.
 */
async function filesystemNowNs (dir: string, afterNs: number): Promise<number | undefined> {
  for (let attempt = 0; ; attempt++) {
    const probe = path.join(dir, `.pnpm-validation-probe-${process.pid}-${randomBytes(4).toString('hex')}`)
    let now: number
    try {
      fs.mkdirSync(dir, { recursive: true })
      fs.writeFileSync(probe, '')
      now = Number(fs.statSync(probe, { bigint: true }).mtimeNs)
    } catch {
      return undefined
    } finally {
      fs.rmSync(probe, { force: true })
    }
    if (now > afterNs || attempt === 100) return now
    await setTimeout(10)
  }
}

/**
 * pnpm's structural digest of a manifest: every value typed and length-prefixed, object keys in
 * byte order, so equal manifests digest equally whatever their key order or formatting.
 */
export function manifestDigest (value: unknown): string {
  // The bytes are gathered and hashed at once: an update per key and value costs most of the time
  // over a workspace of a thousand manifests.
  const parts: Buffer[] = []
  digestInput(parts, value)
  return createHash('sha256').update(Buffer.concat(parts)).digest('hex').slice(0, DIGEST_LENGTH)
}

const BYTE = {
  '[': Buffer.from('['),
  '{': Buffer.from('{'),
  t: Buffer.from('t'),
  f: Buffer.from('f'),
  '#': Buffer.from('#'),
  s: Buffer.from('s'),
  n: Buffer.from('n'),
} as const

function digestInput (parts: Buffer[], value: unknown): void {
  if (Array.isArray(value)) {
    parts.push(BYTE['['], lengthBytes(value.length))
    for (const item of value) digestInput(parts, item)
  } else if (typeof value === 'object' && value !== null) {
    const entries = Object.entries(value).filter(([, item]) => item !== undefined)
      .map(([key, item]) => [Buffer.from(key), item] as const)
      .sort(([a], [b]) => Buffer.compare(a, b))
    parts.push(BYTE['{'], lengthBytes(entries.length))
    for (const [key, item] of entries) {
      parts.push(lengthBytes(key.length), key)
      digestInput(parts, item)
    }
  } else if (typeof value === 'boolean') {
    parts.push(value ? BYTE.t : BYTE.f)
  } else if (typeof value === 'number') {
    parts.push(BYTE['#'])
    stringInput(parts, String(value))
  } else if (typeof value === 'string') {
    parts.push(BYTE.s)
    stringInput(parts, value)
  } else {
    parts.push(BYTE.n)
  }
}

function stringInput (parts: Buffer[], text: string): void {
  const bytes = Buffer.from(text)
  parts.push(lengthBytes(bytes.length), bytes)
}

/** A length as 8 bytes, little-endian. */
function lengthBytes (length: number): Buffer {
  const bytes = Buffer.alloc(8)
  bytes.writeUInt32LE(length % 0x1_0000_0000, 0)
  bytes.writeUInt32LE(Math.floor(length / 0x1_0000_0000), 4)
  return bytes
}

/** pnpm's record of the local sources: only the kinds there are. */
function localDependenciesOf (lockfile: Lockfile, dir: string): { tarballs?: string[], directories?: string[] } {
  const { tarballs, directories } = localSources(lockfile, dir)
  return { ...tarballs.length > 0 ? { tarballs } : {}, ...directories.length > 0 ? { directories } : {} }
}
