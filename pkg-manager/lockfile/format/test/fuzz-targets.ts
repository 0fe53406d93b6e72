// Fuzz targets of the lockfile reader and writer (run by fuzz.test.ts through @lode/__utils__.test-fixtures/fuzz).

import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'

import { assertCoded, createRandom, mutate } from '@lode/__utils__.test-fixtures/fuzz'
import type { FuzzTarget, MutateOptions, Random } from '@lode/__utils__.test-fixtures/fuzz'
import { parse } from 'yaml'

import { fastParseLockfile } from '../src/fast-parse.js'
import { normalizeLockfile, parseLockfile, stringifyLockfile } from '../src/index.js'
import type { Lockfile } from '../src/types.js'
import { YAML_OPTIONS } from '../src/yaml.js'

const repo = path.resolve(import.meta.dirname, '..', '..', '..', '..', '..')
const fixtures = path.resolve(import.meta.dirname, '..', '..', 'test', 'fixtures')
const FILE = path.join('fuzz', 'pnpm-lock.yaml')

const readAll = (files: string[]): string[] => files.filter((file) => fs.existsSync(file)).map((file) => fs.readFileSync(file, 'utf8'))

/** Lockfiles pnpm wrote (the fixtures) and small YAML files inside and outside the fast parser's subset. */
const small = [
  ...readAll(fs.readdirSync(fixtures).filter((name) => name.endsWith('.yaml')).map((name) => path.join(fixtures, name))),
  "lockfileVersion: '9.0'\n\nimporters:\n\n  .:\n    dependencies:\n      a:\n        specifier: ^1.0.0\n        version: 1.0.0\n",
  'packages:\n  - packages/*\n  - "!packages/x"\ncatalog:\n  react: ^18.2.0\nallowBuilds:\n  esbuild: true\n',
  "a: &x [b, c]\nd: *x\n# a comment\ne: |\n  text\nf: 'it''s'\ng: \"\\u00e9\\t\"\nh: [1, 2.5, .inf, 0x1f, ~, true]\n",
]
/** The repository's lockfile and the benchmark's (large: picked now and then). */
const large = readAll([path.join(repo, 'pnpm-lock.yaml'), ...['small', 'many', 'monorepo', 'alotta-files'].map((name) => path.join(repo, 'bench', 'fixtures', name, 'pnpm-lock.yaml'))])
/** More lockfiles from LODE_FUZZ_CORPUS (a directory searched for pnpm-lock.yaml and lock.yaml), for runs by hand. */
const corpusDir = process.env['LODE_FUZZ_CORPUS'] ?? ''
const extra = corpusDir === ''
  ? []
  : readAll(fs.readdirSync(corpusDir, { recursive: true, encoding: 'utf8' }).filter((name) => /(?:^|[/\\])(?:pnpm-lock|lock)\.yaml$/.test(name)).map((name) => path.join(corpusDir, name)))
/** Lockfiles lode wrote for generated content (odd names, quoting, literal blocks, numbers). */
// Built when first used: the generator below needs its tables.
let written: string[] | undefined
let all: string[] | undefined
const writtenLockfiles = (): string[] => written ??= Array.from({ length: 20 }, (_, i) =>
  stringifyLockfile(randomLockfile(createRandom(i))))

const MUTATE: MutateOptions = {
  tokens: [': ', ':', '- ', '-', '? ', '{', '}', '[', ']', ', ', "'", '"', '#', ' #', '&a ', '*a', '!!str ', '!!binary ', '|', '|-', '>', '%YAML 1.1\n---\n', '---\n', '...\n', '<<: ', '~', 'null', 'true', '1.5', '0x1F', '.inf', '\\u00e9', '\\x', '\\', '\\U', '\\U0010FFFF', '\\UFFFFFFFF', '\\uD800',
    '"\\UFFFFFFFF"', '"\\U0010FFFF"', '"\\uD800"', '"\\x4"', '"\\q"', '"\\_\\N\\L\\P"', "'it''s'", '-.5', '1e400'],
  get corpus () { return (all ??= [...small, ...writtenLockfiles(), ...extra]) },
  keyLine: (key) => `${key}: value`,
  nesting: [['[', ']'], ['{', '}'], ['{a: ', '}'], ['[{a: ', '}]'], ['- ', ''], ['a:\n  ', '']],
}

function lockfileText (random: Random): string {
  const base = random.chance(0.03) && large.length > 0
    ? random.pick(large)
    : random.chance(0.2) ? random.pick(writtenLockfiles()) : random.pick(extra.length > 0 && random.chance(0.5) ? extra : small)
  return random.chance(0.05) ? base : mutate(random, base, MUTATE)
}

/** Every object in `value` is a plain object or an array: no prototype was changed or borrowed. */
function assertPlain (value: unknown, at = 'the result'): void {
  if (typeof value !== 'object' || value === null) return
  const proto: unknown = Object.getPrototypeOf(value)
  assert.ok(proto === Object.prototype || proto === Array.prototype, `${at} has another prototype`)
  for (const [key, child] of Object.entries(value)) assertPlain(child, `${at}.${key}`)
}


/** The fast parser gives what the yaml library gives, or leaves the text to it. */
export const fastParser: FuzzTarget = {
  generate: lockfileText,
  check (input) {
    const text = input as string
    const fast = fastParseLockfile(text)
    // Both callers (parseLockfile, parseYaml) hand an empty result to the general parser too.
    if (fast === undefined || Object.keys(fast).length === 0) return 'left to the yaml library'
    let expected: unknown
    try {
      expected = parse(text, { ...YAML_OPTIONS, uniqueKeys: false })
    } catch (err) {
      assert.fail(`the fast parser read text that the yaml library rejects (${(err as Error).message.split('\n')[0]})`)
    }
    assert.deepStrictEqual(fast, expected)
    assertPlain(fast)
    return 'read by the fast parser'
  },
}

/** parseLockfile gives a lockfile of the declared shape or a coded error; what it gives is written and read back unchanged. */
export const reader: FuzzTarget = {
  generate: lockfileText,
  check (input) {
    let lockfile: Lockfile
    try {
      lockfile = parseLockfile(input as string, FILE).lockfile
    } catch (err) {
      return assertCoded(err, FILE)
    }
    assertPlain(lockfile)
    assertRoundTrip(lockfile)
    return 'read'
  },
}

/** Generated lockfiles (odd strings and numbers anywhere) are written so that they read back as they were. */
export const writer: FuzzTarget = {
  generate: randomLockfile,
  check (input) {
    assertRoundTrip(input as Lockfile)
    return 'round-tripped'
  },
}

function assertRoundTrip (lockfile: Lockfile): void {
  const text = stringifyLockfile(lockfile)
  let back: Lockfile
  try {
    back = parseLockfile(text, FILE).lockfile
  } catch (err) {
    assert.fail(`what stringifyLockfile wrote does not read back: ${(err as Error).message}\n${text.slice(0, 2000)}`)
  }
  assert.deepStrictEqual(back, normalizeLockfile(lockfile))
  assert.equal(stringifyLockfile(back), text, 'writing what was read back gives the same text')
}

// Strings that YAML writers and readers get wrong: indicators, look-alikes of other types, line
// breaks and spaces where they matter, escapes, non-ASCII, and a key too long to be implicit.
const ODD = [
  '', ' ', 'a b', ' lead', 'trail ', 'a: b', 'a:b', 'a #b', 'a#b', '#a', '- a', '-a', '-', '? a', '?', ': a', 'a:', "it's", "'", '"q"', 'null', 'Null', '~',
  'true', 'False', 'yes', 'on', '1', '-1', '+1', '007', '1.0', '-.5', '+.5', '.5', '1.', '1e3', '-1.5e-3', '0x1F', '0o17', '0b11', '1_000', '.inf', '-.Inf', '.nan',
  '2025-01-02', '2025-01-02T00:00:00.000Z', '<<', '=', '*a', '&a', '!a', '!!str', '%a', '@a', '`a', '|', '>', '[a]', '{a}', 'a,b', 'a, b', 'a]', 'a}',
  'tab\there', 'line\nbreak', 'line\nbreak\n', 'two\n\n', '\n', '\n\n', '\nlead', '\n lead', ' \n', 'a\n b', 'a \nb', 'cr\r', 'crlf\r\n', 'é', '😀', '\u2028', '\u0085',
  '\u00a0', '\uFEFFbom', 'a\uFEFF', '\ud800', 'a\0b', '\x7f', '\x1b', '\\', '\\n', 'k'.repeat(1100), `${'k'.repeat(1020)}: x`,
  '1.0.0', '^1.0.0', '>=18', '@scope/name', 'name@1.0.0(peer@2.0.0)', 'link:../x', 'file:x.tgz', 'sha512-abc+/=', 'http://127.0.0.1:4873/a/-/a-1.0.0.tgz',
]
const OBJECT_KEYS = ['__proto__', 'constructor', 'toString', 'hasOwnProperty']

function randomString (random: Random): string {
  if (random.chance(0.5)) return random.pick(ODD)
  let out = ''
  for (let n = 1 + random.int(3); n > 0; n--) out += random.chance(0.3) ? String.fromCodePoint(random.int(0x30000)) : random.pick(ODD)
  return out
}

const randomKey = (random: Random): string => random.chance(0.05) ? random.pick(OBJECT_KEYS) : randomString(random)

/** Sets `key` as an own property even when it is `__proto__`. */
function put (map: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(map, key, { value, enumerable: true, writable: true, configurable: true })
}

function randomMap<T> (random: Random, size: number, value: (random: Random) => T): Record<string, T> {
  const map: Record<string, T> = {}
  for (let n = random.int(size + 1); n > 0; n--) put(map, randomKey(random), value(random))
  return map
}

const NUMBERS = [0, -0, 1, -1, 100, 1.5, -2.5e-7, 5e-100, 1e21, 2 ** 53, 0.1, NaN, Infinity, -Infinity]

/** A value of a field lode does not know, kept as it was read: any YAML data. */
function randomValue (random: Random, depth = 0): unknown {
  const kind = random.int(depth > 2 ? 4 : 7)
  if (kind === 0) return randomString(random)
  if (kind === 1) return random.pick(NUMBERS)
  if (kind === 2) return random.chance(0.5)
  if (kind === 3) return null
  if (kind === 4) return Array.from({ length: random.int(4) }, () => randomValue(random, depth + 1))
  return randomMap(random, 3, (r) => randomValue(r, depth + 1))
}

/** Some of the fields of `known`, then unknown fields now and then. */
function randomEntry (random: Random, known: Record<string, (random: Random) => unknown>): Record<string, unknown> {
  const entry: Record<string, unknown> = {}
  for (const [field, value] of Object.entries(known)) if (random.chance(0.5)) put(entry, field, value(random))
  if (random.chance(0.2)) put(entry, randomKey(random), randomValue(random))
  return entry
}

const strings = (random: Random): string[] => Array.from({ length: random.int(4) }, () => randomString(random))
const dependency = (random: Random): { specifier: string, version: string } => ({
  specifier: randomString(random),
  version: randomString(random),
})

/** A lockfile of the declared shape, with odd strings and numbers in it. */
export function randomLockfile (random: Random): Lockfile {
  const importers = randomMap(random, 3, (r) => randomEntry(r, {
    dependencies: (r2) => randomMap(r2, 3, dependency),
    devDependencies: (r2) => randomMap(r2, 3, dependency),
    optionalDependencies: (r2) => randomMap(r2, 3, dependency),
    dependenciesMeta: (r2) => randomMap(r2, 2, () => ({ injected: true })),
    publishDirectory: randomString,
  }))
  const lockfile: Lockfile = { lockfileVersion: '9.0', importers }
  const sections: Record<string, (random: Random) => unknown> = {
    settings: (r) => ({
      autoInstallPeers: r.chance(0.5),
      excludeLinksFromLockfile: r.chance(0.5),
      ...(r.chance(0.3) ? { peersSuffixMaxLength: r.pick(NUMBERS) } : {}),
    }),
    catalogs: (r) => randomMap(r, 2, (r2) => randomMap(r2, 2, dependency)),
    overrides: (r) => randomMap(r, 3, randomString),
    packageExtensionsChecksum: randomString,
    patchedDependencies: (r) => randomMap(r, 2, randomString),
    ignoredOptionalDependencies: strings,
    packages: (r) => randomMap(r, 4, (r2) => ({
      resolution: r2.chance(0.8) ? { integrity: randomString(r2), ...(r2.chance(0.3) ? { tarball: randomString(r2) } : {}) } : { directory: randomString(r2), type: 'directory' },
      ...randomEntry(r2, {
        version: randomString,
        engines: (r3) => randomMap(r3, 2, randomString),
        cpu: strings,
        os: strings,
        libc: strings,
        deprecated: randomString,
        hasBin: () => true,
        peerDependencies: (r3) => randomMap(r3, 2, randomString),
        peerDependenciesMeta: (r3) => randomMap(r3, 2, () => ({ optional: true })),
      }),
    })),
    snapshots: (r) => randomMap(r, 4, (r2) => randomEntry(r2, {
      dependencies: (r3) => randomMap(r3, 3, randomString),
      optionalDependencies: (r3) => randomMap(r3, 2, randomString),
      transitivePeerDependencies: strings,
      optional: () => true,
    })),
    time: (r) => randomMap(r, 2, randomString),
  }
  for (const [section, value] of Object.entries(sections)) if (random.chance(0.5)) put(lockfile, section, value(random))
  if (random.chance(0.2)) put(lockfile, randomKey(random), randomValue(random))
  return lockfile
}
