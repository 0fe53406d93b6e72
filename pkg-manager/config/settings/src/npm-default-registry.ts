import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'

import { LodeError } from '@lode/core.error'

/**
 * npm's default registry, asked of npm (`npm config get registry`) when no setting names one.
 * Running npm costs about 100 ms, so the answer is kept in the cache directory, keyed by the npm
 * found on PATH and its modification time: a new npm is asked again.
 */
export function npmDefaultRegistry (env: Readonly<Record<string, string | undefined>>, cacheDir: string): string {
  const npm = npmOnPath(env['PATH'] ?? '')
  const cacheFile = path.join(cacheDir, 'npm-default-registry.json')
  if (npm !== undefined) {
    try {
      const cached = JSON.parse(fs.readFileSync(cacheFile, 'utf8')) as { npm?: string, mtimeMs?: number, registry?: string }
      if (cached.npm === npm.path && cached.mtimeMs === npm.mtimeMs && typeof cached.registry === 'string') return cached.registry
    } catch {
      // no usable cached answer: ask npm
    }
  }
  const registry = askNpmForRegistry()
  if (npm !== undefined) {
    try {
      fs.mkdirSync(cacheDir, { recursive: true })
      fs.writeFileSync(cacheFile, JSON.stringify({ npm: npm.path, mtimeMs: npm.mtimeMs, registry }))
    } catch {
      // only a cache
    }
  }
  return registry
}

/** The real path and modification time of the first `npm` on PATH. */
function npmOnPath (pathVar: string): { path: string, mtimeMs: number } | undefined {
  for (const dir of pathVar.split(path.delimiter)) {
    if (dir === '') continue
    try {
      const real = fs.realpathSync(path.join(dir, 'npm'))
      return { path: real, mtimeMs: fs.statSync(real).mtimeMs }
    } catch {
      // not in this directory
    }
  }
  return undefined
}

function askNpmForRegistry (): string {
  try {
    return execFileSync('npm', ['config', 'get', 'registry'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim()
  } catch (err) {
    throw new LodeError('NO_REGISTRY', 'No registry is configured and npm could not be asked for its default.', {
      hint: 'Set registry=<url> in .npmrc, or pass --registry.',
      cause: err,
    })
  }
}
