import type { Dirent } from 'node:fs'
import fsp from 'node:fs/promises'
import path from 'node:path'

import { hasErrno } from '@lode/core.error'

/**
 * pnpm's removal of an optional package whose build failed (the install goes on without it): its
 * directories in node_modules go, with every symlink directly in `modulesDirs` (the projects'
 * node_modules and the hoisted `.pnpm/node_modules`, scoped names too) that leads to one of them.
 * Its dependents' links to it stay, dangling, as pnpm leaves them; so do the records of it.
 */
export async function removeFailedOptionalPackages (dirs: readonly string[], modulesDirs: readonly string[]): Promise<void> {
  if (dirs.length === 0) return
  const targets = new Set((await Promise.all(dirs.map(realpathOrUndefined))).filter((dir) => dir !== undefined))
  const links = (await Promise.all(modulesDirs.map(symlinksIn))).flat()
  const leading = await Promise.all(links.map(async (link) => targets.has(await realpathOrUndefined(link) ?? '') ? link : undefined))
  await Promise.all(leading.map(async (link) => { if (link !== undefined) await fsp.rm(link, { force: true }) }))
  await Promise.all(dirs.map(async (dir) => { await fsp.rm(dir, { recursive: true, force: true }) }))
}

/** The symlinks directly in a node_modules directory, and in its `@scope` directories. */
async function symlinksIn (modulesDir: string): Promise<string[]> {
  const entries = await readdirOrEmpty(modulesDir)
  const nested = await Promise.all(entries.map(async (entry) => {
    const full = path.join(modulesDir, entry.name)
    if (entry.name.startsWith('@') && entry.isDirectory()) {
      return (await readdirOrEmpty(full)).filter((scoped) => scoped.isSymbolicLink()).map((scoped) => path.join(full, scoped.name))
    }
    return entry.isSymbolicLink() ? [full] : []
  }))
  return nested.flat()
}

async function readdirOrEmpty (dir: string): Promise<Dirent[]> {
  try {
    return await fsp.readdir(dir, { withFileTypes: true })
  } catch (err) {
    if (hasErrno(err, 'ENOENT') || hasErrno(err, 'ENOTDIR')) return []
    throw err
  }
}

async function realpathOrUndefined (file: string): Promise<string | undefined> {
  return await fsp.realpath(file).catch(() => undefined)
}
