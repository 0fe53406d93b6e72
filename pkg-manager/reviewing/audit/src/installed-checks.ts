import { LodeError, printable } from '@lode/core.error'
import type { Config } from '@lode/pkg-manager.config.settings'
import { registryClientFor } from '@lode/pkg-manager.installing.installer'
import { currentPlatform, packagesCheck, platformMismatch, skippedPackages, unsatisfiedEngines } from '@lode/pkg-manager.installing.package-is-installable'
import { readLockfile } from '@lode/pkg-manager.lockfile.format'
import type { Lockfile, PackageInfo } from '@lode/pkg-manager.lockfile.format'
import { packumentVersions } from '@lode/resolving.npm-resolver'
import { encodeName, registryFor } from '@lode/resolving.npm-resolver/registries'
import { ACCEPT_ABBREVIATED } from '@lode/resolving.registry-client'
import semver from 'semver'

import { broughtInByLine, installedPackages } from './brought-in-by.js'
import type { BroughtInBy } from './brought-in-by.js'
import { nameAndVersionOf } from './graph.js'
import type { Include } from './graph.js'

// `lode audit deprecations` and `lode audit engines` (pnpm 12.24): the installed packages the
// registry marks deprecated, or that do not support this Node.js or platform, each with what
// brings it in. Exit code 1 when there is one.

export interface InstalledChecksOptions {
  config: Config
  include: Include
  /** The projects checked (importer ids); every project of the lockfile when undefined. */
  importerIds?: readonly string[] | undefined
  json: boolean
  onWarning: (message: string) => void
  signal?: AbortSignal | undefined
}

export interface InstalledFinding extends BroughtInBy {
  name: string
  version: string
  /** The deprecation message, or what the package wants of the engines and platform (`node: ">=22"`, `os: ["darwin"]`). */
  deprecated?: string
  wants?: Record<string, unknown>
}

/** The installed packages the registry says are deprecated now (a version `allowedDeprecatedVersions` allows is not reported). */
export async function auditDeprecations (opts: InstalledChecksOptions): Promise<{ output: string, exitCode: number }> {
  const { lockfile, installed } = await installedOf(opts, 'deprecations')
  const client = registryClientFor(opts.config, { onWarning: opts.onWarning, signal: opts.signal })
  // The versions to ask about, by name: one request and one parse per package name.
  const asked = new Map<string, Array<{ version: string, by: BroughtInBy }>>()
  for (const [pkgId, by] of installed) {
    const { name, version } = nameAndVersionOf(lockfile, pkgId)
    const info = lockfile.packages?.[pkgId]
    // Only a registry package has a registry's word on it.
    if (version === undefined || info === undefined || !isRegistryPackage(info)) continue
    const allowed = opts.config.allowedDeprecatedVersions[name]
    if (allowed !== undefined && semver.satisfies(version, allowed)) continue
    asked.set(name, [...asked.get(name) ?? [], { version, by }])
  }
  const findings: InstalledFinding[] = []
  try {
    await Promise.all([...asked].map(async ([name, versions]) => {
      const registry = registryFor({ default: opts.config.registry, scoped: opts.config.scopedRegistries }, name)
      const answer = await client.get(`${registry}${encodeName(name)}`, { accept: ACCEPT_ABBREVIATED, subject: name })
      if (answer.status !== 200) {
        throw new LodeError('AUDIT_BAD_RESPONSE', `The registry answered ${answer.status} for ${name}'s metadata.`, { hint: `Check that ${registry} serves ${name}, and the credentials for it.` })
      }
      const manifests = packumentVersions(answer.body, name)
      for (const { version, by } of versions) {
        const deprecated = manifests[version]?.['deprecated']
        if (typeof deprecated === 'string' && deprecated !== '') findings.push({ name, version, deprecated, ...by })
      }
    }))
  } finally {
    await client.close()
  }
  return report(sorted(findings), opts.json, {
    none: 'No deprecated packages found',
    heading: (count) => `${count} deprecated package${count === 1 ? '' : 's'}`,
    detail: (finding) => finding.deprecated!,
  })
}

/** The installed packages whose `engines.node`, `os`, `cpu` or `libc` exclude this Node.js or machine. */
export async function auditEngines (opts: InstalledChecksOptions): Promise<{ output: string, exitCode: number }> {
  const { lockfile, installed } = await installedOf(opts, 'engines')
  const platform = currentPlatform(opts.config.supportedArchitectures)
  const findings: InstalledFinding[] = []
  for (const [pkgId, by] of installed) {
    const info = lockfile.packages?.[pkgId]
    if (info === undefined) continue
    const { name, version } = nameAndVersionOf(lockfile, pkgId)
    const wants: Record<string, unknown> = { ...unsatisfiedEngines(info.engines, { node: opts.config.nodeVersion }, `${name}@${version ?? ''}`) }
    if (platformMismatch(info, platform) !== undefined) {
      for (const field of ['os', 'cpu', 'libc'] as const) if (info[field] !== undefined) wants[field] = info[field]
    }
    if (Object.keys(wants).length > 0) findings.push({ name, version: version ?? '', wants, ...by })
  }
  const machine = `Node.js ${opts.config.nodeVersion.replace(/^v/, '')} on ${platform.os}-${platform.cpu}${platform.libc === undefined ? '' : ` (${platform.libc})`}`
  return report(sorted(findings), opts.json, {
    none: `Every installed package supports ${machine}`,
    heading: (count) => `${count} installed package${count === 1 ? ' does' : 's do'} not support ${machine}`,
    detail: (finding) => `Wants: ${Object.entries(finding.wants!).map(([field, value]) => `${field} ${listed(value)}`).join('; ')}`,
  })
}

async function installedOf (
  opts: InstalledChecksOptions,
  check: string
): Promise<{ lockfile: Lockfile, installed: Map<string, BroughtInBy> }> {
  const read = await readLockfile(opts.config.dir)
  if (read === undefined) {
    throw new LodeError('AUDIT_NO_LOCKFILE', `No pnpm-lock.yaml found: cannot audit the ${check} of a project without a lockfile.`, { hint: 'Run lode install first.' })
  }
  const { lockfile } = read
  // What an install here skips is not installed: not reported.
  const skipped = skippedPackages(lockfile, packagesCheck(opts.config, false))
  const installed = installedPackages(lockfile, {
    importerIds: opts.importerIds ?? Object.keys(lockfile.importers),
    include: opts.include,
    resolvePeersFromWorkspaceRoot: opts.config.resolvePeersFromWorkspaceRoot,
    skipped,
  })
  return { lockfile, installed }
}

function listed (value: unknown): string {
  return Array.isArray(value) ? value.join(', ') : String(value)
}

function isRegistryPackage (info: PackageInfo): boolean {
  const resolution = info.resolution as { type?: unknown, integrity?: unknown, tarball?: unknown }
  return resolution.type === undefined && typeof resolution.integrity === 'string'
}

function sorted (findings: InstalledFinding[]): InstalledFinding[] {
  const byVersion = (a: string, b: string): number =>
    semver.valid(a) !== null && semver.valid(b) !== null ? semver.compare(a, b) : a.localeCompare(b)
  return findings.sort((a, b) => a.name.localeCompare(b.name) || byVersion(a.version, b.version))
}

function report (
  findings: readonly InstalledFinding[],
  json: boolean,
  words: { none: string, heading: (count: number) => string, detail: (finding: InstalledFinding) => string }
): { output: string, exitCode: number } {
  const exitCode = findings.length === 0 ? 0 : 1
  if (json) {
    const entries = findings.map(({ projects, packages, ...finding }) => ({
      ...finding,
      broughtInBy: { projects: [...projects].sort(), packages: [...packages].sort() },
    }))
    return { output: JSON.stringify(entries, null, 2), exitCode }
  }
  if (findings.length === 0) return { output: words.none, exitCode }
  // Names, messages and labels are the lockfile's and the registry's words: each shown as one printable line.
  const blocks = findings.map((finding) => [`${finding.name}@${finding.version}`, `  ${words.detail(finding)}`, `  ${broughtInByLine(finding)}`].map((line) => printable(line)).join('\n'))
  return { output: `${words.heading(findings.length)}\n\n${blocks.join('\n\n')}`, exitCode }
}
