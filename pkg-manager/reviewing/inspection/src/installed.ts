import fs from 'node:fs/promises'
import path from 'node:path'

import { MODULES_DIR, VIRTUAL_STORE_DIR } from '@lode/core.constants'
import { depPathToFilename, VIRTUAL_STORE_DIR_MAX_LENGTH } from '@lode/core.dep-path'
import { readModulesManifest } from '@lode/pkg-manager.installing.linker/modules-manifest'
import { readInstalledLockfile, readLockfile } from '@lode/pkg-manager.lockfile.format'
import type { Lockfile } from '@lode/pkg-manager.lockfile.format'
import { hostedRepository } from '@lode/resolving.git-resolver/parse'

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
  const text = (value: unknown): string | undefined => typeof value === 'string' ? value : undefined
  const { repository, homepage } = normalizedLinks(manifest)
  return {
    description: text(manifest['description']),
    license: manifest['license'],
    author: normalizedPerson(manifest['author']),
    homepage,
    repository,
  }
}

/**
 * normalize-package-data's person, as pnpm reads `author`: an object written out as
 * `Name <email> (url)` (its `mail`/`web` too), then that text read back as `{ name, email, url }`;
 * an empty value as it is.
 */
export function normalizedPerson (person: unknown): unknown {
  if (person === undefined || person === null || person === '' || person === false || person === 0) return person
  let text: string
  if (typeof person === 'string') {
    text = person
  } else {
    const fields = person as Record<string, unknown>
    const url = fields['url'] || fields['web']
    const email = fields['email'] || fields['mail']
    // eslint-disable-next-line @typescript-eslint/no-base-to-string -- normalize-package-data concatenates whatever the fields hold
    text = `${String(fields['name'] || '')}${email ? ` <${String(email)}>` : ''}${url ? ` (${String(url)})` : ''}`
  }
  const name = /^([^(<]+)/.exec(text)?.[0].trim()
  const email = /<([^<>]+)>/.exec(text)?.[1]
  const url = /\(([^()]+)\)/.exec(text)?.[1]
  return { ...name === undefined || name === '' ? {} : { name }, ...email === undefined ? {} : { email }, ...url === undefined ? {} : { url } }
}

/**
 * The repository URL and homepage as pnpm reads them through normalize-package-data: the first of
 * `repositories` or `repository` (a string or its `url`), rewritten on a known git host; the
 * homepage as given, else that repository's page, with `http://` when it has no protocol.
 */
export function normalizedLinks (manifest: Record<string, unknown>): { repository: string | undefined, homepage: string | undefined } {
  const repositories = manifest['repositories']
  const declared = Array.isArray(repositories) && repositories.length > 0 ? repositories[0] as unknown : manifest['repository']
  const raw = typeof declared === 'string' ? declared : (declared as { url?: unknown } | null | undefined)?.url
  const hosted = typeof raw === 'string' && raw !== '' ? hostedRepository(raw) : undefined
  const repository = hosted?.url ?? (typeof raw === 'string' ? raw : undefined)
  let homepage = manifest['homepage']
  if (homepage === undefined || homepage === null || homepage === '') homepage = hosted?.page
  if (typeof homepage !== 'string' || homepage === '') return { repository, homepage: undefined }
  return { repository, homepage: URL.canParse(homepage) ? homepage : `http://${homepage}` }
}

/** `--long`'s lines under a package's label: description, repository, homepage, each when it has one. */
export function detailLines (details: PackageDetails | undefined): string[] {
  return [details?.description, details?.repository, details?.homepage].filter((line): line is string => line !== undefined && line !== '')
}
