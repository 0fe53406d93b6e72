import fs from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'

import { LodeError, fileSystemError, hasErrno } from '@lode/core.error'
import { writeFileAtomic } from '@lode/fs.write-file-atomic'
import ini from 'ini'

import { globalAuthFile, globalConfigFile } from './global-config-file.js'
import { readSettingsYaml } from './settings-yaml.js'
import { GLOBAL_CONFIG_KEYS, PNPM_SETTINGS } from './settings.js'
import { updateSettingsYaml } from './write-workspace-yaml.js'

// `lode config set|delete|get|list`: pnpm 11's split of the settings files. Registry and auth keys
// go to an INI file (pnpm's global `auth.ini`, or the project's `.npmrc`); every other setting, in
// camelCase, to a YAML file (pnpm's global `config.yaml`, or the workspace's `pnpm-workspace.yaml`).

export type ConfigLocation = 'global' | 'project'

export interface ConfigFilesOptions {
  location: ConfigLocation
  /** Where lode runs. */
  dir: string
  /** The workspace's root, where `pnpm-workspace.yaml` is (the project's directory outside a workspace). */
  workspaceDir: string
  env: Readonly<Record<string, string | undefined>>
}

const INI_KEYS = new Set(['ca', 'cafile', 'cert', 'key', 'registry', '_auth', '_authToken', '_password', 'email', 'username'])
/** INI keys whose value can only be a string. */
const STRING_INI_KEYS = new Set(['_auth', '_authToken', '_password', 'username', 'registry'])
/** Settings whose text is taken as a number (pnpm's Number-typed keys). */
const NUMBER_KEYS = new Set([
  'childConcurrency', 'fetchTimeout', 'fetchWarnTimeoutMs', 'fetchMinSpeedKiBps', 'maxTarballUnpackedSize', 'fetchingConcurrency', 'maxsockets',
  'modulesCacheMaxAge', 'dlxCacheMaxAge', 'minimumReleaseAge', 'networkConcurrency', 'packGzipLevel', 'trustPolicyIgnoreAfter',
  'virtualStoreDirMaxLength', 'peersSuffixMaxLength', 'workspaceConcurrency', 'depth', 'fetchRetries', 'fetchRetryFactor',
  'fetchRetryMintimeout', 'fetchRetryMaxtimeout', 'umask',
])
/** Machine keys a project's pnpm-workspace.yaml may not set, with where they go instead. */
const NOT_PROJECT_SETTINGS: Readonly<Record<string, string>> = {
  dir: 'Pass --dir on the command line instead',
  globalDir: 'Set it for the machine instead: pnpm config set --global global-dir',
  globalBinDir: 'Set it for the machine instead: pnpm config set --global global-bin-dir',
  bin: 'Set it for the machine instead: pnpm config set --global global-bin-dir',
  stateDir: 'Set it for the machine instead: pnpm config set --global state-dir',
  userconfig: 'Set it for the machine instead: pnpm config set --global npmrc-auth-file',
  npmrcAuthFile: 'Set it for the machine instead: pnpm config set --global npmrc-auth-file',
}

/** pnpm's registry and auth keys, which live in INI files. */
export function isIniKey (key: string): boolean {
  return key.startsWith('@') || key.startsWith('//') || INI_KEYS.has(key)
}

/**
 * `lode config set <key> <value>` (and `delete`, a `null` value): the key goes to the file pnpm 11
 * writes it to, its value typed as pnpm types it (`true`, `false`, numbers for the numeric
 * settings; `null` removes it); with `json`, `value` is already parsed. A key pnpm refuses there
 * is refused with pnpm's error.
 */
export async function setConfigValue (key: string, value: unknown, opts: ConfigFilesOptions): Promise<void> {
  const files = configFiles(opts)
  if (isIniKey(key)) {
    await setIniValue(files.ini, key, value)
    return
  }
  if (!/^[a-z][a-z0-9]*(-[a-z][a-z0-9]*)+$/.test(key) && /[.[\]]/.test(key)) {
    throw new LodeError('CONFIG_SET_DEEP_KEY', 'Setting deep property path is not supported')
  }
  const kebab = kebabCase(key)
  if (isIniKey(kebab)) {
    await setIniValue(files.ini, kebab, value)
    return
  }
  const camel = camelCase(key)
  const typed = typeof value === 'string' ? castValue(value, camel) : value
  const removal = typed === null || typed === undefined
  if (opts.location === 'global' && !removal && !GLOBAL_CONFIG_KEYS.has(camel)) {
    throw new LodeError('CONFIG_SET_UNSUPPORTED_YAML_CONFIG_KEY', `The key "${key}" isn't supported by the global config.yaml file`, {
      hint: NOT_PROJECT_SETTINGS[camel] ?? 'Try setting them instead to the local pnpm-workspace.yaml file',
    })
  }
  let written = camel
  if (opts.location === 'project' && !removal) {
    if (Object.hasOwn(NOT_PROJECT_SETTINGS, camel)) {
      throw new LodeError('CONFIG_SET_NOT_A_PROJECT_SETTING', `The key "${key}" cannot be set in a project's pnpm-workspace.yaml`, { hint: NOT_PROJECT_SETTINGS[camel]! })
    }
    const known = PNPM_SETTINGS.has(camel) || GLOBAL_CONFIG_KEYS.has(camel)
    if (!known) {
      if (!/^[a-z][a-zA-Z0-9]*$/.test(key)) throw new LodeError('CONFIG_SET_UNSUPPORTED_WORKSPACE_KEY', `The key "${key}" isn't supported by the workspace manifest`, { hint: `Try "${camel}"` })
      written = key
    }
  }
  await updateSettingsYaml(files.yaml, removal ? { [written]: null, [key]: null } : { [written]: typed })
}

/** The files a location reads and writes: its INI file and its YAML file. */
export function configFiles (opts: Pick<ConfigFilesOptions, 'location' | 'dir' | 'workspaceDir' | 'env'>): { ini: string, yaml: string } {
  const home = opts.env['HOME'] ?? os.homedir()
  return opts.location === 'global'
    ? { ini: globalAuthFile(opts.env, home), yaml: globalConfigFile(opts.env, home) }
    // The workspace root's .npmrc, which installs read (pnpm 11 writes the one where it runs, in a project of a workspace unread).
    : { ini: path.join(opts.workspaceDir, '.npmrc'), yaml: path.join(opts.workspaceDir, 'pnpm-workspace.yaml') }
}

/** pnpm's typing of a value given as text: `true`/`false`, `null`/`undefined` (removal), a number for a numeric setting. */
function castValue (text: string, camel: string): unknown {
  const value = text.trim()
  if (value === 'true') return true
  if (value === 'false') return false
  if (value === 'null' || value === 'undefined') return null
  if (NUMBER_KEYS.has(camel) && !Number.isNaN(Number(value))) return Number(value)
  return value
}

/** An INI file rewritten with the key set (or, for `null`, removed), as pnpm rewrites it: comments go, `key=value` lines. */
async function setIniValue (file: string, key: string, value: unknown): Promise<void> {
  if (value !== null && value !== undefined && typeof value !== 'string' && (STRING_INI_KEYS.has(key) || key.startsWith('@') || key.startsWith('//'))) {
    throw new LodeError('CONFIG_SET_AUTH_NON_STRING', `Cannot set ${key} to a non-string value (${JSON.stringify(value)})`)
  }
  await updateIniFile(file, { [key]: value === undefined ? null : value })
}

/**
 * An INI file (an `.npmrc`, pnpm's `auth.ini`) rewritten in one write with `changes` applied (a
 * `null` removes its key), as pnpm rewrites it: comments go, `key=value` lines. Nothing is written
 * when nothing changes. A symlinked file (a dotfiles manager's) is written where it points; its mode
 * is kept, and a new one, which may hold tokens, is readable by its owner only.
 */
export async function updateIniFile (file: string, changes: Readonly<Record<string, unknown>>): Promise<void> {
  let text: string | undefined
  try {
    text = await fs.readFile(file, 'utf8')
  } catch (err) {
    if (!hasErrno(err, 'ENOENT')) throw fileSystemError(err, file) ?? err
  }
  const pairs = text === undefined ? {} : ini.parse(text) as Record<string, unknown>
  let changed = false
  for (const [key, value] of Object.entries(changes)) {
    if (value === null) {
      if (!Object.hasOwn(pairs, key)) continue
      delete pairs[key]
    } else {
      pairs[key] = value
    }
    changed = true
  }
  if (!changed) return
  const target = text === undefined ? file : await fs.realpath(file)
  const mode = text === undefined ? 0o600 : (await fs.stat(target)).mode & 0o777
  await writeFileAtomic(target, ini.stringify(pairs), mode)
}

/** `minimumReleaseAge` → `minimum-release-age`. */
export function kebabCase (key: string): string {
  return key.replace(/([a-z0-9])([A-Z])/g, '$1-$2').replace(/[_\s]+/g, '-').toLowerCase()
}

/** `minimum-release-age` (or `minimum_release_age`) → `minimumReleaseAge`; a camelCase key stays. */
export function camelCase (key: string): string {
  if (/^[a-z][a-zA-Z0-9]*$/.test(key)) return key
  return key.toLowerCase().replace(/[-_\s]+([a-z0-9])/g, (_, char: string) => char.toUpperCase())
}

export interface ConfigValues {
  settings: Record<string, unknown>
  ini: Record<string, unknown>
}

/** The raw settings a location holds (`-g`: pnpm's global files only; else merged, the project's winning). */
export async function readConfigValues (opts: ConfigFilesOptions): Promise<ConfigValues> {
  const global = configFiles({ ...opts, location: 'global' })
  const sources = opts.location === 'global' ? [global] : [global, configFiles({ ...opts, location: 'project' })]
  const settings: Record<string, unknown> = {}
  const iniPairs: Record<string, unknown> = {}
  for (const files of sources) {
    Object.assign(iniPairs, await readIniFile(files.ini))
    const { packages: _packages, ...yamlSettings } = readSettingsYaml(files.yaml)
    Object.assign(settings, yamlSettings)
  }
  return { settings, ini: iniPairs }
}

/** The keys of an INI file (an `.npmrc`, pnpm's `auth.ini`); `{}` when there is none. */
export async function readIniFile (file: string): Promise<Record<string, unknown>> {
  try {
    return ini.parse(await fs.readFile(file, 'utf8'))
  } catch (err) {
    if (hasErrno(err, 'ENOENT')) return {}
    throw fileSystemError(err, file) ?? err
  }
}

/** Auth values `config list` prints as `(protected)`, as pnpm does. */
export function isProtectedKey (key: string): boolean {
  return ['_auth', '_authToken', 'username', '_password'].includes(key) || (key.startsWith('//') && /:(_auth|_authToken|username|_password)$/.test(key))
}
