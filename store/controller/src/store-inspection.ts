import { STORE_FILES_DIR, STORE_INDEX_FILE } from '@lode/core.constants'
import { LodeError, fileSystemError, hasErrno } from '@lode/core.error'
import { contentPathFromHex, storePath } from '@lode/store.cafs'
import { StoreIndex } from '@lode/store.index'
import type { PackageFilesIndex } from '@lode/store.index'

import { storeSubdir } from './project-registry.js'

const fs = process.getBuiltinModule('node:fs')
const path = process.getBuiltinModule('node:path')

// pnpm's store debugging commands, over the store as it is: `cat-file`, `find-hash`, and the rows `cat-index` prints.

/**
 * The hex SHA-512 a user gave: an integrity (`sha512-<base64>`, as lockfiles and index rows show
 * it) or the hex digest itself. Anything else is refused: the digest names a path in the store.
 */
export function parseFileHash (hash: string | undefined, command: 'cat-file' | 'find-hash'): string {
  if (hash === undefined || hash === '') {
    // pnpm's words for each.
    throw new LodeError('MISSING_HASH', command === 'cat-file' ? 'Missing file hash' : '`lode find-hash` requires the hash', {
      hint: `lode ${command} sha512-<base64> (an integrity), or the hex digest.`,
    })
  }
  const integrity = /^sha512-([A-Za-z0-9+/]+={0,2})$/.exec(hash)
  const hex = integrity === null ? hash.toLowerCase() : Buffer.from(integrity[1]!, 'base64').toString('hex')
  if (!/^[0-9a-f]{128}$/.test(hex)) {
    throw new LodeError('INVALID_HASH', `"${hash}" is not a SHA-512 hash of a file.`, { hint: 'Give an integrity (sha512-<base64>, as pnpm-lock.yaml and lode cat-index show them) or a 128-digit hex digest.' })
  }
  return hex
}

/** The content of the store file with this digest (its executable copy when only that one is there). */
export function readStoreFile (storeDir: string, hex: string): Buffer {
  const filesDir = storeSubdir(storeDir, STORE_FILES_DIR)
  for (const executable of [false, true]) {
    const file = path.join(path.dirname(filesDir), contentPathFromHex(hex, executable))
    try {
      return fs.readFileSync(file)
    } catch (err) {
      if (!hasErrno(err, 'ENOENT')) throw fileSystemError(err, file) ?? err
    }
  }
  throw new LodeError('INVALID_HASH', 'Corresponding hash file not found', { hint: `No file of the store ${storePath(storeDir)} has this hash.` })
}

export interface PackageWithFile {
  name: string
  version: string
  /** The index row's key: `<integrity>\t<name>@<version>`. */
  indexKey: string
}

/** The index rows (packages) with a file of this digest, their side effects' files too. */
export function packagesWithFile (storeDir: string, hex: string): PackageWithFile[] {
  const found: PackageWithFile[] = []
  withIndex(storeDir, (index) => {
    for (const [indexKey, row] of index.all()) {
      if (!rowHasFile(row, hex)) continue
      found.push({ name: text(row.manifest?.name) ?? 'unknown', version: text(row.manifest?.version) ?? 'unknown', indexKey })
    }
  })
  return found
}

/** The rows of one package version (`<name>@<version>`), by their keys: one per integrity the store has it with. */
export function indexRowsOf (storeDir: string, nameAtVersion: string): Map<string, PackageFilesIndex> {
  const rows = new Map<string, PackageFilesIndex>()
  withIndex(storeDir, (index) => {
    for (const [key, row] of index.all()) {
      if (key.endsWith(`\t${nameAtVersion}`)) rows.set(key, row)
    }
  })
  return rows
}

/** The index rows with these keys (`<integrity>\t<name>@<version>`) the store has. */
export function indexRowsByKey (storeDir: string, keys: Iterable<string>): Map<string, PackageFilesIndex> {
  let rows = new Map<string, PackageFilesIndex>()
  withIndex(storeDir, (index) => { rows = index.getMany(keys) })
  return rows
}

/** `work` with the store's index; nothing when the store has none (reading never creates one). */
function withIndex (storeDir: string, work: (index: StoreIndex) => void): void {
  if (!fs.existsSync(path.join(storePath(storeDir), STORE_INDEX_FILE))) return
  const index = new StoreIndex(storeDir)
  try {
    work(index)
  } finally {
    index.close()
  }
}

function rowHasFile (row: PackageFilesIndex, hex: string): boolean {
  for (const info of row.files.values()) if (info.digest === hex) return true
  for (const diff of row.sideEffects?.values() ?? []) {
    const added = (diff as { added?: unknown } | undefined)?.added
    if (!(added instanceof Map)) continue
    for (const info of added.values() as Iterable<{ digest?: unknown }>) if (info.digest === hex) return true
  }
  return false
}

function text (value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined
}
