// Fuzz targets of the readers of lode's state file, pnpm's workspace state and the replay record
// (run by fuzz.test.ts through @lode/__utils__.test-fixtures/fuzz). Each input is a mutated file;
// the reader gives a typed record or none, never throws, and what reads it never touches a path
// outside the project.

import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'

import { mutate } from '@lode/__utils__.test-fixtures/fuzz'
import type { FuzzTarget, MutateOptions, Random } from '@lode/__utils__.test-fixtures/fuzz'
import { isInsideDir, recordedSegments } from '@lode/core.safe-name'

import { pnpmStateVouches, readPnpmWorkspaceState } from '../src/pnpm-workspace-state.js'
import { parseInstallState, quickUpToDate } from '../src/quick-check.js'
import { parseReplayRecord, replayFile, replayInstall } from '../src/replay.js'
import { sandbox, snapshot, writePnpmState, writeState } from './helpers.js'
import type { Sandbox } from './helpers.js'

// Values that mean something to the readers: paths that climb or are absolute, keys of objects, other types.
const ODD: readonly unknown[] = [
  '../outside/secret.txt', '../../x', '..', '.', '', '/etc/passwd', 'C:\\x', 'a/../../b', 'a//b', 'node_modules/../../x', 'a\0b', 'node_modules', 'package.json',
  '__proto__', 'constructor', 'toString', 0, -1, 1.5, 1e300, NaN, true, false, null, [], {}, ['../x'], [['../x', 1]], { __proto__: null, a: 1 }, 'x'.repeat(300),
]
const OBJECT_KEYS = ['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'valueOf']

const MUTATE: MutateOptions = {
  tokens: ['"', ':', ',', '[', ']', '{', '}', 'null', 'true', '0', '-1', '1e999', '"../"', '"/"', '".."', '"__proto__"', '\\u0000', '\\', '""'],
  get corpus () { return corpus().flatMap((files) => Object.values(files)) },
  keyLine: (key) => `"${key}": "../x",`,
  nesting: [['[', ']'], ['{"a":', '}'], ['[{"a":', '}]']],
}

/** A copy of `value` with one node replaced, removed or given an extra key: types change where the text mutations rarely reach. */
function mutateValue (random: Random, value: unknown): unknown {
  if (typeof value !== 'object' || value === null || random.chance(0.15)) return random.pick(ODD)
  const copy = (Array.isArray(value) ? [...value as unknown[]] : { ...value }) as Record<string, unknown>
  const keys = Object.keys(copy)
  if (keys.length === 0 || random.chance(0.1)) {
    Object.defineProperty(copy, random.chance(0.5) ? random.pick(OBJECT_KEYS) : 'extra', { value: random.pick(ODD), enumerable: true, writable: true, configurable: true })
    return copy
  }
  const key = random.pick(keys)
  if (random.chance(0.1) && !Array.isArray(copy)) delete copy[key]
  else copy[key] = mutateValue(random, copy[key])
  return copy
}

/** The sandbox every check of a worker uses, and the valid files of each format (pretty-printed, for the line mutations). */
let box: Sandbox | undefined
let files: Array<Record<'lodeState' | 'pnpmState' | 'modulesYaml' | 'replay', string>> | undefined

function corpus (): NonNullable<typeof files> {
  if (files === undefined) throw new Error('the corpus is made by setUp()')
  return files
}

async function setUp (): Promise<Sandbox> {
  if (box !== undefined) return box
  box = sandbox()
  const state = await writeState(box)
  await writePnpmState(box)
  const modules = path.join(box.dir, 'node_modules')
  const read = (name: string): string => fs.readFileSync(path.join(modules, name), 'utf8')
  const entry = (name: string): unknown[] => ['f', name, Buffer.from(read(name)).toString('base64'), 0o644]
  const replay = { format: 1, key: box.quick.key, trees: [{ dir: 'node_modules', entries: [entry('.lode-state.json'), entry('.modules.yaml'), ['d', '.bin'], ['d', '@s'], ['l', '@s/a', '../../../outside'], ['f', '.bin/a', 'IyEvYmluL3NoCg==', 0o755]] }], events: [{ type: 'up-to-date' }] }
  const pretty = (value: unknown): string => JSON.stringify(value, undefined, 2)
  files = [{ lodeState: pretty(state), pnpmState: read('.pnpm-workspace-state-v1.json'), modulesYaml: read('.modules.yaml'), replay: pretty(replay) }]
  // A workspace's record: more files, watched directories.
  const quick = state['quick'] as Record<string, unknown>
  files.push({ ...files[0]!, lodeState: pretty({ ...state, quick: { ...quick, files: ['package.json', 'packages/a/package.json', 'pnpm-lock.yaml', 'node_modules/.modules.yaml'], stamps: [null, null, null, null], dirs: [['.', 1], ['packages', 2]] } }) })
  return box
}

function input (random: Random, kind: keyof NonNullable<typeof files>[number]): string {
  const base = random.pick(corpus())[kind]
  if (random.chance(0.05)) return base
  if (random.chance(0.5)) return mutate(random, base, MUTATE)
  let value = JSON.parse(base) as unknown
  for (let n = 1 + random.int(3); n > 0; n--) value = mutateValue(random, value)
  return JSON.stringify(value, undefined, 2)
}

/** A recorded relative path: it passes safe-name's rule and joined to the project stays inside it. */
function assertRecorded (relative: unknown, what: string): void {
  assert.ok(recordedSegments(relative) !== undefined, `${what} ${JSON.stringify(relative)} is a recorded path`)
  assert.ok(isInsideDir(box!.dir, path.join(box!.dir, relative as string)), `${what} stays inside`)
}

/** Nothing outside the project changed, and no temporary tree is left. */
function assertOutsideUnchanged (before: Map<string, string>): void {
  assert.deepEqual(snapshot(box!.outside), before, 'nothing outside the project changed')
  assert.deepEqual(fs.readdirSync(box!.dir).filter((name) => name.includes('.replay-')), [])
}

// Made before the first input: `generate` is synchronous, and reads the corpus.
await setUp()

/** `.lode-state.json`: a typed record or none; the quick check over it answers without throwing and writes nothing outside. */
export const lodeState: FuzzTarget = {
  generate: (random) => input(random, 'lodeState'),
  check (text) {
    const state = parseInstallState(text as string)
    if (state !== undefined) {
      assert.equal(typeof state.inputs, 'string')
      assert.ok(Number.isSafeInteger(state.packages) && state.packages >= 0)
      if (state.quick !== undefined) {
        for (const file of state.quick.files) assertRecorded(file, 'a recorded file')
        for (const [dir, mtime] of state.quick.dirs) {
          if (dir !== '.') assertRecorded(dir, 'a watched directory')
          assert.ok(Number.isFinite(mtime))
        }
        assert.equal(state.quick.stamps.length, state.quick.files.length)
      }
    }
    const stateFile = path.join(box!.dir, 'node_modules', '.lode-state.json')
    fs.writeFileSync(stateFile, text as string)
    const before = snapshot(box!.outside)
    const packages = quickUpToDate(box!.quick)
    assertOutsideUnchanged(before)
    return state === undefined ? 'refused' : packages === undefined ? 'read, not up to date' : 'read, up to date'
  },
}

/** `.pnpm-workspace-state-v1.json` (and now and then `.modules.yaml`): a typed record or none; the vouch answers without throwing. */
export const pnpmState: FuzzTarget = {
  generate: (random) => random.chance(0.2) ? { modulesYaml: input(random, 'modulesYaml') } : { state: input(random, 'pnpmState') },
  check (value) {
    const { state, modulesYaml } = value as { state?: string, modulesYaml?: string }
    const stateFile = path.join(box!.dir, 'node_modules', '.pnpm-workspace-state-v1.json')
    fs.writeFileSync(stateFile, state ?? corpus()[0]!.pnpmState)
    const read = readPnpmWorkspaceState(stateFile)
    if (read !== undefined) {
      assert.equal(typeof read.filteredInstall, 'boolean')
      for (const dir of read.projects) assert.equal(typeof dir, 'string')
      for (const [id, digest] of read.validation?.manifests ?? []) assert.ok(typeof id === 'string' && typeof digest === 'string')
    }
    const manifest = fs.readFileSync(path.join(box!.dir, 'package.json'))
    const contents = {
      'package.json': manifest,
      'pnpm-lock.yaml': fs.readFileSync(path.join(box!.dir, 'pnpm-lock.yaml')),
      [path.join('node_modules', '.modules.yaml')]: Buffer.from(modulesYaml ?? corpus()[0]!.modulesYaml),
    }
    const vouches = pnpmStateVouches({ config: box!.config, include: { dependencies: true, devDependencies: true, optionalDependencies: true }, contents, manifestFiles: ['package.json'] })
    assert.equal(typeof vouches, 'boolean')
    return read === undefined ? 'refused' : vouches ? 'read, vouches' : 'read, does not vouch'
  },
}

/** The replay record: typed or none; each place it names is inside the project; a replay writes nothing outside it. */
export const replayRecord: FuzzTarget = {
  generate: (random) => input(random, 'replay'),
  check (text) {
    const record = parseReplayRecord(text as string, box!.quick)
    if (record !== undefined) {
      for (const tree of record.trees) {
        assertRecorded(tree.dir, 'a tree')
        assert.equal(path.basename(tree.dir), 'node_modules')
        for (const entry of tree.entries) assertRecorded(path.join(tree.dir, entry[1]), 'an entry')
      }
    }
    const file = replayFile(box!.dir, box!.env)
    fs.mkdirSync(path.dirname(file), { recursive: true })
    fs.writeFileSync(file, text as string)
    const modules = path.join(box!.dir, 'node_modules')
    const kept = `${modules}.kept`
    fs.renameSync(modules, kept)
    const before = snapshot(box!.outside)
    let events: unknown[] | undefined
    try {
      events = replayInstall(box!.quick, box!.env)
      assertOutsideUnchanged(before)
    } finally {
      fs.rmSync(modules, { recursive: true, force: true })
      fs.renameSync(kept, modules)
    }
    if (events !== undefined) assert.ok(record !== undefined, 'only a record that reads is written back')
    return record === undefined ? 'refused' : events === undefined ? 'read, full path' : 'read, written back'
  },
}
