import assert from 'node:assert/strict'
import { test } from 'node:test'

import type { Lockfile } from '@lode/pkg-manager.lockfile.format'

import { collectComponents } from '../src/components.js'
import type { CollectOptions } from '../src/components.js'

const INTEGRITY = `sha512-${Buffer.alloc(64, 1).toString('base64')}`
const lockfile: Lockfile = {
  lockfileVersion: '9.0',
  importers: {
    '.': {
      dependencies: { a: { specifier: '1.0.0', version: '1.0.0' }, shared: { specifier: '1.0.0', version: '1.0.0' }, util: { specifier: 'workspace:*', version: 'link:packages/util' } },
      devDependencies: { tool: { specifier: '1.0.0', version: '1.0.0' } },
      optionalDependencies: { native: { specifier: '1.0.0', version: '1.0.0' } },
    },
    'packages/util': { dependencies: { '@s/b': { specifier: '2.0.0', version: '2.0.0' } } },
  },
  packages: {
    'a@1.0.0': { resolution: { integrity: INTEGRITY } },
    'shared@1.0.0': { resolution: { integrity: INTEGRITY } },
    'tool@1.0.0': { resolution: { integrity: INTEGRITY } },
    'native@1.0.0': { resolution: { integrity: INTEGRITY }, os: ['aix'] },
    '@s/b@2.0.0': { resolution: { tarball: 'https://example.test/b.tgz' } },
    'gitpkg@https://codeload.example.test/x/tar.gz/abc': { resolution: { type: 'git', repo: 'https://example.test/x.git', commit: 'abc' }, version: '0.1.0' },
  },
  snapshots: {
    'a@1.0.0': { dependencies: { shared: '1.0.0', gitpkg: 'https://codeload.example.test/x/tar.gz/abc' } },
    'shared@1.0.0': {},
    'tool@1.0.0': { dependencies: { shared: '1.0.0' } },
    'native@1.0.0': { optional: true },
    '@s/b@2.0.0': {},
    'gitpkg@https://codeload.example.test/x/tar.gz/abc': {},
  },
}

function options (overrides: Partial<CollectOptions> = {}): CollectOptions {
  return {
    rootPurl: 'pkg:npm/root@1.0.0',
    importerIds: ['.'],
    include: { dependencies: true, devDependencies: true, optionalDependencies: true },
    registries: { default: 'https://registry.example.test/', scoped: {} },
    resolvePeersFromWorkspaceRoot: true,
    supportedArchitectures: { os: ['linux'], cpu: ['x64'], libc: ['glibc'] },
    lockfileOnly: false,
    workspaceProject: async (importerId) => await Promise.resolve(importerId === 'packages/util' ? { name: '@team/util', version: '0.3.0', license: 'MIT' } : undefined),
    ...overrides,
  }
}

test('collectComponents: each package once, every edge (a shared package from both parents), workspace projects as components', async () => {
  const { components, relationships } = await collectComponents(lockfile, options())
  assert.deepEqual(components.map((component) => component.purl).sort(), [
    'pkg:npm/%40s/b@2.0.0',
    'pkg:npm/%40team/util@0.3.0',
    'pkg:npm/a@1.0.0',
    'pkg:npm/gitpkg@0.1.0?vcs_url=https%3A%2F%2Fcodeload.example.test%2Fx%2Ftar.gz%2Fabc',
    'pkg:npm/shared@1.0.0',
    'pkg:npm/tool@1.0.0',
  ])
  const edges = relationships.map(({ from, to }) => `${from.replace('pkg:npm/', '')} → ${to.replace('pkg:npm/', '')}`).sort()
  assert.deepEqual(edges, [
    '%40team/util@0.3.0 → %40s/b@2.0.0',
    'a@1.0.0 → gitpkg@0.1.0?vcs_url=https%3A%2F%2Fcodeload.example.test%2Fx%2Ftar.gz%2Fabc',
    'a@1.0.0 → shared@1.0.0',
    'root@1.0.0 → %40team/util@0.3.0',
    'root@1.0.0 → a@1.0.0',
    'root@1.0.0 → shared@1.0.0',
    'root@1.0.0 → tool@1.0.0',
    'tool@1.0.0 → shared@1.0.0',
  ])
  const byName = new Map(components.map((component) => [component.name, component]))
  assert.equal(byName.get('tool')!.devOnly, true)
  assert.equal(byName.get('shared')!.devOnly, false, 'reached from production too')
  assert.equal(byName.get('a')!.tarballUrl, 'https://registry.example.test/a/-/a-1.0.0.tgz')
  assert.equal(byName.get('a')!.integrity, INTEGRITY)
  assert.equal(byName.get('@s/b')!.tarballUrl, 'https://example.test/b.tgz')
  assert.equal(byName.get('gitpkg')!.tarballUrl, 'git+https://example.test/x.git#abc')
  assert.equal(byName.get('@team/util')!.license, 'MIT')
})

test('collectComponents: an optional package of another platform only with --lockfile-only; groups left out; peers excluded', async () => {
  const notRead = async (): Promise<undefined> => await Promise.resolve(undefined)
  const withNative = await collectComponents(lockfile, options({ lockfileOnly: true, workspaceProject: notRead }))
  assert.ok(withNative.components.some((component) => component.name === 'native'))
  assert.ok(!withNative.components.some((component) => component.name === '@team/util'), 'a project not read is no component')
  const include = (dependencies: boolean, devDependencies: boolean): CollectOptions['include'] => ({ dependencies, devDependencies, optionalDependencies: true })
  const prod = await collectComponents(lockfile, options({ include: include(true, false) }))
  assert.ok(!prod.components.some((component) => component.name === 'tool'))
  const dev = await collectComponents(lockfile, options({ include: include(false, true) }))
  assert.deepEqual(dev.components.map((component) => component.name).sort(), ['shared', 'tool'])
  const noPeers = await collectComponents(lockfile, options({ excludedPeers: new Map([['.', new Set(['a'])]]) }))
  assert.ok(!noPeers.components.some((component) => component.name === 'a' || component.name === 'gitpkg'))
})
