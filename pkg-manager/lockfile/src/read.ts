import fs from 'node:fs/promises'
import path from 'node:path'

import { LodeError, hasErrno } from '@lode/fs.error'
import { LOCKFILE_VERSION, WANTED_LOCKFILE } from '@lode/fs.formats'

import { fastParseLockfile } from './fast-parse.js'
import type { Lockfile } from './types.js'
import { yaml } from './yaml.js'

export interface ReadLockfile {
  lockfile: Lockfile
  /** The file as read. */
  text: string
  /** A leading `configDependencies` document, kept verbatim for the next write. */
  envDocument?: string
}

const CONFLICT_MARKER = /^(<{7}|={7}|>{7})(?: |$)/m

/**
 * Reads `<dir>/pnpm-lock.yaml`; `undefined` when there is none. A lockfile with merge conflict
 * markers, unparseable YAML, another major `lockfileVersion` or a malformed section is a
 * `LodeError` naming the file.
 */
export async function readLockfile (dir: string): Promise<ReadLockfile | undefined> {
  return await readLockfileAt(path.join(dir, WANTED_LOCKFILE))
}

/** `<dir>/node_modules/.pnpm/lock.yaml`, what the last install put on disk (pnpm's current lockfile); `undefined` when there is none. */
export async function readInstalledLockfile (dir: string): Promise<ReadLockfile | undefined> {
  return await readLockfileAt(path.join(dir, 'node_modules', '.pnpm', 'lock.yaml'))
}

async function readLockfileAt (file: string): Promise<ReadLockfile | undefined> {
  let text: string
  try {
    text = await fs.readFile(file, 'utf8')
  } catch (err) {
    if (hasErrno(err, 'ENOENT')) return undefined
    throw err
  }
  return parseLockfile(text, file)
}

export function parseLockfile (text: string, file: string): ReadLockfile {
  if (CONFLICT_MARKER.test(text)) {
    throw new LodeError('LOCKFILE_MERGE_CONFLICT', `${file} has unresolved merge conflict markers.`, {
      hint: `Resolve the conflict in ${WANTED_LOCKFILE} (or check out one side, e.g. git checkout --theirs ${WANTED_LOCKFILE}), then install again to bring it up to date.`,
    })
  }
  const fast = fastParseLockfile(text)
  if (fast !== undefined && Object.keys(fast).length > 0) return { lockfile: validate(fast, file), text }
  const docs = yaml().parseAllDocuments(text, { uniqueKeys: false })
  const errors = docs.flatMap((doc) => doc.errors)
  if (errors.length > 0) {
    const first = errors[0]
    const where = first instanceof yaml().YAMLParseError && first.linePos !== undefined ? ` (line ${first.linePos[0].line}, column ${first.linePos[0].col})` : ''
    throw new LodeError('BROKEN_LOCKFILE', `${file} is not valid YAML${where}: ${first?.message.split('\n')[0] ?? 'empty document'}.`, {
      hint: `Fix or delete ${WANTED_LOCKFILE} and install again.`,
    })
  }
  let envDocument: string | undefined
  let main = docs[0]
  if (docs.length === 2) {
    envDocument = text.slice(text.indexOf('---') + 4, text.indexOf('\n---', 3) + 1)
    main = docs[1]
  }
  const value: unknown = main?.toJS()
  if (value === null || value === undefined) {
    throw new LodeError('BROKEN_LOCKFILE', `${file} is empty.`, { hint: `Delete ${WANTED_LOCKFILE} and install again.` })
  }
  const lockfile = validate(value, file)
  return envDocument === undefined ? { lockfile, text } : { lockfile, text, envDocument }
}

function validate (value: unknown, file: string): Lockfile {
  if (typeof value !== 'object' || Array.isArray(value)) {
    throw new LodeError('BROKEN_LOCKFILE', `${file} is not a lockfile: its top level is not a map.`, { hint: `Delete ${WANTED_LOCKFILE} and install again.` })
  }
  const doc = value as Record<string, unknown>
  const version = doc['lockfileVersion']
  const major = typeof version === 'string' || typeof version === 'number' ? String(version).split('.')[0] : undefined
  if (major !== LOCKFILE_VERSION.split('.')[0]) {
    throw new LodeError('LOCKFILE_UNSUPPORTED_VERSION', `${file} has lockfileVersion ${version === undefined ? '(none)' : JSON.stringify(version)}; lode reads lockfileVersion ${LOCKFILE_VERSION}.`, {
      hint: `Regenerate it with pnpm 9 or newer, or delete ${WANTED_LOCKFILE} and let lode resolve again.`,
    })
  }
  for (const section of ['importers', 'packages', 'snapshots', 'settings', 'overrides', 'catalogs']) {
    const sectionValue = doc[section]
    if (sectionValue !== undefined && (typeof sectionValue !== 'object' || sectionValue === null || Array.isArray(sectionValue))) {
      throw new LodeError('BROKEN_LOCKFILE', `${file} is malformed: "${section}" is not a map.`, { hint: `Fix or delete ${WANTED_LOCKFILE} and install again.` })
    }
  }
  doc['lockfileVersion'] = String(version)
  doc['importers'] ??= {}
  return doc as Lockfile
}
