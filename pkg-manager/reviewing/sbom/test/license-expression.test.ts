import assert from 'node:assert/strict'
import { test } from 'node:test'

import { cycloneDxLicense, isPlainSpdxLicense } from '../src/license-expression.js'

test('cycloneDxLicense: an SPDX id in any case, an expression as written, anything else a name (pnpm 11\'s)', () => {
  assert.deepEqual(cycloneDxLicense('MIT'), { license: { id: 'MIT' } })
  assert.deepEqual(cycloneDxLicense(' apache-2.0 '), { license: { id: 'Apache-2.0' } })
  assert.deepEqual(cycloneDxLicense('(MIT OR Apache-2.0)'), { expression: '(MIT OR Apache-2.0)' })
  assert.deepEqual(cycloneDxLicense('mit AND isc'), { expression: 'mit AND isc' })
  assert.deepEqual(cycloneDxLicense('GPL-2.0-or-later WITH Classpath-exception-2.0'), { expression: 'GPL-2.0-or-later WITH Classpath-exception-2.0' })
  assert.deepEqual(cycloneDxLicense('MIT or ISC'), { license: { name: 'MIT or ISC' } }, 'an operator in lower case is no expression')
  assert.deepEqual(cycloneDxLicense('Apache-2.0+'), { expression: 'Apache-2.0+' })
  assert.deepEqual(cycloneDxLicense('SEE LICENSE IN LICENSE.md'), { license: { name: 'SEE LICENSE IN LICENSE.md' } })
  assert.deepEqual(cycloneDxLicense('Custom-Foo'), { license: { name: 'Custom-Foo' } })
})

test('isPlainSpdxLicense: the ids pnpm takes from a license file, joined by OR', () => {
  assert.equal(isPlainSpdxLicense('MIT'), true)
  assert.equal(isPlainSpdxLicense('(MIT OR ISC)'), true)
  assert.equal(isPlainSpdxLicense('BSD'), false)
  assert.equal(isPlainSpdxLicense('MIT AND ISC'), false)
  assert.equal(isPlainSpdxLicense(''), false)
})
