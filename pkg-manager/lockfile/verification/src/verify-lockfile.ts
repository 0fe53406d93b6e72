// pnpm 11's supply-chain check of a lockfile before an install uses it (its deps-installer
// `verifyLockfileResolutions`): every entry's dependency names must be package names, a
// registry-style entry (`name@1.2.3`) must come from a registry, and every registry package must
// pass the policies (`LockfileVerifier`: integrity, tarball URL, minimumReleaseAge, trustPolicy).
// A lockfile that passed is recorded by its content's digest in lode's cache dir, with the policy
// it passed under, so the next install of the same lockfile asks the registry nothing.
import { createHash } from 'node:crypto'
import fs from 'node:fs'
import path from 'node:path'

import { LOCKFILE_VERIFIED_CACHE_FILE, WANTED_LOCKFILE } from '@lode/core.constants'
import { splitNameAt } from '@lode/core.dep-path'
import { LodeError, hasErrno } from '@lode/core.error'
import { isValidPackageName } from '@lode/core.safe-name'
import type { Config } from '@lode/pkg-manager.config.settings'
import type { Lockfile } from '@lode/pkg-manager.lockfile.format'
import { LockfileVerifier, isGitHostedArchive, policyCovers, verificationPolicy } from '@lode/resolving.npm-resolver'
import type { EntryViolation, LockfileVerifierOptions, VerificationPolicy } from '@lode/resolving.npm-resolver'
import type { RegistryClient } from '@lode/resolving.registry-client'
import pLimit from 'p-limit'
import semver from 'semver'

/** How the check went, for the reporter (pnpm's `lockfile-verification` log). */
export type LockfileVerificationEvent =
  | { type: 'lockfile-verification', status: 'started', entries: number }
  | { type: 'lockfile-verification', status: 'done' | 'failed', entries: number, elapsedMs: number }
  /** A verdict from the cache: `verifiedAt` is when it was reached (ISO). */
  | { type: 'lockfile-verification', status: 'cached', verifiedAt: string }

export interface VerifyLockfileOptions {
  config: Config
  lockfile: Lockfile
  /** The lockfile's text as read from pnpm-lock.yaml (its digest keys the cached verdict); undefined when it came from elsewhere. */
  text: string | undefined
  client: RegistryClient
  now: () => number
  onEvent: (event: LockfileVerificationEvent) => void
  onWarning: (message: string) => void
}

// pnpm's bounds: entries named in an error, registry checks at once, records kept in the cache.
const MAX_VIOLATIONS_SHOWN = 20
const CONCURRENCY = 64
const MAX_CACHE_RECORDS = 1000
const COMPACT_AT_BYTES = MAX_CACHE_RECORDS * 1024 * 3 / 2

const POLICY_CODES = new Set(['MINIMUM_RELEASE_AGE_VIOLATION', 'TRUST_DOWNGRADE'])

interface Violation extends Omit<EntryViolation, 'code'> {
  name: string
  version: string
  code: EntryViolation['code'] | 'RESOLUTION_SHAPE_MISMATCH'
}

interface Candidate {
  name: string
  version: string
  /** The version is a URL or path (a tarball, git or directory dependency), not a registry version. */
  nonSemver: boolean
  resolution: Readonly<Record<string, unknown>>
}

/**
 * Checks `lockfile` as pnpm 11 does before installing from it, unless `trustLockfile` is set; a
 * verdict cached for the same content under a policy at least as strict stands. Fails with
 * `ERR_LODE_<code>` naming every entry that fails (`ERR_LODE_LOCKFILE_RESOLUTION_VERIFICATION`
 * when they fail for different reasons), before anything is written.
 */
export async function verifyLockfile (opts: VerifyLockfileOptions): Promise<void> {
  const { config, lockfile } = opts
  if (config.trustLockfile || Object.keys(lockfile.packages ?? {}).length === 0) return
  const verifierOptions = lockfileVerifierOptions(opts)
  const policy = verificationPolicy(verifierOptions)
  const cache = opts.text === undefined ? undefined : {
    file: path.join(config.cacheDir, LOCKFILE_VERIFIED_CACHE_FILE),
    lockfile: path.join(config.dir, WANTED_LOCKFILE),
    hash: digest(opts.text),
  }
  if (cache !== undefined) {
    const verifiedAt = cachedVerdict(cache.file, cache.hash, policy)
    if (verifiedAt !== undefined) {
      opts.onEvent({ type: 'lockfile-verification', status: 'cached', verifiedAt })
      return
    }
  }
  const { candidates, shapeViolations, invalidAliases } = collectCandidates(lockfile)
  if (invalidAliases.length > 0) throw invalidAliasError(invalidAliases)
  if (shapeViolations.length > 0) throw verificationError(shapeViolations)
  const started = performance.now()
  opts.onEvent({ type: 'lockfile-verification', status: 'started', entries: candidates.length })
  const verifier = new LockfileVerifier(verifierOptions)
  let failed = true
  try {
    const limit = pLimit(CONCURRENCY)
    const outcomes = await Promise.allSettled(candidates.map(async (candidate) =>
      await limit(async () => await verifier.verify(candidate))))
    // A registry that could not answer (a package it does not have, a network failure) fails the install, as with pnpm.
    const unanswered = outcomes.find((outcome) => outcome.status === 'rejected')
    if (unanswered !== undefined) throw unanswered.reason
    const violations: Violation[] = []
    outcomes.forEach((outcome, i) => {
      if (outcome.status === 'fulfilled' && outcome.value !== undefined) violations.push({ name: candidates[i]!.name, version: candidates[i]!.version, ...outcome.value })
    })
    if (violations.length > 0) throw verificationError(violations)
    failed = false
  } finally {
    await verifier.close()
    opts.onEvent({ type: 'lockfile-verification', status: failed ? 'failed' : 'done', entries: candidates.length, elapsedMs: Math.round(performance.now() - started) })
  }
  if (cache !== undefined) {
    appendRecord(cache.file, {
      lockfile: { hash: cache.hash, path: cache.lockfile },
      verifiedAt: new Date(opts.now()).toISOString(),
      policy,
    })
  }
}

/**
 * Records pnpm-lock.yaml as it is now as verified under the current policy: an install that
 * resolved wrote it from entries the policies were applied to (pnpm records it so too).
 */
export function recordVerifiedLockfile (config: Config, now: () => number): void {
  if (config.trustLockfile || !config.useLockfile) return
  const lockfile = path.join(config.dir, WANTED_LOCKFILE)
  let text: string
  try {
    text = fs.readFileSync(lockfile, 'utf8')
  } catch (err) {
    if (hasErrno(err, 'ENOENT')) return
    throw err
  }
  const policy = verificationPolicy(lockfileVerifierPolicyOptions(config))
  appendRecord(path.join(config.cacheDir, LOCKFILE_VERIFIED_CACHE_FILE), {
    lockfile: { hash: digest(text), path: lockfile },
    verifiedAt: new Date(now()).toISOString(),
    policy,
  })
}

function lockfileVerifierPolicyOptions (config: Config): Pick<LockfileVerifierOptions, 'registries' | 'minimumReleaseAge' | 'minimumReleaseAgeExclude' | 'trustPolicy'> {
  return {
    registries: { default: config.registry, scoped: config.scopedRegistries },
    minimumReleaseAge: config.minimumReleaseAge,
    minimumReleaseAgeExclude: config.minimumReleaseAgeExclude,
    trustPolicy: config.trustPolicy === 'no-downgrade' ? { exclude: config.trustPolicyExclude, ignoreAfter: config.trustPolicyIgnoreAfter } : undefined,
  }
}

function lockfileVerifierOptions (opts: VerifyLockfileOptions): LockfileVerifierOptions {
  const { config } = opts
  return {
    ...lockfileVerifierPolicyOptions(config),
    client: opts.client,
    cacheDir: config.cacheDir,
    offline: config.offline,
    preferOffline: config.preferOffline,
    packumentMaxSize: config.packumentMaxSize,
    now: opts.now,
    onWarning: opts.onWarning,
  }
}

function digest (text: string): string {
  return createHash('sha256').update(text).digest('hex')
}

/**
 * The lockfile's entries to check, one per package (peer variants are one), and what fails before
 * any registry is asked: dependency names that are not package names, registry-style entries whose
 * resolution is not a registry tarball.
 */
function collectCandidates (lockfile: Lockfile): { candidates: Candidate[], shapeViolations: Violation[], invalidAliases: string[] } {
  const invalidAliases = new Set<string>()
  const checkAliases = (deps: Readonly<Record<string, unknown>> | undefined): void => {
    for (const alias of Object.keys(deps ?? {})) if (!isValidPackageName(alias)) invalidAliases.add(alias)
  }
  for (const importer of Object.values(lockfile.importers)) {
    checkAliases(importer.dependencies)
    checkAliases(importer.devDependencies)
    checkAliases(importer.optionalDependencies)
  }
  for (const snapshot of Object.values(lockfile.snapshots ?? {})) {
    checkAliases(snapshot.dependencies)
    checkAliases(snapshot.optionalDependencies)
  }
  const candidates = new Map<string, Candidate>()
  const shapeViolations: Violation[] = []
  for (const [key, info] of Object.entries(lockfile.packages ?? {})) {
    const { name, rest: raw } = splitNameAt(key)
    if (raw === undefined) continue
    const nonSemver = semver.valid(raw) === null
    const version = typeof info.version === 'string' ? info.version : nonSemver ? undefined : raw
    if (name === '' || version === undefined || version === '') continue
    const resolution = info.resolution as Readonly<Record<string, unknown>>
    if (!nonSemver && !isRegistryShaped(resolution)) {
      shapeViolations.push({ name, version, code: 'RESOLUTION_SHAPE_MISMATCH', reason: 'a registry-style dependency path is backed by a non-registry resolution' })
    }
    candidates.set(`${name}@${version}@${nonSemver ? raw : ''}@${JSON.stringify(resolution)}`, { name, version, nonSemver, resolution })
  }
  return { candidates: [...candidates.values()], shapeViolations, invalidAliases: [...invalidAliases] }
}

/** A registry package's resolution: an integrity and at most an http(s) tarball URL that is not a git host's archive. */
function isRegistryShaped (resolution: Readonly<Record<string, unknown>> | undefined): boolean {
  if (resolution === undefined || resolution === null) return true
  if (typeof resolution !== 'object') return false
  if (typeof resolution['type'] === 'string' && resolution['type'].startsWith('custom:')) return true
  if (resolution['type'] !== undefined && resolution['type'] !== null) return false
  const gitHosted = resolution['gitHosted']
  if (gitHosted !== undefined && gitHosted !== null && gitHosted !== false) return false
  const tarball = resolution['tarball']
  if (typeof tarball !== 'string' || tarball === '') return true
  return /^https?:\/\//i.test(tarball) && !isGitHostedArchive(tarball)
}

function verificationError (violations: Violation[]): LodeError {
  violations.sort((a, b) => `${a.name}@${a.version}`.localeCompare(`${b.name}@${b.version}`))
  const codes = new Set(violations.map((violation) => violation.code))
  const mixed = codes.size > 1
  const shown = violations.slice(0, MAX_VIOLATIONS_SHOWN).map((violation) => mixed
    ? `  ${violation.name}@${violation.version} [${violation.code}] ${violation.reason}`
    : `  ${violation.name}@${violation.version} ${violation.reason}`)
  if (violations.length > MAX_VIOLATIONS_SHOWN) shown.push(`  …and ${violations.length - MAX_VIOLATIONS_SHOWN} more`)
  const policyOnly = violations.every((violation) => POLICY_CODES.has(violation.code))
  return new LodeError(mixed ? 'LOCKFILE_RESOLUTION_VERIFICATION' : violations[0]!.code, `${violations.length} lockfile entries failed verification:\n${shown.join('\n')}`, {
    hint: policyOnly
      ? 'The lockfile contains entries that the active policies (minimumReleaseAge, trustPolicy) reject. This can mean the lockfile is stale, or that someone committed a lockfile that bypassed the policy locally: inspect recent changes to pnpm-lock.yaml before trusting it. If the changes look expected, remove pnpm-lock.yaml and node_modules and run "lode install" to resolve afresh. If that still fails and you trust the affected packages, relax the policy that flagged them (minimumReleaseAgeExclude or trustPolicyExclude in pnpm-workspace.yaml), or set trustLockfile: true.'
      : 'The lockfile contains entries that lode cannot verify, whatever the configured policies. This can mean the lockfile is stale, or that it was tampered with: inspect recent changes to pnpm-lock.yaml before trusting it. If the changes look expected, remove pnpm-lock.yaml and node_modules and run "lode install" to resolve afresh.',
  })
}

function invalidAliasError (aliases: string[]): LodeError {
  const sorted = [...aliases].sort()
  const shown = sorted.slice(0, MAX_VIOLATIONS_SHOWN).map((alias) => `  ${JSON.stringify(alias)}`)
  if (sorted.length > MAX_VIOLATIONS_SHOWN) shown.push(`  …and ${sorted.length - MAX_VIOLATIONS_SHOWN} more`)
  return new LodeError('INVALID_DEPENDENCY_NAME', `The lockfile contains ${aliases.length} dependency ${aliases.length === 1 ? 'alias' : 'aliases'} that are not valid package names:\n${shown.join('\n')}`, {
    hint: 'A dependency alias becomes a directory under node_modules, so it must be a valid npm package name: a single `name` or `@scope/name` with no leading `.` or `_`, and not a reserved name such as `node_modules`. This usually means the lockfile was tampered with: inspect recent changes to pnpm-lock.yaml before trusting it.',
  })
}

interface CacheRecord {
  lockfile: { hash: string, path: string }
  verifiedAt: string
  policy: VerificationPolicy
}

/** When a verdict for this content under a policy at least as strict was reached, else undefined. An unreadable cache is an empty one. */
function cachedVerdict (file: string, hash: string, policy: VerificationPolicy): string | undefined {
  let text: string
  try {
    text = fs.readFileSync(file, 'utf8')
  } catch {
    return undefined
  }
  let verifiedAt: string | undefined
  for (const line of text.split('\n')) {
    const record = parseRecord(line)
    if (record?.lockfile.hash === hash && policyCovers(record.policy, policy)) verifiedAt = record.verifiedAt
  }
  return verifiedAt
}

function parseRecord (line: string): CacheRecord | undefined {
  if (line === '') return undefined
  try {
    const record = JSON.parse(line) as Partial<CacheRecord> | null
    return typeof record?.lockfile?.hash === 'string' && typeof record.lockfile.path === 'string' && typeof record.verifiedAt === 'string' ? record as CacheRecord : undefined
  } catch {
    return undefined
  }
}

/**
 * Appends a record (one line, appended whole: concurrent installs do not mix lines); past the
 * size bound, the file is rewritten with the newest record per lockfile and content. The cache is
 * an optimization: a failure to write it changes nothing else.
 */
function appendRecord (file: string, record: CacheRecord): void {
  try {
    fs.mkdirSync(path.dirname(file), { recursive: true })
    fs.appendFileSync(file, `${JSON.stringify(record)}\n`)
    if (fs.statSync(file).size <= COMPACT_AT_BYTES) return
    const seen = new Set<string>()
    const kept: string[] = []
    const lines = fs.readFileSync(file, 'utf8').split('\n')
    for (let i = lines.length - 1; i >= 0 && kept.length < MAX_CACHE_RECORDS; i--) {
      const parsed = parseRecord(lines[i]!)
      const key = parsed === undefined ? undefined : `${parsed.lockfile.path}\0${parsed.lockfile.hash}`
      if (key === undefined || seen.has(key)) continue
      seen.add(key)
      kept.push(lines[i]!)
    }
    const temp = `${file}.${process.pid}.tmp`
    fs.writeFileSync(temp, kept.reverse().map((line) => `${line}\n`).join(''))
    fs.renameSync(temp, file)
  } catch {
    // Best effort, as pnpm's: the next install verifies again.
  }
}
