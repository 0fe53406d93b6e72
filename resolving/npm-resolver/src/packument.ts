import { LodeError } from '@lode/core.error'
import { redactUrl } from '@lode/resolving.registry-client'

import type { PackageMeta, TrustEvidence } from './types.js'
import { PackageVersions } from './versions.js'

/** A packument cut down to what resolution reads. `time` and `trust` only when the full document was fetched. */
export interface Packument {
  name: string
  distTags: Record<string, string>
  modified?: string
  time?: Record<string, string>
  /** The versions published with trust evidence (`trustPolicy`); read from full documents only, the abbreviated one lacks `_npmUser`. */
  trust?: Record<string, TrustEvidence>
  versions: PackageVersions
}

type Json = Record<string, unknown>

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value)

/**
 * What a full packument's version doc proves about its publication, as pnpm 11 reads it: a staged
 * publish (`_npmUser.approver`), a trusted publisher (`_npmUser.trustedPublisher` with a provenance
 * attestation), or a provenance attestation alone (`dist.attestations.provenance`).
 */
export function trustEvidenceOf (raw: Readonly<Record<string, unknown>>): TrustEvidence | undefined {
  const npmUser = isObject(raw['_npmUser']) ? raw['_npmUser'] : {}
  const dist = isObject(raw['dist']) ? raw['dist'] : {}
  const provenance = isObject(dist['attestations']) && isPresent(dist['attestations']['provenance'])
  if (isPresent(npmUser['approver'])) return 'stagedPublish'
  if (isPresent(npmUser['trustedPublisher']) && provenance) return 'trustedPublisher'
  return provenance ? 'provenance' : undefined
}

/**
 * A registry's document as trimPackument reads it: `dist-tags`, `modified` and `time` as JSON.parse
 * gives them (or a value standing for one that is dropped the same way), and the versions as
 * entries, in the parsed object's order, each read when reached.
 */
export interface PackumentDocument {
  'dist-tags': unknown
  modified: unknown
  time: unknown
  versions: Iterable<readonly [string, unknown]>
  /** Read from bytes: the versions object's size and its members, which bound what their encodings take. */
  versionsSize?: { bytes: number, members: number } | undefined
}

/** The members of a version's document that trimVersion, trimManifest and trustEvidenceOf read: only these need parsing. */
export const VERSION_FIELDS: ReadonlySet<string> = new Set([
  'dist', 'dependencies', 'optionalDependencies', 'peerDependencies', 'engines', 'peerDependenciesMeta',
  'bundledDependencies', 'bundleDependencies', 'os', 'cpu', 'libc', 'bin', 'directories', 'hasInstallScript',
  'deprecated', '_npmUser',
])

/**
 * Validates a registry's JSON document for `name` and keeps what resolution needs. Registry data
 * is untrusted: a field of the wrong type is dropped, a version without a tarball is skipped.
 */
export function trimPackument (name: string, registryUrl: string, doc: unknown): Packument {
  const document = packumentDocument(doc)
  if (document === undefined) throw notAPackageDocument(name, registryUrl)
  return trimDocument(name, document, (versions) => PackageVersions.fromEntries(versions))
}

/** A parsed document as trimDocument reads it; `undefined` when it is not an object with a `versions` object. */
export function packumentDocument (doc: unknown): PackumentDocument | undefined {
  if (!isObject(doc) || !isObject(doc['versions'])) return undefined
  return { 'dist-tags': doc['dist-tags'], modified: doc['modified'], time: doc['time'], versions: Object.entries(doc['versions']) }
}

/** A registry's body JSON.parse refused (`cause`). */
export function notValidJson (name: string, registryUrl: string, cause: unknown): LodeError {
  return new LodeError('BAD_PACKUMENT', `The registry ${redactUrl(registryUrl)} sent metadata for ${name} that is not valid JSON.`, { cause })
}

export function notAPackageDocument (name: string, registryUrl: string): LodeError {
  return new LodeError('BAD_PACKUMENT', `The registry ${redactUrl(registryUrl)} sent metadata for ${name} that is not a package document.`, {
    hint: 'Check that the registry setting points at an npm-compatible registry.',
  })
}

/**
 * trimPackument's work on a document: each version trimmed as it is read and handed to `keep` (as
 * PackageVersions, or encoded for the cache), so that no version's whole document outlives its turn.
 */
export function trimDocument<V> (name: string, doc: PackumentDocument, keep: (versions: Iterable<[string, PackageMeta]>) => V): Omit<Packument, 'versions'> & { versions: V } {
  const trust: Record<string, TrustEvidence> = {}
  function * trimmed (): Generator<[string, PackageMeta]> {
    for (const [version, raw] of doc.versions) {
      const meta = trimVersion(name, version, raw)
      if (meta === undefined) continue
      const evidence = trustEvidenceOf(raw as Json)
      // Defined, not assigned: a version named `__proto__` is a key like any other.
      if (evidence !== undefined) {
        Object.defineProperty(trust, version, { value: evidence, enumerable: true, writable: true, configurable: true })
      }
      yield [version, meta]
    }
  }
  const versions = keep(trimmed())
  const packument: Omit<Packument, 'versions'> & { versions: V } = { name, distTags: stringRecord(doc['dist-tags']) ?? {}, versions }
  if (typeof doc.modified === 'string') packument.modified = doc.modified
  const time = stringRecord(doc.time)
  if (time !== undefined) {
    // A full document (the abbreviated one has no publish times, nor the publisher to judge trust by).
    packument.time = time
    packument.trust = trust
  }
  return packument
}

function trimVersion (name: string, version: string, raw: unknown): PackageMeta | undefined {
  const dist = publishedDist(raw)
  return dist === undefined ? undefined : trimManifest(name, version, raw as Json, dist)
}

/** A version document's tarball and integrity; undefined when it has none (such a version is not kept: not published, to lode). */
export function publishedDist (raw: unknown): PackageMeta['dist'] | undefined {
  if (!isObject(raw) || !isObject(raw['dist'])) return undefined
  const dist = raw['dist']
  if (typeof dist['tarball'] !== 'string') return undefined
  const integrity = typeof dist['integrity'] === 'string'
    ? dist['integrity']
    : typeof dist['shasum'] === 'string' ? `sha1-${Buffer.from(dist['shasum'], 'hex').toString('base64')}` : undefined
  if (integrity === undefined) return undefined
  return { tarball: dist['tarball'], integrity }
}

/** The fields of a manifest (from a packument, a directory or a tarball) that resolution reads, validated (a field read here is in VERSION_FIELDS). */
export function trimManifest (name: string, version: string, raw: Json, dist: PackageMeta['dist']): PackageMeta {
  const meta: PackageMeta = { name, version, dist }
  for (const field of ['dependencies', 'optionalDependencies', 'peerDependencies'] as const) {
    const value = stringRecord(raw[field])
    if (value !== undefined && Object.keys(value).length > 0) meta[field] = value
  }
  // Old packages have `engines: ["node >= 0.8"]`; pnpm records it keyed by index, `{'0': node >= 0.8}`.
  const engines = stringRecord(Array.isArray(raw['engines']) ? Object.fromEntries(raw['engines'].entries()) : raw['engines'])
  if (engines !== undefined && Object.keys(engines).length > 0) meta.engines = engines
  if (isObject(raw['peerDependenciesMeta'])) {
    const peerMeta: Record<string, { optional?: boolean }> = {}
    for (const [peer, value] of Object.entries(raw['peerDependenciesMeta'])) {
      if (isObject(value)) peerMeta[peer] = value['optional'] === true ? { optional: true } : {}
    }
    meta.peerDependenciesMeta = peerMeta
  }
  const bundled = raw['bundledDependencies'] ?? raw['bundleDependencies']
  if (bundled === true || (Array.isArray(bundled) && bundled.length > 0)) {
    meta.bundledDependencies = bundled === true ? true : bundled.filter((b): b is string => typeof b === 'string')
  }
  for (const field of ['os', 'cpu', 'libc'] as const) {
    const value = raw[field]
    const list = typeof value === 'string' ? value : stringList(value)
    if (list !== undefined) meta[field] = list
  }
  if (raw['bin'] !== undefined && raw['bin'] !== null && (typeof raw['bin'] === 'string' || (isObject(raw['bin']) && Object.keys(raw['bin']).length > 0))) meta.hasBin = true
  if (isObject(raw['directories']) && typeof raw['directories']['bin'] === 'string') meta.hasBin = true
  if (raw['hasInstallScript'] === true) meta.hasInstallScript = true
  if (typeof raw['deprecated'] === 'string' && raw['deprecated'] !== '') meta.deprecated = raw['deprecated']
  return meta
}

function stringRecord (value: unknown): Record<string, string> | undefined {
  if (!isObject(value)) return undefined
  const out: Record<string, string> = {}
  for (const [key, entry] of Object.entries(value)) if (typeof entry === 'string') out[key] = entry
  return out
}

function stringList (value: unknown): string[] | undefined {
  if (typeof value === 'string') return [value]
  if (!Array.isArray(value)) return undefined
  const list = value.filter((v): v is string => typeof v === 'string')
  return list.length > 0 ? list : undefined
}

// What pnpm's truthiness checks accept: anything but a missing, null, false, 0 or empty value.
function isPresent (value: unknown): boolean {
  return value !== undefined && value !== null && value !== false && value !== 0 && value !== ''
}
