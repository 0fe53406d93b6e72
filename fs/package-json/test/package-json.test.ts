import assert from 'node:assert/strict'
import { test } from 'node:test'

import { parsePackageJson } from '@lode/fs.package-json'

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
