import type { InstallOptions, InstallResult } from '@lode/pkg-manager.installing.installer'

import { dedupeCheck } from './dedupe-check.js'
import { installAndRecord } from './install.js'

// pnpm's `dedupe`: every dependency resolved again, the lockfile's versions preferred wherever a
// range takes them, so that packages the graph has twice collapse to one version where they can.

export interface DedupeOptions extends InstallOptions {
  /** `--check`: resolve, compare with pnpm-lock.yaml, write nothing; `ERR_LODE_DEDUPE_CHECK_ISSUES` when they differ. */
  check?: boolean
}

export async function dedupe (opts: DedupeOptions): Promise<InstallResult> {
  if (opts.check !== true) return await installAndRecord({ ...opts, dedupe: true })
  // Only resolved: no lock taken, no script run, nothing written.
  return await installAndRecord({ ...opts, dedupe: true, lockfileOnly: true, ignoreScripts: true, lockfileCheck: dedupeCheck })
}
