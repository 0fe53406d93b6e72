import { familySync } from 'detect-libc'

/** What the platform checks compare: `process.platform`, `process.arch` and the C library family (Linux only). */
export interface Platform {
  os: string
  cpu: string
  libc: string | undefined
}

export interface PlatformFields {
  /** A list, or one string as the manifest may write it. */
  os?: string | readonly string[] | undefined
  cpu?: string | readonly string[] | undefined
  libc?: string | readonly string[] | undefined
}

/**
 * Whether a package's `os`, `cpu` and `libc` fields admit this platform, by npm's rule (used by
 * pnpm): a list admits a value it names, and when it only excludes (`!value`), every value it
 * does not exclude. `libc` is checked on Linux only.
 */
export function platformMismatch (fields: PlatformFields, platform: Platform): string | undefined {
  if (!admits(fields.os, platform.os)) return `os ${JSON.stringify(fields.os)}, this is ${platform.os}`
  if (!admits(fields.cpu, platform.cpu)) return `cpu ${JSON.stringify(fields.cpu)}, this is ${platform.cpu}`
  if (platform.os === 'linux' && platform.libc !== undefined && !admits(fields.libc, platform.libc)) return `libc ${JSON.stringify(fields.libc)}, this is ${platform.libc}`
  return undefined
}

function admits (field: string | readonly string[] | undefined, value: string): boolean {
  const list = typeof field === 'string' ? [field] : field
  if (list === undefined || list.length === 0 || list.includes('any')) return true
  let matched = false
  let excluded = 0
  for (const item of list) {
    if (item.startsWith('!')) {
      if (item.slice(1) === value) return false
      excluded++
    } else if (item === value) {
      matched = true
    }
  }
  return matched || excluded === list.length
}

/** The platform packages' `os`, `cpu` and `libc` fields are checked against. */
export function currentPlatform (): Platform {
  return { os: process.platform, cpu: process.arch, libc: familySync() ?? undefined }
}
