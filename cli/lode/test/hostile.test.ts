import assert from 'node:assert/strict'
import fs from 'node:fs'
import { createRequire } from 'node:module'
import path from 'node:path'
import { after, before, test } from 'node:test'

import { TestRegistry } from '@lode/__utils__.test-fixtures'

import { changesOutside, lode, makeProject, snapshot } from './helpers.js'
import type { Project } from './helpers.js'

/*
 * Packages an attacker would publish. Each install runs in a sandbox (project, home with the cache
 * and the store, and a directory `outside` beside the project holding files to steal or destroy);
 * the sandbox is snapshotted byte for byte before and after, and nothing may change outside the
 * project's node_modules and lockfile, the store and the cache.
 */

// From the project's node_modules, and from a package's directory in .pnpm, to the sandbox's `outside/x`.
const CLIMB_FROM_MODULES = '../../outside/x'
const CLIMB_FROM_VIRTUAL_STORE = '../../../../../outside/x'
const PROTO_NAMES = ['constructor', 'toString', 'hasOwnProperty', 'valueOf']

let registry: TestRegistry
before(async () => {
  registry = await TestRegistry.start([
    { name: 'good', version: '1.0.0', files: { 'index.js': 'module.exports = "good"' } },
    // Dependency names that climb out of node_modules, as a plain name, a scoped one and an npm: alias key.
    ...[CLIMB_FROM_MODULES, CLIMB_FROM_VIRTUAL_STORE, '@scope/../../../../../../outside/x'].map((name) => ({ name, version: '1.0.0', files: { 'pwned.txt': 'pwned' } })),
    { name: 'evil-dep', version: '1.0.0', dependencies: { [CLIMB_FROM_VIRTUAL_STORE]: '1.0.0' } },
    { name: 'evil-scoped', version: '1.0.0', dependencies: { '@scope/../../../../../../outside/x': '1.0.0' } },
    { name: 'evil-alias', version: '1.0.0', dependencies: { [CLIMB_FROM_VIRTUAL_STORE]: 'npm:good@1.0.0' } },
    { name: 'evil-alias-target', version: '1.0.0', dependencies: { fine: `npm:${CLIMB_FROM_VIRTUAL_STORE}@1.0.0` } },
    { name: 'evil-optional', version: '1.0.0', manifest: { optionalDependencies: { [CLIMB_FROM_VIRTUAL_STORE]: '1.0.0' } } },
    { name: 'evil-peer', version: '1.0.0', manifest: { peerDependencies: { [CLIMB_FROM_VIRTUAL_STORE]: '1.0.0' } } },
    // Names that would shadow node_modules' own files.
    { name: 'evil-dotbin', version: '1.0.0', dependencies: { '.bin': 'npm:good@1.0.0' } },
    { name: 'evil-dotpnpm', version: '1.0.0', dependencies: { '.pnpm': 'npm:good@1.0.0' } },
    { name: 'evil-modules', version: '1.0.0', dependencies: { node_modules: 'npm:good@1.0.0' } },
    // Bins that would write or chmod outside the package.
    {
      name: 'evil-bins',
      version: '1.0.0',
      bin: { '../../../outside/evil-cmd': 'cli.js', ok: '../../../../../outside/secret.txt', fine: 'cli.js', '/abs': 'cli.js' },
      files: { 'cli.js': '#!/usr/bin/env node\nconsole.log("fine")\n' },
    },
    { name: 'evil-bindir', version: '1.0.0', manifest: { directories: { bin: '../../../../../outside' } } },
    // A dependency named like an Object.prototype member must install like any other.
    ...PROTO_NAMES.map((name) => ({ name, version: '1.0.0', files: { 'index.js': `module.exports = ${JSON.stringify(name)}` } })),
    { name: 'uses-proto-names', version: '1.0.0', dependencies: { ...Object.fromEntries(PROTO_NAMES.map((name) => [name, '1.0.0'])), good: '1.0.0' }, manifest: { peerDependencies: { constructor: '*' } } },
  ])
})
after(async () => { await registry.close() })

/** A project in a fresh sandbox, with `outside/` beside it: a directory the attack would replace and a file it would chmod. */
function sandboxProject (manifest: Record<string, unknown>, files: Record<string, string> = {}): { project: Project, root: string } {
  const project = makeProject(registry, manifest, files)
  fs.appendFileSync(path.join(project.home, '.npmrc'), 'minimum-release-age=0\n')
  const root = path.dirname(project.dir)
  fs.mkdirSync(path.join(root, 'outside', 'x'), { recursive: true })
  fs.writeFileSync(path.join(root, 'outside', 'x', 'keep.txt'), 'precious')
  fs.writeFileSync(path.join(root, 'outside', 'secret.txt'), 'secret', { mode: 0o600 })
  return { project, root }
}

// What an install may write: the project's node_modules and lockfile, and (under the sandbox's home) the cache and the store.
const INSTALL_WRITES = [path.join('project', 'node_modules'), path.join('project', 'pnpm-lock.yaml'), path.join('home', '.cache'), path.join('home', '.local')]
// What a refused install may write: the cache and the store (what it fetched before it found the bad name), nothing of the project.
const REFUSED_WRITES = [path.join('home', '.cache'), path.join('home', '.local')]

async function expectRefused (manifest: Record<string, unknown>, args: string[] = [], files: Record<string, string> = {}, code = 'ERR_LODE_INVALID_DEPENDENCY_NAME', mayWrite = REFUSED_WRITES): Promise<string> {
  const { project, root } = sandboxProject(manifest, files)
  const before = snapshot(root)
  const result = await lode(project, ['install', ...args])
  assert.equal(result.code, 1, `expected a refusal, got exit ${result.code}:\n${result.stdout}\n${result.stderr}`)
  assert.ok(result.stderr.startsWith(`[${code}] `), result.stderr)
  assert.deepEqual(changesOutside(before, snapshot(root), mayWrite), [], 'nothing outside what the install may write changed')
  assert.equal(fs.readFileSync(path.join(root, 'outside', 'x', 'keep.txt'), 'utf8'), 'precious')
  return result.stderr
}

test('a published package whose dependency name climbs out of node_modules stops the install before anything is written', async () => {
  const stderr = await expectRefused({ name: 'p', version: '1.0.0', dependencies: { 'evil-dep': '1.0.0' } })
  assert.ok(stderr.includes('evil-dep@1.0.0'), stderr)
  assert.ok(stderr.includes(JSON.stringify(CLIMB_FROM_VIRTUAL_STORE)), stderr)
})

test('scoped names, npm: alias keys and alias targets, optional and peer dependencies that climb out are refused alike', async () => {
  for (const dependent of ['evil-scoped', 'evil-alias', 'evil-alias-target', 'evil-optional', 'evil-peer']) {
    await expectRefused({ name: 'p', version: '1.0.0', dependencies: { [dependent]: '1.0.0' } })
  }
})

test('dependency names that would shadow .bin, .pnpm or node_modules are refused', async () => {
  for (const dependent of ['evil-dotbin', 'evil-dotpnpm', 'evil-modules']) {
    await expectRefused({ name: 'p', version: '1.0.0', dependencies: { [dependent]: '1.0.0' } })
  }
})

test('the project\'s own package.json with a climbing name is refused, in every dependency group, with --lockfile-only too', async () => {
  const stderr = await expectRefused({ name: 'p', version: '1.0.0', dependencies: { [CLIMB_FROM_MODULES]: '1.0.0' } })
  assert.ok(stderr.includes('package.json'), stderr)
  await expectRefused({ name: 'p', version: '1.0.0', devDependencies: { [CLIMB_FROM_MODULES]: 'npm:good@1.0.0' } })
  await expectRefused({ name: 'p', version: '1.0.0', optionalDependencies: { '../x': 'link:../outside' } })
  await expectRefused({ name: 'p', version: '1.0.0', dependencies: { [CLIMB_FROM_MODULES]: '1.0.0' } }, ['--lockfile-only'])
})

test('a lockfile whose names climb out of node_modules is refused before linking, with --frozen-lockfile and without', async () => {
  const integrity = registry.packages.get('good')![0]!.integrity
  const lockfile = (alias: string, snapshotAlias: string): string => [
    "lockfileVersion: '9.0'",
    '',
    'settings:',
    '  autoInstallPeers: true',
    '  excludeLinksFromLockfile: false',
    '',
    'importers:',
    '',
    '  .:',
    '    dependencies:',
    `      '${alias}':`,
    '        specifier: npm:good@1.0.0',
    '        version: good@1.0.0',
    '',
    'packages:',
    '',
    '  good@1.0.0:',
    `    resolution: {integrity: ${integrity}}`,
    '',
    'snapshots:',
    '',
    ...(snapshotAlias === '' ? ['  good@1.0.0: {}'] : ['  good@1.0.0:', '    dependencies:', `      '${snapshotAlias}': good@1.0.0`]),
    '',
  ].join('\n')
  for (const [alias, inner] of [[CLIMB_FROM_MODULES, ''], ['good', CLIMB_FROM_VIRTUAL_STORE]] as const) {
    for (const args of [['--frozen-lockfile'], []]) {
      await expectRefused({ name: 'p', version: '1.0.0', dependencies: { [alias]: 'npm:good@1.0.0' } }, args, { 'pnpm-lock.yaml': lockfile(alias, inner) })
    }
  }
})

test('bins whose names or targets leave the package, and a directories.bin outside it, are left out; the rest installs', async () => {
  const { project, root } = sandboxProject({ name: 'p', version: '1.0.0', dependencies: { 'evil-bins': '1.0.0', 'evil-bindir': '1.0.0' } })
  const before = snapshot(root)
  const result = await lode(project, ['install'])
  assert.equal(result.code, 0, result.stderr)
  assert.deepEqual(changesOutside(before, snapshot(root), INSTALL_WRITES), [])
  assert.deepEqual(fs.readdirSync(path.join(project.dir, 'node_modules', '.bin')), ['fine'])
  assert.equal(fs.statSync(path.join(root, 'outside', 'secret.txt')).mode & 0o777, 0o600, 'no chmod outside the package')
})

test('dependencies named like Object.prototype members install like any other', async () => {
  const { project, root } = sandboxProject({ name: 'p', version: '1.0.0', dependencies: { constructor: '1.0.0', 'uses-proto-names': '1.0.0' } })
  const before = snapshot(root)
  const result = await lode(project, ['install'])
  assert.equal(result.code, 0, result.stderr)
  assert.deepEqual(changesOutside(before, snapshot(root), INSTALL_WRITES), [])
  const projectRequire = createRequire(path.join(project.dir, 'package.json'))
  assert.equal(projectRequire('constructor'), 'constructor')
  const usesRequire = createRequire(fs.realpathSync(path.join(project.dir, 'node_modules', 'uses-proto-names', 'package.json')))
  for (const name of [...PROTO_NAMES, 'good']) assert.equal(usesRequire(name), name)
  assert.match(fs.readFileSync(path.join(project.dir, 'pnpm-lock.yaml'), 'utf8'), /\n {2}constructor@1\.0\.0:\n/)
})

test('a patch whose files climb out of the package is refused, and writes nothing outside node_modules', async () => {
  const patch = [
    'diff --git a/../../../../../../outside/pwned.txt b/../../../../../../outside/pwned.txt',
    'new file mode 100644',
    '--- /dev/null',
    '+++ b/../../../../../../outside/pwned.txt',
    '@@ -0,0 +1 @@',
    '+pwned',
    'diff --git a/../../../../../../outside/secret.txt b/../../../../../../outside/secret.txt',
    'deleted file mode 100644',
    '--- a/../../../../../../outside/secret.txt',
    '+++ /dev/null',
    '@@ -1 +0,0 @@',
    '-secret',
    '',
  ].join('\n')
  const files = { 'patches/good.patch': patch, 'pnpm-workspace.yaml': 'patchedDependencies:\n  good: patches/good.patch\n' }
  const stderr = await expectRefused({ name: 'p', version: '1.0.0', dependencies: { good: '1.0.0' } }, [], files, 'ERR_LODE_PATCH_FAILED', INSTALL_WRITES)
  assert.match(stderr, /the path leaves the package/)
})

test('a workspace project whose name climbs out of node_modules is refused before it is hoisted or linked', async () => {
  const files = {
    'pnpm-workspace.yaml': 'packages:\n  - packages/*\n',
    'packages/evil/package.json': JSON.stringify({ name: CLIMB_FROM_MODULES, version: '1.0.0', dependencies: { good: '1.0.0' } }),
  }
  const stderr = await expectRefused({ name: 'root', version: '1.0.0', private: true }, [], files)
  assert.ok(stderr.includes(JSON.stringify(CLIMB_FROM_MODULES)), stderr)
})
