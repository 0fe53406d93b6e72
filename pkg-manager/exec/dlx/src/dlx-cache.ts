import fs from 'node:fs/promises'
import path from 'node:path'

import type { Config } from '@lode/pkg-manager.config.settings'
import { readdirOrEmpty } from '@lode/store.controller'

/**
 * `store prune`'s part in the dlx cache: the installs older than `dlxCacheMaxAge` go (a `<key>`
 * whose `pkg` link is that old, and the installs a newer one replaced that long ago); a younger
 * one stays, whether in use, still being installed, or its command still running.
 */
export async function pruneDlxCache (config: Pick<Config, 'cacheDir' | 'dlxCacheMaxAge'>, now: number): Promise<void> {
  const dlxDir = path.join(config.cacheDir, 'dlx')
  const maxAgeMs = config.dlxCacheMaxAge * 60_000
  const old = async (file: string): Promise<boolean> => ((await fs.lstat(file).catch(() => undefined))?.mtimeMs ?? now) + maxAgeMs < now
  for (const key of await readdirOrEmpty(dlxDir)) {
    const keyDir = path.join(dlxDir, key)
    const link = path.join(keyDir, 'pkg')
    const linked = await fs.readlink(link).then((target) => path.resolve(keyDir, target), () => undefined)
    if (linked !== undefined && await old(link)) {
      await fs.rm(keyDir, { recursive: true, force: true })
      continue
    }
    for (const entry of await readdirOrEmpty(keyDir)) {
      const file = path.join(keyDir, entry)
      if (entry !== 'pkg' && file !== linked && await old(file)) await fs.rm(file, { recursive: true, force: true })
    }
  }
}
