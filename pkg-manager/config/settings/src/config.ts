import os from 'node:os'
import path from 'node:path'
import { inspect } from 'node:util'

import { GLOBAL_VIRTUAL_STORE_DIR, MODULES_DIR, STORE_VERSION, VIRTUAL_STORE_DIR } from '@lode/core.constants'
import { LodeError } from '@lode/core.error'

import { isCI } from './ci.js'
import { settingsFromEnv } from './env-settings.js'
import { globalAuthFile, globalConfigFile } from './global-config-file.js'
import { npmDefaultRegistry } from './npm-default-registry.js'
import { pickNpmrcSettings, readCafile, readNpmrc } from './npmrc.js'
import { refuseDefaultPnpmfile } from './pnpmfile.js'
import { readSettingsYaml, readWorkspaceYaml } from './settings-yaml.js'
import { auditSettings, type RefusalScope } from './settings.js'
import { pnpmDataDir, pnpmStorePath } from './store-dir.js'
import { lodeUserAgent } from './user-agent.js'

/** Everything an install reads from settings, fully defaulted and frozen. Built once, handed down. */
/** pnpm's settings for `pack` and `publish`. */
export interface PublishSettings {
  readonly access: 'public' | 'restricted' | undefined
  /** The dist-tag (`latest` when unset). */
  readonly tag: string | undefined
  readonly otp: string | undefined
  /** Check git before publishing (default true). */
  readonly gitChecks: boolean
  /** The branch to publish from (`master` or `main` when unset). */
  readonly publishBranch: string | undefined
  readonly packDestination: string | undefined
  /** Keep the scripts in the packed package.json. */
  readonly skipManifestObfuscation: boolean
}

/** pnpm's settings for `version` (the command line's flags win over them). */
export interface VersionCommandSettings {
  /** Bumping to the version a project has is no error. */
  readonly allowSameVersion: boolean
  /** false: the bump's commit skips git's hooks (`--no-verify`). */
  readonly commitHooks: boolean
  /** Commit and tag a project's bump in a git repository (default true). */
  readonly gitTagVersion: boolean
  /** The commit's and tag's message, `%s` the new version (default `%s`). */
  readonly message: string
  readonly signGitTag: boolean
  /** The tag is `<prefix><version>` (default `v`). */
  readonly tagVersionPrefix: string
}

export interface Config {
  readonly dir: string
  /** `packages` globs of pnpm-workspace.yaml: set when `dir` is a workspace root. */
  readonly workspacePackages: readonly string[] | undefined
  readonly registry: string
  readonly scopedRegistries: Readonly<Record<string, string>>
  /** Raw `.npmrc` pairs (auth is looked up in them per URL). */
  readonly rawNpmrc: Readonly<Record<string, string>>
  readonly cacheDir: string
  /**
   * The store's root, the directory that holds `v11/`: pnpm 11's store (`pnpm store path` prints
   * `<storeDir>/v11`), so the two share one. Found on first read (the default probes the disk
   * for hard links, as pnpm does); see `pnpmStorePath`.
   */
  readonly storeDir: string
  /**
   * lode's default store before it shared pnpm's (`$XDG_DATA_HOME/lode/store`) when the store is
   * the default one; undefined when `storeDir` is set. An install names it when it still exists.
   */
  readonly formerDefaultStoreDir: string | undefined
  readonly offline: boolean
  /** pnpm's `ignoreWorkspaceCycles`: an install says nothing of projects that depend on each other. */
  readonly ignoreWorkspaceCycles: boolean
  /** Install the lockfile as it is or fail (pnpm's `frozen-lockfile`; on by default in CI). */
  readonly frozenLockfile: boolean
  /** On only because this is CI (nothing set it): then, as pnpm, a missing pnpm-lock.yaml is resolved and written, not an error. */
  readonly frozenLockfileIfExists: boolean
  /** What `lode add` puts before a picked version: `^` (the default), `~` or `` (exact). */
  readonly savePrefix: string
  /** pnpm's `saveCatalogName` (`--save-catalog-name`; `--save-catalog` is `default`): `add` saves new dependencies to this catalog. */
  readonly saveCatalogName: string | undefined
  /** pnpm's `saveWorkspaceProtocol`: how `add` saves a dependency linked to a workspace project (`rolling`: `workspace:^`). */
  readonly saveWorkspaceProtocol: 'rolling' | boolean
  /** pnpm's `supportedArchitectures`: the `os`, `cpu` and `libc` values optional packages are installed for (`current`: this machine's). */
  readonly supportedArchitectures: SupportedArchitectures | undefined
  /** pnpm's `nodeOptions`: `NODE_OPTIONS` for the scripts of `lode run` (not an install's, nor `lode exec`'s, as pnpm 11). */
  readonly nodeOptions: string | undefined
  /** pnpm's `minimumReleaseAgeExcludePrune`: after an install, `minimumReleaseAgeExclude` entries the lockfile no longer needs are removed. */
  readonly minimumReleaseAgeExcludePrune: boolean
  /** pnpm's `ignoreWorkspaceRootCheck`: `add` in a workspace's root without `-w`. */
  readonly ignoreWorkspaceRootCheck: boolean
  /** pnpm's `ignoreScripts`: no install runs a script unless told otherwise (`--no-ignore-scripts`). */
  readonly ignoreScripts: boolean
  /** pnpm's `update.ignoreDeps` (or the older `updateConfig.ignoreDependencies`): names `lode update` leaves alone unless named. */
  readonly updateIgnoreDependencies: readonly string[]
  /** pnpm's `catalogMode`: whether `add` uses the catalogs (`prefer`), must (`strict`), or only when told (`manual`, the default). */
  readonly catalogMode: 'manual' | 'prefer' | 'strict'
  readonly preferOffline: boolean
  readonly networkConcurrency: number
  readonly fetchRetries: number
  readonly fetchRetryFactor: number
  readonly fetchRetryMintimeout: number
  readonly fetchRetryMaxtimeout: number
  readonly fetchTimeout: number
  /**
   * lode's bounds on one package's tarball (not pnpm settings: pnpm has none): the bytes it may
   * unpack to and its number of files. Beyond them the install fails with a coded error naming
   * the package. Defaults: `DEFAULT_EXTRACT_LIMITS` of `@lode/worker.extract`.
   */
  readonly tarballMaxUnpackedSize: number | undefined
  readonly tarballMaxFiles: number | undefined
  /**
   * lode's bound on one package's metadata document (its packument), in bytes, as sent and once
   * decoded (not a pnpm setting: pnpm has none). Beyond it the install fails with
   * `ERR_LODE_FETCH_TOO_LARGE` naming the package. Default: `DEFAULT_PACKUMENT_MAX_SIZE` of
   * `@lode/resolving.npm-resolver` (512 MiB).
   */
  readonly packumentMaxSize: number | undefined
  readonly strictSsl: boolean
  readonly ca: readonly string[]
  readonly httpProxy: string | undefined
  readonly httpsProxy: string | undefined
  readonly noProxy: string | undefined
  readonly minimumReleaseAge: number
  readonly minimumReleaseAgeExclude: readonly string[]
  /** Fail on versions younger than `minimumReleaseAge` instead of adding them to `minimumReleaseAgeExclude`; true when `minimumReleaseAge` is set explicitly (pnpm 11). */
  readonly minimumReleaseAgeStrict: boolean
  readonly autoInstallPeers: boolean
  readonly dedupePeerDependents: boolean
  /** pnpm's `dedupeInjectedDeps` (default true): a project's injected copy of a workspace project is linked instead when it would see the same dependencies. */
  readonly dedupeInjectedDeps: boolean
  /** pnpm's `dedupePeers` (default false): peer suffixes name each peer's `name@version` only, without the peer's own suffix. */
  readonly dedupePeers: boolean
  /** pnpm's `resolvePeersFromWorkspaceRoot` (default true): the root project's dependencies provide peers to every project's dependencies. */
  readonly resolvePeersFromWorkspaceRoot: boolean
  /** pnpm's `peerDependencyRules`: which peer issues are not reported. */
  readonly peerDependencyRules: PeerDependencyRules
  /** pnpm's `linkWorkspacePackages` (default false in pnpm 11): a plain range a workspace project satisfies is linked, for direct dependencies (`true`) or at any depth (`deep`). */
  readonly linkWorkspacePackages: boolean | 'deep'
  /** pnpm's `preferWorkspacePackages` (default false): with `linkWorkspacePackages`, a workspace project that satisfies a range is linked even when the registry has a newer version. */
  readonly preferWorkspacePackages: boolean
  /** pnpm's `injectWorkspacePackages` (default false): workspace dependencies are copied into the virtual store (`file:` packages) instead of symlinked. */
  readonly injectWorkspacePackages: boolean
  /** pnpm's `engineStrict` (default false): a package whose `engines.node` (or a project whose `engines`) the running Node.js does not satisfy fails the install instead of a warning. */
  readonly engineStrict: boolean
  /** The Node.js version `engines` are checked against: pnpm's `nodeVersion` setting, else the running one. */
  readonly nodeVersion: string
  /** pnpm's `strictPeerDependencies` (default false): peer dependency issues fail an install. */
  readonly strictPeerDependencies: boolean
  /** pnpm's `catalogPrune` (or its older name `cleanupUnusedCatalogs`; default false): catalog entries no project uses are removed from pnpm-workspace.yaml after an install. */
  readonly catalogPrune: boolean
  /** Patterns of dependencies hoisted into `node_modules/.pnpm/node_modules` (pnpm's default `*`). */
  readonly hoistPattern: readonly string[]
  /** pnpm's `hoistWorkspacePackages` (default true): the workspace's projects are hoisted by name, as packages are. */
  readonly hoistWorkspacePackages: boolean
  /** Patterns of dependencies hoisted into `node_modules` (none by default; `*` with `shamefullyHoist: true`). */
  readonly publicHoistPattern: readonly string[]
  /** pnpm's `nodeLinker`: `isolated` (symlinks into the virtual store, the default) or `hoisted` (a flat node_modules, as npm lays it out). */
  readonly nodeLinker: 'isolated' | 'hoisted'
  /**
   * pnpm's `enableGlobalVirtualStore` (or `virtualStoreType: global`, which wins; default off): the
   * isolated layout's packages go to slots in `virtualStoreDir` shared by every project, and each
   * project's node_modules links to them. `nodeLinker: hoisted` ignores it.
   */
  readonly enableGlobalVirtualStore: boolean
  /**
   * Where the isolated layout's packages go (pnpm's `virtualStoreDir`), absolute; `node_modules/.pnpm`
   * of the workspace root by default, `<store>/v11/links` (the global virtual store) by default with
   * `enableGlobalVirtualStore`.
   */
  readonly virtualStoreDir: string
  /** pnpm's `virtualStoreDirMaxLength`: the longest directory name in the virtual store before it is cut and hashed. */
  readonly virtualStoreDirMaxLength: number
  /** pnpm's `confirmModulesPurge`, off in CI: a node_modules laid out with other settings is removed only after asking. */
  readonly confirmModulesPurge: boolean
  /** Catalogs (`catalog` as `default`, and `catalogs`): catalog → package → specifier, for `catalog:` specifiers. */
  readonly catalogs: Readonly<Record<string, Readonly<Record<string, string>>>>
  /** `patchedDependencies`: `name`, `name@version` or `name@range` → patch file (relative to the project). */
  readonly patchedDependencies: Readonly<Record<string, string>>
  /** pnpm's `patchesDir` (default `patches`, relative to the workspace root): where `patch-commit` writes patch files. */
  readonly patchesDir: string
  /** pnpm's `allowUnusedPatches`: a `patchedDependencies` key no package matches warns instead of failing the install. */
  readonly allowUnusedPatches: boolean
  /** pnpm's `optimisticRepeatInstall` (default true): off, every install goes through node_modules, putting back what was deleted there. */
  readonly optimisticRepeatInstall: boolean
  /** pnpm's pack and publish settings (the command line's flags win over them). */
  readonly publish: PublishSettings
  /** pnpm's version settings (`gitChecks` is publish's). */
  readonly version: VersionCommandSettings
  /** Optional dependencies never installed (name patterns), recorded in the lockfile. */
  readonly ignoredOptionalDependencies: readonly string[]
  /** name → version range whose deprecation is not reported. */
  readonly allowedDeprecatedVersions: Readonly<Record<string, string>>
  /** `allowBuilds` from pnpm-workspace.yaml: package → whether its build scripts may run. */
  readonly allowBuilds: Readonly<Record<string, boolean>>
  /** Fail when a dependency wants to build and `allowBuilds` does not mention it (pnpm 11's default). */
  readonly strictDepBuilds: boolean
  /** Dependency builds at a time (pnpm's default: the cores, at most 4). */
  readonly childConcurrency: number
  /** pnpm's `dlxCacheMaxAge`: minutes a `dlx` install is reused (a day by default). */
  readonly dlxCacheMaxAge: number
  /** How files get from the store into node_modules (pnpm's `packageImportMethod`). */
  readonly packageImportMethod: 'auto' | 'hardlink' | 'clone' | 'copy' | 'clone-or-copy'
  /** Minutes orphaned packages stay in `node_modules/.pnpm` after the last pruning (pnpm's default: 7 days). */
  readonly modulesCacheMaxAge: number
  readonly peersSuffixMaxLength: number
  /** `overrides` from pnpm-workspace.yaml, as written (selector → specifier). */
  readonly overrides: Readonly<Record<string, string>>
  /** `packageExtensions` from pnpm-workspace.yaml, as written (selector → fields to add). */
  readonly packageExtensions: Readonly<Record<string, Readonly<Record<string, Readonly<Record<string, unknown>>>>>>
  readonly ignoreCompatibilityDb: boolean
  readonly blockExoticSubdeps: boolean
  /** pnpm's `trustPolicy`: `no-downgrade` refuses a version published with weaker trust evidence than an earlier one. */
  readonly trustPolicy: 'off' | 'no-downgrade'
  /** Names, `@scope/*` globs or `name@version` entries `trustPolicy` does not apply to. */
  readonly trustPolicyExclude: readonly string[]
  /** Minutes after which a version's trust is no longer checked (undefined: always checked). */
  readonly trustPolicyIgnoreAfter: number | undefined
  /** pnpm's `trustLockfile` (default false): the lockfile's entries are not checked against `minimumReleaseAge` and `trustPolicy` before an install. */
  readonly trustLockfile: boolean
  /** pnpm's `lockfile` (or npm's `packageLock`): false reads and writes no pnpm-lock.yaml. */
  readonly useLockfile: boolean
  /** pnpm's `pmOnFail`: what a `packageManager` (or `devEngines.packageManager`) naming another package manager gets; undefined when not set. */
  readonly pmOnFail: 'download' | 'error' | 'warn' | 'ignore' | undefined
  /** pnpm's `audit` settings (or the older `auditConfig.ignoreGhsas`, `auditLevel`, `auditIgnorePrune`), read by `lode audit`. */
  readonly audit: AuditSettings
  /** The user agent sent to registries and given to scripts (`npm_config_user_agent`): `pnpm/<version> lode/<version> npm/? node/<version> <platform> <arch>`. */
  readonly userAgent: string
  /** The running lode's version (`.modules.yaml` records `lode@<version>`). */
  readonly lodeVersion: string
  /**
   * The settings given rather than defaulted (pnpm-workspace.yaml, pnpm's global config.yaml, the
   * overrides), sorted: pnpm's workspace state records a setting without a default only when given.
   */
  readonly explicitSettings: readonly string[]
  /** Settings ignored as pnpm 11 ignores them (unknown keys, keys a project may not set, pnpm settings in .npmrc), for the user to see. */
  readonly warnings: readonly string[]
}

/** Settings given on the command line or by an API caller; they win over every file. */
export interface ConfigOverrides {
  registry?: string
  cacheDir?: string
  storeDir?: string
  offline?: boolean
  preferOffline?: boolean
  frozenLockfile?: boolean
  /** `--node-linker`, `--shamefully-hoist`, `--virtual-store-dir` (relative to the workspace root). */
  nodeLinker?: string
  shamefullyHoist?: boolean
  virtualStoreDir?: string
  /** `--config.enable-global-virtual-store`, `--config.virtual-store-type` (`global` or `project`; wins over the other). */
  enableGlobalVirtualStore?: boolean
  virtualStoreType?: string
  /** `--network-concurrency`, `--config.network-concurrency`: a whole number, 1 or more. */
  networkConcurrency?: number
}

export interface GetConfigOptions {
  dir: string
  env: Readonly<Record<string, string | undefined>>
  overrides: ConfigOverrides
  lodeVersion: string
  /** Asks npm for its default registry when no file or variable names one (tests replace it). */
  npmDefaultRegistry?: () => string
  /**
   * The command the settings are for (default `install`): settings lode refuses only for `add` or
   * `update` fail only those commands.
   */
  command?: RefusalScope
}

/**
 * Reads settings where pnpm 11 reads them: registry, auth, proxies and TLS from `.npmrc` (the
 * user's, then the project's; `npm_config_*` variables win over both; pnpm-workspace.yaml's
 * `registry`, proxies and `strictSsl` over them), everything else from `pnpm-workspace.yaml`, then
 * the overrides. A pnpm setting lode cannot honour is `ERR_LODE_UNSUPPORTED_SETTING`; see
 * `PNPM_SETTINGS`. Most of its length is the one `Config` literal, a line per setting, where a
 * setting's source and default are read side by side.
 */
export function getConfig (opts: GetConfigOptions): Config {
  const { env, dir } = opts
  const home = env['HOME'] ?? os.homedir()
  const userconfig = env['npm_config_userconfig'] ?? env['NPM_CONFIG_USERCONFIG'] ?? path.join(home, '.npmrc')
  const fromEnv: Record<string, string> = {}
  for (const [key, value] of Object.entries(env)) {
    const match = /^npm_config_(.+)$/i.exec(key)
    // As npm: `npm_config_fetch_retries` is `fetch-retries`, a leading `_` stays (`_auth`); `//host/:_authToken` as written.
    if (match !== null && value !== undefined && value !== '') fromEnv[match[1]!.startsWith('//') ? match[1]! : match[1]!.replace(/(?!^)_/g, '-').toLowerCase()] = value
  }
  const { npmrc, warnings: npmrcWarnings } = pickNpmrcSettings([
    // pnpm 11's order: the user's .npmrc, its own auth.ini (where `pnpm config set` writes registry and auth), the project's .npmrc.
    ...[userconfig, globalAuthFile(env, home), path.join(dir, '.npmrc')].map((file) => ({ where: file, pairs: readNpmrc(file, env), reportIgnored: true })),
    { where: 'the npm_config_* environment variables', pairs: fromEnv, reportIgnored: false },
  ])
  const scope = opts.command ?? 'install'
  const workspaceFile = path.join(dir, 'pnpm-workspace.yaml')
  const projectSettings = readWorkspaceYaml(dir)
  const globalFile = globalConfigFile(env, home)
  const global = auditSettings(readSettingsYaml(globalFile), globalFile, { kind: 'global', scope })
  const project = auditSettings(projectSettings, workspaceFile, { kind: 'project', scope })
  const envSettings = settingsFromEnv(env)
  auditSettings(envSettings.settings, 'the environment (pnpm_config_*)', { kind: 'project', scope })
  // pnpm's global config file (the machine's settings), then the project's over them, then the environment's.
  const workspace = { ...global.settings, ...projectSettings, ...envSettings.settings }
  refuseDefaultPnpmfile(dir, projectSettings)
  const updateSettings = readUpdateSettings(workspace, path.join(dir, 'pnpm-workspace.yaml'))
  const whereSet = (name: string): string => Object.hasOwn(envSettings.variables, name)
    ? envSettings.variables[name]!
    : Object.hasOwn(projectSettings, name) ? workspaceFile : globalFile
  const setting = settingReader(workspace, whereSet, envSettings.raw)
  const isNumber = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v) && v >= 0
  const isBool = (v: unknown): v is boolean => typeof v === 'boolean'
  // As many at once as this says: none at all would never end.
  const isConcurrency = (v: unknown): v is number => Number.isInteger(v) && (v as number) >= 1
  const optionalString = (name: string): string | undefined =>
    setting<string | undefined>(name, (v): v is string | undefined => isString(v), undefined)
  const frozenSetting = opts.overrides.frozenLockfile ?? setting<boolean | undefined>('frozenLockfile', (v): v is boolean | undefined => isBool(v), undefined)
  const shamefullyHoist = opts.overrides.shamefullyHoist ?? setting<boolean | undefined>('shamefullyHoist', (v): v is boolean | undefined => isBool(v), undefined)
  const isNodeLinker = (v: unknown): v is 'isolated' | 'hoisted' => v === 'isolated' || v === 'hoisted'
  if (workspace['nodeLinker'] === 'pnp' || opts.overrides.nodeLinker === 'pnp') {
    throw new LodeError('UNSUPPORTED_SETTING', `nodeLinker: pnp (${opts.overrides.nodeLinker === 'pnp' ? 'from --node-linker' : `in ${path.join(dir, 'pnpm-workspace.yaml')}`}) is not supported by lode: it lays out node_modules, isolated or hoisted.`, {
      hint: 'Set nodeLinker to isolated (the default) or hoisted, or use pnpm for this project.',
    })
  }
  if (opts.overrides.nodeLinker !== undefined && !isNodeLinker(opts.overrides.nodeLinker)) {
    throw new LodeError('INVALID_SETTING', `--node-linker is ${JSON.stringify(opts.overrides.nodeLinker)}.`, { hint: 'lode lays out node_modules isolated (the default) or hoisted.' })
  }
  const xdgCache = env['XDG_CACHE_HOME'] ?? path.join(home, '.cache')
  const cacheDir = path.resolve(dir, opts.overrides.cacheDir ?? setting('cacheDir', isString, path.join(xdgCache, 'lode')))
  const registry = withSlash(opts.overrides.registry ?? setting<string | undefined>('registry', (v): v is string | undefined => isString(v), undefined) ?? npmrc['registry'] ?? (opts.npmDefaultRegistry ?? (() => npmDefaultRegistry(env, cacheDir)))())
  const scopedRegistries: Record<string, string> = {}
  for (const [key, value] of Object.entries(npmrc)) {
    const match = /^(@[^:]+):registry$/.exec(key)
    if (match !== null) scopedRegistries[match[1]!] = withSlash(value)
  }
  const cores = Math.max(1, os.availableParallelism() - 1)
  const storeSetting = opts.overrides.storeDir ?? setting<string | undefined>('storeDir', (v): v is string | undefined => isString(v), undefined)
  const storeDefaulted = storeSetting === undefined || storeSetting === ''
  let storeDir: string | undefined
  const enableGlobalVirtualStore = globalVirtualStoreSetting(env, opts.overrides, setting)
  const virtualStoreSetting = opts.overrides.virtualStoreDir ?? setting<string | undefined>('virtualStoreDir', (v): v is string | undefined => isString(v), undefined)
  let virtualStoreDir: string | undefined
  const ca = npmrc['ca'] !== undefined ? [npmrc['ca']] : []
  if (npmrc['cafile'] !== undefined) ca.push(readCafile(npmrc['cafile']))
  const config: Config = {
    dir,
    workspacePackages: setting<string[] | undefined>('packages', (v): v is string[] | undefined => isStrings(v), undefined),
    registry,
    scopedRegistries,
    rawNpmrc: npmrc,
    cacheDir,
    // Read by the commands that use the store only: the default's probe writes a temp file in `dir`, as pnpm's does.
    get storeDir () {
      storeDir ??= path.dirname(pnpmStorePath({ setting: storeSetting, dir, home, dataDir: pnpmDataDir(env, home, process.platform) }))
      return storeDir
    },
    formerDefaultStoreDir: storeDefaulted ? path.join(env['XDG_DATA_HOME'] || path.join(home, '.local', 'share'), 'lode', 'store') : undefined,
    offline: opts.overrides.offline ?? setting('offline', isBool, false),
    frozenLockfile: frozenSetting ?? isCI(env),
    ignoreWorkspaceCycles: setting('ignoreWorkspaceCycles', isBool, false),
    frozenLockfileIfExists: frozenSetting === undefined && isCI(env),
    preferOffline: opts.overrides.preferOffline ?? setting('preferOffline', isBool, false),
    // pnpm 11's default: min(96, max(workers × 3, 64)).
    networkConcurrency: opts.overrides.networkConcurrency ?? setting('networkConcurrency', isConcurrency, Math.min(96, Math.max(cores * 3, 64))),
    fetchRetries: setting('fetchRetries', isNumber, 2),
    fetchRetryFactor: setting('fetchRetryFactor', isNumber, 10),
    fetchRetryMintimeout: setting('fetchRetryMintimeout', isNumber, 10_000),
    fetchRetryMaxtimeout: setting('fetchRetryMaxtimeout', isNumber, 60_000),
    fetchTimeout: setting('fetchTimeout', isNumber, 60_000),
    // lode's own name, or pnpm 11's `maxTarballUnpackedSize` for the same bound.
    tarballMaxUnpackedSize: setting<number | undefined>('tarballMaxUnpackedSize', (v): v is number | undefined => isNumber(v) && v > 0,
      setting<number | undefined>('maxTarballUnpackedSize', (v): v is number | undefined => isNumber(v) && v > 0, undefined)),
    tarballMaxFiles: setting<number | undefined>('tarballMaxFiles', (v): v is number | undefined => isNumber(v) && v > 0, undefined),
    packumentMaxSize: setting<number | undefined>('packumentMaxSize', (v): v is number | undefined => isNumber(v) && v > 0, undefined),
    strictSsl: setting('strictSsl', isBool, npmrc['strict-ssl'] !== 'false'),
    ca,
    httpProxy: optionalString('httpProxy') ?? optionalString('proxy') ?? npmrc['http-proxy'] ?? npmrc['proxy'] ?? env['http_proxy'] ?? env['HTTP_PROXY'],
    httpsProxy: optionalString('httpsProxy') ?? npmrc['https-proxy'] ?? env['https_proxy'] ?? env['HTTPS_PROXY'],
    noProxy: optionalString('noProxy') ?? optionalString('noproxy') ?? npmrc['no-proxy'] ?? env['no_proxy'] ?? env['NO_PROXY'],
    savePrefix: setting('saveExact', isBool, false) ? '' : setting('savePrefix', isString, '^'),
    saveCatalogName: optionalString('saveCatalogName'),
    nodeOptions: optionalString('nodeOptions'),
    supportedArchitectures: setting<Config['supportedArchitectures']>('supportedArchitectures', isSupportedArchitectures, undefined),
    ignoreWorkspaceRootCheck: setting('ignoreWorkspaceRootCheck', isBool, false),
    saveWorkspaceProtocol: setting('saveWorkspaceProtocol', (v): v is 'rolling' | boolean => v === 'rolling' || isBool(v), 'rolling'),
    ignoreScripts: setting('ignoreScripts', isBool, false),
    updateIgnoreDependencies: updateSettings.ignoreDependencies,
    catalogMode: setting('catalogMode', (v): v is 'manual' | 'prefer' | 'strict' => v === 'manual' || v === 'prefer' || v === 'strict', 'manual'),
    minimumReleaseAge: setting('minimumReleaseAge', isNumber, 1440),
    minimumReleaseAgeExclude: setting('minimumReleaseAgeExclude', isStrings, []),
    minimumReleaseAgeExcludePrune: setting('minimumReleaseAgeExcludePrune', isBool, false),
    minimumReleaseAgeStrict: setting('minimumReleaseAgeStrict', isBool, workspace['minimumReleaseAge'] !== undefined),
    autoInstallPeers: setting('autoInstallPeers', isBool, true),
    dedupePeerDependents: setting('dedupePeerDependents', isBool, true),
    dedupeInjectedDeps: setting('dedupeInjectedDeps', isBool, true),
    dedupePeers: setting('dedupePeers', isBool, false),
    resolvePeersFromWorkspaceRoot: setting('resolvePeersFromWorkspaceRoot', isBool, true),
    peerDependencyRules: setting('peerDependencyRules', isPeerDependencyRules, {}),
    linkWorkspacePackages: setting('linkWorkspacePackages', (v): v is boolean | 'deep' => isBool(v) || v === 'deep', false),
    preferWorkspacePackages: setting('preferWorkspacePackages', isBool, false),
    injectWorkspacePackages: setting('injectWorkspacePackages', isBool, false),
    engineStrict: setting('engineStrict', isBool, false),
    nodeVersion: setting('nodeVersion', isString, process.version),
    strictPeerDependencies: setting('strictPeerDependencies', isBool, false),
    // As pnpm 11: catalogPrune, else cleanupUnusedCatalogs.
    catalogPrune: setting('catalogPrune', isBool, setting('cleanupUnusedCatalogs', isBool, false)),
    // As pnpm: `hoist: false` hoists nothing into node_modules/.pnpm/node_modules, whatever hoistPattern says.
    hoistPattern: setting('hoist', isBool, true) ? setting('hoistPattern', isStrings, ['*']) : [],
    hoistWorkspacePackages: setting('hoistWorkspacePackages', isBool, true),
    // As pnpm 11: shamefullyHoist true is publicHoistPattern `*`; false is the default, whatever publicHoistPattern says.
    publicHoistPattern: shamefullyHoist === undefined ? setting('publicHoistPattern', isStrings, []) : shamefullyHoist ? ['*'] : [],
    nodeLinker: opts.overrides.nodeLinker ?? setting('nodeLinker', isNodeLinker, 'isolated'),
    enableGlobalVirtualStore,
    // pnpm 11's links dir: the virtualStoreDir set, else `<store>/v11/links` (read when asked for: the store's default probes the disk).
    get virtualStoreDir () {
      virtualStoreDir ??= virtualStoreSetting !== undefined
        ? path.resolve(dir, virtualStoreSetting)
        : enableGlobalVirtualStore
          ? path.join(this.storeDir, STORE_VERSION, GLOBAL_VIRTUAL_STORE_DIR)
          : path.join(dir, MODULES_DIR, VIRTUAL_STORE_DIR)
      return virtualStoreDir
    },
    // pnpm 11's default: 60 on Windows, where paths are shorter.
    virtualStoreDirMaxLength: setting('virtualStoreDirMaxLength', (v): v is number => isNumber(v) && Number.isInteger(v) && v > 0, process.platform === 'win32' ? 60 : 120),
    confirmModulesPurge: setting('confirmModulesPurge', isBool, true) && !isCI(env),
    modulesCacheMaxAge: setting('modulesCacheMaxAge', isNumber, 10_080),
    catalogs: {
      ...setting('catalogs', (v): v is Record<string, Record<string, string>> => isMap(v) && Object.values(v).every(isStringMap), {}),
      ...(workspace['catalog'] === undefined ? {} : { default: setting('catalog', isStringMap, {}) }),
    },
    patchedDependencies: setting('patchedDependencies', isStringMap, {}),
    patchesDir: setting('patchesDir', isString, 'patches'),
    allowUnusedPatches: setting('allowUnusedPatches', isBool, false),
    optimisticRepeatInstall: setting('optimisticRepeatInstall', isBool, true),
    publish: {
      access: setting<'public' | 'restricted' | undefined>('access', (v): v is 'public' | 'restricted' | undefined => v === 'public' || v === 'restricted', undefined),
      tag: optionalString('tag'),
      otp: optionalString('otp'),
      gitChecks: setting('gitChecks', isBool, true),
      publishBranch: optionalString('publishBranch'),
      packDestination: optionalString('packDestination'),
      skipManifestObfuscation: setting('skipManifestObfuscation', isBool, false),
    },
    version: {
      allowSameVersion: setting('allowSameVersion', isBool, false),
      commitHooks: setting('commitHooks', isBool, true),
      gitTagVersion: setting('gitTagVersion', isBool, true),
      message: setting('message', isString, '%s'),
      signGitTag: setting('signGitTag', isBool, false),
      tagVersionPrefix: setting('tagVersionPrefix', isString, 'v'),
    },
    ignoredOptionalDependencies: setting('ignoredOptionalDependencies', isStrings, []),
    allowedDeprecatedVersions: setting('allowedDeprecatedVersions', isStringMap, {}),
    // pnpm writes undecided builds as a placeholder string: neither allowed nor denied.
    allowBuilds: decidedBuilds(setting('allowBuilds', (v): v is Record<string, boolean | typeof UNDECIDED_ALLOW_BUILD> =>
      isMap(v) && Object.values(v).every((value) => isBool(value) || value === UNDECIDED_ALLOW_BUILD), {})),
    strictDepBuilds: setting('strictDepBuilds', isBool, true),
    // A count of builds at once (p-limit takes whole numbers only).
    dlxCacheMaxAge: setting('dlxCacheMaxAge', isNumber, 1440),
    childConcurrency: setting('childConcurrency', (v): v is number => isNumber(v) && Number.isInteger(v), Math.min(4, os.availableParallelism())),
    packageImportMethod: setting('packageImportMethod', (v): v is Config['packageImportMethod'] => typeof v === 'string' && ['auto', 'hardlink', 'clone', 'copy', 'clone-or-copy'].includes(v), 'auto'),
    peersSuffixMaxLength: setting('peersSuffixMaxLength', isNumber, 1000),
    overrides: setting('overrides', isStringMap, {}),
    packageExtensions: setting('packageExtensions', isPackageExtensions, {}),
    ignoreCompatibilityDb: setting('ignoreCompatibilityDb', isBool, false),
    blockExoticSubdeps: setting('blockExoticSubdeps', isBool, true),
    trustPolicy: setting('trustPolicy', (v): v is 'off' | 'no-downgrade' => v === 'off' || v === 'no-downgrade', 'off'),
    // pnpm takes one name written alone as a list of it.
    trustPolicyExclude: [setting<string[] | string>('trustPolicyExclude', (v): v is string[] | string => isStrings(v) || isString(v), [])].flat(),
    trustPolicyIgnoreAfter: setting<number | undefined>('trustPolicyIgnoreAfter', (v): v is number | undefined => isNumber(v), undefined),
    trustLockfile: setting('trustLockfile', isBool, false),
    // As pnpm 11: `lockfile`, else npm's `packageLock`, else true.
    useLockfile: setting('lockfile', isBool, setting('packageLock', isBool, true)),
    pmOnFail: setting<Config['pmOnFail']>('pmOnFail', (v): v is Config['pmOnFail'] => typeof v === 'string' && ['download', 'error', 'warn', 'ignore'].includes(v), undefined),
    audit: readAuditSettings(setting),
    userAgent: lodeUserAgent(opts.lodeVersion),
    lodeVersion: opts.lodeVersion,
    explicitSettings: [...new Set([
      ...Object.keys(workspace),
      ...Object.keys(opts.overrides).filter((name) => opts.overrides[name as keyof ConfigOverrides] !== undefined),
    ])].sort(),
    warnings: [...global.warnings, ...project.warnings, ...npmrcWarnings, ...updateSettings.warnings],
  }
  return Object.freeze(config)
}

/**
 * pnpm 11's `update` setting (`{ ignoreDeps }`), or the `updateConfig` it replaces
 * (`{ ignoreDependencies }`, ignored with a warning when both are set). Its other keys are for
 * pnpm's own update bots; lode reads only the names.
 */
function readUpdateSettings (
  workspace: Readonly<Record<string, unknown>>,
  file: string
): { ignoreDependencies: string[], warnings: string[] } {
  const update = workspace['update']
  const legacy = workspace['updateConfig']
  const names = (value: unknown, name: string): string[] => {
    if (value === undefined) return []
    if (!isStrings(value)) {
      throw new LodeError('INVALID_SETTING', `${name} in ${file} must be a list of package names (${describeValue(value)}).`, { hint: `See pnpm's documentation of ${name.split('.')[0]!}.` })
    }
    return value
  }
  for (const [name, value] of [['update', update], ['updateConfig', legacy]] as const) {
    if (value !== undefined && !isMap(value)) {
      throw new LodeError('INVALID_SETTING', `${name} in ${file} must be a map (${describeValue(value)}).`, { hint: `See pnpm's documentation of ${name}.` })
    }
  }
  if (update !== undefined) {
    const warnings = legacy === undefined ? [] : ['Both the "update" and "updateConfig" settings are set. The deprecated "updateConfig" setting is ignored in favor of "update".']
    return { ignoreDependencies: names((update as Record<string, unknown>)['ignoreDeps'], 'update.ignoreDeps'), warnings }
  }
  return { ignoreDependencies: names((legacy as Record<string, unknown> | undefined)?.['ignoreDependencies'], 'updateConfig.ignoreDependencies'), warnings: [] }
}

const isString = (v: unknown): v is string => typeof v === 'string'

/**
 * pnpm 11's `enableGlobalVirtualStore` and `virtualStoreType` (`global` or `project`; it wins over
 * the other, any other value is an error), from pnpm-workspace.yaml or the global config file, then
 * `pnpm_config_*` variables, then the command line. Off when unset: in CI too (pnpm turns only an
 * unset value off there, and off is its default for projects).
 */
function globalVirtualStoreSetting (
  env: Readonly<Record<string, string | undefined>>,
  overrides: ConfigOverrides,
  setting: <T>(name: string, check: (v: unknown) => v is T, fallback: T) => T
): boolean {
  const fromEnv = (name: string): string | undefined => env[`pnpm_config_${name}`] ?? env[`PNPM_CONFIG_${name.toUpperCase()}`]
  const typeOf = (value: unknown, where: string): boolean | undefined => {
    if (value === undefined) return undefined
    if (value !== 'global' && value !== 'project') {
      throw new LodeError('INVALID_SETTING', `The "virtualStoreType" setting (${where}) should be one of global, project, but got ${JSON.stringify(value)}.`, {
        hint: 'Set virtualStoreType to global (the shared store) or project (node_modules/.pnpm).',
      })
    }
    return value === 'global'
  }
  const boolOf = (value: string | undefined): boolean | undefined => value === 'true' ? true : value === 'false' ? false : undefined
  const fromFiles = typeOf(setting<string | undefined>('virtualStoreType', (v): v is string | undefined => typeof v === 'string', undefined), 'in pnpm-workspace.yaml')
    ?? setting<boolean | undefined>('enableGlobalVirtualStore', (v): v is boolean | undefined => typeof v === 'boolean', undefined)
  const fromVariables = typeOf(fromEnv('virtual_store_type'), 'from the environment') ?? boolOf(fromEnv('enable_global_virtual_store'))
  const fromCommandLine = typeOf(overrides.virtualStoreType, 'from --config.virtual-store-type') ?? overrides.enableGlobalVirtualStore
  return fromCommandLine ?? fromVariables ?? fromFiles ?? false
}
const isStrings = (v: unknown): v is string[] => Array.isArray(v) && v.every((s) => typeof s === 'string')

/**
 * The `packages` globs of the pnpm-workspace.yaml in `dir`, undefined without them. All that
 * selecting projects (`lode -r run`) needs: no .npmrc is read and npm is never asked anything.
 */
export function readWorkspacePackages (dir: string): string[] | undefined {
  return settingReader(readWorkspaceYaml(dir), () => path.join(dir, 'pnpm-workspace.yaml'))<string[] | undefined>('packages', (v): v is string[] | undefined => isStrings(v), undefined)
}

/** Reads one setting: `fallback` when absent, `ERR_LODE_INVALID_SETTING` naming the file it is in (`fileOf`) when of the wrong type. */
function settingReader (workspace: Record<string, unknown>, fileOf: (name: string) => string, raw: Readonly<Record<string, string>> = {}) {
  return <T>(name: string, check: (v: unknown) => v is T, fallback: T): T => {
    const value = workspace[name]
    if (value === undefined) return fallback
    // A variable's text that reads as JSON may be meant as text (a string setting of `123`).
    const text = Object.hasOwn(raw, name) ? raw[name] : undefined
    if (!check(value) && text !== undefined && check(text)) return text
    if (!check(value)) {
      throw new LodeError('INVALID_SETTING', `${name} in ${fileOf(name)} has the wrong type (${describeValue(value)}).`, {
        hint: `See pnpm's documentation of ${name} for its type.`,
      })
    }
    return value
  }
}

/** A setting's value in a message: short, whatever its size, depth or aliases (a YAML value may contain itself). */
function describeValue (value: unknown): string {
  return inspect(value, { depth: 2, maxArrayLength: 5, maxStringLength: 100, breakLength: Infinity, compact: true })
}

export const AUDIT_LEVELS = ['info', 'low', 'moderate', 'high', 'critical'] as const
export type AuditLevel = typeof AUDIT_LEVELS[number]

export interface AuditSettings {
  /** Advisories (GHSA ids) that `lode audit` does not report. */
  ignore: readonly string[]
  /** The lowest severity reported (default `low`). */
  level: AuditLevel
  /** `audit --fix` drops ignored GHSAs that no longer match an advisory. */
  ignorePrune: boolean
}

/** pnpm 11's reading: `audit.ignore` / `audit.level` / `audit.ignorePrune`, each over its older setting. */
function readAuditSettings (setting: ReturnType<typeof settingReader>): AuditSettings {
  const isLevel = (v: unknown): v is AuditLevel => (AUDIT_LEVELS as readonly unknown[]).includes(v)
  const audit = setting<Record<string, unknown>>('audit', isMap, {})
  const legacy = setting<Record<string, unknown>>('auditConfig', isMap, {})
  const ignore = audit['ignore'] ?? legacy['ignoreGhsas']
  const level = audit['level'] ?? setting<AuditLevel | undefined>('auditLevel', (v): v is AuditLevel | undefined => isLevel(v), undefined)
  const ignorePrune = audit['ignorePrune'] ?? setting<boolean | undefined>('auditIgnorePrune', (v): v is boolean | undefined => typeof v === 'boolean', undefined)
  if (ignore !== undefined && !isStrings(ignore)) throw invalidAuditSetting(audit['ignore'] === undefined ? 'auditConfig.ignoreGhsas' : 'audit.ignore', ignore)
  if (level !== undefined && !isLevel(level)) throw invalidAuditSetting('audit.level', level)
  if (ignorePrune !== undefined && typeof ignorePrune !== 'boolean') throw invalidAuditSetting('audit.ignorePrune', ignorePrune)
  return { ignore: ignore ?? [], level: level ?? 'low', ignorePrune: ignorePrune ?? false }
}

function invalidAuditSetting (name: string, value: unknown): LodeError {
  return new LodeError('INVALID_SETTING', `The "${name}" setting has the wrong value (${describeValue(value)}).`, {
    hint: name === 'audit.level' ? `Use one of ${AUDIT_LEVELS.join(', ')}.` : `See pnpm's documentation of ${name.split('.')[0]!} for its type.`,
  })
}

const isMap = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v)
const isStringMap = (v: unknown): v is Record<string, string> => isMap(v) && Object.values(v).every(isString)

/** pnpm's `peerDependencyRules`. */
export interface PeerDependencyRules {
  /** Peer names (patterns) whose absence is not reported. */
  ignoreMissing?: string[]
  /** Peer names (patterns) satisfied by any version. */
  allowAny?: string[]
  /** `peer` or `parent>peer` → a range also accepted (`parent` may carry a range: `parent@1>peer`). */
  allowedVersions?: Record<string, string>
}

function isPeerDependencyRules (v: unknown): v is PeerDependencyRules {
  return isMap(v) && Object.entries(v).every(([key, value]) => key === 'allowedVersions' ? isStringMap(value) : ['ignoreMissing', 'allowAny'].includes(key) && isStrings(value))
}

/** `{ "name@range": { dependencies: {...}, peerDependenciesMeta: { peer: { optional: true } } } }` */
function isPackageExtensions (v: unknown): v is Record<string, Record<string, Record<string, unknown>>> {
  return isMap(v) && Object.values(v).every((extension) => isMap(extension) && Object.entries(extension).every(([field, value]) =>
    field === 'peerDependenciesMeta'
      ? isMap(value) && Object.values(value).every((meta) => isMap(meta) && (meta['optional'] === undefined || typeof meta['optional'] === 'boolean'))
      : ['dependencies', 'optionalDependencies', 'peerDependencies'].includes(field) && isStringMap(value)))
}

function withSlash (url: string): string {
  return url.endsWith('/') ? url : `${url}/`
}

/** What pnpm 11 writes in `allowBuilds` for a build it left out, to be decided by the user. */
export const UNDECIDED_ALLOW_BUILD = 'set this to true or false'

/** `allowBuilds` without the undecided entries: those builds are neither allowed nor denied. */
function decidedBuilds (allowBuilds: Readonly<Record<string, boolean | string>>): Record<string, boolean> {
  return Object.fromEntries(Object.entries(allowBuilds).filter((entry): entry is [string, boolean] => typeof entry[1] === 'boolean'))
}

/** pnpm's `supportedArchitectures`: per field, the values optional packages are installed for. */
export interface SupportedArchitectures {
  readonly os?: readonly string[]
  readonly cpu?: readonly string[]
  readonly libc?: readonly string[]
}

/** `{ os?, cpu?, libc? }`, each a list of names (pnpm's `supportedArchitectures`); null or absent is unset. */
function isSupportedArchitectures (value: unknown): value is Config['supportedArchitectures'] {
  if (value === null || value === undefined) return true
  return isMap(value) && Object.entries(value).every(([field, list]) => ['os', 'cpu', 'libc'].includes(field) && (list === undefined || list === null || isStrings(list)))
}
