import assert from 'node:assert/strict'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { test } from 'node:test'

import { cpuMillis } from '@lode/__utils__.test-fixtures'
import { UnreadableLockfileError, lockfileText, parseLockfile, readLockfile, stringifyLockfile, withEnvDocument, writeLockfile, writeLockfileText } from '@lode/pkg-manager.lockfile.format'
import type { Lockfile } from '@lode/pkg-manager.lockfile.format'

const fixtures = path.join(import.meta.dirname, '..', '..', 'test', 'fixtures')

// Every fixture is a lockfile real pnpm 11 wrote: peers, aliases, tarballs, workspaces, catalogs, patches.
for (const name of fs.readdirSync(fixtures).filter((f) => f.endsWith('.yaml'))) {
  test(`round-trips pnpm's ${name} byte for byte`, () => {
    const text = fs.readFileSync(path.join(fixtures, name), 'utf8')
    const { lockfile } = parseLockfile(text, name)
    assert.equal(stringifyLockfile(lockfile), text)
  })
}

test('keys are re-sorted pnpm\'s way whatever order they come in', () => {
  const lockfile: Lockfile = {
    importers: { '.': { devDependencies: { z: { version: '1.0.0', specifier: '1' } }, dependencies: { b: { specifier: '^1', version: '1.0.0' }, '@a/x': { specifier: '*', version: '2.0.0' } } } },
    packages: {
      'b@1.0.0': { hasBin: true, engines: { node: '>=18' }, resolution: { integrity: 'sha512-x' }, peerDependencies: { q: '^1' }, deprecated: 'gone: use c' },
      '@a/x@2.0.0': { resolution: { integrity: 'sha512-y' } },
    },
    snapshots: { 'b@1.0.0': { optional: true, dependencies: { zz: '1.0.0', os: '2.0.0' } }, '@a/x@2.0.0': {} },
    settings: { autoInstallPeers: true, excludeLinksFromLockfile: false },
    lockfileVersion: '9.0',
  }
  assert.equal(stringifyLockfile(lockfile), `lockfileVersion: '9.0'

settings:
  autoInstallPeers: true
  excludeLinksFromLockfile: false

importers:

  .:
    dependencies:
      '@a/x':
        specifier: '*'
        version: 2.0.0
      b:
        specifier: ^1
        version: 1.0.0
    devDependencies:
      z:
        specifier: '1'
        version: 1.0.0

packages:

  '@a/x@2.0.0':
    resolution: {integrity: sha512-y}

  b@1.0.0:
    resolution: {integrity: sha512-x}
    engines: {node: '>=18'}
    deprecated: 'gone: use c'
    hasBin: true
    peerDependencies:
      q: ^1

snapshots:

  '@a/x@2.0.0': {}

  b@1.0.0:
    dependencies:
      os: 2.0.0
      zz: 1.0.0
    optional: true
`)
})

test('scalars are quoted as js-yaml quotes them', () => {
  const lockfile: Lockfile = {
    lockfileVersion: '9.0',
    importers: {},
    time: { 'a@1.0.0': '2025-01-02T00:00:00.000Z' },
    overrides: { a: 'true', b: '1.0', c: '~', d: 'a #b', e: 'a#b', f: 'x: y', g: 'tab\there', h: 'line\nbreak\n', i: "it's", j: '0x1F', k: '.5', l: 'yes', m: '' },
  }
  assert.equal(stringifyLockfile(lockfile), `lockfileVersion: '9.0'

overrides:
  a: 'true'
  b: '1.0'
  c: '~'
  d: 'a #b'
  e: a#b
  f: 'x: y'
  g: "tab\\there"
  h: |
    line
    break
  i: it's
  j: '0x1F'
  k: '.5'
  l: yes
  m: ''

importers: {}

time:
  a@1.0.0: '2025-01-02T00:00:00.000Z'
`)
})

test('half a conflict, broken YAML and other major versions are errors naming the file; nothing is written', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lode-lockfile-'))
  const file = path.join(dir, 'pnpm-lock.yaml')
  fs.writeFileSync(file, "lockfileVersion: '9.0'\n\nimporters:\n<<<<<<< HEAD\n  .: {}\n")
  await assert.rejects(readLockfile(dir), (err: Error & { code?: string }) => {
    assert.equal(err.code, 'ERR_LODE_LOCKFILE_MERGE_CONFLICT')
    assert.ok(err.message.includes(file))
    return true
  })
  fs.writeFileSync(file, "lockfileVersion: '5.4'\nimporters: {}\n")
  await assert.rejects(readLockfile(dir), (err: Error & { code?: string }) => {
    assert.equal(err.code, 'ERR_LODE_LOCKFILE_BREAKING_CHANGE')
    assert.equal(err.message, `Lockfile ${file} not compatible with current lode: it was generated with lockfileVersion 5.4, but lode supports lockfileVersion 9.x`)
    return true
  })
  fs.writeFileSync(file, "lockfileVersion: '9.0'\nimporters:\n  .: {\n")
  await assert.rejects(readLockfile(dir), (err) => err instanceof UnreadableLockfileError && err.code === 'ERR_LODE_BROKEN_LOCKFILE')
  // A key twice (which pnpm's YAML reader refuses; the fast reader leaves it to the general one).
  fs.writeFileSync(file, "lockfileVersion: '9.0'\n\nimporters:\n\n  .: {}\n\npackages:\n\n  a@1.0.0:\n    resolution: {integrity: sha512-a}\n    dev: false\n    resolution: {integrity: sha512-b}\n")
  await assert.rejects(readLockfile(dir), (err) => err instanceof UnreadableLockfileError && /is broken: duplicated mapping key \(resolution/.test(err.message))
  assert.equal(await readLockfile(path.join(dir, 'missing')), undefined)
})

test('writeLockfile leaves an unchanged lockfile alone', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lode-lockfile-'))
  const lockfile: Lockfile = { lockfileVersion: '9.0', settings: { autoInstallPeers: true, excludeLinksFromLockfile: false }, importers: { '.': {} } }
  assert.equal(await writeLockfile(dir, lockfile), true)
  const file = path.join(dir, 'pnpm-lock.yaml')
  const before = fs.statSync(file)
  assert.equal(await writeLockfile(dir, lockfile), false)
  assert.equal(fs.statSync(file).mtimeMs, before.mtimeMs)
  assert.equal(fs.readFileSync(file, 'utf8'), fs.readFileSync(path.join(fixtures, 'sample-empty-pnpm-lock.yaml'), 'utf8'))
  assert.deepEqual(fs.readdirSync(dir), ['pnpm-lock.yaml'])
})

test('a text serialized once (withEnvDocument) is the text writeLockfile writes, with and without the env document', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lode-lockfile-'))
  const lockfile: Lockfile = { lockfileVersion: '9.0', settings: { autoInstallPeers: true, excludeLinksFromLockfile: false }, importers: { '.': {} } }
  const envDocument = "lockfileVersion: '9.0'\n\nimporters:\n\n  .:\n    configDependencies: {}\n"
  const once = stringifyLockfile(lockfile)
  assert.equal(withEnvDocument(once, undefined), lockfileText(lockfile))
  assert.equal(withEnvDocument(once, envDocument), lockfileText(lockfile, envDocument))
  assert.ok(withEnvDocument(once, envDocument).startsWith(`---\n${envDocument}---\n`))
  // Written from the text, the file is what writeLockfile writes, and writing it again changes nothing.
  assert.equal(await writeLockfileText(dir, withEnvDocument(once, envDocument)), true)
  assert.equal(await writeLockfile(dir, lockfile, envDocument), false)
  assert.equal(parseLockfile(once, 'pnpm-lock.yaml').lockfile.lockfileVersion, '9.0')
})

// Found by fuzz.test.ts: each of these crashed (a TypeError, a RangeError, a ReferenceError) or read as something else than the file says.

test('fuzz finding: nesting thousands deep (`- - - …`, `[[[…`) is ERR_LODE_BROKEN_LOCKFILE, not a stack overflow', () => {
  for (const body of [`${'- '.repeat(20_000)}a`, `${'['.repeat(20_000)}${']'.repeat(20_000)}`, `${'{a: '.repeat(5000)}${'}'.repeat(5000)}`, `\n${Array.from({ length: 70 }, (_, i) => `${'  '.repeat(i + 1)}k:`).join('\n')} v`]) {
    assert.throws(() => parseLockfile(`lockfileVersion: '9.0'\nx: ${body}\n`, 'deep/pnpm-lock.yaml'), (err: Error & { code?: string }) => {
      assert.equal(err.code, 'ERR_LODE_BROKEN_LOCKFILE')
      assert.ok(err.message.includes('deep/pnpm-lock.yaml'))
      return true
    })
  }
})

test('fuzz finding: a line of tens of thousands of { } [ ] is refused at once (the yaml library took seconds, growing with their square)', async () => {
  for (const body of [`{b: c${'{'.repeat(40_000)}${'}'.repeat(40_000)}d}`, `\n  ${'}'.repeat(80_000)}k: x`]) {
    const ms = await cpuMillis(() => {
      assert.throws(() => parseLockfile(`lockfileVersion: '9.0'\nx: ${body}\n`, 'flow/pnpm-lock.yaml'), (err: Error & { code?: string }) => {
        assert.equal(err.code, 'ERR_LODE_BROKEN_LOCKFILE')
        assert.match(err.message, /^flow\/pnpm-lock\.yaml cannot be read: line [23] has more than 1000 of the characters/)
        return true
      })
    })
    assert.ok(ms < 500, `${ms} ms of CPU`)
  }
})

test('fuzz finding: YAML aliases (to nothing, to themselves, exponentially many) are ERR_LODE_BROKEN_LOCKFILE', () => {
  const bomb = 'a: &a [x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]\nc: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]\nd: [*c, *c, *c, *c, *c, *c, *c, *c, *c]\n'
  for (const body of ['x: *nothing\n', 'x: &self [*self]\n', 'x: &self {a: *self}\n', bomb]) {
    assert.throws(() => parseLockfile(`lockfileVersion: '9.0'\n${body}`, 'alias/pnpm-lock.yaml'), (err: Error & { code?: string }) => {
      assert.equal(err.code, 'ERR_LODE_BROKEN_LOCKFILE')
      assert.match(err.message, /alias/)
      return true
    })
  }
})

test('fuzz finding: tags and a %YAML 1.1 directive give no dates, binaries or sets: the core schema\'s strings', () => {
  const { lockfile } = parseLockfile("%YAML 1.1\n---\nlockfileVersion: '9.0'\ntime:\n  a@1.0.0: 2001-12-14\nx: !!binary aGk=\ny: !!set {a}\n", 'tags/pnpm-lock.yaml')
  assert.deepEqual({ time: lockfile.time, x: lockfile['x'], y: lockfile['y'] }, { time: { 'a@1.0.0': '2001-12-14' }, x: 'aGk=', y: { a: null } })
})

test('fuzz finding: entries of another type than pnpm writes are ERR_LODE_BROKEN_LOCKFILE naming where', () => {
  const head = "lockfileVersion: '9.0'\n"
  const cases: Array<[string, string]> = [
    ['importers:\n  .:\n    dependencies:\n      a:\n        specifier: ^1\n        version: 1\n', 'importers["."].dependencies.a.version is not a string'],
    ['importers:\n  .: null\n', 'importers["."] is not a map'],
    ['importers:\n  .:\n    dependencies:\n      a: 1.0.0\n', 'importers["."].dependencies.a is not a map'],
    ['packages:\n  a@1.0.0:\n    version: 1.0.0\n', 'packages["a@1.0.0"].resolution is missing'],
    ['packages:\n  a@1.0.0:\n    resolution: sha512-x\n', 'packages["a@1.0.0"].resolution is not a map'],
    ['snapshots:\n  a@1.0.0:\n    dependencies: [b]\n', 'snapshots["a@1.0.0"].dependencies is not a map'],
    ['ignoredOptionalDependencies:\n  a: b\n', 'ignoredOptionalDependencies is not a list'],
    ['packages:\n  a@1.0.0:\n    resolution: {integrity: sha512-x}\n    libc: [1]\n', 'packages["a@1.0.0"].libc[0] is not a string'],
    ['settings:\n  autoInstallPeers: yes\n', 'settings.autoInstallPeers is not true or false'],
  ]
  for (const [body, where] of cases) {
    assert.throws(() => parseLockfile(head + body, 'shape/pnpm-lock.yaml'), (err: Error & { code?: string }) => {
      assert.equal(err.code, 'ERR_LODE_BROKEN_LOCKFILE')
      assert.equal(err.message, `shape/pnpm-lock.yaml is malformed: ${where}.`)
      return true
    }, body)
  }
})

test('fuzz finding: a __proto__ key is kept as a key, never made the prototype of what is written', () => {
  const { lockfile } = parseLockfile("lockfileVersion: '9.0'\nsnapshots:\n  a@1.0.0:\n    __proto__: {dependencies: {b: 1.0.0}}\n    optional: true\n", 'proto/pnpm-lock.yaml')
  const written = stringifyLockfile(lockfile)
  assert.match(written, /__proto__:/)
  const again = parseLockfile(written, 'proto/pnpm-lock.yaml').lockfile
  assert.equal(Object.getPrototypeOf(again.snapshots!['a@1.0.0']), Object.prototype)
  assert.deepEqual(again, lockfile)
})

test('fuzz finding: strings and numbers are written so that they read back the same', () => {
  const odd = ['+.5', '-.5e3', ' \n', '\n \n', 'a\n\n', '\n', '\n lead', 'two\n\n\n', '\n leadtwo\n\n ', 'a\n  \nb']
  const lockfile: Lockfile = {
    lockfileVersion: '9.0',
    importers: {},
    overrides: Object.fromEntries(odd.map((value, i) => [`o${i}`, value])),
    snapshots: { 'a@1.0.0': { list: [{}, [], 'x'], numbers: [NaN, Infinity, -Infinity, -0, 5e-100, 1e21, 0.1], flow: { engines: { ['k'.repeat(1100)]: 'x' } } } },
  }
  const written = stringifyLockfile(lockfile)
  assert.deepEqual(parseLockfile(written, 'odd/pnpm-lock.yaml').lockfile, lockfile)
  assert.match(written, /numbers:\n {6}- \.nan\n {6}- \.inf\n {6}- -\.inf\n {6}- -0\.0\n {6}- 5\.e-100\n {6}- 1e\+21\n {6}- 0\.1\n/)
})

test('fuzz finding: a lockfile that is a directory is ERR_LODE_EISDIR naming it', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lode-lockfile-'))
  fs.mkdirSync(path.join(dir, 'pnpm-lock.yaml'))
  await assert.rejects(readLockfile(dir), (err: Error & { code?: string }) => {
    assert.equal(err.code, 'ERR_LODE_EISDIR')
    assert.ok(err.message.includes(path.join(dir, 'pnpm-lock.yaml')))
    return true
  })
})

test('a platform list with null (`libc: [null]`, as pnpm writes a registry\'s null) is read, and written back as it was', () => {
  const text = "lockfileVersion: '9.0'\n\nsettings:\n  autoInstallPeers: true\n  excludeLinksFromLockfile: false\n\nimporters:\n\n  .:\n    dependencies:\n      a:\n        specifier: 1.0.0\n        version: 1.0.0\n\npackages:\n\n  a@1.0.0:\n    resolution: {integrity: sha512-x}\n    cpu: [arm64]\n    os: [win32]\n    libc: [null]\n\nsnapshots:\n\n  a@1.0.0: {}\n"
  const { lockfile } = parseLockfile(text, 'null-libc/pnpm-lock.yaml')
  assert.deepEqual(lockfile.packages?.['a@1.0.0']?.libc, [null])
  assert.equal(stringifyLockfile(lockfile), text)
})
