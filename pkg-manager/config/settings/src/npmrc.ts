import fs from 'node:fs'

import { LodeError, fileSystemError, hasErrno } from '@lode/core.error'
import ini from 'ini'

import { PNPM_SETTINGS, camelCase } from './settings.js'

/**
 * The `.npmrc` keys pnpm 11 reads (its `isNpmrcReadableKey`): registries (`registry`,
 * `@scope:registry`), credentials and TLS (`//host/path/:_authToken`, `_auth`, `ca`, …) and
 * proxies. Everything else in an `.npmrc` is ignored by pnpm 11, which reads its other settings
 * from pnpm-workspace.yaml only; lode does the same.
 */
const NPMRC_KEYS = new Set([
  'ca', 'cafile', 'cert', 'key', 'registry', '_auth', '_authToken', '_password', 'email', 'username',
  'https-proxy', 'proxy', 'no-proxy', 'http-proxy', 'local-address', 'strict-ssl',
])

export function isNpmrcKey (key: string): boolean {
  return key.startsWith('@') || key.startsWith('//') || NPMRC_KEYS.has(key)
}

/** Keys pnpm 11 reads from `.npmrc` that lode cannot honour yet: client certificates, token helpers, per-registry CAs, a local address. */
function isUnsupportedNpmrcKey (key: string): boolean {
  if (key === 'cert' || key === 'key' || key === 'local-address') return true
  return key.startsWith('//') && /:(?:cert|certfile|key|keyfile|tokenHelper|ca|cafile)$/.test(key)
}

export interface NpmrcSource {
  /** Where the pairs come from: a file's path, or the environment. */
  where: string
  pairs: Readonly<Record<string, string>>
  /** Whether pnpm settings found here that pnpm 11 no longer reads are reported (files yes; `npm_config_*` variables, which npm sets for its scripts, no). */
  reportIgnored: boolean
}

/**
 * The `.npmrc` pairs pnpm 11 reads, later sources winning, and a warning per source naming the
 * pnpm settings pnpm 11 and lode no longer read there. A key lode cannot honour is
 * `ERR_LODE_UNSUPPORTED_SETTING` naming where it is.
 */
export function pickNpmrcSettings (sources: readonly NpmrcSource[]): { npmrc: Record<string, string>, warnings: string[] } {
  const npmrc: Record<string, string> = {}
  const warnings: string[] = []
  for (const { where, pairs, reportIgnored } of sources) {
    const ignored: string[] = []
    for (const [key, value] of Object.entries(pairs)) {
      if (isNpmrcKey(key)) {
        if (isUnsupportedNpmrcKey(key)) {
          throw new LodeError('UNSUPPORTED_SETTING', `${JSON.stringify(key)} in ${where} is not supported by lode yet.`, {
            hint: 'lode sends registry tokens and basic auth, and trusts ca/cafile certificates; remove this setting, or use pnpm for this project.',
          })
        }
        npmrc[key] = value
      } else if (reportIgnored) {
        const entry = PNPM_SETTINGS.get(camelCase(key))
        if (entry !== undefined && entry.status !== 'accepted') ignored.push(key)
      }
    }
    if (ignored.length > 0) {
      warnings.push(`${where} sets ${ignored.join(', ')}, which pnpm 11 and lode do not read from .npmrc (only registry, auth, TLS and proxy settings). Move ${ignored.length === 1 ? 'it' : 'them'} to pnpm-workspace.yaml as ${ignored.map((key) => `${camelCase(key)}`).join(', ')}.`)
    }
  }
  return { npmrc, warnings }
}

/** An `.npmrc` file's pairs, `${VAR}` expanded from `env`; a missing file is empty. */
export function readNpmrc (file: string, env: Readonly<Record<string, string | undefined>>): Record<string, string> {
  let text: string
  try {
    text = fs.readFileSync(file, 'utf8')
  } catch (err) {
    // As npm, which ignores an .npmrc it cannot read as a file.
    if (hasErrno(err, 'ENOENT') || hasErrno(err, 'EISDIR')) return {}
    throw fileSystemError(err, file) ?? err
  }
  const out: Record<string, string> = {}
  for (const [key, value] of Object.entries(ini.parse(text))) {
    if (typeof value !== 'string' && typeof value !== 'boolean' && typeof value !== 'number') continue
    // Own variables only: `${constructor}` is not Object's constructor.
    // `[^${}]`, as npm: `[^}]` scanned to the end of the value from every `${` (quadratic for `${${${…`).
    out[key] = String(value).replace(/\$\{([^${}]+)\}/g, (_, name: string) => Object.hasOwn(env, name) ? env[name] ?? '' : '')
  }
  return out
}

/** The certificates of `cafile` (from .npmrc or npm_config_cafile). */
export function readCafile (file: string): string {
  try {
    return fs.readFileSync(file, 'utf8')
  } catch (err) {
    if (!(err instanceof Error) || typeof (err as NodeJS.ErrnoException).code !== 'string') throw err
    throw new LodeError('INVALID_SETTING', `cafile (in .npmrc or npm_config_cafile) is ${file}, which cannot be read (${(err as NodeJS.ErrnoException).code}).`, {
      hint: 'Point cafile at a file of PEM certificates, or remove it from .npmrc.',
      cause: err,
    })
  }
}
