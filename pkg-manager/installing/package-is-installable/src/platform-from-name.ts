import type { PlatformFields } from './platform.js'

// pnpm 11's tokens: what a platform package's name says of its os, cpu and libc
// (`@nx/nx-win32-arm64-msvc`, `@esbuild/linux-x64`, `lightningcss-linux-x64-musl`).
const OS_BY_TOKEN = new Map([
  ['aix', 'aix'], ['android', 'android'], ['darwin', 'darwin'], ['macos', 'darwin'], ['osx', 'darwin'],
  ['freebsd', 'freebsd'], ['linux', 'linux'], ['netbsd', 'netbsd'], ['openbsd', 'openbsd'],
  ['openharmony', 'openharmony'], ['sunos', 'sunos'], ['win32', 'win32'], ['windows', 'win32'],
])
const CPU_BY_TOKEN = new Map([
  ['arm', 'arm'], ['armv6', 'arm'], ['armv7', 'arm'], ['arm64', 'arm64'], ['aarch64', 'arm64'], ['ia32', 'ia32'],
  ['loong64', 'loong64'], ['mips64el', 'mips64el'], ['ppc64', 'ppc64'], ['ppc64le', 'ppc64'], ['riscv64', 'riscv64'],
  ['s390x', 's390x'], ['x64', 'x64'], ['amd64', 'x64'], ['wasm32', 'wasm32'],
])
const LIBC_BY_TOKEN = new Map([['glibc', 'glibc'], ['gnu', 'glibc'], ['gnueabihf', 'glibc'], ['musl', 'musl'], ['musleabihf', 'musl']])

/**
 * The platform fields pnpm 11 checks an optional package by: its own `os`, `cpu` and `libc`, the
 * ones it lacks filled from the tokens of its name (split at `-`, `_`, `.`, the scope left out),
 * since a platform package published without them has no other platform signal. A name that
 * names no os fills nothing in a package that declares none (`is-arm64-ready` stays any platform).
 */
export function platformOfOptional (fields: PlatformFields, name: string): PlatformFields {
  if (fields.os != null && fields.cpu != null && fields.libc != null) return fields
  const tokens = name.slice(name.indexOf('/') + 1).toLowerCase().split(/[-_.]/)
  const os = tokenValues(tokens, OS_BY_TOKEN)
  const cpu = tokenValues(tokens, CPU_BY_TOKEN)
  const libc = tokenValues(tokens, LIBC_BY_TOKEN)
  if (os === undefined && cpu === undefined && libc === undefined) return fields
  const declares = fields.os != null || fields.cpu != null || fields.libc != null
  if (!declares && os === undefined) return fields
  return { os: fields.os ?? os, cpu: fields.cpu ?? cpu, libc: fields.libc ?? libc }
}

function tokenValues (tokens: readonly string[], byToken: ReadonlyMap<string, string>): string[] | undefined {
  const values = new Set(tokens.flatMap((token) => byToken.get(token) ?? []))
  return values.size > 0 ? [...values] : undefined
}
