import assert from 'node:assert/strict'
import path from 'node:path'
import { describe, test } from 'node:test'

import {
  createPackageExtender,
  createReadPackageHooks,
  createVersionsOverrider,
  overridesMap,
  packageExtensionsChecksum,
  parseOverrides,
  replaceVersionReferences,
} from '@lode/pkg-manager.deps.read-package-hook'
import type { HookedManifest } from '@lode/pkg-manager.deps.read-package-hook'

describe('overrides', () => {
  test('selectors: plain, ranged, parent>child with ranges, convergence', () => {
    const parsed = parseOverrides({ ' foo ': '1.0.0', 'foo@^1': '1.1.0', 'bar@1>foo@<2': '2.0.0', '@s/x@': '3.0.0' })
    assert.deepEqual(parsed.map((o) => [o.selector, o.targetPkg, o.parentPkg, o.converge]), [
      ['foo', { name: 'foo', range: undefined }, undefined, undefined],
      ['foo@^1', { name: 'foo', range: '^1' }, undefined, undefined],
      ['bar@1>foo@<2', { name: 'foo', range: '<2' }, { name: 'bar', range: '1' }, undefined],
      ['@s/x@', { name: '@s/x', range: '' }, undefined, true],
    ])
    assert.deepEqual(overridesMap(parsed), { foo: '1.0.0', 'foo@^1': '1.1.0', 'bar@1>foo@<2': '2.0.0', '@s/x@': '3.0.0' })
  })

  test('bad selectors and convergence values are errors naming the selector', () => {
    assert.throws(() => parseOverrides({ '>>': '1' }), { code: 'ERR_LODE_INVALID_SELECTOR', message: /">>"/ })
    assert.throws(() => parseOverrides({ 'foo@': '^1' }), { code: 'ERR_LODE_INVALID_CONVERGENCE_OVERRIDE', message: /foo@/ })
    assert.throws(() => parseOverrides({ 'bar>foo@': '1.0.0' }), { code: 'ERR_LODE_INVALID_CONVERGENCE_OVERRIDE' })
  })

  test('the parent\'s own overrides win, then the most specific range; the input is not changed', () => {
    const override = createVersionsOverrider(parseOverrides({ foo: '9.0.0', 'foo@^1': '1.5.0', 'bar>foo': '2.0.0', 'qux@^2>foo': '3.0.0' }), '/root')
    const bar = { name: 'bar', version: '1.0.0', dependencies: { foo: '^1.0.0' } }
    assert.deepEqual(override(bar).dependencies, { foo: '2.0.0' })
    assert.deepEqual(bar.dependencies, { foo: '^1.0.0' }, 'not mutated')
    assert.deepEqual(override({ name: 'x', version: '1.0.0', dependencies: { foo: '^1.2.0' } }).dependencies, { foo: '1.5.0' })
    assert.deepEqual(override({ name: 'x', version: '1.0.0', dependencies: { foo: '^3.0.0' } }).dependencies, { foo: '9.0.0' })
    assert.deepEqual(override({ name: 'qux', version: '1.0.0', dependencies: { foo: '^3.0.0' } }).dependencies, { foo: '9.0.0' }, 'parent range not satisfied')
  })

  test('"-" removes dependencies and peers (meta-only peers too); peers keep a valid range in place', () => {
    const override = createVersionsOverrider(parseOverrides({ foo: '-', host: '^3.0.0', opt: '-' }), '/root')
    const out = override({
      name: 'p',
      version: '1.0.0',
      dependencies: { foo: '1', keep: '1' },
      peerDependencies: { foo: '*', host: '^2.0.0' },
      peerDependenciesMeta: { foo: { optional: true }, opt: { optional: true } },
    })
    assert.deepEqual(out.dependencies, { keep: '1' })
    assert.deepEqual(out.peerDependencies, { host: '^3.0.0' })
    assert.deepEqual(out.peerDependenciesMeta, {})
  })

  test('convergence replaces every range the version satisfies', () => {
    const override = createVersionsOverrider(parseOverrides({ 'foo@': '1.2.3' }), '/root')
    assert.deepEqual(override({ name: 'x', dependencies: { foo: '^1.0.0' } }).dependencies, { foo: '1.2.3' })
    assert.deepEqual(override({ name: 'x', dependencies: { foo: '^2.0.0' } }).dependencies, { foo: '^2.0.0' })
  })

  test('local overrides point from the project that declares the dependency, absolute for packages', () => {
    const root = path.resolve('/work/space')
    const override = createVersionsOverrider(parseOverrides({ foo: 'file:./vendor/foo', bar: 'link:../shared/bar' }), root)
    assert.deepEqual(override({ name: 'app', dependencies: { foo: '1', bar: '1' } }, path.join(root, 'packages', 'app')).dependencies, { foo: 'file:../../vendor/foo', bar: 'link:../../../shared/bar' })
    assert.deepEqual(override({ name: 'dep', dependencies: { foo: '1' } }).dependencies, { foo: `file:${path.join(root, 'vendor', 'foo')}` })
  })

  test('$name takes the root project\'s specifier, or is an error naming it', () => {
    assert.deepEqual(replaceVersionReferences({ foo: '$foo', bar: '2' }, { dependencies: { foo: '^1.0.0' } }), { foo: '^1.0.0', bar: '2' })
    assert.throws(() => replaceVersionReferences({ foo: '$nope' }, {}), { code: 'ERR_LODE_CANNOT_RESOLVE_OVERRIDE_VERSION', message: /"nope"/ })
  })
})

describe('package extensions', () => {
  test('fields are added under the package\'s own, for matching versions only', () => {
    const extend = createPackageExtender({ 'foo@^1': { dependencies: { a: '1', b: '1' }, peerDependenciesMeta: { c: { optional: true } } } })
    const foo = { name: 'foo', version: '1.2.0', dependencies: { b: '2' } }
    assert.deepEqual(extend(foo), { name: 'foo', version: '1.2.0', dependencies: { a: '1', b: '2' }, peerDependenciesMeta: { c: { optional: true } } })
    assert.deepEqual(foo.dependencies, { b: '2' }, 'not mutated')
    const old = { name: 'foo', version: '2.0.0' }
    assert.equal(extend(old), old)
  })

  test('the compatibility database applies to dependencies only, and not with ignoreCompatibilityDb', () => {
    const debug: HookedManifest = { name: 'debug', version: '4.1.1', dependencies: { ms: '^2.1.1' } }
    const hooks = createReadPackageHooks({ ignoreCompatibilityDb: false, packageExtensions: {}, overrides: [], rootDir: '/root' })
    assert.deepEqual(hooks.dependency(debug).peerDependenciesMeta, { 'supports-color': { optional: true } })
    assert.equal(hooks.project(debug, '/root').peerDependenciesMeta, undefined)
    const ignoring = createReadPackageHooks({ ignoreCompatibilityDb: true, packageExtensions: {}, overrides: [], rootDir: '/root' })
    assert.equal(ignoring.dependency(debug).peerDependenciesMeta, undefined)
  })

  test('the checksum is the one pnpm 11 writes, whatever the key order', () => {
    assert.equal(packageExtensionsChecksum({ ext: { dependencies: { 'ext-dep': '^1.0.0' }, peerDependencies: { 'ext-peer': '^1.0.0' } } }), 'sha256-fu2jEnV0yTjJzEtViURtTlIHHPQ50eJF+dTm5AmsGnw=')
    assert.equal(packageExtensionsChecksum({ ext: { peerDependencies: { 'ext-peer': '^1.0.0' }, dependencies: { 'ext-dep': '^1.0.0' } } }), 'sha256-fu2jEnV0yTjJzEtViURtTlIHHPQ50eJF+dTm5AmsGnw=')
    assert.equal(packageExtensionsChecksum({}), undefined)
  })
})
