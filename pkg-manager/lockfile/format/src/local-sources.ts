import path from 'node:path'

import type { Lockfile } from './types.js'

/** The `file:` tarballs and directories a lockfile's packages come from (absolute, sorted): what an install reads again each time. */
export interface LocalSources {
  tarballs: string[]
  directories: string[]
}

/**
 * The local sources of `lockfile`'s packages, resolved against `dir` (the lockfile's directory): a
 * `tarball: file:…` resolution (relative, absolute, or a `file:///` URL), and a `directory` one
 * (a `file:` directory or an injected workspace project).
 */
export function localSources (lockfile: Lockfile, dir: string): LocalSources {
  const tarballs = new Set<string>()
  const directories = new Set<string>()
  for (const { resolution } of Object.values(lockfile.packages ?? {})) {
    const tarball = (resolution as { tarball?: unknown }).tarball
    if (typeof tarball === 'string' && tarball.startsWith('file:') && !tarball.includes('\0')) {
      const rest = tarball.slice('file:'.length)
      tarballs.add(tarball.startsWith('file:///') ? new URL(tarball).pathname : path.isAbsolute(rest) ? path.normalize(rest) : path.resolve(dir, rest))
    }
    const { type, directory } = resolution as { type?: unknown, directory?: unknown }
    if (type === 'directory' && typeof directory === 'string') directories.add(path.resolve(dir, directory))
  }
  return { tarballs: [...tarballs].sort(), directories: [...directories].sort() }
}

/** Whether a package comes from a local source (a `file:` tarball or a directory), which an install reads again each time. */
export function isLocalSource (resolution: object): boolean {
  const { tarball, type } = resolution as { tarball?: unknown, type?: unknown }
  return type === 'directory' || (typeof tarball === 'string' && tarball.startsWith('file:'))
}
