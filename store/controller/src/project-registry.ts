import { createHash } from 'node:crypto'
import fs from 'node:fs/promises'
import path from 'node:path'

import { STORE_PROJECTS_DIR } from '@lode/core.constants'
import { LodeError, hasErrno } from '@lode/core.error'
import { hasRealParents } from '@lode/core.safe-name'
import { storePath } from '@lode/store.cafs'

// pnpm 11's registry of the projects that use a store (its store controller's projectRegistry):
// `<store>/v11/projects/<first 32 hex of sha256(project dir)>`, a symlink to the project's lockfile
// directory. `store prune` keeps the files of every registered project's installed packages, also
// when node_modules holds copies (nlink 1), so lode and pnpm keep each other's projects' files.
// A shared store is written by others too: its directories are checked to be the store's own (no
// symlink on the way) before anything in them is removed or written, and a registration is only
// a link named as pnpm names them.

/** A registration's name: the first 32 hex digits of the SHA-256 of the project's real path. */
const REGISTRATION = /^[0-9a-f]{32}$/

/**
 * `<store>/v11/<...parts>`, refused (`ERR_LODE_INVALID_STORE_DIR`) when a directory on the way
 * from the configured store directory is a symlink or a file: removing or writing there would
 * follow the link out of the store. A missing one is fine (made as needed).
 */
export function storeSubdir (storeDir: string, ...parts: string[]): string {
  const dir = path.join(storePath(storeDir), ...parts)
  if (!hasRealParents(storeDir, path.join(dir, 'entry'))) {
    throw new LodeError('INVALID_STORE_DIR', `${dir} is not a directory of the store: a symlink or a file stands on the way to it.`, {
      hint: `If you did not put it there, remove it (a symlink: the link only), then run the command again. Until then nothing in it is removed or written.`,
    })
  }
  return dir
}

/** The registration of `projectDir` (its real path, as pnpm's, the same link pnpm makes); none for a store inside the project. */
export async function registerProject (storeDir: string, projectDir: string): Promise<void> {
  const store = storePath(storeDir)
  const project = await fs.realpath(projectDir)
  // pnpm's `isSubdir(projectDir, storeDir)`: a store in the project (`.pnpm-store`) goes with it.
  if (`${path.resolve(store)}${path.sep}`.startsWith(`${path.resolve(project)}${path.sep}`)) return
  const registryDir = storeSubdir(storeDir, STORE_PROJECTS_DIR)
  await fs.mkdir(registryDir, { recursive: true })
  const link = path.join(registryDir, createHash('sha256').update(project).digest('hex').slice(0, 32))
  try {
    await linkProject(project, link)
  } catch (err) {
    if (!hasErrno(err, 'EEXIST')) throw err
    if (await resolvesTo(link, project)) return
    // Another project's link by that name (a hash collision) or a stale one: replaced, as pnpm does.
    await fs.rm(link, { force: true })
    try {
      await linkProject(project, link)
    } catch (again) {
      // Another install of the same project registered it meanwhile.
      if (!hasErrno(again, 'EEXIST') || !await resolvesTo(link, project)) throw again
    }
  }
}

async function linkProject (project: string, link: string): Promise<void> {
  try {
    await fs.symlink(project, link, 'dir')
  } catch (err) {
    // As pnpm: a junction where Windows refuses a symlink.
    if (process.platform !== 'win32' || !hasErrno(err, 'EPERM')) throw err
    await fs.symlink(project, link, 'junction')
  }
}

async function resolvesTo (link: string, project: string): Promise<boolean> {
  try {
    const [target, real] = await Promise.all([fs.realpath(link), fs.realpath(project)])
    return target === real
  } catch {
    return false
  }
}

/**
 * The registered projects that still exist (pnpm's `getRegisteredProjects`): a registration whose
 * project is gone, or is no directory, is removed, and said with `onInfo`; one that cannot be read
 * is an error naming it. Only symlinks named as registrations are: anything else there is left alone.
 */
export async function registeredProjects (storeDir: string, onInfo: (message: string) => void): Promise<string[]> {
  const registryDir = storeSubdir(storeDir, STORE_PROJECTS_DIR)
  let entries
  try {
    entries = await fs.readdir(registryDir, { withFileTypes: true })
  } catch (err) {
    if (hasErrno(err, 'ENOENT')) return []
    throw err
  }
  const projects: string[] = []
  for (const entry of entries) {
    if (!REGISTRATION.test(entry.name) || !entry.isSymbolicLink()) continue
    const link = path.join(registryDir, entry.name)
    let target: string
    try {
      target = path.resolve(registryDir, await fs.readlink(link))
    } catch (err) {
      if (hasErrno(err, 'ENOENT') || hasErrno(err, 'EINVAL')) continue
      throw new LodeError('PROJECT_REGISTRY_ENTRY_INACCESSIBLE', `Cannot read the project registry entry ${link}: ${(err as Error).message}`, {
        hint: `To remove this project from the registry, delete ${link}.`,
      })
    }
    const stats = await fs.stat(target).catch((err: unknown) => {
      if (hasErrno(err, 'ENOENT') || hasErrno(err, 'ENOTDIR')) return undefined
      throw new LodeError('PROJECT_INACCESSIBLE', `Cannot access the registered project ${target}: ${(err as Error).message}`, {
        hint: `To remove this project from the registry, delete the symlink ${link}.`,
      })
    })
    // A registration is of a project's directory: one to a file is as stale as one to nothing.
    if (stats?.isDirectory() !== true) {
      await fs.rm(link, { force: true })
      onInfo(`Removed stale project registry entry: ${target}`)
      continue
    }
    projects.push(target)
  }
  return projects
}
