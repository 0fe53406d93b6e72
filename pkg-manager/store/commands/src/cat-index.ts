import { LodeError } from '@lode/core.error'
import type { Config } from '@lode/pkg-manager.config.settings'
import { indexRowsOf } from '@lode/store.controller'
import type { PackageFilesIndex } from '@lode/store.index'

/**
 * pnpm's `cat-index <name>@<version>`: the store index's row for that package version, as JSON
 * with its keys sorted (pnpm's rendering). lode reads the row by its key, from the store alone (pnpm
 * asks the registry for the integrity first): so it needs the exact version.
 */
export function catIndex (config: Config, spec: string | undefined): string {
  if (spec === undefined || spec === '') throw new LodeError('MISSING_PACKAGE_NAME', 'Specify a package', { hint: 'lode cat-index <name>@<version>' })
  const at = spec.indexOf('@', 1)
  const name = at === -1 ? spec : spec.slice(0, at)
  const version = at === -1 ? '' : spec.slice(at + 1)
  if (name === '') throw new LodeError('INVALID_SELECTOR', `Cannot parse the "${spec}" selector`)
  // A range or a tag finds no row, as in pnpm (whose key takes the selector as it was typed).
  const rows: Map<string, PackageFilesIndex> = /^\d+\.\d+\.\d+(?:[-+][0-9A-Za-z.+-]*)?$/.test(version) ? indexRowsOf(config.storeDir, `${name}@${version}`) : new Map<string, PackageFilesIndex>()
  if (rows.size === 0) {
    throw new LodeError('INVALID_PACKAGE', 'No corresponding index file found. You can use pnpm list to see if the package is installed.', {
      hint: 'lode cat-index takes a package\'s exact version, <name>@<version>, as lode list shows the installed ones.',
    })
  }
  if (rows.size > 1) {
    throw new LodeError('AMBIGUOUS_PACKAGE', `The store has ${name}@${version} with ${rows.size} different contents: ${[...rows.keys()].map((key) => key.split('\t')[0]).join(', ')}.`, {
      hint: 'The same version came from registries that serve different tarballs; lode find-hash <integrity of a file> tells which row has a file.',
    })
  }
  return JSON.stringify([...rows.values()][0], sortedKeys, 2)
}

/** pnpm's order: the keys of objects and of maps (code-unit order), at every depth. */
function sortedKeys (_key: string, value: unknown): unknown {
  if (value instanceof Map) return Object.fromEntries([...value.entries()].sort(([a], [b]) => compare(String(a), String(b))))
  if (typeof value === 'object' && value !== null && !Array.isArray(value) && !Buffer.isBuffer(value)) {
    return Object.fromEntries(Object.entries(value).sort(([a], [b]) => compare(a, b)))
  }
  return value
}

function compare (a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0
}
