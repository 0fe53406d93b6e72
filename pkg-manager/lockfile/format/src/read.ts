import fs from 'node:fs/promises'
import path from 'node:path'

import { CURRENT_LOCKFILE, LOCKFILE_VERSION, MODULES_DIR, VIRTUAL_STORE_DIR, WANTED_LOCKFILE } from '@lode/core.constants'
import { LodeError, fileSystemError, hasErrno } from '@lode/core.error'
import type * as Yaml from 'yaml'

import { lockfileShapeError } from './check-shape.js'
import { fastParseLockfile } from './fast-parse.js'
import { conflictSides, mergeLockfiles } from './merge-conflicts.js'
import type { Lockfile } from './types.js'
import { YAML_OPTIONS, duplicateKey, overlongFlowLine, overlongFlowLineMessage, yaml } from './yaml.js'

export interface ReadLockfile {
  lockfile: Lockfile
  /** The file as read. */
  text: string
  /** A leading `configDependencies` document, kept verbatim for the next write. */
  envDocument?: string
  /** The file had git's conflict markers: both sides were read and merged (`lockfile` is the merge, `text` the file). */
  mergedConflicts?: true
}

const CONFLICT_MARKER = /^(<{7}|={7}|>{7})(?: |$)/m

/**
 * Reads `<dir>/pnpm-lock.yaml`; `undefined` when there is none. Git's conflict markers are merged as
 * pnpm 11 merges them (`mergedConflicts`). Unparseable YAML, another major `lockfileVersion`
 * (`ERR_LODE_LOCKFILE_BREAKING_CHANGE`) or a malformed section is a `LodeError` naming the file.
 */
export async function readLockfile (dir: string): Promise<ReadLockfile | undefined> {
  return await readLockfileAt(path.join(dir, WANTED_LOCKFILE), { mergeConflicts: true })
}

/**
 * `<dir>/node_modules/.pnpm/lock.yaml`, what the last install put on disk (pnpm's current lockfile);
 * `undefined` when there is none. lode writes it whole, so conflict markers in it are an error. (An
 * install reads past one that is broken; `store prune` must not.)
 */
export async function readInstalledLockfile (dir: string): Promise<ReadLockfile | undefined> {
  return await readLockfileAt(path.join(dir, MODULES_DIR, VIRTUAL_STORE_DIR, CURRENT_LOCKFILE), {})
}

async function readLockfileAt (file: string, opts: ParseOptions): Promise<ReadLockfile | undefined> {
  let text: string
  try {
    text = await fs.readFile(file, 'utf8')
  } catch (err) {
    if (hasErrno(err, 'ENOENT')) return undefined
    throw fileSystemError(err, file) ?? err
  }
  return parseLockfile(text, file, opts)
}

export interface ParseOptions {
  /** Merge the sides of git's conflict markers, as pnpm does for pnpm-lock.yaml (otherwise they are an error). */
  mergeConflicts?: boolean
}

export function parseLockfile (text: string, file: string, opts: ParseOptions = {}): ReadLockfile {
  if (CONFLICT_MARKER.test(text)) {
    const sides = opts.mergeConflicts === true ? conflictSides(text) : undefined
    if (sides === undefined) {
      throw new LodeError('LOCKFILE_MERGE_CONFLICT', `${file} has unresolved merge conflict markers.`, {
        hint: `Resolve the conflict in ${WANTED_LOCKFILE} (or check out one side, e.g. git checkout --theirs ${WANTED_LOCKFILE}), then install again to bring it up to date.`,
      })
    }
    // Each side is read (and checked) as a lockfile of its own; a side that is not one names the file.
    const ours = parseLockfile(sides.ours, file)
    const theirs = parseLockfile(sides.theirs, file)
    const merged = { lockfile: mergeLockfiles(ours.lockfile, theirs.lockfile), text, mergedConflicts: true as const }
    return ours.envDocument === undefined ? merged : { ...merged, envDocument: ours.envDocument }
  }
  const fast = fastParseLockfile(text)
  if (fast !== undefined && Object.keys(fast).length > 0) return { lockfile: validate(fast, file), text }
  const overlong = overlongFlowLine(text)
  if (overlong !== undefined) {
    throw new LodeError('BROKEN_LOCKFILE', `${file} cannot be read: ${overlongFlowLineMessage(overlong)}.`, { hint: `Delete ${WANTED_LOCKFILE} and install again.` })
  }
  let docs: Array<Yaml.Document.Parsed>
  try {
    docs = yaml().parseAllDocuments(text, { ...YAML_OPTIONS, uniqueKeys: false, logLevel: 'error' }) as Array<Yaml.Document.Parsed>
  } catch (err) {
    // The yaml library's parser recurses once per level of nesting, and `- - - …` nests a level
    // every two characters: thousands of them overflow the stack.
    if (err instanceof RangeError) throw tooDeep(file)
    throw err
  }
  const errors = docs.flatMap((doc) => doc.errors)
  if (errors.length > 0) {
    const first = errors[0]
    const where = first instanceof yaml().YAMLParseError && first.linePos !== undefined ? ` (line ${first.linePos[0].line}, column ${first.linePos[0].col})` : ''
    throw new UnreadableLockfileError(`${file} is not valid YAML${where}: ${first?.message.split('\n')[0] ?? 'empty document'}.`)
  }
  for (const doc of docs) {
    const duplicate = duplicateKey(doc)
    if (duplicate !== undefined) throw new UnreadableLockfileError(`${file} is broken: duplicated mapping key (${duplicate.replace(/^Map keys must be unique: /, '')}).`)
  }
  let envDocument: string | undefined
  let main = docs[0]
  if (docs.length === 2) {
    envDocument = text.slice(text.indexOf('---') + 4, text.indexOf('\n---', 3) + 1)
    main = docs[1]
  }
  for (const doc of docs) checkNodes(doc, file)
  const value: unknown = main?.toJS()
  if (value === null || value === undefined) {
    throw new LodeError('BROKEN_LOCKFILE', `${file} is empty.`, { hint: `Delete ${WANTED_LOCKFILE} and install again.` })
  }
  const lockfile = validate(value, file)
  return envDocument === undefined ? { lockfile, text } : { lockfile, text, envDocument }
}

// pnpm's lockfile nests six levels deep; fields it does not know may add some. Deeper documents are
// refused before anything recursive (toJS, the checks, the writer) walks them.
const MAX_DEPTH = 64

function tooDeep (file: string): LodeError {
  return new LodeError('BROKEN_LOCKFILE', `${file} nests more than ${MAX_DEPTH} levels deep.`, { hint: `Delete ${WANTED_LOCKFILE} and install again.` })
}

/**
 * Refuses aliases, which pnpm never writes (js-yaml's `noRefs`) and which could make the lockfile
 * contain itself or stand for exponentially many copies, and nesting deeper than `MAX_DEPTH`
 * (`- - - …` nests a level in two characters). Walks the syntax tree with a stack of its own.
 */
function checkNodes (doc: Yaml.Document.Parsed, file: string): void {
  const { isAlias, isCollection, isPair } = yaml()
  const pending: Array<{ node: unknown, depth: number }> = [{ node: doc.contents, depth: 0 }]
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const { node, depth } = next
    if (isAlias(node)) {
      throw new LodeError('BROKEN_LOCKFILE', `${file} uses YAML aliases (*${node.source.slice(0, 100)}), which a lockfile never has.`, { hint: `Delete ${WANTED_LOCKFILE} and install again.` })
    }
    if (!isCollection(node)) continue
    if (depth >= MAX_DEPTH) throw tooDeep(file)
    for (const item of node.items) {
      if (isPair(item)) pending.push({ node: item.key, depth: depth + 1 }, { node: item.value, depth: depth + 1 })
      else pending.push({ node: item, depth: depth + 1 })
    }
  }
}

/** The parsed document as a `Lockfile`, or `ERR_LODE_BROKEN_LOCKFILE` saying where it has another shape. */
function validate (value: unknown, file: string): Lockfile {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new LodeError('BROKEN_LOCKFILE', `${file} is not a lockfile: its top level is not a map.`, { hint: `Delete ${WANTED_LOCKFILE} and install again.` })
  }
  const doc = value as Record<string, unknown>
  const version = doc['lockfileVersion']
  const major = typeof version === 'string' || typeof version === 'number' ? String(version).split('.')[0] : undefined
  const supportedMajor = LOCKFILE_VERSION.split('.')[0]!
  if (major !== supportedMajor) {
    // pnpm's words and code: an install that is not frozen warns with them and resolves afresh.
    const generated = typeof version === 'string' || typeof version === 'number' ? `it was generated with lockfileVersion ${String(version).slice(0, 20)}` : 'it has no lockfileVersion'
    throw new LodeError('LOCKFILE_BREAKING_CHANGE', `Lockfile ${file} not compatible with current lode: ${generated}, but lode supports lockfileVersion ${supportedMajor}.x`, {
      hint: `Install without --frozen-lockfile to resolve afresh and write a lockfileVersion ${LOCKFILE_VERSION} ${WANTED_LOCKFILE}, or keep using the pnpm version that wrote it.`,
    })
  }
  const shapeError = lockfileShapeError(doc)
  if (shapeError !== undefined) {
    throw new LodeError('BROKEN_LOCKFILE', `${file} is malformed: ${shapeError}.`, { hint: `Fix or delete ${WANTED_LOCKFILE} and install again.` })
  }
  doc['lockfileVersion'] = String(version)
  doc['importers'] ??= {}
  // pnpm 9 and early pnpm 10 wrote a patch as `{ hash, path }`; pnpm 11 reads the hash alone.
  const patches = doc['patchedDependencies'] as Record<string, unknown> | undefined
  for (const [key, patch] of Object.entries(patches ?? {})) {
    if (typeof patch === 'object' && patch !== null && typeof (patch as { hash?: unknown }).hash === 'string') patches![key] = (patch as { hash: string }).hash
  }
  return doc as Lockfile
}

/**
 * `ERR_LODE_BROKEN_LOCKFILE` for a file that is no YAML document (a syntax error, a key twice in a
 * map): pnpm ignores such a lockfile, with a warning, unless the install is frozen.
 */
export class UnreadableLockfileError extends LodeError {
  constructor (message: string) {
    super('BROKEN_LOCKFILE', message, { hint: `Fix or delete ${WANTED_LOCKFILE} and install again.` })
  }
}
