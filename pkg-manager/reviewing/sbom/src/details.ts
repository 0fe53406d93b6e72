import fs from 'node:fs/promises'
import path from 'node:path'

import { bugsUrl, licenseFileReader, licenseOf, normalizedLinks, normalizedPerson } from '@lode/pkg-manager.reviewing.inspection'
import type { PackageFileReader } from '@lode/pkg-manager.reviewing.inspection'
import { hostedRepository } from '@lode/resolving.git-resolver/parse'

import type { ComponentDetails, WorkspaceProject } from './components.js'
import { isPlainSpdxLicense } from './license-expression.js'

// What an SBOM says of a package, a project and the root, from their package.json, as pnpm 11 reads each:
// a package's manifest normalized (as npm reads it), a project's as written.

/** A package's details: its manifest as normalize-package-data reads it, its license from it or its license file. */
export async function packageDetails (manifest: Record<string, unknown>, readFile: PackageFileReader): Promise<ComponentDetails> {
  const found = await licenseOf(manifest, readFile)
  const { homepage, repository } = normalizedLinks(manifest)
  const author = (normalizedPerson(manifest['author']) as { name?: unknown } | undefined)?.name
  const bugs = bugsUrl(manifest)
  return {
    // A license file's guess only when it is plain SPDX ids; `Unknown` never.
    license: found === undefined || found.name === 'Unknown' || (found.fromFile && !isPlainSpdxLicense(found.name)) ? undefined : found.name,
    description: text(manifest['description']),
    author: typeof author === 'string' && author.trim() !== '' ? author : undefined,
    homepage,
    repository: repository === undefined ? undefined : repositoryUrl(repository),
    bugsUrl: bugs === undefined ? undefined : httpUrl(bugs),
  }
}

/** A workspace project's component: its package.json as written (a `license` only as a string). */
export function workspaceProjectOf (manifest: Record<string, unknown>): WorkspaceProject | undefined {
  const name = text(manifest['name'])
  if (name === undefined) return undefined
  return {
    name,
    version: text(manifest['version']) ?? '0.0.0',
    license: text(manifest['license']),
    description: text(manifest['description']),
    author: authorName(manifest['author']),
    repository: repositoryUrl(urlField(manifest['repository'])),
  }
}

/** The described project's fields: `project`'s own, else (for a field it lacks) the workspace root's. */
export async function rootDetails (
  project: { manifest: Record<string, unknown>, dir: string },
  workspaceRoot: { manifest: Record<string, unknown>, dir: string }
): Promise<ComponentDetails> {
  const field = (name: string): unknown => name in project.manifest ? project.manifest[name] : workspaceRoot.manifest[name]
  const declaresLicense = 'license' in project.manifest || 'licenses' in project.manifest
  const license = await projectLicense(project.manifest, project.dir) ??
    (project.dir === workspaceRoot.dir || declaresLicense ? undefined : await projectLicense(workspaceRoot.manifest, workspaceRoot.dir))
  const bugs = urlField(field('bugs'))
  return {
    license,
    description: text(field('description')),
    author: authorName(field('author')),
    repository: repositoryUrl(urlField(field('repository'))),
    bugsUrl: bugs === undefined ? undefined : httpUrl(bugs),
  }
}

/** A project's license: a plain SPDX `license`, else what it or its license file says (a file's only when plain SPDX ids). */
async function projectLicense (manifest: Record<string, unknown>, dir: string): Promise<string | undefined> {
  const declared = manifest['license']
  if (typeof declared === 'string' && isPlainSpdxLicense(declared)) return declared
  const found = await licenseOf(manifest, licenseFileReader(dir))
  return found !== undefined && found.name !== 'Unknown' && (!found.fromFile || isPlainSpdxLicense(found.name)) ? found.name : undefined
}

/** A project's package.json (none when it is missing or no JSON object). */
export async function readProjectManifest (dir: string): Promise<Record<string, unknown> | undefined> {
  try {
    const manifest = JSON.parse(await fs.readFile(path.join(dir, 'package.json'), 'utf8')) as unknown
    return manifest !== null && typeof manifest === 'object' && !Array.isArray(manifest) ? manifest as Record<string, unknown> : undefined
  } catch {
    return undefined
  }
}

function text (value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined
}

/** `author` as written: a string whole, an object's `name`. */
function authorName (field: unknown): string | undefined {
  const name = typeof field === 'string' ? field : (field as { name?: unknown } | null | undefined)?.name
  return typeof name === 'string' && name.trim() !== '' ? name : undefined
}

/** A string field, or an object's `url`, trimmed; none when empty. */
function urlField (field: unknown): string | undefined {
  const value = typeof field === 'object' && field !== null ? (field as { url?: unknown }).url : field
  const trimmed = typeof value === 'string' ? value.trim() : ''
  return trimmed === '' ? undefined : trimmed
}

/** An absolute URL as it is (without credentials), else a known git host's https clone URL. */
function repositoryUrl (raw: string | undefined): string | undefined {
  if (raw === undefined) return undefined
  const absolute = withoutCredentials(raw)
  if (absolute !== undefined && absolute.host !== '') return absolute.href
  const https = hostedRepository(raw)?.https
  return https === undefined ? undefined : withoutCredentials(https)?.href
}

function httpUrl (raw: string): string | undefined {
  const url = withoutCredentials(raw)
  return url !== undefined && (url.protocol === 'http:' || url.protocol === 'https:') ? url.href : undefined
}

/** The URL without a user or password (an ssh login's user kept); none for what is no URL or has a broken escape. */
function withoutCredentials (raw: string): URL | undefined {
  if (!URL.canParse(raw)) return undefined
  const url = new URL(raw)
  if (/%(?![0-9a-f]{2})/i.test(url.href)) return undefined
  const sshLogin = url.password === '' && (url.protocol === 'ssh:' || url.protocol === 'git+ssh:')
  if (!sshLogin) {
    url.username = ''
    url.password = ''
  }
  return url
}
