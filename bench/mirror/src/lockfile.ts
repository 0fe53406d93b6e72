import { splitNameAt } from '@lode/core.dep-path'
import semver from 'semver'
import { parse } from 'yaml'

import { isPackageName } from './layout.js'

export interface LockedPackage {
  name: string
  version: string
  /** `resolution.integrity`; packages without one are not tarballs from the registry. */
  integrity: string | undefined
  /** Whether its `os`/`cpu`/`libc` admit the machine, so an install would fetch it. */
  installable: boolean
}

export interface Machine {
  platform: string
  arch: string
  /** `unknown` skips the libc check, as pnpm does off Linux. */
  libc: 'glibc' | 'musl' | 'unknown'
}

export function thisMachine (): Machine {
  let libc: Machine['libc'] = 'unknown'
  if (process.platform === 'linux') {
    const report = process.report.getReport() as { header?: { glibcVersionRuntime?: string } }
    libc = report.header?.glibcVersionRuntime === undefined ? 'musl' : 'glibc'
  }
  return { platform: process.platform, arch: process.arch, libc }
}

interface LockfileEntry {
  resolution?: { integrity?: unknown }
  os?: unknown
  cpu?: unknown
  libc?: unknown
}

/**
 * The registry packages of a pnpm-lock.yaml v9 (`packages:` keys `name@version`). Keys whose version
 * is not semver (tarball URLs, git) are not from the registry and are left out.
 */
export function readLockfile (text: string, machine: Machine): LockedPackage[] {
  const doc = parse(text) as { packages?: Record<string, LockfileEntry | null> } | null
  const result: LockedPackage[] = []
  for (const [key, entry] of Object.entries(doc?.packages ?? {})) {
    const { name, rest: version } = splitNameAt(key)
    if (version === undefined) continue
    if (semver.valid(version) === null) continue
    if (!isPackageName(name)) throw new Error(`pnpm-lock.yaml: invalid package name in ${JSON.stringify(key)}`)
    const integrity = entry?.resolution?.integrity
    result.push({
      name,
      version,
      integrity: typeof integrity === 'string' ? integrity : undefined,
      installable: admits(machine.platform, entry?.os) && admits(machine.arch, entry?.cpu) &&
        (machine.libc === 'unknown' || admits(machine.libc, entry?.libc)),
    })
  }
  return result
}

// pnpm's checkList (package-is-installable): `!x` excludes x; a list of only exclusions admits the
// rest; `any` admits everything.
function admits (value: string, list: unknown): boolean {
  if (list === undefined || list === null) return true
  const items = (Array.isArray(list) ? list : [list]).map(String)
  if (items.length === 1 && items[0] === 'any') return true
  let match = false
  let negations = 0
  for (const item of items) {
    if (item.startsWith('!')) {
      if (item.slice(1) === value) return false
      negations++
    } else if (item === value) {
      match = true
    }
  }
  return match || negations === items.length
}
