import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'
import { test } from 'node:test'

import { parse } from 'yaml'

import { fastParseLockfile } from '../src/fast-parse.js'
import { parseYaml } from '../src/yaml.js'

const repo = path.resolve(import.meta.dirname, '..', '..', '..', '..', '..')
const fixtures = path.resolve(import.meta.dirname, '..', '..', 'test', 'fixtures')

test('every lockfile pnpm wrote here reads as the general YAML parser reads it', () => {
  const files = [
    path.join(repo, 'pnpm-lock.yaml'),
    ...fs.readdirSync(path.join(repo, 'bench', 'fixtures')).map((name) => path.join(repo, 'bench', 'fixtures', name, 'pnpm-lock.yaml')),
    ...fs.readdirSync(fixtures).filter((name) => name.endsWith('.yaml')).map((name) => path.join(fixtures, name)),
  ].filter((file) => fs.existsSync(file))
  assert.ok(files.length > 20, `found ${files.length} lockfiles`)
  for (const file of files) {
    const text = fs.readFileSync(file, 'utf8')
    const fast = fastParseLockfile(text)
    assert.notEqual(fast, undefined, `${path.relative(repo, file)} is inside the subset`)
    assert.deepEqual(fast, parse(text, { uniqueKeys: false }), path.relative(repo, file))
  }
})

test('scalars: single quotes with doubled quotes, booleans, null, empty flow collections, nested flow maps', () => {
  const text = [
    "lockfileVersion: '9.0'",
    '',
    'settings:',
    '  autoInstallPeers: true',
    '  excludeLinksFromLockfile: False',
    '  peersSuffixMaxLength: 100',
    'packages:',
    "  '@scope/a@1.0.0':",
    "    resolution: {tarball: 'http://127.0.0.1:4873/a.tgz', integrity: sha512-x+y/z==}",
    "    engines: {node: '>=18'}",
    '    cpu: [x64, arm64]',
    '    os: []',
    "    deprecated: 'it''s old (use b)'",
    "    peerDependencies: {a: '*', b: ^1.0.0 || ^2.0.0}",
    '    transitivePeerDependencies:',
    '      - supports-color',
    "      - '@types/node'",
    '    react: "~0.14 ||\\_^16.0.0\\x21\\u00e9\\"q\\""',
    '    empty:',
    'snapshots: {}',
    '',
  ].join('\r\n')
  const expected: unknown = parse(text)
  assert.deepEqual(fastParseLockfile(text), expected)
  assert.equal((expected as { packages: Record<string, { deprecated: string }> }).packages['@scope/a@1.0.0']!.deprecated, "it's old (use b)")
})

test('anything outside the subset is left to the general parser', () => {
  const outside = {
    comment: 'a: 1.0.0\n# note\n',
    'trailing comment': 'a: b # note\n',
    'a map in a sequence': 'a:\n  - b: c\n',
    'a sequence at the wrong depth': 'a:\n  - b\n    - c\n',
    'an unknown escape': 'a: "b\\q"\n',
    'two documents': '---\na: b\n---\nc: d\n',
    'a multi-line plain scalar': 'a: one\n  two\n',
    'a literal block': 'a: |\n  text\n',
    'a duplicate key': 'a: b\na: c\n',
    'a float': 'a: 1.5\n',
    'a hexadecimal number': 'a: 0x1f\n',
    'a float key': '1.5: a\n',
    'odd indentation': 'a:\n  b: c\n   d: e\n',
    'a tab': 'a:\n\tb: c\n',
    'an anchor': 'a: &x b\n',
    'a colon in a plain value': 'a: b: c\n',
    '__proto__': '__proto__: a\n',
  }
  for (const [what, text] of Object.entries(outside)) {
    assert.equal(fastParseLockfile(text), undefined, what)
  }
})

test('parseYaml reads a workspace file inside the subset without the yaml library, and one with comments with it, to the same value', () => {
  const plain = 'packages:\n  - packages/*\n  - "!packages/x"\nminimumReleaseAge: 0\ncatalog:\n  react: ^18.2.0\nallowBuilds:\n  esbuild: true\n'
  assert.notEqual(fastParseLockfile(plain), undefined)
  assert.deepEqual(parseYaml(plain), parse(plain))
  assert.deepEqual(parseYaml(plain), { packages: ['packages/*', '!packages/x'], minimumReleaseAge: 0, catalog: { react: '^18.2.0' }, allowBuilds: { esbuild: true } })
  const commented = `# the projects\n${plain.replace('minimumReleaseAge: 0', 'minimumReleaseAge: 0 # no delay')}`
  assert.equal(fastParseLockfile(commented), undefined)
  assert.deepEqual(parseYaml(commented), parseYaml(plain))
  assert.equal(parseYaml(''), null)
  assert.throws(() => parseYaml('packages: [\n'), (err: Error) => err.name === 'YAMLParseError')
})

// Found by fuzz.test.ts: each input below was read otherwise than the yaml library reads it, or made the parser overflow its stack.

test('fuzz finding: a lockfile starting with a byte order mark reads as without it; a mark further on is left to the yaml library', () => {
  const text = "lockfileVersion: '9.0'\n\nimporters:\n\n  .: {}\n"
  assert.deepEqual(fastParseLockfile(`\uFEFF${text}`), parse(text))
  assert.equal(fastParseLockfile(`\uFEFF\uFEFF${text}`), undefined)
  assert.equal(fastParseLockfile(`a: b\uFEFF\n`), undefined)
})

test('fuzz finding: a CR not before a LF, a tab, and white space other than spaces are left to the yaml library', () => {
  for (const text of ['a: b\rc: d\n', 'a: 1.0.0\r', 'a: b\t\n', 'a:\tb\n', 'a: {b: \tc}\n', 'a\t: b\n']) {
    assert.equal(fastParseLockfile(text), undefined, JSON.stringify(text))
  }
  // JavaScript's trim() also removes a no-break space; YAML does not.
  for (const text of ['a: \u00a0b\u00a0\n', 'a:\n  - \u2028b\n', 'a: {b: c\u3000}\n']) {
    assert.deepEqual(fastParseLockfile(text), parse(text), JSON.stringify(text))
  }
})

test('fuzz finding: text the yaml library refuses is not read by the fast parser (an implicit key over 1024 characters, indicators, a map in a value)', () => {
  const refused = ['k'.repeat(1030) + ': v\n', `'${'k'.repeat(1030)}': v\n`, 'n: t:\n', 's:\n}:\n', 's:\n]:\n', 's:\n,:\n',
    'n: {- : h}\n', 'n: {i: H:}\n', 'n: { #: t}\n', 'n: {i #: 4}\n', 'n: {e: >}\n', 'n: [*a]\n']
  for (const text of refused) {
    assert.equal(fastParseLockfile(text), undefined, JSON.stringify(text.slice(0, 40)))
    assert.throws(() => parse(text), JSON.stringify(text.slice(0, 40)))
  }
  // The yaml library counts the lines of spaces before a key into its length.
  const spaced = `s:\n p:\n${'   \n'.repeat(400)}k:\n`
  assert.throws(() => parse(spaced))
  assert.equal(fastParseLockfile(spaced), undefined)
  // Read otherwise before: a map in a list item, a long flow key.
  assert.equal(fastParseLockfile('packages:\n - packs:\n'), undefined)
  assert.equal(fastParseLockfile(`a: {${'k'.repeat(1030)}: v}\n`), undefined)
  // A flow key's trailing spaces are not part of it.
  assert.deepEqual(fastParseLockfile('r: {integrity- - : sha, b : c}\n') ?? parse('r: {integrity- - : sha, b : c}\n'), { r: { 'integrity- -': 'sha', b: 'c' } })
})

test('found reading the code: an escape beyond Unicode (\\UFFFFFFFF) is left to the yaml library, not a RangeError', () => {
  for (const text of ['a: "\\UFFFFFFFF"\n', 'a: "\\U00110000"\n', "lockfileVersion: '9.0'\nb: {c: \"\\UFFFFFFFF\"}\n"]) {
    assert.equal(fastParseLockfile(text), undefined, text)
  }
  assert.deepEqual(fastParseLockfile('a: "\\U0010FFFF"\n'), { a: '\u{10FFFF}' })
})

test('fuzz finding: flow collections nested 20,000 deep overflow no stack', () => {
  for (const [open, close] of [['[', ']'], ['{a: ', '}'], ['[{a: ', '}]']]) {
    assert.equal(fastParseLockfile(`a: ${open!.repeat(20_000)}${close!.repeat(20_000)}\n`), undefined)
  }
})
