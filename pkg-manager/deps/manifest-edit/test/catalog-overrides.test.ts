import assert from 'node:assert/strict'
import { test } from 'node:test'

import { followCatalogOverrides } from '../src/catalog-overrides.js'

test('followCatalogOverrides: a catalog: override records the range its entry moved to; others stay', () => {
  const locked = { 'foo': '^1.0.0', 'bar': '^2.0.0', 'qar@1': '1.0.0', 'parent>baz': '^3.0.0', '@scope/qux@^1': '^1.0.0' }
  const settings = { 'foo': 'catalog:', 'bar': 'catalog:', 'qar@1': '1.0.0', 'parent>baz': 'catalog:named', '@scope/qux@^1': 'catalog:' }
  const moved = { default: { 'foo': '^1.2.0', '@scope/qux': '^1.5.0' }, named: { baz: '^3.1.0' } }
  assert.deepEqual(followCatalogOverrides(locked, moved, settings), {
    'foo': '^1.2.0',
    'bar': '^2.0.0',
    'qar@1': '1.0.0',
    'parent>baz': '^3.1.0',
    '@scope/qux@^1': '^1.5.0',
  })
  assert.deepEqual(locked.foo, '^1.0.0', 'the lockfile\'s overrides read are left as they were')
})

test('followCatalogOverrides: a selector the lockfile lacks is not added; a name like __proto__ stays a key', () => {
  assert.deepEqual(followCatalogOverrides({}, { default: { foo: '^1.2.0' } }, { foo: 'catalog:' }), {})
  const locked = JSON.parse('{"__proto__":"^1.0.0"}') as Record<string, string>
  const result = followCatalogOverrides(locked, JSON.parse('{"default":{"__proto__":"^1.1.0"}}') as Record<string, Record<string, string>>, JSON.parse('{"__proto__":"catalog:"}') as Record<string, string>)
  assert.equal(Object.getOwnPropertyDescriptor(result, '__proto__')?.value, '^1.1.0')
  assert.equal(Object.getPrototypeOf(result), Object.prototype)
})
