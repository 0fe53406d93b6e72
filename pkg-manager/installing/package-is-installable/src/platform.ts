import { familySync } from 'detect-libc'

/** What the platform checks compare: `process.platform`, `process.arch` and the C library family (Linux only). */
export interface Platform {
  os: string
  cpu: string
  libc: string | undefined
  /** pnpm's `supportedArchitectures`: the values installed for besides (`current` is this machine's). */
  supported?: SupportedArchitectures | undefined
}

/** pnpm's `supportedArchitectures` setting: per field, the values to install packages for. */
export interface SupportedArchitectures {
  os?: readonly string[] | undefined
  cpu?: readonly string[] | undefined
  libc?: readonly string[] | undefined
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
  const { supported } = platform
  if (!admits(fields.os, withCurrent(platform.os, supported?.os))) return `os ${JSON.stringify(fields.os)}, this is ${platform.os}`
  if (!admits(fields.cpu, withCurrent(platform.cpu, supported?.cpu))) return `cpu ${JSON.stringify(fields.cpu)}, this is ${platform.cpu}`
  if (platform.os === 'linux' && platform.libc !== undefined && !admits(fields.libc, withCurrent(platform.libc, supported?.libc))) {
    return `libc ${JSON.stringify(fields.libc)}, this is ${platform.libc}`
  }
  return undefined
}

/** The values a field is installed for: `supportedArchitectures`' (its `current` this machine's), else this machine's. */
function withCurrent (current: string, supported: readonly string[] | undefined): readonly string[] {
  return (supported ?? ['current']).map((value) => value === 'current' ? current : value)
}

/** pnpm's rule, for several values: none of them excluded, and one named (or the list only excludes). */
function admits (field: string | readonly string[] | undefined, values: readonly string[]): boolean {
  // As pnpm: what is not a string in the list (a lockfile's `libc: [null]`) is skipped.
  const list = (typeof field === 'string' ? [field] : field)?.filter((item) => typeof item === 'string')
  if (list === undefined || list.length === 0 || list.includes('any')) return true
  if (values.some((value) => list.includes(`!${value}`))) return false
  return values.some((value) => list.includes(value)) || list.every((item) => item.startsWith('!'))
}

/** The platform packages' `os`, `cpu` and `libc` fields are checked against (with pnpm's `supportedArchitectures`, those values too). */
export function currentPlatform (supported?: SupportedArchitectures): Platform {
  const platform = { os: process.platform, cpu: process.arch, libc: familySync() ?? undefined }
  return supported === undefined ? platform : { ...platform, supported }
}
