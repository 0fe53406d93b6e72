import type { Dirent } from 'node:fs'
import fsp from 'node:fs/promises'
import path from 'node:path'

import { GLOBAL_VIRTUAL_STORE_DIR, MODULES_DIR, VIRTUAL_STORE_DIR } from '@lode/core.constants'
import { hasErrno } from '@lode/core.error'

import { registeredProjects, storeSubdir } from './project-registry.js'

/**
 * pnpm 11's prune of its global virtual store (`pruneGlobalVirtualStore`): from every `node_modules`
 * of each registered project (dot directories skipped), the symlinks are followed into
 * `<store>/v11/links`; each slot reached (`<scope or @>/<name>/<version>/<hash>`) is walked in turn
 * through its own `node_modules`. Every slot no project reaches is removed, with the directories
 * above it left empty. Says what it does with pnpm's lines. A custom virtualStoreDir is never pruned.
 */
export async function pruneGlobalVirtualStore (storeDir: string, onInfo: (message: string) => void): Promise<number> {
  // The slots are found by walking real directories only (a symlink is never a slot's directory): the walk starts in the store's own.
  const linksDir = storeSubdir(storeDir, GLOBAL_VIRTUAL_STORE_DIR)
  if (!await exists(linksDir)) return 0
  const projects = await registeredProjects(storeDir, onInfo)
  if (projects.length === 0) {
    onInfo('No registered projects for global virtual store')
    return 0
  }
  onInfo(`Checking ${projects.length} registered project(s) for global virtual store usage`)
  const reachable = new Set<string>()
  const visited = new Set<string>()
  const walk = async (dir: string): Promise<void> => {
    const real = await fsp.realpath(dir).catch(() => dir)
    if (visited.has(real)) return
    visited.add(real)
    const entries = await entriesOf(dir)
    await Promise.all(entries.map(async (entry) => {
      const entryPath = path.join(dir, entry.name)
      if (entry.isSymbolicLink()) {
        const target = await fsp.readlink(entryPath).then((link) => path.resolve(dir, link), () => undefined)
        const relative = target === undefined ? '' : path.relative(linksDir, target)
        if (relative === '' || relative.startsWith('..') || path.isAbsolute(relative)) return
        const parts = relative.split(path.sep)
        const modulesAt = parts.indexOf(MODULES_DIR)
        if (modulesAt === -1) return
        const slot = parts.slice(0, modulesAt).join(path.sep)
        reachable.add(slot)
        await walk(path.join(linksDir, slot, MODULES_DIR))
      } else if (entry.isDirectory() && entry.name !== VIRTUAL_STORE_DIR) {
        await walk(entryPath)
      }
    }))
  }
  for (const project of projects) {
    for (const modulesDir of await modulesDirsOf(project)) await walk(modulesDir)
  }
  let removed = 0
  // `<scope or @>/<name>/<version>/<hash>`: what is left empty above a removed slot goes too.
  const prune = async (dir: string, relative: string[], depth: number): Promise<boolean> => {
    const subdirs = (await entriesOf(dir)).filter((entry) => entry.isDirectory())
    let gone = 0
    for (const entry of subdirs) {
      const child = path.join(dir, entry.name)
      const childRelative = [...relative, entry.name]
      if (depth === 3) {
        if (reachable.has(childRelative.join(path.sep))) continue
        await fsp.rm(child, { recursive: true, force: true })
        removed++
        gone++
      } else if (await prune(child, childRelative, depth + 1)) {
        gone++
      }
    }
    const empty = subdirs.length > 0 && gone === subdirs.length
    if (empty && depth > 0) await fsp.rm(dir, { recursive: true, force: true })
    return empty
  }
  await prune(linksDir, [], 0)
  onInfo(removed > 0 ? `Removed ${removed} package${removed === 1 ? '' : 's'} from global virtual store` : 'No unused packages found in global virtual store')
  return removed
}

/** The `node_modules` directories of a project, at any depth, not under a dot directory (a workspace's projects' too). */
async function modulesDirsOf (projectDir: string): Promise<string[]> {
  const found: string[] = []
  const scan = async (dir: string): Promise<void> => {
    const subdirs: string[] = []
    for (const entry of await entriesOf(dir)) {
      if (!entry.isDirectory()) continue
      if (entry.name === MODULES_DIR) found.push(path.join(dir, entry.name))
      else if (!entry.name.startsWith('.')) subdirs.push(path.join(dir, entry.name))
    }
    await Promise.all(subdirs.map(scan))
  }
  await scan(projectDir)
  return found
}

async function entriesOf (dir: string): Promise<Dirent[]> {
  try {
    return await fsp.readdir(dir, { withFileTypes: true })
  } catch (err) {
    if (hasErrno(err, 'ENOENT') || hasErrno(err, 'ENOTDIR')) return []
    throw err
  }
}

async function exists (file: string): Promise<boolean> {
  return await fsp.stat(file).then(() => true, () => false)
}
