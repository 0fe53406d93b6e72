import { isDeepStrictEqual } from 'node:util'

import { LodeError } from '@lode/core.error'

/**
 * What lode does with each setting pnpm 11 knows (its config reader's list: pnpm's and npm's typed
 * settings, the typed `pnpm-workspace.yaml` keys and the keys it sets itself), so that no setting
 * of a user's is ignored in silence:
 *
 * - `implemented`: read and honoured as pnpm 11 does.
 * - `accepted`: read and dropped, because it changes nothing a lode command does (it belongs to a
 *   command lode lacks, or only shapes output); `why` says so.
 * - `refused`: a value other than pnpm's default fails the command with
 *   `ERR_LODE_UNSUPPORTED_SETTING` before anything is written. `defaults` are the values that
 *   change nothing (pnpm's default); `scope` is the command whose result it changes (`install`: all
 *   of lode's installing commands; `add` and `update`: only that command).
 *
 * pkg-manager/config/settings's README has this table for people; a test keeps the two the same.
 */
export type SettingEntry =
  | { readonly status: 'implemented' }
  | { readonly status: 'accepted', readonly why: string }
  | { readonly status: 'refused', readonly defaults: readonly unknown[], readonly scope: RefusalScope }

export type RefusalScope = 'install' | 'add' | 'update'

const table = new Map<string, SettingEntry>()

function implemented (...names: string[]): void {
  for (const name of names) table.set(name, { status: 'implemented' })
}

function accepted (why: string, ...names: string[]): void {
  for (const name of names) table.set(name, { status: 'accepted', why })
}

/** `name → pnpm's default` (`undefined`: none, so any value is refused); an array lists several harmless values. */
function refused (scope: RefusalScope, settings: Record<string, unknown>): void {
  for (const [name, fallback] of Object.entries(settings)) {
    table.set(name, { status: 'refused', scope, defaults: fallback === undefined ? [] : Array.isArray(fallback) ? fallback : [fallback] })
  }
}

implemented(
  // what an install resolves
  'allowedDeprecatedVersions', 'autoInstallPeers', 'blockExoticSubdeps', 'catalog', 'catalogs', 'dedupePeerDependents', 'dedupePeers',
  'ignoreCompatibilityDb', 'ignoredOptionalDependencies', 'supportedArchitectures', 'linkWorkspacePackages', 'minimumReleaseAge', 'minimumReleaseAgeExclude',
  'minimumReleaseAgeStrict', 'minimumReleaseAgeExcludePrune', 'overrides', 'packageExtensions', 'packages', 'patchedDependencies', 'peerDependencyRules',
  'peersSuffixMaxLength', 'resolvePeersFromWorkspaceRoot', 'trustLockfile', 'trustPolicy', 'trustPolicyExclude', 'trustPolicyIgnoreAfter',
  'preferWorkspacePackages', 'engineStrict', 'nodeVersion', 'strictPeerDependencies', 'catalogPrune', 'cleanupUnusedCatalogs',
  'injectWorkspacePackages', 'patchesDir', 'allowUnusedPatches', 'dedupeInjectedDeps',
  // pack and publish
  'access', 'gitChecks', 'otp', 'packDestination', 'publishBranch', 'skipManifestObfuscation', 'tag',
  // version
  'allowSameVersion', 'commitHooks', 'gitTagVersion', 'message', 'signGitTag', 'tagVersionPrefix',
  // the lockfile and node_modules
  'frozenLockfile', 'hoist', 'ignoreWorkspaceCycles', 'hoistPattern', 'hoistWorkspacePackages', 'lockfile', 'modulesCacheMaxAge', 'nodeLinker', 'packageImportMethod', 'packageLock',
  'publicHoistPattern', 'shamefullyHoist', 'virtualStoreDir', 'virtualStoreDirMaxLength', 'confirmModulesPurge', 'optimisticRepeatInstall',
  'enableGlobalVirtualStore', 'virtualStoreType',
  // builds
  'allowBuilds', 'childConcurrency', 'strictDepBuilds',
  // dlx
  'dlxCacheMaxAge',
  // the network, the store and the cache
  'cacheDir', 'fetchRetries', 'fetchRetryFactor', 'fetchRetryMaxtimeout', 'fetchRetryMintimeout', 'fetchTimeout', 'httpProxy',
  'httpsProxy', 'maxTarballUnpackedSize', 'networkConcurrency', 'noProxy', 'noproxy', 'offline', 'preferOffline', 'proxy', 'registry',
  'storeDir', 'strictSsl',
  // add and update
  'catalogMode', 'ignoreWorkspaceRootCheck', 'saveCatalogName', 'saveExact', 'savePrefix', 'saveWorkspaceProtocol', 'update', 'updateConfig',
  // scripts
  'ignoreScripts', 'nodeOptions',
  // the package manager field of package.json
  'pmOnFail',
)

accepted('only pnpm version -r without a version (pnpm\'s change intents, which lode does not have yet) reads it', 'versioning')
accepted('lode pack and publish refuse it when set (ERR_LODE_UNSUPPORTED_SETTING); installs do not read it', 'embedReadme', 'packGzipLevel', 'provenance')
accepted('only pnpm init reads it (lode init writes pnpm\'s defaults, without these yet)',
  'initAuthorEmail', 'initAuthorName', 'initAuthorUrl', 'initLicense', 'initPackageManager', 'initType', 'initVersion')
accepted('lode deploy refuses it when true (ERR_LODE_UNSUPPORTED_SETTING); installs do not read it', 'deployAllFiles', 'forceLegacyDeploy')
accepted('only lode audit reads it', 'audit', 'auditConfig', 'auditIgnorePrune', 'auditLevel')
accepted('only global installs read it (lode installs no global packages)', 'global', 'globalPath', 'globalPrefix', 'prefix')
accepted('only pnpm list, why and outdated read it', 'depth', 'long', 'parseable', 'json', 'description')
accepted('it is a command-line flag that prints pnpm\'s version', 'version')
accepted('it shapes output only', 'color', 'loglevel', 'progress', 'reporter', 'reporterHidePrefix', 'stream', 'updateNotifier',
  'useBetaCli', 'useStderr', 'fetchWarnTimeoutMs', 'fetchMinSpeedKiBps')
accepted('it only answers prompts pnpm shows; lode shows none', 'autoConfirmAllPrompts', 'yes')
accepted('it only tunes the network (socket and download counts) or which requests pnpm makes, not what is installed',
  'fetchingConcurrency', 'maxSockets', 'maxsockets', 'registrySupportsTimeField')
accepted('it is a cache of build results; without it lode runs the allowed builds, with the same result',
  'sideEffectsCache', 'sideEffectsCacheRead', 'sideEffectsCacheReadonly', 'sideEffectsCacheWrite', 'remoteSideEffectsCache')
accepted('it sets how pnpm double-checks its store; lode checks each package against its integrity when it enters the store',
  'verifyStoreIntegrity')
accepted('pnpm 11 no longer reads it: allowBuilds replaced it',
  'ignoredBuiltDependencies', 'neverBuiltDependencies', 'onlyBuiltDependencies', 'onlyBuiltDependenciesFile')
accepted('only pnpm run, exec and their recursive forms read it; lode run takes these as flags (--workspace-concurrency, --no-bail, --reverse, --aggregate-output), not as settings yet',
  'aggregateOutput', 'bail', 'changedFilesIgnorePattern', 'enablePrePostScripts', 'includeWorkspaceRoot', 'requiredScripts', 'reverse',
  'sort', 'syncInjectedDepsAfterScripts', 'tasks', 'testPattern', 'verifyDepsBeforeRun', 'workspaceConcurrency')
accepted('the emulator runs the POSIX-style scripts sh runs; lode runs scripts with sh', 'shellEmulator')
accepted('lode picks the selected projects from its --filter flag', 'failIfNoMatch')
accepted('only pnpm runtime downloads read it (lode installs no Node.js runtime)', 'nodeDownloadMirrors')
accepted('pnpm hands some commands to npm; lode hands none', 'npmPath', 'pnpmExecPath')
accepted('only the shallowness of git clones, not what is installed', 'gitShallowHosts')
accepted('lode never changes the user scripts run as', 'unsafePerm')
accepted('lode loads no pnpmfile (a .pnpmfile.cjs or .pnpmfile.mjs in the workspace root is refused instead)', 'ignorePnpmfile', 'tryLoadDefaultPnpmfile')
accepted('pnpm 11\'s installs ignore it: the global virtual store is virtualStoreDir, else <store>/v11/links', 'globalVirtualStoreDir')
accepted('it is lode\'s own bound on a tarball (see tarballMaxUnpackedSize)', 'tarballMaxFiles', 'tarballMaxUnpackedSize')
accepted('it is lode\'s own bound on a package\'s metadata document (see packumentMaxSize)', 'packumentMaxSize')

refused('install', {
  // resolution
  autoInstallPeersFromHighestMatch: false,
  configDependencies: [{}],
  cpu: undefined,
  dangerouslyAllowAllBuilds: false,
  dedupeDirectDeps: false,
  disallowWorkspaceCycles: false,
  excludeLinksFromLockfile: false,
  executionEnv: undefined,
  externalDependencies: [[]],
  force: false,
  forceIgnoresPlatform: true,
  git: undefined,
  globalPnpmfile: undefined,
  ignoreWorkspace: false,
  legacyDirFiltering: false,
  libc: undefined,
  minimumReleaseAgeIgnoreMissingTime: true,
  os: undefined,
  packageConfigs: undefined,
  pnpmfile: undefined,
  pnprServer: undefined,
  registries: undefined,
  namedRegistries: undefined,
  resolutionMode: 'highest',
  runtime: undefined,
  runtimeOnFail: undefined,
  trustPolicyExcludePrune: false,
  // what is written and linked
  enableModulesDir: true,
  // A package whose files name another package (its package.json) is always refused.
  strictStorePkgContentCheck: true,
  enablePnp: false,
  extendNodePath: true,
  frozenStore: false,
  gitBranchLockfile: false,
  hoistingLimits: undefined,
  lockfileDir: undefined,
  lockfileIncludeTarballUrl: false,
  lockfileOnly: false,
  mergeGitBranchLockfiles: false,
  mergeGitBranchLockfilesBranchPattern: undefined,
  modulesDir: 'node_modules',
  modulesDirsByProjectName: undefined,
  nodeExperimentalPackageMap: false,
  nodePackageMapType: 'standard',
  preferFrozenLockfile: true,
  preferSymlinkedExecutables: true,
  binLinks: true,
  preserveAbsolutePaths: false,
  recursiveInstall: true,
  sharedWorkspaceLockfile: true,
  symlink: true,
  umask: undefined,
  useGitBranchLockfile: false,
  useLockfile: true,
  virtualStoreOnly: false,
  // which projects and dependency groups
  dev: undefined,
  filter: undefined,
  filterProd: undefined,
  only: undefined,
  optional: true,
  production: undefined,
  recursive: undefined,
  workspacePackages: undefined,
  workspaceRoot: undefined,
  // the network and the registry
  ca: undefined,
  cafile: undefined,
  cert: undefined,
  key: undefined,
  localAddress: undefined,
  registriesByPrefix: undefined,
  registriesByScope: undefined,
  registryOptionsByUrl: undefined,
  userAgent: undefined,
  useRunningStoreServer: false,
  useStoreServer: false,
  // scripts
  extraBinPaths: undefined,
  extraEnv: undefined,
  scriptShell: undefined,
  scriptsPrependNodePath: false,
  // settings pnpm derives from others for itself
  ci: undefined,
  dryRun: false,
  pending: false,
  workspacePackagePatterns: undefined,
  workspacePrefix: undefined,
})
refused('add', {
  allowNew: undefined,
  ignoreCurrentSpecifiers: undefined,
  save: undefined,
  saveDev: undefined,
  saveOptional: undefined,
  savePeer: false,
  saveProd: undefined,
})

/** Every setting pnpm 11 knows, with what lode does with it. */
export const PNPM_SETTINGS: ReadonlyMap<string, SettingEntry> = table

/**
 * Keys pnpm 11 does not take from a project's pnpm-workspace.yaml (where a machine's files are, the
 * current run, credentials, the login scope, and what it derives from package.json): it warns and
 * ignores them, and so does lode.
 */
export const PROJECT_REFUSED_KEYS: ReadonlySet<string> = new Set([
  'configDir', 'globalBinDir', 'globalDir', 'globalPkgDir', 'npmrcAuthFile', 'pnpmHomeDir', 'stateDir', 'userconfig',
  'bin', 'dir', 'rootProjectManifestDir', 'workspaceDir',
  'authConfig', 'userConfig', 'configByUri', 'packageManagerNetworkConfig', 'packageManagerRegistries',
  'scope',
  'hooks', 'finders', 'allProjects', 'selectedProjectsGraph', 'allProjectsGraph', 'prodAllProjectsGraph', 'prodOnlySelectedProjectDirs',
  'rootProjectManifest', 'enginePinManifest', 'nodeVersionFromEnginesRuntime', 'cliOptions', 'rawCliConfig', 'explicitlySetKeys',
  'packageManager', 'wantedPackageManager',
])

/**
 * The settings pnpm 11 takes from its global config file (`config.yaml` in its config directory):
 * the machine's, not a project's structure. Others there are ignored, with a warning.
 */
export const GLOBAL_CONFIG_KEYS: ReadonlySet<string> = new Set([
  'access', 'allowSameVersion', 'bail', 'binLinks', 'blockExoticSubdeps', 'ca', 'cacheDir', 'cafile', 'cert', 'childConcurrency', 'ci',
  'color', 'commitHooks', 'dangerouslyAllowAllBuilds', 'depth', 'description', 'dlxCacheMaxAge', 'dryRun', 'enableGlobalVirtualStore',
  'enableModulesDir', 'engineStrict', 'excludeLinksFromLockfile', 'extendNodePath', 'fetchMinSpeedKiBps', 'fetchRetries',
  'fetchRetryFactor', 'fetchRetryMaxtimeout', 'fetchRetryMintimeout', 'fetchTimeout', 'fetchWarnTimeoutMs', 'fetchingConcurrency',
  'force', 'forceIgnoresPlatform', 'frozenStore', 'git', 'gitChecks', 'gitShallowHosts', 'gitTagVersion', 'global', 'globalBinDir',
  'globalDir', 'globalPath', 'globalPnpmfile', 'globalVirtualStoreDir', 'httpProxy', 'httpsProxy', 'ignoreScripts', 'initAuthorEmail',
  'initAuthorName', 'initAuthorUrl', 'initLicense', 'initPackageManager', 'initType', 'initVersion', 'json', 'key', 'localAddress',
  'loglevel', 'long', 'maxTarballUnpackedSize', 'maxsockets', 'message', 'minimumReleaseAge', 'minimumReleaseAgeExclude',
  'minimumReleaseAgeIgnoreMissingTime', 'minimumReleaseAgeStrict', 'modulesCacheMaxAge', 'namedRegistries', 'networkConcurrency',
  'noProxy', 'nodeDownloadMirrors', 'nodeExperimentalPackageMap', 'nodeOptions', 'nodePackageMapType', 'nodeVersion', 'noproxy',
  'npmPath', 'npmrcAuthFile', 'only', 'optimisticRepeatInstall', 'optional', 'otp', 'packageImportMethod', 'packageLock', 'parseable',
  'pnprServer', 'preferFrozenLockfile', 'preferOffline', 'preferSymlinkedExecutables', 'prefix', 'progress', 'provenance', 'proxy',
  'registries', 'registry', 'registrySupportsTimeField', 'remoteSideEffectsCache', 'reporter', 'resolutionMode', 'save', 'saveDev',
  'saveExact', 'saveOptional', 'savePrefix', 'saveProd', 'scope', 'scriptShell', 'scriptsPrependNodePath', 'shellEmulator',
  'sideEffectsCache', 'sideEffectsCacheReadonly', 'signGitTag', 'stateDir', 'storeDir', 'strictDepBuilds', 'strictSsl', 'tag',
  'tagVersionPrefix', 'trustLockfile', 'trustPolicy', 'trustPolicyExclude', 'trustPolicyIgnoreAfter', 'umask', 'unsafePerm',
  'updateNotifier', 'useBetaCli', 'useStderr', 'userAgent', 'userconfig', 'verifyDepsBeforeRun', 'verifyStoreIntegrity', 'version',
  'virtualStoreDir', 'virtualStoreDirMaxLength', 'virtualStoreType',
])

// What the machine-level keys a project may not set mean in the global config file: the directories
// of pnpm's global commands and state (which lode lacks) change nothing; where the user's .npmrc is
// would change the credentials, and lode reads `~/.npmrc` (or `npm_config_userconfig`) only.
const GLOBAL_MACHINE_KEYS: Readonly<Record<string, SettingEntry>> = {
  globalBinDir: { status: 'accepted', why: 'global commands' },
  globalDir: { status: 'accepted', why: 'global commands' },
  stateDir: { status: 'accepted', why: 'pnpm\'s own state' },
  scope: { status: 'accepted', why: 'pnpm login' },
  npmrcAuthFile: { status: 'refused', scope: 'install', defaults: [] },
  userconfig: { status: 'refused', scope: 'install', defaults: [] },
}

export interface SettingsAudit {
  /** The settings lode goes on to read (a global config file's, without the keys it may not set). */
  settings: Record<string, unknown>
  /** Keys ignored, as pnpm 11 ignores them, with what pnpm says about them. */
  warnings: string[]
}

/**
 * Checks every key of a pnpm-workspace.yaml (`kind: 'project'`) or of pnpm's global `config.yaml`
 * (`kind: 'global'`) against `PNPM_SETTINGS` for the command `scope` runs: a refused setting set to
 * anything but pnpm's default is `ERR_LODE_UNSUPPORTED_SETTING` naming the file and every such
 * setting; keys pnpm 11 ignores (unknown ones, kebab-case ones, ones a project may not set, ones
 * the global file may not set) come back as pnpm's warnings.
 */
export function auditSettings (settings: Readonly<Record<string, unknown>>, file: string, opts: { kind: 'project' | 'global', scope: RefusalScope }): SettingsAudit {
  const kept: Record<string, unknown> = {}
  const refusedHere: Array<{ name: string, defaults: readonly unknown[] }> = []
  const projectRefused: string[] = []
  const notGlobal: string[] = []
  const unknown: string[] = []
  const kebab: string[] = []
  for (const [key, value] of Object.entries(settings)) {
    // pnpm skips `$schema` and keys without a value.
    if (key === '$schema' || value === null || value === undefined || (opts.kind === 'global' && key === '_auth')) continue
    const known = PNPM_SETTINGS.has(key) || PROJECT_REFUSED_KEYS.has(key)
    if (opts.kind === 'global' && known && !GLOBAL_CONFIG_KEYS.has(key)) {
      notGlobal.push(key)
      continue
    }
    kept[key] = value
    if (PROJECT_REFUSED_KEYS.has(key) && opts.kind === 'project') {
      projectRefused.push(key)
      continue
    }
    const entry = PNPM_SETTINGS.get(key) ?? GLOBAL_MACHINE_KEYS[key]
    if (entry === undefined) {
      if (PNPM_SETTINGS.has(camelCase(key)) || PROJECT_REFUSED_KEYS.has(camelCase(key))) kebab.push(key)
      else unknown.push(key)
      delete kept[key]
      continue
    }
    if (entry.status !== 'refused' || !appliesTo(entry.scope, opts.scope)) continue
    if (!entry.defaults.some((harmless) => isDeepStrictEqual(harmless, value))) refusedHere.push({ name: key, defaults: entry.defaults })
  }
  if (refusedHere.length > 0) {
    const names = refusedHere.map(({ name }) => name)
    const withDefaults = refusedHere.filter(({ defaults }) => defaults.length > 0)
    throw new LodeError('UNSUPPORTED_SETTING', `${listOf(names)} in ${file} ${names.length === 1 ? 'is' : 'are'} not supported by lode yet.`, {
      hint: `Remove ${names.length === 1 ? 'it' : 'them'}${withDefaults.length > 0 ? ` or set ${withDefaults.map(({ name, defaults }) => `${name} to ${JSON.stringify(defaults[0])}`).join(', ')} (pnpm's default)` : ''}, or use pnpm for this project. pkg-manager/config/settings's README lists every pnpm setting and what lode does with it.`,
    })
  }
  const warnings: string[] = []
  const where = opts.kind === 'project' ? 'pnpm-workspace.yaml' : `the global config file ("${file}")`
  if (projectRefused.length > 0) warnings.push(`The following settings cannot be set in a project's pnpm-workspace.yaml and were ignored: ${quoted(projectRefused)}.`)
  if (notGlobal.length > 0) warnings.push(`The following settings cannot be set in ${where} and were ignored: ${quoted(notGlobal)}. Move them to a project-level pnpm-workspace.yaml.`)
  if (unknown.length > 0) warnings.push(`The following settings in ${where} are not recognized by pnpm 11 or lode and were ignored: ${firstFew(unknown, withSuggestion)}.`)
  if (kebab.length > 0) warnings.push(`The following settings in ${where} were ignored because they are not written in camelCase: ${firstFew(kebab, (key) => `${quote(key)} (use "${camelCase(key)}")`)}.`)
  return { settings: kept, warnings }
}

function appliesTo (settingScope: RefusalScope, commandScope: RefusalScope): boolean {
  return settingScope === 'install' || settingScope === commandScope
}

export function camelCase (key: string): string {
  return key.replace(/[-_]+([a-zA-Z0-9])/g, (_, c: string) => c.toUpperCase())
}

const quoted = (keys: string[]): string => firstFew(keys, quote)

/** A key from the file, quoted with its control characters escaped and cut at 100 characters. */
const quote = (key: string): string => JSON.stringify(key.length > 100 ? `${key.slice(0, 100)}…` : key)

/** The first ten keys described, then how many more (a hostile file may have thousands). */
function firstFew (keys: string[], describe: (key: string) => string): string {
  const shown = keys.slice(0, 10).map(describe).join(', ')
  return keys.length > 10 ? `${shown} and ${keys.length - 10} more` : shown
}

function listOf (names: string[]): string {
  return names.length === 1 ? names[0]! : `${names.slice(0, -1).join(', ')} and ${names.at(-1)!}`
}

/** `"minimumReleaseAges" (did you mean "minimumReleaseAge"?)` when a known setting is a few edits away. */
function withSuggestion (key: string): string {
  let best: string | undefined
  let bestDistance = Infinity
  const limit = Math.max(2, Math.floor(key.length * 0.3))
  for (const name of PNPM_SETTINGS.keys()) {
    if (Math.abs(name.length - key.length) > limit) continue
    const distance = editDistance(key.toLowerCase(), name.toLowerCase(), limit)
    if (distance < bestDistance) {
      best = name
      bestDistance = distance
    }
  }
  return best !== undefined && bestDistance <= limit ? `${quote(key)} (did you mean "${best}"?)` : quote(key)
}

/** Levenshtein distance, giving up past `limit` (keys are short; a hostile file's long keys cost `limit` rows each). */
function editDistance (a: string, b: string, limit: number): number {
  if (a.length > 200 || b.length > 200) return Infinity
  let previous = Array.from({ length: b.length + 1 }, (_, i) => i)
  for (let i = 1; i <= a.length; i++) {
    const current = [i]
    let rowMin = i
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1))
      rowMin = Math.min(rowMin, current[j]!)
    }
    if (rowMin > limit) return Infinity
    previous = current
  }
  return previous[b.length]!
}
