// The warm install under the global virtual store. There, node_modules holds only symlinks into
// the store's slots, `.bin` shims and a few small files: once an install has made it from nothing,
// the same inputs make the same tree. So the CLI keeps a copy of that tree (the replay record,
// in lode's state directory) and, when node_modules is gone and nothing else changed, writes it
// back before any setting is parsed or the installer is loaded: a warm install of 1,350 packages
// costs Node's start and the symlinks. Anything the record cannot vouch for (another key, an input
// changed, a slot pruned from the store, node_modules partly there) takes the full path.
// Only Node's own modules, as in quick-check.ts: this runs before anything else is loaded.
import { LODE_STATE_FILE, MODULES_DIR } from '@lode/core.constants'

import { KeyHash, fileStamp, filesDigest, isRecord, isRecordedPath, parseInstallState, readOrNull, realParents, sameStamps, statOrUndefined, writeAtomic } from './quick-check.js'
import type { QuickKey, QuickState } from './quick-check.js'

const fs = process.getBuiltinModule('node:fs')
const os = process.getBuiltinModule('node:os')
const path = process.getBuiltinModule('node:path')

const FORMAT = 1
/** A tree with files larger than these holds more than links and shims: it is not recorded. */
const MAX_FILE_BYTES = 1024 * 1024
const MAX_TREE_BYTES = 16 * 1024 * 1024

/** One entry of a recorded node_modules, relative to it: a directory, a symlink and its target, a file's bytes (base64) and mode. */
export type TreeEntry = ['d', string] | ['l', string, string] | ['f', string, string, number]

export interface ReplayRecord {
  format: number
  key: string
  /** Each recorded node_modules (relative to the install's directory) and what it holds. */
  trees: Array<{ dir: string, entries: TreeEntry[] }>
  /** What the install that made the trees reported, for the replay to report again. */
  events: unknown[]
}

/** Where the replay record of the install run in `dir` is kept: lode's state directory, one file per directory. */
export function replayFile (dir: string, env: Readonly<Record<string, string | undefined>>): string {
  const home = env['HOME'] ?? os.homedir()
  const stateHome = env['XDG_STATE_HOME'] ??
    (process.platform === 'win32' ? env['LOCALAPPDATA'] ?? path.join(home, 'AppData', 'Local') : path.join(home, '.local', 'state'))
  return path.join(stateHome, 'lode', 'replay', `${new KeyHash().update(dir).digest()}.json`)
}

/**
 * Records the node_modules trees an install just made from nothing (the root's and each project's
 * that its quick record names), with the events it reported. Nothing is recorded (and an older
 * record is removed) when a tree holds anything but directories, symlinks and small files, or the
 * install left no quick record of its inputs.
 */
export function writeReplay (quick: QuickKey, env: Readonly<Record<string, string | undefined>>, events: unknown[]): boolean {
  const file = replayFile(quick.dir, env)
  // Windows links directories with junctions, whose targets are absolute: not replayed there.
  if (process.platform === 'win32') return false
  const inputs = stateOf(readOrNull(path.join(quick.dir, MODULES_DIR, LODE_STATE_FILE)))
  if (inputs === undefined || inputs.key !== quick.key) return forget(file)
  const projects = inputs.files.filter((input) => path.basename(input) === 'package.json' && !isInModules(input)).map((manifest) => path.dirname(manifest))
  const trees: ReplayRecord['trees'] = []
  let bytes = 0
  for (const project of projects) {
    const dir = project === '.' ? MODULES_DIR : path.join(project, MODULES_DIR)
    const root = path.join(quick.dir, dir)
    if (!fs.existsSync(root)) continue
    const entries: TreeEntry[] = []
    const walk = (rel: string): boolean => {
      for (const entry of fs.readdirSync(path.join(root, rel), { withFileTypes: true })) {
        const name = rel === '' ? entry.name : `${rel}/${entry.name}`
        const full = path.join(root, name)
        if (entry.isSymbolicLink()) entries.push(['l', name, fs.readlinkSync(full)])
        else if (entry.isDirectory()) {
          entries.push(['d', name])
          if (!walk(name)) return false
        } else if (entry.isFile()) {
          const stat = fs.statSync(full)
          bytes += stat.size
          if (stat.size > MAX_FILE_BYTES || bytes > MAX_TREE_BYTES) return false
          entries.push(['f', name, fs.readFileSync(full).toString('base64'), stat.mode & 0o777])
        } else return false
      }
      return true
    }
    if (!walk('')) return forget(file)
    trees.push({ dir, entries })
  }
  const record: ReplayRecord = { format: FORMAT, key: quick.key, trees, events }
  fs.mkdirSync(path.dirname(file), { recursive: true })
  writeAtomic(file, JSON.stringify(record))
  return true
}

function forget (file: string): false {
  fs.rmSync(file, { force: true })
  return false
}

/** The quick record the recorded install wrote in the root node_modules: what its inputs were. */
function recordedInputs (trees: ReplayRecord['trees']): QuickState | undefined {
  const stateEntry = trees.find((tree) => tree.dir === MODULES_DIR)?.entries.find((entry) => entry[0] === 'f' && entry[1] === LODE_STATE_FILE)
  return stateEntry === undefined ? undefined : stateOf(Buffer.from(stateEntry[2] as string, 'base64'))
}

/** The quick record in a `.lode-state.json`'s bytes, if it holds a complete install's. */
function stateOf (bytes: Uint8Array | null): QuickState | undefined {
  return parseInstallState(bytes)?.quick
}

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/

/**
 * The replay record in `text` when it is one `writeReplay` wrote for this install's key, else
 * undefined. It says what to write where, so each place is checked before anything is written: a
 * tree is a project's `node_modules` (`node_modules` or `<project>/node_modules`, every directory on
 * the way there now and none a link), each entry a relative path under it, named once, whose parent
 * is the tree or a directory entry before it (so nothing is written through a link the record
 * makes); a file has base64 bytes and a permission mode, a link a target. Events are objects with a
 * type. Only on POSIX (replays do not run on Windows): `/` separates, a `\` is refused.
 */
export function parseReplayRecord (text: string, quick: QuickKey): ReplayRecord | undefined {
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch {
    return undefined
  }
  if (!isRecord(value) || value['format'] !== FORMAT || value['key'] !== quick.key) return undefined
  const { trees, events } = value
  if (!Array.isArray(trees) || !Array.isArray(events) || !events.every((event) => isRecord(event) && typeof event['type'] === 'string')) return undefined
  const dirs = new Set<string>()
  for (const tree of trees) {
    if (!isRecord(tree) || !isTreeDir(tree['dir']) || dirs.has(tree['dir']) || !Array.isArray(tree['entries'])) return undefined
    dirs.add(tree['dir'])
    if (!realParents(quick.dir, path.join(quick.dir, tree['dir'])) || !validEntries(tree['entries'])) return undefined
  }
  return { format: FORMAT, key: quick.key, trees: trees as ReplayRecord['trees'], events }
}

/** `node_modules` or `<project>/node_modules`: a project's own, not one inside node_modules. */
function isTreeDir (dir: unknown): dir is string {
  if (!isRecordedPath(dir) || dir.includes('\\')) return false
  const segments = dir.split('/')
  return segments.indexOf(MODULES_DIR) === segments.length - 1
}

function validEntries (entries: readonly unknown[]): boolean {
  const dirs = new Set([''])
  const names = new Set<string>()
  for (const entry of entries) {
    if (!Array.isArray(entry) || !isRecordedPath(entry[1]) || entry[1].includes('\\') || names.has(entry[1])) return false
    const name = entry[1]
    const slash = name.lastIndexOf('/')
    if (!dirs.has(slash === -1 ? '' : name.slice(0, slash))) return false
    names.add(name)
    const [kind, , value, mode] = entry as unknown[]
    if (kind === 'd' && entry.length === 2) dirs.add(name)
    else if (kind === 'l' && entry.length === 3 && typeof value === 'string' && value !== '' && !value.includes('\0')) continue
    else if (kind !== 'f' || entry.length !== 4 || typeof value !== 'string' || !BASE64.test(value) || !Number.isInteger(mode) || (mode as number) < 0 || (mode as number) > 0o777) return false
  }
  return true
}

/**
 * Writes the recorded node_modules back when the record vouches for this install: the same key,
 * the same inputs (manifests, lockfile, workspace directories), no recorded tree there now, and
 * every symlink's target outside the trees still there (the store's slots). Each tree is written
 * beside its place and renamed into it, so a failure leaves no node_modules behind. Returns the
 * events to report, or undefined when the full path must run.
 */
export function replayInstall (quick: QuickKey, env: Readonly<Record<string, string | undefined>>): unknown[] | undefined {
  if (process.platform === 'win32') return undefined
  let text: string
  try {
    text = fs.readFileSync(replayFile(quick.dir, env), 'utf8')
  } catch {
    return undefined
  }
  const record = parseReplayRecord(text, quick)
  if (record === undefined) return undefined
  const inputs = recordedInputs(record.trees)
  if (inputs === undefined || !sameInputs(quick.dir, inputs, record.trees)) return undefined
  const at = (rel: string): string => `${quick.dir}${path.sep}${rel}`
  // Anything there (a link too, even a dangling one) takes the full path.
  if (record.trees.some((tree) => fs.lstatSync(at(tree.dir), { throwIfNoEntry: false }) !== undefined)) return undefined
  const inTrees = record.trees.map((tree) => at(tree.dir) + path.sep)
  for (const tree of record.trees) {
    for (const entry of tree.entries) {
      if (entry[0] !== 'l') continue
      const target = path.resolve(path.dirname(path.join(at(tree.dir), entry[1])), entry[2])
      if (!inTrees.some((prefix) => target.startsWith(prefix)) && !fs.existsSync(target)) return undefined
    }
  }
  const written: string[] = []
  // Beside its place, so that relative links resolve the same from both.
  const temp = (tree: ReplayRecord['trees'][number]): string => `${at(tree.dir)}.replay-${process.pid}`
  try {
    for (const tree of record.trees) {
      fs.rmSync(temp(tree), { recursive: true, force: true })
      fs.mkdirSync(temp(tree), { recursive: true })
      written.push(temp(tree))
      for (const entry of tree.entries) {
        const to = path.join(temp(tree), entry[1])
        if (entry[0] === 'd') fs.mkdirSync(to)
        else if (entry[0] === 'l') fs.symlinkSync(entry[2], to)
        else fs.writeFileSync(to, Buffer.from(entry[2], 'base64'), { mode: entry[3], flag: 'wx' })
      }
    }
    for (const tree of record.trees) {
      fs.renameSync(temp(tree), at(tree.dir))
      written.push(at(tree.dir))
    }
  } catch {
    for (const dir of written) fs.rmSync(dir, { recursive: true, force: true })
    return undefined
  }
  return record.events
}

/** Whether the recorded install's input files (those outside node_modules) and workspace directories are as they were. */
function sameInputs (dir: string, recorded: QuickState, trees: ReplayRecord['trees']): boolean {
  const at = (rel: string): string => `${dir}${path.sep}${rel}`
  for (const [watched, mtimeMs] of recorded.dirs) {
    if (statOrUndefined(at(watched))?.mtimeMs !== mtimeMs) return false
  }
  const recordedContents = treeContents(recorded.files, trees)
  const outside = recorded.files.flatMap((file, i) => recordedContents[file] === undefined ? [i] : [])
  if (sameStamps(outside.map((i) => fileStamp(at(recorded.files[i]!))), outside.map((i) => recorded.stamps[i] ?? null))) return true
  // Touched, not changed: the digest covers node_modules' files too, as the record holds them.
  return filesDigest(dir, recorded.files, recordedContents) === recorded.digest
}

/** The recorded bytes of those of `files` that lie in a recorded tree (`node_modules/.modules.yaml`). */
function treeContents (files: readonly string[], trees: ReplayRecord['trees']): Record<string, Uint8Array> {
  // Keyed by recorded names: no prototype to find `toString` in.
  const contents = Object.create(null) as Record<string, Uint8Array>
  for (const file of files) {
    const tree = trees.find((candidate) => file.startsWith(candidate.dir + path.sep))
    if (tree === undefined) continue
    const name = file.slice(tree.dir.length + 1).split(path.sep).join('/')
    const entry = tree.entries.find((candidate) => candidate[0] === 'f' && candidate[1] === name)
    contents[file] = entry === undefined ? new Uint8Array() : Buffer.from(entry[2] as string, 'base64')
  }
  return contents
}

function isInModules (file: string): boolean {
  return file.split(/[\\/]/).includes(MODULES_DIR)
}
