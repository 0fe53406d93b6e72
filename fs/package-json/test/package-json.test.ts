import assert from 'node:assert/strict'
import { test } from 'node:test'

import { checkDependencyGroups, parsePackageJson } from '@lode/fs.package-json'

test('parses an object; invalid JSON names the place, line and column; a non-object is refused', () => {
  assert.deepEqual(parsePackageJson('{"name":"a"}', 'a/package.json'), { name: 'a' })
  assert.throws(() => parsePackageJson('{\n  "name": "a",\n}\n', 'a/package.json'), (err: Error & { code?: string }) => {
    assert.equal(err.code, 'ERR_LODE_INVALID_PACKAGE_JSON')
    assert.match(err.message, /^a\/package\.json is not valid JSON \(line 3, column 1\): /)
    return true
  })
  for (const text of ['[]', 'null', '"x"']) {
    assert.throws(() => parsePackageJson(text, 'b/package.json'), /b\/package\.json must contain a JSON object/)
  }
})

// Found by fuzz.test.ts.

test('fuzz finding: a package.json starting with a byte order mark reads as without it (npm and pnpm skip it)', () => {
  assert.deepEqual(parsePackageJson('\uFEFF{"name":"a","version":"1.0.0"}\n', 'a/package.json'), { name: 'a', version: '1.0.0' })
  // Only at the start: anywhere else it is not JSON.
  assert.throws(() => parsePackageJson('{"name":"a"}\uFEFF\uFEFF', 'a/package.json'), { code: 'ERR_LODE_INVALID_PACKAGE_JSON' })
})

test('fuzz finding: a name or version that is not a string, and peers that are not names to strings, are ERR_LODE_INVALID_PACKAGE_JSON naming the field', () => {
  const cases: Array<[string, string]> = [
    ['{"name": 1}', 'name'],
    ['{"version": 1.5}', 'version'],
    ['{"version": {"major": 1}}', 'version'],
    ['{"dependencies": ["a"]}', 'dependencies'],
    ['{"devDependencies": "a"}', 'devDependencies'],
    ['{"optionalDependencies": {"a": null}}', 'optionalDependencies'],
    ['{"peerDependencies": {"a": 1}}', 'peerDependencies'],
    ['{"peerDependenciesMeta": {"a": true}}', 'peerDependenciesMeta'],
  ]
  for (const [text, field] of cases) {
    assert.throws(() => checkDependencyGroups(parsePackageJson(text, 'b/package.json'), 'b/package.json'), (err: Error & { code?: string, hint?: string }) => {
      assert.equal(err.code, 'ERR_LODE_INVALID_PACKAGE_JSON')
      assert.ok(err.message.startsWith(`"${field}" in b/package.json must `), err.message)
      assert.ok(err.hint?.includes('b/package.json'))
      return true
    }, text)
  }
  checkDependencyGroups(parsePackageJson('{"name":"a","version":"1.0.0","peerDependencies":{"b":"^1"},"peerDependenciesMeta":{"b":{"optional":true}}}', 'c/package.json'), 'c/package.json')
})
