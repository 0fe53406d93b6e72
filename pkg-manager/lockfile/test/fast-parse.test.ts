import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'
import { test } from 'node:test'

import { parse } from 'yaml'

import { fastParseLockfile } from '../src/fast-parse.js'
import { parseYaml } from '../src/yaml.js'

const repo = path.resolve(import.meta.dirname, '..', '..', '..', '..')
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
