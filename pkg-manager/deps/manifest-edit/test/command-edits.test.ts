import assert from 'node:assert/strict'
import { test } from 'node:test'

import { addEdits, removeEdits, updateEdits } from '@lode/pkg-manager.deps.manifest-edit'

const targets = [{ importerId: '.', dir: '/p', manifest: { dependencies: { dep: '^1.0.0' } } }]
const opts = { latest: false, savePrefix: '^' }

test('updateEdits: name@spec with --latest is ERR_LODE_LATEST_WITH_SPEC naming the specs, control characters escaped', () => {
  assert.throws(() => updateEdits(targets, ['dep@latest', 'x@\u001b[2J1'], { ...opts, latest: true }), (error: Error & { code?: string }) => {
    assert.equal(error.code, 'ERR_LODE_LATEST_WITH_SPEC')
    assert.match(error.message, /\(dep@latest, x@\\u001b\[2J1\)$/)
    return true
  })
})

test('updateEdits: a version for a name no project depends on is ERR_LODE_UPDATE_VERSION_ON_INDIRECT_DEP; a tag is not', () => {
  assert.throws(() => updateEdits(targets, ['deep@2.0.0\n[fake] line'], opts), (error: Error & { code?: string, hint?: string }) => {
    assert.equal(error.code, 'ERR_LODE_UPDATE_VERSION_ON_INDIRECT_DEP')
    assert.equal(error.message, '"deep" (requested "2.0.0\\n[fake] line") is not a direct dependency, so the requested version cannot be recorded.')
    assert.doesNotMatch(`${error.message}${error.hint ?? ''}`, /\n/)
    return true
  })
  assert.equal(updateEdits(targets, ['deep@latest'], opts).length, 1)
})

test('removeEdits: a name no project has is ERR_LODE_CANNOT_REMOVE_MISSING_DEPS, escaped', () => {
  assert.throws(() => removeEdits(targets, ['gone\r'], '^'), (error: Error & { code?: string }) => {
    assert.equal(error.code, 'ERR_LODE_CANNOT_REMOVE_MISSING_DEPS')
    assert.match(error.message, /^Cannot remove 'gone\\r': no such dependency/)
    return true
  })
  assert.deepEqual(removeEdits(targets, ['dep'], '^')[0]!.remove, ['dep'])
})

test('addEdits: the default catalog\'s spec, or none, saves catalog:; under strict a named catalog the project uses keeps its reference', () => {
  const catalogs = { default: { dep: '1.0.0' }, tools: { foo: '^1.0.0' } }
  const specsOf = (edits: ReturnType<typeof addEdits>): Array<string | undefined> => edits[0]!.dependencies.map((dep) => dep.bareSpecifier)
  const base = { exact: false, peer: false, savePrefix: '^', catalogs }
  assert.deepEqual(specsOf(addEdits([{ importerId: '.' }], ['dep', 'dep@1.0.0', 'dep@2.0.0'], base)), ['catalog:', 'catalog:', '2.0.0'])
  const uses = [{ importerId: '.', manifest: { dependencies: { foo: 'catalog:tools' } } }]
  assert.deepEqual(specsOf(addEdits(uses, ['foo@1.2.0'], { ...base, catalogMode: 'strict' })), ['catalog:tools'])
  // Manual mode, or a version the named catalog does not cover: as asked.
  assert.deepEqual(specsOf(addEdits(uses, ['foo@1.2.0'], base)), ['1.2.0'])
  assert.deepEqual(specsOf(addEdits(uses, ['foo@2.0.0'], { ...base, catalogMode: 'strict' })), ['2.0.0'])
})
