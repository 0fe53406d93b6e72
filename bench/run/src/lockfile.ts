import { parse } from 'yaml'

export interface LockedTarball {
  pkgId: string
  url: string
}

interface LockedPackage {
  resolution?: { integrity?: string, tarball?: string }
  os?: string[]
  cpu?: string[]
}

/** Whether a package's `os`/`cpu` list (with npm's `!x` exclusions) admits this machine. */
function admits (list: string[] | undefined, value: string): boolean {
  if (list === undefined || list.length === 0) return true
  if (list.includes(`!${value}`)) return false
  return list.includes(value) || list.every((entry) => entry.startsWith('!'))
}

/**
 * The registry tarballs of a pnpm-lock.yaml v9 that an install on this machine downloads (packages
 * for other platforms left out), at npm's URL layout under `registry`.
 */
export function lockedTarballs (lockfileText: string, registry: string): LockedTarball[] {
  const doc = parse(lockfileText) as { packages?: Record<string, LockedPackage> }
  const base = registry.endsWith('/') ? registry : `${registry}/`
  const result: LockedTarball[] = []
  for (const [pkgId, info] of Object.entries(doc.packages ?? {})) {
    if (info.resolution?.integrity === undefined || info.resolution.tarball !== undefined) continue
    if (!admits(info.os, process.platform) || !admits(info.cpu, process.arch)) continue
    const at = pkgId.lastIndexOf('@')
    const name = pkgId.slice(0, at)
    const version = pkgId.slice(at + 1)
    const file = name.startsWith('@') ? name.slice(name.indexOf('/') + 1) : name
    result.push({ pkgId, url: `${base}${name}/-/${file}-${version}.tgz` })
  }
  return result
}
