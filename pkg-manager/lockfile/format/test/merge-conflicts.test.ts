import assert from 'node:assert/strict'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { test } from 'node:test'

import { conflictSides, mergeLockfiles, readInstalledLockfile, readLockfile } from '@lode/pkg-manager.lockfile.format'
import type { Lockfile } from '@lode/pkg-manager.lockfile.format'

import { mergeVersions } from '../src/merge-conflicts.js'

test('conflictSides: lines outside the conflicts go to both sides, a diff3 base to neither; half a conflict is not one', () => {
  const text = 'top\n<<<<<<< HEAD\nours\n||||||| base\nold\n=======\ntheirs\n>>>>>>> branch\nbottom\n'
  assert.deepEqual(conflictSides(text), { ours: 'top\nours\nbottom\n', theirs: 'top\ntheirs\nbottom\n' })
  assert.deepEqual(conflictSides('a\r\n<<<<<<< HEAD\r\nb\r\n=======\r\nc\r\n>>>>>>> x\r\n'), { ours: 'a\nb\n', theirs: 'a\nc\n' })
  assert.equal(conflictSides('a\n<<<<<<< HEAD\nb\n'), undefined)
  assert.equal(conflictSides('a\n<<<<<<< HEAD\nb\n========\nc\n>>>>>>> x\n'), undefined)
})

test('mergeVersions takes the higher version, peer suffixes aside, and theirs when either is not a version', () => {
  assert.equal(mergeVersions('1.2.0', '1.10.0'), '1.10.0')
  assert.equal(mergeVersions('2.0.0(react@18.0.0)', '1.0.0(react@19.0.0)'), '2.0.0(react@18.0.0)')
  assert.equal(mergeVersions('1.0.0', 'link:../x'), 'link:../x')
  assert.equal(mergeVersions('link:../x', '1.0.0'), '1.0.0')
  assert.equal(mergeVersions('same', 'same'), 'same')
})

const ours: Lockfile = {
  lockfileVersion: '9.0',
  settings: { autoInstallPeers: true, excludeLinksFromLockfile: false, dedupePeers: true },
  overrides: { a: '1' },
  importers: {
    '.': {
      dependencies: { kept: { specifier: '^1.0.0', version: '1.0.0' }, both: { specifier: '1.1.0', version: '1.1.0' } },
      dependenciesMeta: { kept: { injected: true } },
    },
    'packages/ours': { devDependencies: { x: { specifier: '1.0.0', version: '1.0.0' } } },
  },
  packages: { 'kept@1.0.0': { resolution: { integrity: 'sha512-k' } }, 'both@1.1.0': { resolution: { integrity: 'sha512-b1' } } },
  snapshots: { 'kept@1.0.0': { dependencies: { dep: '1.0.0' } }, 'both@1.1.0': {} },
  ours: 'foreign, ours',
}

const theirs: Lockfile = {
  lockfileVersion: '9.0',
  settings: { autoInstallPeers: false, excludeLinksFromLockfile: false, injectWorkspacePackages: true },
  overrides: { a: '2', b: '1' },
  importers: {
    '.': { dependencies: { added: { specifier: '2.0.0', version: '2.0.0' }, both: { specifier: '1.2.0', version: '1.2.0' } } },
  },
  packages: { 'added@2.0.0': { resolution: { integrity: 'sha512-a' } }, 'both@1.2.0': { resolution: { integrity: 'sha512-b2' } } },
  snapshots: { 'kept@1.0.0': { dependencies: { dep: '1.1.0', other: '1.0.0' } }, 'added@2.0.0': {}, 'both@1.2.0': {} },
  ours: 'foreign, theirs',
  theirs: 'foreign',
}

test('mergeLockfiles keeps everything of either side; where both resolved a dependency, their specifier and the higher version', () => {
  const merged = mergeLockfiles(ours, theirs)
  assert.deepEqual(merged.importers, {
    '.': {
      dependencies: {
        kept: { specifier: '^1.0.0', version: '1.0.0' },
        both: { specifier: '1.2.0', version: '1.2.0' },
        added: { specifier: '2.0.0', version: '2.0.0' },
      },
      dependenciesMeta: { kept: { injected: true } },
    },
    'packages/ours': { devDependencies: { x: { specifier: '1.0.0', version: '1.0.0' } } },
  })
  assert.deepEqual(Object.keys(merged.packages ?? {}).sort(), ['added@2.0.0', 'both@1.1.0', 'both@1.2.0', 'kept@1.0.0'])
  assert.deepEqual(merged.snapshots?.['kept@1.0.0'], { dependencies: { dep: '1.1.0', other: '1.0.0' } })
  // Flags either side set; the peer settings ours first.
  assert.deepEqual(merged.settings, {
    autoInstallPeers: true, excludeLinksFromLockfile: false, injectWorkspacePackages: true, dedupePeers: true,
  })
  assert.deepEqual(merged.overrides, { a: '2', b: '1' })
  assert.equal(merged['ours'], 'foreign, ours')
  assert.equal(merged['theirs'], 'foreign')
})

test('a key named __proto__ in either side stays a plain key of the merge', () => {
  const hostile = JSON.parse('{"lockfileVersion":"9.0","importers":{"__proto__":{"dependencies":{"__proto__":{"specifier":"1","version":"1.0.0"}}}},'
    + '"snapshots":{"__proto__":{"dependencies":{"__proto__":"1.0.0"}}}}') as Lockfile
  const merged = mergeLockfiles(hostile, hostile)
  assert.equal(Object.getPrototypeOf(merged.importers), Object.prototype)
  assert.ok(Object.hasOwn(merged.importers, '__proto__'))
  assert.ok(Object.hasOwn(merged.snapshots!, '__proto__'))
  assert.equal(({} as Record<string, unknown>)['dependencies'], undefined)
})

test('readLockfile merges a conflicted pnpm-lock.yaml (each side checked as a lockfile); the installed lockfile with markers is an error', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lode-merge-'))
  const text = [
    "lockfileVersion: '9.0'",
    '',
    'importers:',
    '',
    '  .:',
    '    dependencies:',
    '<<<<<<< HEAD',
    '      a:',
    '        specifier: ^1.0.0',
    '        version: 1.0.0',
    '=======',
    '      b:',
    '        specifier: ^2.0.0',
    '        version: 2.0.0',
    '>>>>>>> other',
    '',
  ].join('\n')
  fs.writeFileSync(path.join(dir, 'pnpm-lock.yaml'), text)
  const read = await readLockfile(dir)
  assert.equal(read?.mergedConflicts, true)
  assert.equal(read.text, text)
  assert.deepEqual(Object.keys(read.lockfile.importers['.']?.dependencies ?? {}), ['a', 'b'])

  fs.mkdirSync(path.join(dir, 'node_modules', '.pnpm'), { recursive: true })
  fs.writeFileSync(path.join(dir, 'node_modules', '.pnpm', 'lock.yaml'), text)
  await assert.rejects(readInstalledLockfile(dir), { code: 'ERR_LODE_LOCKFILE_MERGE_CONFLICT' })
})
