import { LodeError } from '@lode/core.error'
import type { Config } from '@lode/pkg-manager.config.settings'
import { mergeReleaseAgeExcludes, readWorkspaceYaml, updateWorkspaceYaml } from '@lode/pkg-manager.config.settings'
import { registryClientFor } from '@lode/pkg-manager.installing.installer'
import { devOnlyDepPaths, peerSatisfactionEdgesToSkip, readLockfile, withoutPeerSatisfactionEdges } from '@lode/pkg-manager.lockfile.format'
import type { Lockfile } from '@lode/pkg-manager.lockfile.format'
import { registryFor } from '@lode/resolving.npm-resolver/registries'
import { ACCEPT_FULL } from '@lode/resolving.registry-client'
import type { RegistryClient } from '@lode/resolving.registry-client'

import { fixableAdvisories, fixOverrides, releaseAgeExcludes } from './fix.js'
import { optionalOnlyDepPaths } from './graph.js'
import type { Include } from './graph.js'
import { findingPaths } from './paths.js'
import { advisoriesAtLevel, removeIgnored, renderAuditJson, renderAuditReport } from './render.js'
import { auditReport, correctPatchedVersions, normalizeGhsaId, parseBulkResponse } from './report.js'
import type { AuditReport, PublishInfo, Severity } from './report.js'
import { auditRequest } from './request.js'

export interface AuditOptions {
  config: Config
  include: Include
  /** The projects audited (importer ids); the whole lockfile when undefined. */
  importerIds?: readonly string[] | undefined
  /** `--audit-level`; the `audit.level` setting by default. */
  level?: Severity | undefined
  json: boolean
  /** `--fix`: overrides to the first fixed versions, written into pnpm-workspace.yaml. */
  fix: boolean
  /** `--ignore <GHSA>…`: advisories added to the ignored ones. */
  ignore?: readonly string[] | undefined
  /** `--ignore-unfixable`: every advisory without a fixed version added to the ignored ones. */
  ignoreUnfixable: boolean
  /** `--ignore-registry-errors`: a failed request is reported and exits 0. */
  ignoreRegistryErrors: boolean
  /** The command's name in hints (`lode why <name>`). */
  command: string
  now: () => number
  onInfo: (message: string) => void
  onWarning: (message: string) => void
  signal?: AbortSignal | undefined
}

/**
 * pnpm's `audit`: the lockfile's packages sent to the registry's bulk advisory endpoint, the
 * advisories that apply reported (tables or `--json`), or fixed with overrides, or ignored, as
 * pnpm 11 does each. The exit code is 1 when an advisory at the level is left.
 */
export async function audit (opts: AuditOptions): Promise<{ output: string, exitCode: number }> {
  const { config } = opts
  const read = await readLockfile(config.dir)
  if (read === undefined) throw new LodeError('AUDIT_NO_LOCKFILE', 'No pnpm-lock.yaml found: Cannot audit a project without a lockfile')
  const lockfile = selectImporters(read.lockfile, opts.importerIds)
  const client = registryClientFor(config, { onWarning: opts.onWarning, signal: opts.signal })
  try {
    let report: AuditReport
    try {
      report = await fetchReport(client, lockfile, config, opts.include)
    } catch (err) {
      if (opts.ignoreRegistryErrors && err instanceof LodeError) return { output: err.message, exitCode: 0 }
      throw err
    }
    const publishInfoOf = publishInfoFetcher(client, config)
    await correctPatchedVersions(report, publishInfoOf)
    const level = opts.level ?? config.audit.level
    if (opts.fix) return await fixWithOverrides(report, { ...opts, level, publishInfoOf })
    if (opts.ignore !== undefined || opts.ignoreUnfixable) return await ignoreAdvisories(report, { ...opts, level })
    const ignored = removeIgnored(report, config.audit.ignore)
    return opts.json ? renderAuditJson(report, level) : renderAuditReport(report, { level, ignored, command: opts.command })
  } finally {
    await client.close()
  }
}

function selectImporters (lockfile: Lockfile, importerIds: readonly string[] | undefined): Lockfile {
  if (importerIds === undefined) return lockfile
  const missing = importerIds.filter((id) => lockfile.importers[id] === undefined).sort()
  if (missing.length > 0) {
    throw new LodeError('AUDIT_MISSING_IMPORTERS', `pnpm-lock.yaml has no entry for these selected workspace projects: ${missing.join(', ')}. Run "lode install" to update it.`)
  }
  return { ...lockfile, importers: Object.fromEntries(Object.entries(lockfile.importers).filter(([id]) => importerIds.includes(id))) }
}

async function fetchReport (client: RegistryClient, audited: Lockfile, config: Config, include: Include): Promise<AuditReport> {
  const registry = config.registry
  // Leaving a group out (--prod, --dev), the edges to optional peers only a project provides are not walked, as pnpm's walker.
  const skipped = peerSatisfactionEdgesToSkip(audited, include, config)
  const lockfile = skipped === undefined ? audited : withoutPeerSatisfactionEdges(audited, skipped)
  const walk = { include, devOnly: devOnlyDepPaths(audited, config), optionalOnly: optionalOnlyDepPaths(lockfile, include) }
  const request = auditRequest(lockfile, walk)
  const url = `${registry}-/npm/v1/security/advisories/bulk`
  const answer = await client.post(url, JSON.stringify(request.body), { subject: 'the security advisories' })
  if (answer.status === 404) {
    throw new LodeError('AUDIT_ENDPOINT_NOT_EXISTS', `The audit endpoint (at ${url}) doesn't exist.`, {
      hint: 'This issue is probably because you are using a private npm registry and that endpoint doesn\'t have an implementation of audit.',
    })
  }
  if (answer.status !== 200) {
    throw new LodeError('AUDIT_BAD_RESPONSE', `The audit endpoint (at ${url}) responded with ${answer.status}: ${answer.body.toString()}`)
  }
  const bulk = parseBulkResponse(url, answer.body.toString())
  const vulnerableNames = new Set(Object.keys(bulk))
  const paths = vulnerableNames.size === 0 ? new Map() : findingPaths(lockfile, vulnerableNames, walk)
  return auditReport(bulk, request, paths)
}

/** Each package's publication times and deprecated versions, from its full packument, asked once; undefined when it cannot be had. */
function publishInfoFetcher (client: RegistryClient, config: Config): (name: string) => Promise<PublishInfo | undefined> {
  const asked = new Map<string, Promise<PublishInfo | undefined>>()
  const registries = { default: config.registry, scoped: config.scopedRegistries }
  const fetchInfo = async (name: string): Promise<PublishInfo | undefined> => {
    try {
      const answer = await client.get(`${registryFor(registries, name)}${name.replace('/', '%2f')}`, { accept: ACCEPT_FULL, subject: name })
      if (answer.status !== 200) return undefined
      const doc = JSON.parse(answer.body.toString()) as { time?: unknown, versions?: Record<string, { deprecated?: unknown }> }
      if (typeof doc.time !== 'object' || doc.time === null || Array.isArray(doc.time)) return undefined
      const deprecated = new Set(Object.entries(doc.versions ?? {}).filter(([, manifest]) => typeof manifest?.deprecated === 'string').map(([version]) => version))
      return { time: doc.time as Record<string, unknown>, deprecated }
    } catch {
      return undefined
    }
  }
  return async (name) => {
    let info = asked.get(name)
    if (info === undefined) {
      info = fetchInfo(name)
      asked.set(name, info)
    }
    return await info
  }
}

async function fixWithOverrides (
  report: AuditReport,
  opts: AuditOptions & { level: Severity, publishInfoOf: (name: string) => Promise<PublishInfo | undefined> }
): Promise<{ output: string, exitCode: number }> {
  const { config } = opts
  if (config.audit.ignorePrune && config.audit.ignore.length > 0) await pruneIgnored(report, config, opts.onInfo)
  const ignored = new Set(config.audit.ignore.map(normalizeGhsaId))
  const advisories = advisoriesAtLevel(report, opts.level)
    .map(([, advisory]) => advisory)
    .filter((advisory) => advisory.github_advisory_id === '' || !ignored.has(normalizeGhsaId(advisory.github_advisory_id)))
  const fixable = fixableAdvisories(advisories)
  const overrides = fixOverrides(fixable, config.savePrefix)
  if (Object.keys(overrides).length === 0) return { output: 'No fixes were made', exitCode: 0 }
  const excludes = config.minimumReleaseAge > 0
    ? await releaseAgeExcludes(fixable, { minimumReleaseAge: config.minimumReleaseAge, now: opts.now(), publishInfoOf: opts.publishInfoOf })
    : []
  const workspace = readWorkspaceYaml(config.dir)
  const existingExcludes = Array.isArray(workspace['minimumReleaseAgeExclude']) ? workspace['minimumReleaseAgeExclude'] as string[] : []
  const mergedExcludes = mergeReleaseAgeExcludes([...existingExcludes, ...excludes])
  await updateWorkspaceYaml(config.dir, {
    overrides: mergeOverrides(workspace['overrides'] as Record<string, string> | undefined ?? {}, overrides),
    ...excludes.length === 0 ? {} : { minimumReleaseAgeExclude: mergedExcludes },
  })
  let output = `${Object.keys(overrides).length} overrides were added to pnpm-workspace.yaml to fix vulnerabilities.\n` +
    `Run "${opts.command} install" to apply the fixes.\n\nThe added overrides:\n${JSON.stringify(overrides, null, 2)}`
  if (excludes.length > 0) {
    const added = mergeReleaseAgeExcludes(excludes)
    output += `\n\n${added.length} entries were added to minimumReleaseAgeExclude to allow installing the patched versions:\n${added.join('\n')}`
  }
  return { output, exitCode: 0 }
}

/** The overrides with `added` in: kept sorted when they were (pnpm's rule for the file's keys), else appended. */
function mergeOverrides (existing: Readonly<Record<string, string>>, added: Readonly<Record<string, string>>): Record<string, string> {
  const keys = Object.keys(existing)
  const merged = { ...existing, ...added }
  if (!keys.every((key, i) => i === 0 || keys[i - 1]! <= key)) return merged
  return Object.fromEntries(Object.entries(merged).sort(([a], [b]) => a < b ? -1 : a > b ? 1 : 0))
}

/** `audit.ignorePrune`: ignored GHSAs that match no advisory any more are dropped from the settings. */
async function pruneIgnored (report: AuditReport, config: Config, onInfo: (message: string) => void): Promise<void> {
  const present = new Set(Object.values(report.advisories).filter((advisory) => advisory.github_advisory_id !== '').map((advisory) => normalizeGhsaId(advisory.github_advisory_id)))
  const pruned = config.audit.ignore.filter((ghsa) => !present.has(normalizeGhsaId(ghsa)))
  const retained = [...new Set(config.audit.ignore.map(normalizeGhsaId).filter((ghsa) => present.has(ghsa)))]
  if (pruned.length > 0) onInfo(`Removed ${pruned.length} unused ignored GHSA${pruned.length === 1 ? '' : 's'}: ${pruned.join(', ')}`)
  const unchanged = retained.length === config.audit.ignore.length && retained.every((ghsa, i) => ghsa === config.audit.ignore[i])
  if (!unchanged) await writeIgnoredGhsas(config.dir, retained)
}

type AuditOutcome = { output: string, exitCode: number }

async function ignoreAdvisories (report: AuditReport, opts: AuditOptions & { level: Severity }): Promise<AuditOutcome> {
  const { config } = opts
  const current = config.audit.ignore.map(normalizeGhsaId)
  const next = new Set(current)
  if (opts.ignoreUnfixable) {
    for (const advisory of Object.values(report.advisories).filter((advisory) => advisory.patched_versions == null)) {
      if (advisory.github_advisory_id === '') {
        throw new LodeError('AUDIT_MISSING_GHSA', `Cannot ignore advisory ${advisory.id} (${advisory.module_name}): the registry did not provide a GHSA id or a resolvable url.`)
      }
      next.add(normalizeGhsaId(advisory.github_advisory_id))
    }
  } else {
    for (const ghsa of opts.ignore ?? []) next.add(normalizeGhsaId(ghsa))
  }
  const added = [...next].filter((ghsa) => !current.includes(ghsa))
  await writeIgnoredGhsas(config.dir, [...next])
  removeIgnored(report, [...config.audit.ignore, ...added])
  const exitCode = advisoriesAtLevel(report, opts.level).length > 0 ? 1 : 0
  if (added.length === 0) return { output: 'No new vulnerabilities were ignored', exitCode }
  return { output: `${added.length} new vulnerabilities were ignored:\n${added.join('\n')}`, exitCode }
}

/**
 * The ignored GHSAs written where pnpm 11 writes them: `audit.ignore` when the file uses it (an
 * older `auditConfig.ignoreGhsas` then goes), else `auditConfig.ignoreGhsas`.
 */
async function writeIgnoredGhsas (dir: string, ghsas: readonly string[]): Promise<void> {
  const workspace = readWorkspaceYaml(dir)
  const auditSetting = workspace['audit'] as Record<string, unknown> | undefined
  const auditConfig = workspace['auditConfig'] as Record<string, unknown> | undefined
  const withoutIgnoreGhsas = (): Record<string, unknown> | null => {
    const rest = Object.fromEntries(Object.entries(auditConfig ?? {}).filter(([key]) => key !== 'ignoreGhsas'))
    return Object.keys(rest).length === 0 ? null : rest
  }
  if (auditSetting?.['ignore'] !== undefined) {
    const rest = Object.fromEntries(Object.entries(auditSetting).filter(([key]) => key !== 'ignore'))
    await updateWorkspaceYaml(dir, {
      audit: ghsas.length > 0 ? { ...auditSetting, ignore: ghsas } : Object.keys(rest).length === 0 ? null : rest,
      ...auditConfig?.['ignoreGhsas'] === undefined ? {} : { auditConfig: withoutIgnoreGhsas() },
    })
    return
  }
  await updateWorkspaceYaml(dir, { auditConfig: ghsas.length > 0 ? { ...auditConfig, ignoreGhsas: ghsas } : withoutIgnoreGhsas() })
}
