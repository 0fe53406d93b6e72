import assert from 'node:assert/strict'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { test } from 'node:test'

import { readImportedVersions } from '@lode/pkg-manager.lockfile.import'

function withLockfile (lock: unknown, check: (dir: string) => void): void {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lode-import-'))
  try {
    fs.writeFileSync(path.join(dir, 'package-lock.json'), typeof lock === 'string' ? lock : JSON.stringify(lock))
    check(dir)
  } finally {
    fs.rmSync(dir, { recursive: true, force: true })
  }
}

test('readImportedVersions: package-lock.json v1 and v3 trees, versions and ranges in the file\'s order, entries that are not objects skipped', () => {
  withLockfile({
    lockfileVersion: 1,
    dependencies: { a: { version: '1.0.0', dependencies: { b: { version: '2.0.0' }, c: null } }, b: { version: '1.0.0' }, d: 'garbage' },
  }, (dir) => {
    assert.deepEqual([...readImportedVersions(dir)].map(([name, versions]) => [name, [...versions]]), [['a', ['1.0.0']], ['b', ['2.0.0', '1.0.0']], ['c', []], ['d', []]])
  })
  withLockfile({
    lockfileVersion: 3,
    packages: { '': { dependencies: { a: '^1.0.0' } }, 'node_modules/a': { version: '1.2.0', dependencies: { b: '^2.0.0' } }, 'node_modules/a/node_modules/b': { version: '2.1.0' } },
  }, (dir) => {
    const versions = readImportedVersions(dir)
    assert.deepEqual([...versions.get('a')!], ['^1.0.0', '1.2.0'])
    assert.deepEqual([...versions.get('b')!], ['^2.0.0', '2.1.0'])
  })
})

test('readImportedVersions: a v1 tree 20,000 levels deep is read without recursion', () => {
  const n = 20_000
  // Written as text: JSON.stringify itself runs out of stack at such a depth.
  let tree = `{"version":"1.0.${n - 1}"}`
  for (let i = n - 2; i >= 0; i--) tree = `{"version":"1.0.${i}","dependencies":{"p${i + 1}":${tree}}}`
  withLockfile(`{"lockfileVersion":1,"dependencies":{"p0":${tree}}}`, (dir) => {
    const versions = readImportedVersions(dir)
    assert.equal(versions.size, n)
    assert.deepEqual([...versions.get(`p${n - 1}`)!], [`1.0.${n - 1}`])
  })
})
