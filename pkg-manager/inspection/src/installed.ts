import fs from 'node:fs/promises'
import path from 'node:path'

import { MODULES_DIR, VIRTUAL_STORE_DIR } from '@lode/core.constants'
import { depPathToFilename, VIRTUAL_STORE_DIR_MAX_LENGTH } from '@lode/core.dep-path'
import { readModulesManifest } from '@lode/pkg-manager.linker/modules-manifest'
import { readInstalledLockfile, readLockfile } from '@lode/pkg-manager.lockfile'
import type { Lockfile } from '@lode/pkg-manager.lockfile'

// What the inspecting commands read of an installed project, as pnpm reads it.

/** What is installed (`node_modules/.pnpm/lock.yaml`), else pnpm-lock.yaml; only the latter with `lockfileOnly`. */
export async function installedLockfile (lockfileDir: string, lockfileOnly: boolean): Promise<Lockfile | undefined> {
  const read = lockfileOnly ? await readLockfile(lockfileDir) : await readInstalledLockfile(lockfileDir) ?? await readLockfile(lockfileDir)
  return read?.lockfile
}

/**
 * Where each package of the isolated layout is (`<virtual store>/<dependency path as a
 * directory>/node_modules/<name>`, the store where `.modules.yaml` puts it), and the packages
 * the install skipped. Without `.modules.yaml`, `list` names the virtual store `.pnpm` (relative),
 * as pnpm does; `why` the default one under node_modules.
 */
export async function installedLayout (
  lockfileDir: string,
  opts: { listing: boolean }
): Promise<{ pathOf: (depPath: string, name: string) => string, skipped: ReadonlySet<string> }> {
  const modulesDir = path.join(lockfileDir, MODULES_DIR)
  const modules = await readModulesManifest(modulesDir)
  const virtualStoreDir = modules === undefined && opts.listing
    ? VIRTUAL_STORE_DIR
    : path.resolve(modulesDir, modules?.virtualStoreDir ?? VIRTUAL_STORE_DIR)
  const maxLength = modules?.virtualStoreDirMaxLength ?? VIRTUAL_STORE_DIR_MAX_LENGTH
  return {
    pathOf: (depPath, name) => path.join(virtualStoreDir, depPathToFilename(depPath, maxLength), 'node_modules', name),
    skipped: new Set(modules?.skipped ?? []),
  }
}

/** A package.json's fields as read (nothing when it is missing or not JSON: the commands show what they can). */
export async function readManifestFields (dir: string): Promise<Record<string, unknown>> {
  return await fs.readFile(path.join(dir, 'package.json'), 'utf8')
    .then((text) => JSON.parse(text) as Record<string, unknown>, () => ({}))
}

/** What `--long` adds about a package, from its package.json. */
export interface PackageDetails {
  description?: string | undefined
  license?: unknown
  author?: unknown
  homepage?: string | undefined
  /** The repository's URL (a string `repository` as it is). */
  repository?: string | undefined
}

/** `--long`'s details by package directory (undefined without `--long`). */
export type Details = ReadonlyMap<string, PackageDetails> | undefined

/** A package's details for `--long`; pnpm's placeholder description when its package.json cannot be read. */
export async function packageDetails (dir: string): Promise<PackageDetails> {
  let manifest: Record<string, unknown>
  try {
    manifest = JSON.parse(await fs.readFile(path.join(dir, 'package.json'), 'utf8')) as Record<string, unknown>
  } catch {
    return { description: '[Could not find additional info about this dependency]' }
  }
  const repository = manifest['repository']
  const url = typeof repository === 'string' ? repository : typeof repository === 'object' && repository !== null ? (repository as { url?: unknown }).url : undefined
  const text = (value: unknown): string | undefined => typeof value === 'string' ? value : undefined
  return {
    description: text(manifest['description']),
    license: manifest['license'],
    author: manifest['author'],
    homepage: text(manifest['homepage']),
    repository: text(url),
  }
}

/** `--long`'s lines under a package's label: description, repository, homepage, each when it has one. */
export function detailLines (details: PackageDetails | undefined): string[] {
  return [details?.description, details?.repository, details?.homepage].filter((line): line is string => line !== undefined && line !== '')
}
