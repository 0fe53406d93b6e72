import { STORE_HASH_ALGORITHM } from '@lode/core.constants'
import type { CasFileInfo } from '@lode/store.cafs'
import { Packr } from 'msgpackr'
// The one function, not the package's index: extract threads load this module, and semver's
// index is 47 modules.
import cleanVersion from 'semver/functions/clean.js'
import semverEq from 'semver/functions/eq.js'

// pnpm's encoder settings; rows must decode the same on both sides.
const packr = new Packr({ useRecords: true, moreTypes: true })

/**
 * A row as `package_index.data` holds it (MessagePack, as pnpm writes it), in a buffer of its own
 * and of its size: msgpackr reuses its buffer for the next pack, and a row from `Buffer.from` sits
 * in Node's pool (64 KiB on Node 24), which an extract thread's answer carries whole to the main
 * thread: 64 KiB copied and allocated there per package.
 */
export function encodeRow (row: PackageFilesIndex): Buffer {
  const packed = packr.pack(row)
  const own = Buffer.allocUnsafeSlow(packed.length)
  own.set(packed)
  return own
}

export function decodeRow (data: Uint8Array): PackageFilesIndex {
  return packr.unpack(data) as PackageFilesIndex
}


/** The manifest fields pnpm keeps in an index row (its `normalizeBundledManifest`). */
const BUNDLED_MANIFEST_FIELDS = [
  'bin',
  'bundledDependencies',
  'bundleDependencies',
  'cpu',
  'dependencies',
  'devDependencies',
  'directories',
  'engines',
  'gypfile',
  'libc',
  'name',
  'optionalDependencies',
  'os',
  'peerDependencies',
  'peerDependenciesMeta',
] as const
const LIFECYCLE_SCRIPTS = ['preinstall', 'install', 'postinstall'] as const

export type BundledManifest = { version: string, scripts?: Record<string, string> } & {
  [K in typeof BUNDLED_MANIFEST_FIELDS[number]]?: unknown
}

/**
 * One row of `package_index`, shaped exactly as pnpm 11 writes it (key order included: msgpackr
 * records keep it), so pnpm and lode read each other's rows.
 */
export interface PackageFilesIndex {
  requiresBuild?: boolean
  requiresPrepare?: boolean
  manifest?: BundledManifest | undefined
  algo: string
  files: Map<string, CasFileInfo>
  sideEffects?: Map<string, unknown>
}

/** The row for a package extracted from a tarball: its files and its `package.json`, if any. */
export function createPackageFilesIndex (
  files: Map<string, CasFileInfo>,
  manifest: Record<string, unknown> | undefined
): PackageFilesIndex {
  const bundled = manifest === undefined ? undefined : bundleManifest(manifest)
  return {
    requiresBuild: requiresBuild(bundled, files),
    manifest: bundled,
    algo: STORE_HASH_ALGORITHM,
    files,
  }
}

/** The part of a manifest an index row keeps: what installing needs without reading files. */
export function bundleManifest (manifest: Record<string, unknown>): BundledManifest | undefined {
  let fields: Record<string, unknown> | undefined
  for (const key of BUNDLED_MANIFEST_FIELDS) {
    if (manifest[key] != null) (fields ??= {})[key] = manifest[key]
  }
  let scripts: Record<string, string> | undefined
  const manifestScripts = manifest['scripts']
  if (manifestScripts != null && typeof manifestScripts === 'object') {
    for (const key of LIFECYCLE_SCRIPTS) {
      const script = (manifestScripts as Record<string, unknown>)[key]
      if (typeof script === 'string' && script !== '') (scripts ??= {})[key] = script
    }
  }
  if (fields === undefined && scripts === undefined) return undefined
  const rawVersion = typeof manifest['version'] === 'string' ? manifest['version'] : '0.0.0'
  return {
    version: cleanVersion(rawVersion, { loose: true }) ?? rawVersion,
    ...fields,
    ...(scripts === undefined ? {} : { scripts }),
  }
}

/**
 * pnpm's `pkgRequiresBuild`: an install script, a `binding.gyp` (unless `gypfile: false`), or
 * files under `.hooks/`.
 */
export function requiresBuild (manifest: BundledManifest | undefined, files: Map<string, unknown>): boolean {
  const scripts = manifest?.scripts
  if (scripts !== undefined && LIFECYCLE_SCRIPTS.some((key) => Boolean(scripts[key]))) return true
  const gypOptedOut = manifest?.gypfile === false
  for (const name of files.keys()) {
    if (name === 'binding.gyp' && !gypOptedOut) return true
    if (/^\.hooks[\\/]/.test(name)) return true
  }
  return false
}

/** What a package says it is (its manifest's name and version), or what an install expects it to be. */
export interface PackageIdentity {
  name?: string
  version?: string
}

/** The name and version of a manifest (a row's bundled one, or a tarball's package.json), those that are strings. */
export function identityOf (manifest: Record<string, unknown> | undefined): PackageIdentity {
  const name = manifest?.['name']
  const version = manifest?.['version']
  return {
    ...(typeof name === 'string' ? { name } : {}),
    ...(typeof version === 'string' ? { version } : {}),
  }
}

/**
 * Whether a package's own manifest says it is another package than the one expected, as pnpm 11
 * decides it for a store row (its worker's `isStoredPkgMismatch`): names compared without regard
 * to case, versions equal as strings or as loose semver (`v1.0.0` is `1.0.0`); a field either side
 * lacks is not compared.
 */
export function isOtherPackage (actual: PackageIdentity, expected: PackageIdentity): boolean {
  if (actual.name !== undefined && expected.name !== undefined && actual.name.toLowerCase() !== expected.name.toLowerCase()) return true
  if (actual.version === undefined || expected.version === undefined || actual.version === expected.version) return false
  try {
    return !semverEq(actual.version, expected.version, { loose: true })
  } catch {
    return true
  }
}
