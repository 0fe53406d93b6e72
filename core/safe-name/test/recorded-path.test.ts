import assert from 'node:assert/strict'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { test } from 'node:test'

import { hasRealParents, joinRecorded, parseModulesLocation, recordedSegments } from '@lode/core.safe-name'

const FORGED = ['', '.', '..', '../x', 'a/../../x', 'a/./b', 'a//b', '/abs', 'a/', 'C:\\x', 'C:/x', '\\\\host\\share', 'a\0b', 42, undefined, null, ['a'], { a: 1 }]

test('recordedSegments: ordinary relative paths pass; anything that climbs, is absolute or holds an empty, . or .. segment is refused', () => {
  assert.deepEqual(recordedSegments('node_modules/a'), ['node_modules', 'a'])
  assert.deepEqual(recordedSegments('packages/p/node_modules/@s/b'), ['packages', 'p', 'node_modules', '@s', 'b'])
  assert.deepEqual(recordedSegments('.pnpm'), ['.pnpm'])
  for (const forged of FORGED) assert.equal(recordedSegments(forged), undefined, JSON.stringify(forged))
})

test('joinRecorded: joins only what recordedSegments passes', () => {
  const root = path.join(path.sep, 'p')
  assert.equal(joinRecorded(root, 'node_modules/a'), path.join(root, 'node_modules', 'a'))
  for (const forged of FORGED) assert.equal(joinRecorded(root, forged), undefined, JSON.stringify(forged))
})

test('parseModulesLocation: a project and the chain of package names under node_modules, or undefined', () => {
  assert.deepEqual(parseModulesLocation('node_modules/a'), { project: '', names: ['a'] })
  assert.deepEqual(parseModulesLocation('node_modules/a/node_modules/@s/b'), { project: '', names: ['a', '@s/b'] })
  assert.deepEqual(parseModulesLocation('packages/p/node_modules/@s/b/node_modules/c'), { project: 'packages/p', names: ['@s/b', 'c'] })
  const refused = [
    ...FORGED, '../../outside/x', 'node_modules/../../outside', 'node_modules', 'node_modules/@s', 'node_modules/a/b', 'node_modules/a/node_modules',
    'node_modules/.bin', 'node_modules/.pnpm', 'node_modules/a/node_modules/..', 'outside', 'node_modules/@s/../x', 'node_modules/node_modules',
  ]
  for (const location of refused) assert.equal(parseModulesLocation(location), undefined, JSON.stringify(location))
})

test('hasRealParents: false when a directory between the root and the target is a symlink or a file, true when all are directories or absent', () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'lode-safe-name-'))
  try {
    const outside = fs.mkdtempSync(path.join(os.tmpdir(), 'lode-safe-name-outside-'))
    fs.mkdirSync(path.join(root, 'node_modules', 'a', 'node_modules'), { recursive: true })
    fs.symlinkSync(outside, path.join(root, 'node_modules', 'evil'))
    fs.writeFileSync(path.join(root, 'node_modules', 'file'), '')
    assert.equal(hasRealParents(root, path.join(root, 'node_modules', 'a', 'node_modules', 'b')), true)
    assert.equal(hasRealParents(root, path.join(root, 'node_modules', 'missing', 'node_modules', 'b')), true)
    // The target itself may be a symlink (removing a symlink removes only the link).
    assert.equal(hasRealParents(root, path.join(root, 'node_modules', 'evil')), true)
    assert.equal(hasRealParents(root, path.join(root, 'node_modules', 'evil', 'node_modules', 'b')), false)
    assert.equal(hasRealParents(root, path.join(root, 'node_modules', 'file', 'x')), false)
    assert.equal(hasRealParents(root, path.join(root, '..', 'x')), false)
    assert.equal(hasRealParents(root, root), false)
    fs.rmSync(outside, { recursive: true })
  } finally {
    fs.rmSync(root, { recursive: true, force: true })
  }
})
