import assert from 'node:assert/strict'
import { test } from 'node:test'

import type { Lockfile } from '@lode/pkg-manager.lockfile.format'

import { dedupeCheck } from '../src/dedupe-check.js'

const dep = (version: string): { specifier: string, version: string } => ({ specifier: '^1.0.0', version })

const before: Lockfile = {
  lockfileVersion: '9.0',
  importers: {
    '.': { dependencies: { a: dep('1.0.0'), b: dep('1.1.0') } },
    'packages/x': { dependencies: { b: dep('1.0.0') } },
  },
  snapshots: {
    'a@1.0.0': { dependencies: { b: '1.0.0' } },
    'b@1.0.0': {},
    'b@1.1.0': {},
  },
}

test('dedupe --check: the same lockfile passes', () => {
  assert.doesNotThrow(() => { dedupeCheck(before, structuredClone(before)) })
})

test('dedupe --check: changed projects and packages are listed as pnpm lists them (trees of changed dependencies, then + and -; the CLI\'s dedupe.test.ts compares it with pnpm 11)', () => {
  const after: Lockfile = {
    ...before,
    importers: {
      '.': { dependencies: { a: dep('1.0.0'), b: dep('1.1.0') } },
      'packages/x': { dependencies: { b: dep('1.1.0') } },
    },
    snapshots: {
      'a@1.0.0': { dependencies: { b: '1.1.0' } },
      'b@1.1.0': {},
    },
  }
  assert.throws(() => { dedupeCheck(before, after) }, (err: Error & { code?: string, hint?: string }) => {
    assert.equal(err.code, 'ERR_LODE_DEDUPE_CHECK_ISSUES')
    assert.equal(err.hint, [
      'Importers',
      'packages/x',
      '└── b 1.0.0 → 1.1.0',
      '',
      '',
      'Packages',
      'a@1.0.0',
      '└── b 1.0.0 → 1.1.0',
      '',
      '- b@1.0.0',
      '',
      'Run lode dedupe to apply the changes above.',
      '',
    ].join('\n'))
    return true
  })
})

test('dedupe --check: a dependency added or removed in a project is marked + or -; no lockfile before counts every project as added', () => {
  const after: Lockfile = { ...before, importers: { ...before.importers, '.': { dependencies: { a: dep('1.0.0'), c: dep('1.0.0') } } } }
  assert.throws(() => { dedupeCheck(before, after) }, (err: Error & { hint?: string }) => {
    assert.match(err.hint ?? '', /^Importers\n\.\n├── - b 1\.1\.0\n└── \+ c 1\.0\.0\n/)
    return true
  })
  assert.throws(() => { dedupeCheck(undefined, before) }, (err: Error & { hint?: string }) => {
    assert.match(err.hint ?? '', /^Importers\n\+ \.\n\+ packages\/x\n/)
    return true
  })
})
