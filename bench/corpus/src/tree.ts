import fs from 'node:fs'
import path from 'node:path'

import { parse, parseAllDocuments } from 'yaml'

/**
 * What an install left in node_modules, as `key → value` lines two installs can be compared by:
 * - `.pnpm/<entry>`: the virtual store's package dirs, and inside each `node_modules/<name>` the
 *   package (`dir`) and its dependencies (link targets), and its `.bin` shims;
 * - `<importer>/node_modules/<name>`: each importer's direct dependencies (link targets), and
 *   `<importer>/node_modules/.bin/<name>` its shims (content, with the project's path replaced);
 * - `.pnpm/node_modules/<name>`: the hoisted links;
 * - `.modules.yaml#<key>`: each key of the state file, its value with the project's and the
 *   store's paths replaced, one line per entry of a map (in key order: a map's order is not
 *   compared) or of a list;
 * - `.pnpm/lock.yaml`: the lockfile copy, whole.
 */
export type Snapshot = Map<string, string>

/** The importers (`.`, `packages/a`, …) of a lockfile, with their direct (not optional) dependencies' names. */
export function readImporters (lockfile: string): Array<{ importer: string, deps: string[] }> {
  type Importer = { dependencies?: Record<string, unknown>, devDependencies?: Record<string, unknown> } | null
  // A pnpm 11 lockfile may start with a document of its own (configDependencies, packageManagerDependencies).
  const docs = parseAllDocuments(fs.readFileSync(lockfile, 'utf8')).map((doc) => doc.toJS() as { importers?: Record<string, Importer> } | null)
  const importers = docs.find((doc) => doc?.importers !== undefined)?.importers ?? { '.': null }
  return Object.entries(importers).map(([importer, deps]) => ({
    importer,
    deps: [...Object.keys(deps?.dependencies ?? {}), ...Object.keys(deps?.devDependencies ?? {})],
  }))
}

function readdir (dir: string): fs.Dirent[] {
  try {
    return fs.readdirSync(dir, { withFileTypes: true })
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT' || (err as NodeJS.ErrnoException).code === 'ENOTDIR') return []
    throw err
  }
}

/** The entries of a node_modules dir, scoped names (`@scope/name`) as one. */
function modulesEntries (dir: string): Array<{ name: string, dirent: fs.Dirent }> {
  return readdir(dir).flatMap((dirent) => dirent.name.startsWith('@') && dirent.isDirectory()
    ? readdir(path.join(dir, dirent.name)).map((scoped) => ({ name: `${dirent.name}/${scoped.name}`, dirent: scoped }))
    : [{ name: dirent.name, dirent }])
}

export function snapshot (project: string, importers: string[], store: string): Snapshot {
  const snap: Snapshot = new Map()
  const normalize = (text: string): string => text.replaceAll(store, '<store>').replaceAll(project, '<project>')
  const describe = (file: string, entry: fs.Dirent): string => {
    if (entry.isSymbolicLink()) {
      const target = path.resolve(path.dirname(file), fs.readlinkSync(file))
      return `-> ${path.relative(path.dirname(file), target)}`
    }
    return entry.isDirectory() ? 'dir' : 'file'
  }
  const addModules = (dir: string, key: string, skip: (name: string) => boolean): void => {
    for (const { name, dirent } of modulesEntries(dir)) {
      if (!skip(name)) snap.set(`${key}/${name}`, describe(path.join(dir, name), dirent))
    }
  }
  const addBins = (dir: string, key: string): void => {
    for (const entry of readdir(dir)) snap.set(`${key}/${entry.name}`, normalize(fs.readFileSync(path.join(dir, entry.name), 'utf8')))
  }

  const rootModules = path.join(project, 'node_modules')
  const virtualStore = path.join(rootModules, '.pnpm')
  for (const entry of readdir(virtualStore)) {
    if (!entry.isDirectory() || entry.name === 'node_modules') continue
    const key = `.pnpm/${entry.name}`
    snap.set(key, 'dir')
    const modules = path.join(virtualStore, entry.name, 'node_modules')
    addModules(modules, `${key}/node_modules`, () => false)
    for (const pkg of modulesEntries(modules)) {
      if (pkg.dirent.isDirectory()) addBins(path.join(modules, pkg.name, 'node_modules', '.bin'), `${key}/node_modules/${pkg.name}/node_modules/.bin`)
    }
  }
  addModules(path.join(virtualStore, 'node_modules'), '.pnpm/node_modules', () => false)
  const lock = path.join(virtualStore, 'lock.yaml')
  if (fs.existsSync(lock)) snap.set('.pnpm/lock.yaml', fs.readFileSync(lock, 'utf8'))

  for (const importer of importers) {
    const modules = path.join(project, importer, 'node_modules')
    const key = `${importer}/node_modules`
    addModules(modules, key, (name) => name === '.pnpm' || name === '.bin' || name === '.modules.yaml')
    addBins(path.join(modules, '.bin'), `${key}/.bin`)
  }

  const modulesYaml = path.join(rootModules, '.modules.yaml')
  if (fs.existsSync(modulesYaml)) {
    const state = (parse(fs.readFileSync(modulesYaml, 'utf8')) ?? {}) as Record<string, unknown>
    for (const [key, value] of Object.entries(state)) {
      // When the last prune ran differs from run to run by nature.
      snap.set(`.modules.yaml#${key}`, key === 'prunedAt' ? 'a date' : normalize(entryLines(value)))
    }
  }
  return snap
}

/** A value as lines the line diff can compare: a map's entries sorted by key, a list's items, else the JSON. */
function entryLines (value: unknown): string {
  if (Array.isArray(value)) return value.map((item) => JSON.stringify(item)).join('\n')
  if (value !== null && typeof value === 'object') {
    return Object.entries(value).sort(([x], [y]) => x < y ? -1 : x > y ? 1 : 0).map(([k, v]) => `${k}: ${JSON.stringify(v)}`).join('\n')
  }
  return JSON.stringify(value)
}

export interface Difference {
  /** What part of node_modules the key is in (see kindOf). */
  kind: string
  text: string
}

/** Where in node_modules a snapshot key is, to count differences by kind. */
function kindOf (key: string): string {
  if (key.includes('/.bin/')) return '.bin shims'
  if (key.startsWith('.modules.yaml#')) return '.modules.yaml'
  if (key.startsWith('.pnpm/node_modules/')) return 'hoisted links'
  if (key.startsWith('.pnpm/')) return key.split('/').length > 2 ? 'links in .pnpm' : '.pnpm entries'
  return 'importer links'
}

/** A difference per key that is in one snapshot only or has different values, in key order. */
export function compareSnapshots (a: Snapshot, b: Snapshot, names: [string, string]): Difference[] {
  const keys = [...new Set([...a.keys(), ...b.keys()])].sort()
  const differences: Difference[] = []
  for (const key of keys) {
    const va = a.get(key)
    const vb = b.get(key)
    if (va === vb) continue
    const text = vb === undefined
      ? `only ${names[0]}: ${key} ${firstLine(va!)}`
      : va === undefined ? `only ${names[1]}: ${key} ${firstLine(vb)}` : `differs: ${key}\n${valueDiff(va, vb, names)}`
    differences.push({ kind: kindOf(key), text })
  }
  return differences
}

/** `12 .bin shims, 3 .modules.yaml`: the differences counted by kind, most first. */
export function countByKind (differences: Difference[]): string {
  const counts = new Map<string, number>()
  for (const d of differences) counts.set(d.kind, (counts.get(d.kind) ?? 0) + 1)
  return [...counts].sort((x, y) => y[1] - x[1]).map(([kind, n]) => `${n} ${kind}`).join(', ')
}

function firstLine (value: string): string {
  const line = value.split('\n', 1)[0]!
  return line.length > 200 || line !== value ? `${line.slice(0, 200)}…` : line
}

/** A value's lines that the other value lacks, each side's first ten, with how many there are. */
function valueDiff (a: string, b: string, names: [string, string]): string {
  const linesA = a.split('\n')
  const linesB = b.split('\n')
  const setA = new Set(linesA)
  const setB = new Set(linesB)
  const side = (name: string, lines: string[], other: Set<string>): string => {
    const only = lines.filter((line) => !other.has(line))
    const shown = only.slice(0, 10).map((line) => `  ${name}: ${line.length > 300 ? `${line.slice(0, 300)}…` : line}`)
    return [...shown, ...(only.length > 10 ? [`  ${name}: … ${only.length - 10} more lines`] : [])].join('\n')
  }
  const shown = [side(names[0], linesA, setB), side(names[1], linesB, setA)].filter((s) => s !== '')
  return shown.length > 0 ? shown.join('\n') : '  (the same lines, in another order or repeated)'
}
