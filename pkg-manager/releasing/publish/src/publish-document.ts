import { createHash } from 'node:crypto'

import { LodeError } from '@lode/core.error'
import semver from 'semver'
import ssri from 'ssri'

export interface PublishDocumentOptions {
  /** The registry the package goes to (ends with `/`). */
  registry: string
  /** The dist-tag (`--tag`, default `latest`); a `tag` field of the manifest wins, as npm's. */
  tag: string
  /** `--access` or `publishConfig.access`; null when neither says. */
  access: 'public' | 'restricted' | null
  nodeVersion: string
}

/**
 * The document a publish PUTs to `<registry>/<name>`, as npm's libnpmpublish (which pnpm 11 uses)
 * makes it: the version's manifest with `_nodeVersion`, `_id` and `dist` (sha512 integrity, sha1
 * shasum, the tarball's URL on the registry), the dist-tag, the access, and the tarball as a
 * base64 attachment. An invalid version is `ERR_LODE_INVALID_PACKAGE_VERSION`; restricted access
 * for an unscoped name `ERR_LODE_PUBLISH_UNSCOPED_RESTRICTED`.
 */
export function publishDocument (
  manifest: Record<string, unknown>,
  tarball: Buffer,
  opts: PublishDocumentOptions
): Record<string, unknown> {
  const name = manifest['name'] as string
  const version = semver.clean(String(manifest['version']))
  if (version === null) throw new LodeError('INVALID_PACKAGE_VERSION', `Invalid package version "${String(manifest['version'])}".`)
  if (opts.access === 'restricted' && !name.startsWith('@')) {
    throw new LodeError('PUBLISH_UNSCOPED_RESTRICTED', `Can't restrict access to unscoped packages (${name}).`, {
      hint: 'Publish it with --access public, or give it a scope (@scope/name).',
    })
  }
  const tarballName = `${name}-${version}.tgz`
  const sha512 = ssri.fromData(tarball, { algorithms: ['sha512'] }).toString()
  const sha1 = createHash('sha1').update(tarball).digest('hex')
  const versionManifest: Record<string, unknown> = { ...manifest, _nodeVersion: opts.nodeVersion, version }
  versionManifest['_id'] = `${name}@${version}`
  versionManifest['dist'] = {
    ...manifest['dist'] as Record<string, unknown> | undefined,
    integrity: sha512,
    shasum: sha1,
    // npm records the tarball's URL over http, as registries expect.
    tarball: new URL(`${name}/-/${tarballName}`, opts.registry).href.replace(/^https:\/\//, 'http://'),
  }
  const tag = typeof manifest['tag'] === 'string' && manifest['tag'] !== '' ? manifest['tag'] : opts.tag
  return {
    _id: name,
    name,
    description: manifest['description'],
    'dist-tags': { [tag]: version },
    versions: { [version]: versionManifest },
    access: opts.access,
    _attachments: {
      [tarballName]: { content_type: 'application/octet-stream', data: tarball.toString('base64'), length: tarball.length },
    },
  }
}
