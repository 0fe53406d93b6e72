import path from 'node:path'

import type { Importer } from './types.js'

/** A project's `publishConfig.directory` and `publishConfig.linkDirectory`, when they are set. */
export function publishConfigOf (manifest: object): { directory?: string, linkDirectory?: boolean } {
  const config = (manifest as { publishConfig?: unknown }).publishConfig
  if (typeof config !== 'object' || config === null) return {}
  const { directory, linkDirectory } = config as { directory?: unknown, linkDirectory?: unknown }
  return { ...typeof directory === 'string' ? { directory } : {}, ...typeof linkDirectory === 'boolean' ? { linkDirectory } : {} }
}

/** Where the workspace links a project: its published directory unless linkDirectory is false. */
export function linkedDirOf (importer: Importer): string {
  const publish = publishConfigOf(importer.manifest)
  return publish.directory !== undefined && publish.linkDirectory !== false ? path.join(importer.dir, publish.directory) : importer.dir
}
