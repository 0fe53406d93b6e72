import { gunzipSync } from 'node:zlib'

import { LodeError } from '@lode/core.error'
import { extract } from 'tar-stream'

/** The tarball's size past which its package.json is not looked for (a publish's tarball is sent whole anyway). */
const MAX_MANIFEST_SIZE = 10 * 1024 * 1024

/**
 * The package.json of a packed tarball (`package/package.json`, or the one file named package.json
 * at the first level, as npm reads it), for `publish <tarball>`. A tarball without one, or that is
 * not a gzipped tar, is `ERR_LODE_PUBLISH_BAD_TARBALL`.
 */
export async function packedManifest (tarball: Buffer, file: string): Promise<Record<string, unknown>> {
  let tar: Buffer
  try {
    tar = gunzipSync(tarball)
  } catch (err) {
    throw badTarball(file, `it is not gzipped (${(err as Error).message})`)
  }
  const found = await new Promise<Buffer | undefined>((resolve, reject) => {
    const reader = extract()
    let manifest: Buffer | undefined
    reader.on('entry', (header, stream, next) => {
      const parts = header.name.split('/')
      const chunks: Buffer[] = []
      let size = 0
      const wanted = header.type === 'file' && parts.length === 2 && parts[1] === 'package.json' && manifest === undefined
      stream.on('data', (chunk: unknown) => {
        if (!wanted) return
        const bytes = chunk as Buffer
        size += bytes.length
        if (size <= MAX_MANIFEST_SIZE) chunks.push(bytes)
      })
      stream.on('end', () => {
        if (wanted && size <= MAX_MANIFEST_SIZE) manifest = Buffer.concat(chunks)
        next()
      })
      stream.resume()
    })
    reader.on('finish', () => { resolve(manifest) })
    reader.on('error', (err: Error) => { reject(badTarball(file, err.message)) })
    reader.end(tar)
  })
  if (found === undefined) throw badTarball(file, 'it has no package/package.json')
  let manifest: unknown
  try {
    manifest = JSON.parse(found.toString('utf8').replace(/^\uFEFF/, ''))
  } catch {
    manifest = undefined
  }
  if (manifest === null || typeof manifest !== 'object' || Array.isArray(manifest)) throw badTarball(file, 'its package.json is not a JSON object')
  const { name, version } = manifest as Record<string, unknown>
  if (typeof name !== 'string' || name === '' || typeof version !== 'string' || version === '') throw badTarball(file, 'its package.json has no name or version')
  return manifest as Record<string, unknown>
}

function badTarball (file: string, why: string): LodeError {
  return new LodeError('PUBLISH_BAD_TARBALL', `${file} cannot be published: ${why}.`, { hint: 'Publish a tarball lode pack (or npm pack) made, or the project\'s directory.' })
}
