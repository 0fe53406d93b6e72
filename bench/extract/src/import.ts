import fs from 'node:fs'

import { StoreIndex } from '@lode/store.index'
import { StorePool, addTarballToStore } from '@lode/worker.pools'

import type { LockedTarball } from './tarballs.js'

export interface ImportStats {
  packages: number
  files: number
  unpackedBytes: number
  tarballBytes: number
  seconds: number
}

/**
 * Imports tarballs into a cold store the way an install will: read, handed to the store pool,
 * index rows queued on the batching writer. Keeps `inFlight` tarballs queued so both threads stay busy.
 */
export async function importIntoStore (
  storeDir: string,
  tarballs: LockedTarball[],
  opts: { threads?: number, inFlight?: number, clock: () => number }
): Promise<ImportStats> {
  const started = opts.clock()
  const pool = new StorePool(opts.threads === undefined ? {} : { threads: opts.threads })
  const index = new StoreIndex(storeDir)
  const stats: ImportStats = { packages: 0, files: 0, unpackedBytes: 0, tarballBytes: 0, seconds: 0 }
  let next = 0
  async function feed (): Promise<void> {
    while (next < tarballs.length) {
      const tarball = tarballs[next++]!
      const data = await fs.promises.readFile(tarball.file)
      stats.tarballBytes += data.length
      const { files, unpackedSize } = await addTarballToStore({
        pool,
        index,
        storeDir,
        pkgId: tarball.pkgId,
        integrity: tarball.integrity,
        tarball: data,
      })
      stats.packages++
      // `packFiles`' list: path, digest and mode of each file.
      stats.files += files.split('\0').length / 3
      stats.unpackedBytes += unpackedSize
    }
  }
  try {
    await Promise.all(Array.from({ length: opts.inFlight ?? pool.threads * 4 }, feed))
  } finally {
    index.close()
    await pool.close()
  }
  stats.seconds = (opts.clock() - started) / 1000
  return stats
}
