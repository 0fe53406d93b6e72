// The warm install under the global virtual store. There, node_modules holds only symlinks into
// the store's slots, `.bin` shims and a few small files: once an install has made it from nothing,
// the same inputs make the same tree. So the CLI keeps a copy of that tree (the replay record,
// in lode's state directory) and, when node_modules is gone and nothing else changed, writes it
// back before any setting is parsed or the installer is loaded: a warm install of 1,350 packages
// costs Node's start and the symlinks. Anything the record cannot vouch for (another key, an input
// changed, a slot pruned from the store, node_modules partly there) takes the full path.
// Only Node's own modules, as in quick-check.ts: this runs before anything else is loaded.
import { LODE_STATE_FILE, MODULES_DIR } from '@lode/core.constants'

import { KeyHash, fileStamp, filesDigest, readOrNull, sameStamps, writeAtomic } from './quick-check.js'
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
  if (bytes === null) return undefined
  try {
    const state = JSON.parse(Buffer.from(bytes).toString('utf8')) as { packages?: unknown, quick?: QuickState }
    return typeof state.packages === 'number' && state.quick !== undefined ? state.quick : undefined
  } catch {
    return undefined
  }
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
  let record: ReplayRecord
  try {
    record = JSON.parse(fs.readFileSync(replayFile(quick.dir, env), 'utf8')) as ReplayRecord
  } catch {
    return undefined
  }
  if (record.format !== FORMAT || record.key !== quick.key || !Array.isArray(record.trees)) return undefined
  const inputs = recordedInputs(record.trees)
  if (inputs === undefined || !sameInputs(quick.dir, inputs, record.trees)) return undefined
  const at = (rel: string): string => `${quick.dir}${path.sep}${rel}`
  if (record.trees.some((tree) => fs.existsSync(at(tree.dir)))) return undefined
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
        else fs.writeFileSync(to, Buffer.from(entry[2], 'base64'), { mode: entry[3] })
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
    if (fs.statSync(at(watched), { throwIfNoEntry: false })?.mtimeMs !== mtimeMs) return false
  }
  const recordedContents = treeContents(recorded.files, trees)
  const outside = recorded.files.flatMap((file, i) => recordedContents[file] === undefined ? [i] : [])
  if (sameStamps(outside.map((i) => fileStamp(at(recorded.files[i]!))), outside.map((i) => recorded.stamps[i] ?? null))) return true
  // Touched, not changed: the digest covers node_modules' files too, as the record holds them.
  return filesDigest(dir, recorded.files, recordedContents) === recorded.digest
}

/** The recorded bytes of those of `files` that lie in a recorded tree (`node_modules/.modules.yaml`). */
function treeContents (files: readonly string[], trees: ReplayRecord['trees']): Record<string, Uint8Array> {
  const contents: Record<string, Uint8Array> = {}
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
