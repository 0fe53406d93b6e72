import { createHash } from 'node:crypto'
import fs from 'node:fs'
import path from 'node:path'

import { DEPENDENCY_GROUPS } from '@lode/core.constants'
import { pkgIdOf, refToDepPath, withoutPeersSuffix } from '@lode/core.dep-path'
import { LodeError, hasErrno, printable } from '@lode/core.error'
import { own } from '@lode/core.safe-name'
import { parsePackageJson } from '@lode/fs.package-json'
import type { Lockfile } from '@lode/pkg-manager.lockfile.format'
import semver from 'semver'

/**
 * What pnpm 11 reads again of a lockfile's local sources before it installs it as it is: the
 * package.json of each `file:` directory a project depends on (its dependencies added, removed, or
 * no longer taken by the versions locked), and each `file:` tarball (its bytes against the locked
 * integrity). A reason when the lockfile is out of date for them; undefined when not.
 *
 * A tarball that cannot be read is `ERR_LODE_TARBALL_READ_LOCAL`; one repacked since is out of date,
 * or under `frozen` is `ERR_LODE_TARBALL_INTEGRITY` (pnpm's frozen install fails on its checksum).
 */
export function localSourcesOutdated (
  lockfile: Lockfile,
  importers: ReadonlyArray<{ id: string }>,
  lockfileDir: string,
  opts: { frozen: boolean }
): string | undefined {
  for (const { id } of importers) {
    const snapshot = lockfile.importers[id]
    for (const group of DEPENDENCY_GROUPS) {
      for (const [alias, { specifier, version }] of Object.entries(snapshot?.[group] ?? {})) {
        if (!specifier.startsWith('file:') || version.startsWith('link:')) continue
        const depPath = refToDepPath(alias, version)
        const reason = directoryChange(lockfile, depPath, lockfileDir)
        if (reason !== undefined) return reason
      }
    }
  }
  for (const [pkgId, info] of Object.entries(lockfile.packages ?? {})) {
    const { tarball, integrity } = info.resolution as { tarball?: unknown, integrity?: unknown }
    if (typeof tarball !== 'string' || !tarball.startsWith('file:') || typeof integrity !== 'string') continue
    const file = path.resolve(lockfileDir, tarball.slice('file:'.length))
    const actual = integrityOf(readTarball(file, pkgId), integrity)
    if (actual === integrity) continue
    if (!opts.frozen) return `${printable(pkgId)}'s tarball ${printable(file)} changed since pnpm-lock.yaml was written`
    throw new LodeError('TARBALL_INTEGRITY', `Got unexpected checksum for ${printable(file)} (${printable(pkgId)}): expected ${printable(integrity)}, got ${actual}.`, {
      hint: 'The local tarball was repacked since pnpm-lock.yaml was written: run lode install without --frozen-lockfile to take it.',
    })
  }
  return undefined
}

/** How a `file:` directory's package.json left its locked snapshot behind (pnpm's check of it), if it did. */
function directoryChange (lockfile: Lockfile, depPath: string, lockfileDir: string): string | undefined {
  const resolution = own(lockfile.packages, pkgIdOf(depPath))?.resolution as { directory?: unknown } | undefined
  if (typeof resolution?.directory !== 'string') return undefined
  const file = path.join(lockfileDir, resolution.directory, 'package.json')
  let manifest: Record<string, unknown>
  try {
    manifest = parsePackageJson(fs.readFileSync(file, 'utf8'), file)
  } catch {
    return undefined // the install says what is wrong with it
  }
  const snapshot = own(lockfile.snapshots, depPath)
  // Its peers, resolved, are locked among its dependencies too.
  const peers = (manifest['peerDependencies'] ?? {}) as Record<string, unknown>
  for (const group of ['dependencies', 'optionalDependencies'] as const) {
    const wanted = (manifest[group] ?? {}) as Record<string, unknown>
    const locked = snapshot?.[group] ?? {}
    for (const name of Object.keys(locked)) {
      if (own(wanted, name) === undefined && own(peers, name) === undefined) return `${printable(depPath)} no longer has ${printable(name)} in its ${group}`
    }
    for (const [name, spec] of Object.entries(wanted)) {
      const ref = own(locked, name)
      if (ref === undefined) return `${printable(depPath)} has ${printable(name)} in its ${group}, which pnpm-lock.yaml does not`
      if (typeof spec !== 'string' || /^(?:file|link|workspace):/.test(spec)) continue
      const range = spec.startsWith('npm:') ? spec.slice(spec.indexOf('@', 5) + 1) || '*' : spec
      const lockedVersion = withoutPeersSuffix(ref)
      if (semver.valid(lockedVersion, { loose: true }) !== null && semver.validRange(range, { loose: true }) !== null &&
        !semver.satisfies(lockedVersion, range, { loose: true })) {
        return `${printable(depPath)} wants ${printable(`${name}@${spec}`)}, locked at ${printable(lockedVersion)}`
      }
    }
  }
  return undefined
}

function readTarball (file: string, pkgId: string): Buffer {
  try {
    return fs.readFileSync(file)
  } catch (err) {
    if (!hasErrno(err, 'ENOENT') && !hasErrno(err, 'EISDIR') && !hasErrno(err, 'ENOTDIR')) throw err
    throw new LodeError('TARBALL_READ_LOCAL', `The local tarball ${printable(file)} of ${printable(pkgId)} cannot be read: ${(err).code ?? 'error'}.`, {
      hint: 'Put the tarball back where package.json (or pnpm-lock.yaml) says it is, or change the dependency.',
      cause: err,
    })
  }
}

/** The integrity of `bytes` in the algorithm `locked` uses (sha512 unless it names another one Node has). */
function integrityOf (bytes: Buffer, locked: string): string {
  const algorithm = /^(sha1|sha256|sha384|sha512)-/.exec(locked)?.[1] ?? 'sha512'
  return `${algorithm}-${createHash(algorithm).update(bytes).digest('base64')}`
}
