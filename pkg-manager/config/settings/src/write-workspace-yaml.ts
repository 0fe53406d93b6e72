import fs from 'node:fs/promises'
import path from 'node:path'

import { LodeError, fileSystemError, hasErrno } from '@lode/core.error'
import { writeFileAtomic } from '@lode/fs.write-file-atomic'
import { duplicateKey, overlongFlowLine, overlongFlowLineMessage, yaml } from '@lode/pkg-manager.lockfile.format/yaml'
import compareSemver from 'semver/functions/compare.js'
import validVersion from 'semver/functions/valid.js'
import type { Document, Node, Pair, Scalar, YAMLMap } from 'yaml'

const FILE = 'pnpm-workspace.yaml'


/**
 * Sets top-level settings in `<dir>/pnpm-workspace.yaml` the way pnpm edits the file: comments
 * and the order of existing keys are kept, list items that stay keep their nodes, a new key goes
 * to its sorted place when the keys were sorted (after `packages` when it leads) and at the end
 * otherwise, with a blank line before it when the file separates its keys so; a setting set to
 * `null` goes. Creates the file when it is missing, and removes it when no key is left (as pnpm
 * does). Returns whether the file changed.
 */
export async function updateWorkspaceYaml (dir: string, settings: Readonly<Record<string, unknown>>): Promise<boolean> {
  return await updateSettingsYaml(path.join(dir, FILE), settings)
}

/** `updateWorkspaceYaml` for any YAML file of settings (pnpm's global `config.yaml` too). */
export async function updateSettingsYaml (file: string, settings: Readonly<Record<string, unknown>>): Promise<boolean> {
  let text: string | undefined
  try {
    text = await fs.readFile(file, 'utf8')
  } catch (err) {
    if (!hasErrno(err, 'ENOENT')) throw fileSystemError(err, file) ?? err
  }
  const doc = text === undefined ? new (yaml().Document)({}) : parseWorkspaceDocument(text, file)
  if (doc.contents === null || (yaml().isScalar(doc.contents) && doc.contents.value === null)) doc.contents = doc.createNode({})
  if (!yaml().isMap(doc.contents)) throw new LodeError('INVALID_WORKSPACE_YAML', `${file} must be a map of settings.`, { hint: 'Fix the file and run again.' })
  const map = doc.contents as YAMLMap<Scalar<string>, Node>
  const originalKeys = map.items.map(keyOf)
  for (const [key, value] of Object.entries(settings)) {
    const pair = map.items.find((item) => keyOf(item) === key)
    if (pair !== undefined) pair.value = patchValue(doc, pair.value, value)
    else if (value !== null && value !== undefined) map.items.push(doc.createPair<Scalar<string>, Node>(key, value))
  }
  map.items = orderKeys(map.items, originalKeys)
  markBlankLines(map.items, originalKeys)
  dropEmptyValues(map)
  if (map.items.length === 0) {
    // Only a call that removed the last setting removes the file (pnpm's), never one that found it empty.
    if (text === undefined || originalKeys.length === 0) return false
    await fs.rm(file)
    return true
  }
  const next = writeDocument(doc, file)
  if (next === text) return false
  // A symlinked file is written where it points, with its mode.
  const target = text === undefined ? file : await fs.realpath(file)
  await writeFileAtomic(target, next, text === undefined ? undefined : (await fs.stat(target)).mode & 0o777)
  return true
}

/**
 * Removes from `<dir>/pnpm-workspace.yaml` the catalog entries `keep` rejects, as pnpm 11's
 * `catalogPrune` edits the file: the default catalog (`catalog`, asked as `keep(pkg)`) and each
 * named catalog (`catalogs.<name>`, asked as `keep(pkg, name)`) lose those entries, a catalog left
 * empty goes, then `catalogs` if none is left, and the file if nothing is left; every other line,
 * comment and key order stays. Returns whether the file changed.
 */
export async function pruneWorkspaceCatalogs (dir: string, keep: (pkg: string, catalog?: string) => boolean): Promise<boolean> {
  const file = path.join(dir, FILE)
  let text: string
  try {
    text = await fs.readFile(file, 'utf8')
  } catch (err) {
    if (hasErrno(err, 'ENOENT')) return false
    throw fileSystemError(err, file) ?? err
  }
  const doc = parseWorkspaceDocument(text, file)
  if (!yaml().isMap(doc.contents)) return false
  const map = doc.contents as YAMLMap<Scalar<string>, Node>
  let changed = false
  // A catalog's entries `keep` rejects go; whether it is left empty (and goes too).
  const emptied = (catalog: unknown, name?: string): boolean => {
    if (!yaml().isMap(catalog)) return false
    const kept = catalog.items.filter((pair) => keep(keyOf(pair), name))
    if (kept.length !== catalog.items.length) changed = true
    catalog.items = kept
    return kept.length === 0
  }
  for (const pair of map.items) {
    if (keyOf(pair) !== 'catalogs' || !yaml().isMap(pair.value)) continue
    const named = pair.value.items.filter((entry) => !emptied(entry.value, keyOf(entry)))
    if (named.length !== pair.value.items.length) changed = true
    pair.value.items = named
  }
  const kept = map.items.filter((pair) => !((keyOf(pair) === 'catalog' && emptied(pair.value)) || (keyOf(pair) === 'catalogs' && yaml().isMap(pair.value) && pair.value.items.length === 0)))
  if (kept.length !== map.items.length) changed = true
  map.items = kept
  if (!changed) return false
  dropEmptyValues(map)
  if (map.items.length === 0) {
    await fs.rm(file)
    return true
  }
  await writeFileAtomic(file, writeDocument(doc, file))
  return true
}

function parseWorkspaceDocument (text: string, file: string): Document {
  const overlong = overlongFlowLine(text)
  if (overlong !== undefined) throw new LodeError('INVALID_WORKSPACE_YAML', `${file} cannot be read: ${overlongFlowLineMessage(overlong)}.`, { hint: 'Fix the file and run again.' })
  // Duplicate keys are looked for here, in linear time (the yaml library's own check is quadratic).
  const doc = yamlCall(() => yaml().parseDocument(text, { uniqueKeys: false }), file)
  const problem = doc.errors[0]?.message.split('\n')[0] ?? duplicateKey(doc)
  if (problem !== undefined) throw new LodeError('INVALID_WORKSPACE_YAML', `${file} is not valid YAML: ${problem}`, { hint: 'Fix the file and run again.' })
  // An alias to no anchor (or to too many copies) is found only when the value is built.
  yamlCall((): unknown => doc.toJS(), file)
  return doc
}

/**
 * `call` with the yaml library, its errors about the document as `ERR_LODE_INVALID_WORKSPACE_YAML`:
 * a `RangeError` (its parser and writer recurse once per level of nesting, and `- - - …` nests a
 * level every two characters) and a `ReferenceError` (an alias to no anchor, too many aliases).
 */
function yamlCall<T> (call: () => T, file: string): T {
  try {
    return call()
  } catch (err) {
    if (!(err instanceof RangeError) && !(err instanceof ReferenceError)) throw err
    throw new LodeError('INVALID_WORKSPACE_YAML', `${file} cannot be read as YAML: ${err instanceof RangeError ? 'it nests too deeply' : (err as Error).message}.`, { hint: 'Fix the file and run again.' })
  }
}

/**
 * The edited document's text. The yaml library writes back only what it could have written: a node
 * it read but cannot write (an anchor with a control character, `&\x02`) makes it throw a plain
 * Error, here `ERR_LODE_INVALID_WORKSPACE_YAML`.
 */
function writeDocument (doc: Document, file: string): string {
  try {
    return yamlCall(() => doc.toString({ lineWidth: 0, singleQuote: true }), file)
  } catch (err) {
    if (err instanceof LodeError || !(err instanceof Error)) throw err
    throw new LodeError('INVALID_WORKSPACE_YAML', `${file} cannot be written back as YAML: ${err.message.split('\n')[0]!.slice(0, 200)}.`, { hint: 'Fix the file and run again.' })
  }
}

/**
 * What pnpm's writer does to the whole file whenever it writes it: a key whose value is empty (no
 * value, `null`, or a map without entries) goes, at any depth; a map that only loses such keys
 * stays, and an empty list stays.
 */
function dropEmptyValues (map: YAMLMap): void {
  map.items = map.items.filter((pair) => {
    const value = pair.value
    if (value === null || value === undefined
      || (yaml().isScalar(value) && value.value === null)
      || (yaml().isMap(value) && value.items.length === 0)) return false
    if (yaml().isMap(value)) dropEmptyValues(value)
    return true
  })
}

function keyOf (pair: Pair<unknown, unknown>): string {
  return yaml().isScalar(pair.key) ? String(pair.key.value) : String(pair.key)
}

/** A list of plain values keeps the nodes (and comments) of the items that stay; anything else is replaced. */
function patchValue (doc: Document, node: Node | null, value: unknown): Node {
  if (yaml().isSeq(node) && Array.isArray(value) && value.every((item) => item === null || ['string', 'number', 'boolean'].includes(typeof item))) {
    const byValue = new Map<unknown, Node[]>()
    for (const item of node.items) {
      if (!yaml().isScalar(item)) continue
      const nodes = byValue.get(item.value) ?? []
      nodes.push(item)
      byValue.set(item.value, nodes)
    }
    node.items = value.map((item) => byValue.get(item)?.shift() ?? new (yaml().Scalar)(item))
    return node
  }
  if (yaml().isScalar(node) && node.value === value) return node
  return doc.createNode(value)
}

/** pnpm's rule: keys that were sorted (optionally after a leading `packages`) stay sorted; otherwise new keys are appended. */
function orderKeys<T extends Pair<unknown, unknown>> (items: T[], originalKeys: string[]): T[] {
  const isNew = (item: T): boolean => !originalKeys.includes(keyOf(item))
  if (!items.some(isNew)) return items
  const packagesFirst = originalKeys.length === 0 || originalKeys[0] === 'packages'
  const rest = packagesFirst && originalKeys.length > 0 ? originalKeys.slice(1) : originalKeys
  const sorted = rest.every((key, i) => i === 0 || rest[i - 1]! <= key)
  if (!sorted) return items
  return [...items].sort((a, b) => {
    const ka = keyOf(a)
    const kb = keyOf(b)
    if (packagesFirst && (ka === 'packages' || kb === 'packages')) return ka === 'packages' ? -1 : 1
    return ka < kb ? -1 : ka > kb ? 1 : 0
  })
}

/** A new key gets a blank line before it when every original key but the first has one, or when its neighbour does. */
function markBlankLines (items: Array<Pair<unknown, unknown>>, originalKeys: string[]): void {
  const keyNode = (pair: Pair<unknown, unknown> | undefined): Scalar | undefined =>
    pair !== undefined && yaml().isScalar(pair.key) ? pair.key : undefined
  const originalRest = items.filter((item) => originalKeys.includes(keyOf(item)) && keyOf(item) !== originalKeys[0])
  const blankStyle = originalRest.length > 0 && originalRest.every((item) => keyNode(item)?.spaceBefore === true)
  for (let i = 1; i < items.length; i++) {
    const key = keyNode(items[i])
    if (key === undefined || key.spaceBefore === true) continue
    const next = keyNode(items[i + 1])
    const neighbour = next !== undefined ? next.spaceBefore === true : keyNode(items[i - 1])?.spaceBefore === true
    if (blankStyle || (!originalKeys.includes(String(key.value)) && neighbour)) key.spaceBefore = true
  }
}

/**
 * pnpm's merge of `minimumReleaseAgeExclude` entries: one entry per package, exact versions joined
 * with ` || ` in semver order; a package listed without versions (or a glob) stays as it is.
 * Existing entries keep their order, new packages follow.
 */
export function mergeReleaseAgeExcludes (entries: readonly string[]): string[] {
  const byName = new Map<string, Set<string> | null>()
  for (const entry of entries) {
    const { name, versions } = parseReleaseAgeExclude(entry)
    const known = byName.get(name)
    if (known === null || versions.length === 0) {
      byName.set(name, null)
      continue
    }
    const set = known ?? new Set<string>()
    for (const version of versions) set.add(version)
    byName.set(name, set)
  }
  return [...byName].map(([name, versions]) => versions === null ? name : `${name}@${[...versions].sort(compareVersions).join(' || ')}`)
}

/** A `minimumReleaseAgeExclude` entry: `name` (or a glob) alone, or `name@1.0.0 || 1.0.1`. */
export function parseReleaseAgeExclude (entry: string): { name: string, versions: string[] } {
  const at = entry.indexOf('@', entry.startsWith('@') ? 1 : 0)
  return at === -1 ? { name: entry, versions: [] } : { name: entry.slice(0, at), versions: entry.slice(at + 1).split('||').map((v) => v.trim()) }
}

/** Semver order; an entry that is not a version (a hand-written typo) sorts after the versions, as text. */
function compareVersions (a: string, b: string): number {
  const va = validVersion(a)
  const vb = validVersion(b)
  if (va !== null && vb !== null) return compareSemver(va, vb)
  if (va !== null || vb !== null) return va !== null ? -1 : 1
  return a < b ? -1 : a > b ? 1 : 0
}
