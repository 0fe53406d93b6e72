import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'

import ssri from 'ssri'
import { Agent, request } from 'undici'
import { parse } from 'yaml'

export interface LockedTarball {
  name: string
  version: string
  pkgId: string
  integrity: string
  /** Where the downloaded tarball is kept. */
  file: string
}

/** The registry from the user's npm configuration: `npm_config_registry`, else `npm config get registry`. */
export function configuredRegistry (env: NodeJS.ProcessEnv): string {
  const fromEnv = env['npm_config_registry']
  const registry = fromEnv !== undefined && fromEnv !== ''
    ? fromEnv
    : execFileSync('npm', ['config', 'get', 'registry'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim()
  return registry.endsWith('/') ? registry : `${registry}/`
}

/** The registry packages of a pnpm-lock.yaml v9, with their integrity. */
export function lockedTarballs (lockfile: string, cacheDir: string): LockedTarball[] {
  const doc = parse(fs.readFileSync(lockfile, 'utf8')) as { packages?: Record<string, { resolution?: { integrity?: string } }> }
  const result: LockedTarball[] = []
  for (const [pkgId, info] of Object.entries(doc.packages ?? {})) {
    const integrity = info.resolution?.integrity
    if (integrity === undefined) continue
    const at = pkgId.lastIndexOf('@')
    const name = pkgId.slice(0, at)
    const version = pkgId.slice(at + 1)
    result.push({ name, version, pkgId, integrity, file: path.join(cacheDir, `${name.replace('/', '+')}@${version}.tgz`) })
  }
  return result
}

/** npm's tarball URL layout: `<registry><name>/-/<name without scope>-<version>.tgz`. */
function tarballUrl (registry: string, tarball: LockedTarball): string {
  const base = tarball.name.startsWith('@') ? tarball.name.slice(tarball.name.indexOf('/') + 1) : tarball.name
  return `${registry}${tarball.name}/-/${base}-${tarball.version}.tgz`
}

/**
 * Downloads the tarballs not yet in their cache files (integrity-checked), `concurrency` at a
 * time over one keep-alive dispatcher. Returns how many were downloaded.
 */
export async function downloadMissing (
  registry: string,
  tarballs: LockedTarball[],
  opts: { concurrency: number, log: (line: string) => void }
): Promise<number> {
  const missing = tarballs.filter((t) => !fs.existsSync(t.file))
  if (missing.length === 0) return 0
  fs.mkdirSync(path.dirname(missing[0]!.file), { recursive: true })
  const dispatcher = new Agent({ connections: opts.concurrency, keepAliveTimeout: 10_000 })
  let next = 0
  let done = 0
  async function worker (): Promise<void> {
    while (next < missing.length) {
      const tarball = missing[next++]!
      const url = tarballUrl(registry, tarball)
      const response = await request(url, { dispatcher })
      if (response.statusCode !== 200) {
        await response.body.dump()
        throw new Error(`GET ${url}: HTTP ${response.statusCode}`)
      }
      const data = Buffer.from(await response.body.arrayBuffer())
      if (ssri.checkData(data, tarball.integrity) === false) throw new Error(`${tarball.pkgId}: integrity mismatch`)
      const temp = `${tarball.file}.${process.pid}.tmp`
      fs.writeFileSync(temp, data)
      fs.renameSync(temp, tarball.file)
      if (++done % 200 === 0) opts.log(`downloaded ${done}/${missing.length}`)
    }
  }
  try {
    await Promise.all(Array.from({ length: opts.concurrency }, worker))
  } catch (err) {
    // Stop the other downloads at once rather than waiting for them.
    await dispatcher.destroy()
    throw err
  }
  await dispatcher.close()
  return missing.length
}
