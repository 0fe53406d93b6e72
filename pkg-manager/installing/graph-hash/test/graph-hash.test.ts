import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'
import { test } from 'node:test'
import { fileURLToPath } from 'node:url'

import { createSlotResolver, engineName, hashObject, hashObjectWithoutSorting } from '@lode/pkg-manager.installing.graph-hash'
import type { HashedValue } from '@lode/pkg-manager.installing.graph-hash'
import { parseLockfile } from '@lode/pkg-manager.lockfile.format'
import type { Lockfile } from '@lode/pkg-manager.lockfile.format'
import objectHash from 'object-hash'

// The fixtures are lockfiles pnpm 11.28.11 wrote; the slots are those it created for them in its
// global virtual store (linux, x64, Node.js 24).
const fixtures = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..', 'test', 'fixtures')
const readFixture = (name: string): Lockfile => {
  const file = path.join(fixtures, name, 'pnpm-lock.yaml')
  return parseLockfile(fs.readFileSync(file, 'utf8'), file).lockfile
}
const linux = { platform: 'linux', arch: 'x64', nodeVersion: 'v24.21.0', lockfileDir: path.join(path.sep, 'project') }

test('the slots pnpm 11 made: a leaf, a package with dependencies, a resolved peer, an allowed build with the engine', () => {
  const allowBuilds: Record<string, boolean> = { 'core-js': true }
  const slotOf = createSlotResolver(readFixture('p1'), { ...linux, allowBuild: (depPath) => allowBuilds[depPath.slice(0, depPath.indexOf('@', 1))] })
  assert.deepEqual(slotOf('is-number@6.0.0'), { name: 'is-number', path: '@/is-number/6.0.0/44ed3518eef6949d4eca5da245aed2c9184181cd74385919a99e5d53bf7d3f72' })
  assert.equal(slotOf('is-odd@3.0.1').path, '@/is-odd/3.0.1/aae79d50a8822405d07d855319b32ab18c68a6852acd814f2c2e8d6931d3a51e')
  assert.equal(slotOf('react-dom@18.3.1(react@18.3.1)').path, '@/react-dom/18.3.1/fc3e4fcb612fbc39d556a6642ee8d4d95f3b9201153d933c9f0db4e3d53f8e10')
  assert.equal(slotOf('react@18.3.1').path, '@/react/18.3.1/578b3b832bdab1f114c05d44a6c47b3c7cc41f6ec46ae8567e198348d497d3b2')
  assert.equal(slotOf('core-js@3.38.1').path, '@/core-js/3.38.1/71aeb2c2a6ee1ed0fcb5ec48f71b68a09f7300b5d86325bf6960d1edbc06427b')
  // Not allowed to build: no engine.
  const plain = createSlotResolver(readFixture('p1'), { ...linux, allowBuild: () => undefined })
  assert.equal(plain('core-js@3.38.1').path, '@/core-js/3.38.1/310b4fde64c5d87c99c1a9a952b900b28a163487fa06e0f5b18355f4ce0628fe')
  assert.equal(plain('is-odd@3.0.1').path, slotOf('is-odd@3.0.1').path, 'a package that reaches no allowed build has no engine')
})

test('a dependency cycle of six packages (es5-ext, es6-iterator, d, esniff, event-emitter, …) gets pnpm\'s slots', () => {
  const slotOf = createSlotResolver(readFixture('cycle'), { ...linux, allowBuild: () => undefined })
  const expected: Record<string, string> = {
    'd@1.0.2': '8981f5d75f81585377ba2a473e6ab5ed1dc8ac3297fb5f0d6f7592ef9d1e7f82',
    'es5-ext@0.10.64': 'a2dc25fa6f4979ad3be6850dfaa27fb9fbca775e0302eddb7c9f680ce1ae6917',
    'es6-iterator@2.0.3': 'aa1847199c92409c47de0217d2e73b38594999f3afc41c7449bfdfca71d6a980',
    'es6-symbol@3.1.4': '3b0ea147d4c48d3aa13ba930e51f2e94d503ed2ac5515156d5d7040fd650672d',
    'esniff@2.0.1': '9457b4e0aa3fba5585d4c401e651ad47514131eb529d857d3da8d6d560165a6e',
    'event-emitter@0.3.7': '3d88c0f7e747aa51a2cfaebe18fe1a940041c43f57d777e9819a161a5e85dc71',
    'ext@1.7.0': 'ab2eba6afa11698cf8c551a513e0304e71d09efa2b0a1786dc946aa57ac132cd',
    'next-tick@1.1.0': '344cde9b0914acbe60a9c4921c55422127ffdde279660cd8033a8d295b672165',
    'type@2.7.3': 'f48286f67b15c47e271e64bd4ed67889542aeaf0a624cf6457bc31c94d1f224a',
  }
  for (const [depPath, hex] of Object.entries(expected)) {
    const [name, version] = [depPath.slice(0, depPath.indexOf('@', 1)), depPath.slice(depPath.indexOf('@', 1) + 1)]
    assert.equal(slotOf(depPath).path, `@/${name}/${version}/${hex}`, depPath)
  }
  // Asked in another order (another member first), the cycle hashes the same.
  const reversed = createSlotResolver(readFixture('cycle'), { ...linux, allowBuild: () => undefined })
  for (const depPath of Object.keys(expected).reverse()) assert.equal(reversed(depPath).path.split('/').at(-1), expected[depPath])
})

test('a scoped package is under its scope; a version with a `..` segment is refused', () => {
  const lockfile: Lockfile = {
    lockfileVersion: '9.0',
    importers: {},
    packages: {
      '@sindresorhus/is@4.6.0': { resolution: { integrity: 'sha512-t09vSN3MdfsyCHoFcTRCH/iUtG7OJ0CsjzB8cjAmKc/va/kIgeDI/TxsigdncE/4be734m0cvIYwNaV4i2XqAw==' } },
      'evil@1.0.0': { resolution: { integrity: 'sha512-x' }, version: '../../x' },
    },
    snapshots: { '@sindresorhus/is@4.6.0': {}, 'evil@1.0.0': {} },
  }
  const slotOf = createSlotResolver(lockfile, { ...linux, allowBuild: () => undefined })
  assert.equal(slotOf('@sindresorhus/is@4.6.0').path, '@sindresorhus/is/4.6.0/ff4062f7a42a9f0c7f550c86340e6422b1295bd7b9a61d5e5c751fc86741c49d')
  assert.throws(() => slotOf('evil@1.0.0'), { code: 'ERR_LODE_INVALID_DEPENDENCY_NAME' })
})

test('the engine: platform, arch and the major of the node version, with semicolons; a pinned runtime wins', () => {
  assert.equal(engineName('v24.21.0', { platform: 'linux', arch: 'x64' }), 'linux;x64;node24')
  assert.equal(engineName('22.1.0', { platform: 'darwin', arch: 'arm64' }), 'darwin;arm64;node22')
  const lockfile: Lockfile = {
    lockfileVersion: '9.0',
    importers: { '.': { dependencies: { node: { specifier: 'runtime:22.1.0', version: 'runtime:22.1.0' } } } },
    packages: { 'a@1.0.0': { resolution: { integrity: 'sha512-a' } } },
    snapshots: { 'a@1.0.0': {} },
  }
  const pinned = createSlotResolver(lockfile, { ...linux, allowBuild: () => true })
  const running22 = createSlotResolver({ ...lockfile, importers: {} }, { ...linux, nodeVersion: 'v22.0.0', allowBuild: () => true })
  assert.equal(pinned('a@1.0.0').path, running22('a@1.0.0').path)
})

test('hashObject and hashObjectWithoutSorting give object-hash@3\'s digests (respectType: false, sha256)', () => {
  const values: HashedValue[] = [
    {},
    { id: 'x', deps: {} },
    { b: null, a: 'ü€𝄞', c: { z: '', y: { x: 'é' } } },
    { engine: null, deps: '5qiWthqTUdwYatvNZD4DSrvfFBfsiwBe985b3CIYT0A=' },
    { 'B': '1', 'a': '2', '10': '3', '9': '4', '_': '5' },
  ]
  for (const value of values) {
    assert.equal(hashObject(value), objectHash(value, { respectType: false, algorithm: 'sha256', encoding: 'base64', unorderedArrays: true, unorderedObjects: true, unorderedSets: true }))
    assert.equal(hashObjectWithoutSorting(value), objectHash(value, { respectType: false, algorithm: 'sha256', encoding: 'hex', unorderedArrays: false, unorderedObjects: false, unorderedSets: false }))
  }
})

// A chain is as deep as a registry makes it: the hash walk takes any depth (it ran out of stack
// between 1,000 and 2,000 levels when it recursed).
test('a 10,000-level chain hashes from the bottom up, whether its top or its bottom is asked for first; a cycle at its bottom too', () => {
  const depth = 10_000
  const chain = (cycle: boolean): Lockfile => {
    const lockfile: Lockfile = { lockfileVersion: '9.0', importers: {}, packages: {}, snapshots: {} }
    for (let i = 0; i < depth; i++) {
      lockfile.packages![`p${i}@1.0.0`] = { resolution: { integrity: `sha512-${i}` } }
      const next = i + 1 < depth ? i + 1 : cycle ? depth - 2 : undefined
      lockfile.snapshots![`p${i}@1.0.0`] = next === undefined ? {} : { dependencies: { [`p${next}`]: '1.0.0' } }
    }
    return lockfile
  }
  const options = { ...linux, allowBuild: () => undefined }
  const hashes: string[] = []
  for (let i = depth - 1; i >= 0; i--) {
    hashes[i] = hashObject({ id: `p${i}@1.0.0:sha512-${i}`, deps: i + 1 < depth ? { [`p${i + 1}`]: hashes[i + 1]! } : {} })
  }
  const topFirst = createSlotResolver(chain(false), options)
  assert.equal(topFirst('p0@1.0.0').path, `@/p0/1.0.0/${hashObjectWithoutSorting({ engine: null, deps: hashes[0]! })}`)
  for (const cycle of [false, true]) {
    const down = createSlotResolver(chain(cycle), options)
    const up = createSlotResolver(chain(cycle), options)
    const fromTop = Array.from({ length: depth }, (_, i) => down(`p${i}@1.0.0`).path)
    const fromBottom = Array.from({ length: depth }, (_, i) => up(`p${depth - 1 - i}@1.0.0`).path).reverse()
    assert.deepEqual(fromTop, fromBottom)
  }
})
