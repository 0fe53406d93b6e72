import assert from 'node:assert/strict'
import fs from 'node:fs'
import { createRequire } from 'node:module'
import path from 'node:path'
import { after, before, describe, test } from 'node:test'


import { TestRegistry } from '@lode/__utils__.test-fixtures'
import type { PackageSpec } from '@lode/__utils__.test-fixtures'
import { parse as parseYaml, stringify as stringifyYaml } from 'yaml'

import { cloneProject, compareLockfiles, listing, lode, makeProject, pnpm, readLockfileText } from './helpers.js'
import type { Project } from './helpers.js'

// What real pnpm 11 monorepos showed lode doing otherwise than pnpm, each reduced to a fixture.
const PACKAGES: PackageSpec[] = [
  // A react-like host and a package that needs it as a peer.
  { name: 'rx', version: '17.0.2' },
  { name: 'rx', version: '18.3.1' },
  { name: 'rx-dom', version: '18.3.1', manifest: { peerDependencies: { rx: '^18.3.1' } } },
  { name: 'rx-old-plugin', version: '1.0.0', manifest: { peerDependencies: { rx: '^16.0.0', 'rx-missing': '^1.0.0' } } },
  // Peers of peers (eslint-utils → eslint → supports-color).
  { name: 'sc', version: '7.2.0' },
  { name: 'es', version: '10.15.0', manifest: { peerDependencies: { sc: '^7.0.0' } } },
  { name: 'es-utils', version: '4.10.1', manifest: { peerDependencies: { es: '*' } } },
  // Two packages each other's peers (vitest and its coverage provider), and one that wants the first as an optional peer.
  { name: 'vt', version: '4.1.12', manifest: { peerDependencies: { 'vt-cov': '4.1.12' }, peerDependenciesMeta: { 'vt-cov': { optional: true } } } },
  { name: 'vt-cov', version: '4.1.12', manifest: { peerDependencies: { vt: '4.1.12' } } },
  { name: 'ng-build', version: '20.3.41', manifest: { peerDependencies: { vt: '^4.0.0' }, peerDependenciesMeta: { vt: { optional: true } } } },
  // A range satisfied by the version a parent pins and by a higher one (aws-sdk, xml2js and sax).
  { name: 'sx', version: '1.2.1' },
  { name: 'sx', version: '1.6.1' },
  { name: 'xj', version: '0.6.2', dependencies: { sx: '>=0.6.0' } },
  { name: 'aws', version: '2.1693.0', dependencies: { sx: '1.2.1', xj: '0.6.2' } },
  // An optional peer the importer's own tree resolved below it (workbox-build, a rollup plugin and rollup; unplugin).
  { name: 'rp', version: '2.80.0' },
  { name: 'rp', version: '4.68.7' },
  { name: 'rp-plugin', version: '1.0.0', manifest: { peerDependencies: { rp: '^2.0.0 || ^4.0.0' } } },
  { name: 'wb', version: '7.4.0', dependencies: { rp: '2.80.0', 'rp-plugin': '1.0.0' } },
  { name: 'up', version: '3.7.0', manifest: { peerDependencies: { rp: '^2.0.0 || ^4.0.0' }, peerDependenciesMeta: { rp: { optional: true } } } },
  { name: 'es-opt-user', version: '1.0.0', manifest: { peerDependencies: { es: '*' }, peerDependenciesMeta: { es: { optional: true } } } },
  // A prerelease that a package below resolved a peer to, wanted elsewhere by a range that takes no prerelease (tsdown, rolldown and unplugin).
  { name: 'rd', version: '1.0.0-beta.11' },
  { name: 'rd-dts', version: '0.13.14', manifest: { peerDependencies: { rd: '^1.0.0-beta.9' } } },
  { name: 'tsd', version: '0.12.7', dependencies: { rd: '1.0.0-beta.11', 'rd-dts': '0.13.14' } },
  { name: 'unp', version: '3.7.0', manifest: { peerDependencies: { rd: '*' }, peerDependenciesMeta: { rd: { optional: true } } } },
  // Variants that differ only through a cycle of peers (@vitejs/plugin-react, @babel/core, its helpers, debug and supports-color).
  { name: 'bc-dbg', version: '4.4.3', manifest: { peerDependencies: { sc: '*' }, peerDependenciesMeta: { sc: { optional: true } } } },
  { name: 'bc-hmt', version: '7.29.14', manifest: { peerDependencies: { 'bc-core': '^7.0.0' } } },
  { name: 'bc-core', version: '7.29.13', dependencies: { 'bc-dbg': '4.4.3', 'bc-hmt': '7.29.14' } },
  { name: 'bc-jsx', version: '7.29.7', manifest: { peerDependencies: { 'bc-core': '^7.0.0' } } },
  { name: 'bc-react', version: '4.7.0', dependencies: { 'bc-core': '7.29.13', 'bc-jsx': '7.29.7' } },
  // A required peer the workspace root also depends on, in a version lower than the graph's highest (typescript, vite).
  { name: 'rx-any-dom', version: '1.0.0', manifest: { peerDependencies: { rx: '>=17.0.0' } } },
  // Versions several package.json files ask for (typescript 5.8.3, 5.9.3, 6.0.3 and ranges).
  { name: 'pv', version: '1.0.0' },
  { name: 'pv', version: '1.1.0' },
  // A dependency that is also an optional peer, in scope where it is resolved (ajv-formats under @fastify/ajv-compiler).
  { name: 'uses-ajf', version: '1.0.0', dependencies: { 'aj-formats': '3.0.1' } },
  // A provider of the same version above and beside (webpack under @docusaurus/core and @docusaurus/bundler, cssnano 7 and 6).
  { name: 'cn', version: '6.0.0' },
  { name: 'cn', version: '7.0.0' },
  { name: 'wp', version: '5.0.0', manifest: { peerDependencies: { cn: '*' }, peerDependenciesMeta: { cn: { optional: true } } } },
  { name: 'wp-loader', version: '1.0.0', manifest: { peerDependencies: { wp: '^5.0.0' } } },
  { name: 'wp-bundler', version: '1.0.0', dependencies: { wp: '5.0.0', cn: '6.0.0', 'wp-loader': '1.0.0' } },
  { name: 'wp-core', version: '1.0.0', dependencies: { wp: '5.0.0', 'wp-bundler': '1.0.0' } },
  // An optional dependency's required peer, installed for it (@sveltejs/kit and @sveltejs/vite-plugin-svelte).
  { name: 'kt-plugin', version: '1.0.0' },
  { name: 'kt', version: '2.0.0', manifest: { peerDependencies: { 'kt-plugin': '^1.0.0' } } },
  // A package that only optional dependencies reach, also an optional peer of another (vite, lint-staged → yaml).
  { name: 'op-yaml', version: '2.9.1' },
  { name: 'op-vite', version: '8.3.8', manifest: { peerDependencies: { 'op-yaml': '^2.4.2' }, peerDependenciesMeta: { 'op-yaml': { optional: true } } } },
  { name: 'op-staged', version: '17.6.1', manifest: { optionalDependencies: { 'op-yaml': '^2.9.1' } } },
  // Platform fields written as strings, not lists.
  { name: 'libc-str', version: '1.0.0', manifest: { os: 'linux', cpu: 'x64', libc: 'glibc' } },
  { name: 'ms', version: '2.1.3' },
  // Optional dependencies the registry cannot resolve (no such package, no such version).
  { name: 'has-opt', version: '1.0.0', manifest: { optionalDependencies: { 'not-there': '1.0.0', 'no-version': '^9.0.0' } } },
  { name: 'no-version', version: '1.0.0' },
  // A package that depends on what it also takes as an optional peer (ajv-formats and ajv).
  { name: 'aj', version: '8.2.0' },
  { name: 'aj', version: '8.3.0' },
  { name: 'aj-formats', version: '3.0.1', dependencies: { aj: '^8.0.0' }, manifest: { peerDependencies: { aj: '^8.0.0' }, peerDependenciesMeta: { aj: { optional: true } } } },
  { name: 'uses-aj', version: '1.0.0', dependencies: { aj: '8.2.0', 'aj-formats': '3.0.1' } },
  { name: 'uses-aj-latest', version: '1.0.0', dependencies: { aj: '^8.3.0', 'aj-formats': '3.0.1' } },
  // A lockfile brought up to date: engines as a list (@expo/bunyan), a required peer another version of which a new dependency brings (@babel/core).
  { name: 'eng-list', version: '1.0.0', manifest: { engines: ['node >=0.10.0'] } },
  { name: 'hp', version: '1.0.0' },
  { name: 'hp', version: '1.1.0' },
  { name: 'hp-plugin', version: '1.0.0', manifest: { peerDependencies: { hp: '^1.0.0' } } },
  { name: 'hp-old', version: '1.0.0', dependencies: { hp: '1.0.0' } },
  { name: 'hp-new', version: '1.0.0', dependencies: { hp: '1.1.0' } },
  { name: 'hq', version: '1.0.0', manifest: { peerDependencies: { sc: '*' }, peerDependenciesMeta: { sc: { optional: true } } } },
  { name: 'hq', version: '1.1.0' },
  { name: 'hq-plugin', version: '1.0.0', manifest: { peerDependencies: { hq: '^1.0.0' } } },
  { name: 'hq-old', version: '1.0.0', dependencies: { hq: '1.0.0' } },
  { name: 'hq-new', version: '1.0.0', dependencies: { hq: '1.1.0' } },
  // Bins: a package with its own, depending on another with one.
  // Interpreters from a shebang (with flags, through env -S), from the extension, or none.
  {
    name: 'bin-dep',
    version: '1.0.0',
    bin: { 'bin-dep': 'cli.js', flags: 'flags.js', 'sh-tool': 'tool.sh', 'no-ext': 'bin/plain', "it's": 'quote.js', ghost: 'missing.js' },
    files: { 'cli.js': '#!/usr/bin/env node\nconsole.log("bin-dep")\n', 'flags.js': '#!/usr/bin/env -S node --no-warnings\n', 'tool.sh': 'echo hi\n', 'bin/plain': 'x\n', 'quote.js': '\n\n#!/bin/sh -e\n' },
  },
  { name: 'bin-pkg', version: '1.0.0', bin: { 'bin-pkg': 'cli.js' }, dependencies: { 'bin-dep': '1.0.0' }, files: { 'cli.js': '#!/usr/bin/env node\nconsole.log("bin-pkg")\n' } },
  // One command from several packages: neither named like it, and one package in two versions.
  { name: 'cx-a', version: '1.0.0', bin: { shared: 'a.js' }, files: { 'a.js': '#!/usr/bin/env node\n' } },
  { name: 'cx-b', version: '1.0.0', bin: { shared: 'b.js' }, files: { 'b.js': '#!/usr/bin/env node\n' } },
  { name: 'cx-ts', version: '6.0.3', bin: { ctsc: 'tsc.js' }, files: { 'tsc.js': '#!/usr/bin/env node\n' } },
  { name: 'cx-ts', version: '7.0.2', bin: { ctsc: 'tsc.js' }, files: { 'tsc.js': '#!/usr/bin/env node\n' } },
  { name: 'builds-bin', version: '1.0.0', bin: { 'builds-bin': 'cli.js' }, scripts: { postinstall: 'node -e 0' }, files: { 'cli.js': '#!/usr/bin/env node\n' } },
  { name: 'builds', version: '1.0.0', scripts: { postinstall: 'node -e "require(\'fs\').writeFileSync(\'built.txt\', \'yes\')"' } },
]

let registry: TestRegistry
before(async () => { registry = await TestRegistry.start(PACKAGES) })
after(async () => { await registry.close() })

interface Compared { pnpmProject: Project, lodeProject: Project }

async function compare (manifest: Record<string, unknown>, files: Record<string, string | Buffer> = {}): Promise<Compared> {
  return await compareLockfiles(registry, manifest, files)
}

/** Both install their lockfile (frozen, unless other `args`): the same files and links, state files aside. */
async function installBoth ({ pnpmProject, lodeProject }: Compared, args = ['--frozen-lockfile']): Promise<void> {
  await pnpm(pnpmProject, ['install', ...args])
  const result = await lode(lodeProject, ['install', ...args])
  assert.equal(result.code, 0, `lode failed:\n${result.stdout}\n${result.stderr}`)
  const tree = (project: Project): string[] => listing(project.dir).filter((file) => !file.endsWith(`.pnpm${path.sep}lock.yaml`))
  const settingsOf = (project: Project): string => { const file = path.join(project.dir, 'pnpm-workspace.yaml'); return fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : 'no settings' }
  assert.deepEqual(tree(lodeProject), tree(pnpmProject), `install ${args.join(' ')} with ${settingsOf(pnpmProject)}`)
  // The shims, byte for byte (pnpm rewrites any other), the projects' paths aside.
  const shims = (project: Project): Record<string, string> => Object.fromEntries(tree(project).filter((file) => file.split(path.sep).includes('.bin') && !file.includes(' -> '))
    .map((file) => [file, fs.readFileSync(path.join(project.dir, file), 'utf8').replaceAll(project.dir, '<project>')]))
  assert.deepEqual(shims(lodeProject), shims(pnpmProject))
}

/** Both bring `lockfile` up to date with `manifest` (`install --lockfile-only`): the same lockfile. */
async function bothUpdate ({ pnpmProject, lodeProject }: Compared, lockfile: string, manifest: Record<string, unknown>): Promise<void> {
  for (const { dir } of [pnpmProject, lodeProject]) {
    fs.writeFileSync(path.join(dir, 'pnpm-lock.yaml'), lockfile)
    fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify(manifest))
  }
  await pnpm(pnpmProject, ['install', '--lockfile-only'])
  const byLode = await lode(lodeProject, ['install', '--lockfile-only'])
  assert.equal(byLode.code, 0, byLode.stderr)
  assert.equal(readLockfileText(lodeProject), readLockfileText(pnpmProject))
}

function requireFrom (project: Project, importer: string, name: string): unknown {
  return createRequire(path.join(project.dir, importer, 'index.js'))(name)
}

describe('lode writes the lockfile pnpm 11 writes, and installs it as pnpm does, for what real monorepos use', () => {
  test('file: dependencies of workspace projects are named from the lockfile\'s directory', async () => {
    const local = (name: string, version: string): string => JSON.stringify({ name, version, main: 'index.js', dependencies: { ms: '2.1.3' } })
    const projects = await compare({ name: 'file-deps', version: '1.0.0', private: true }, {
      'pnpm-workspace.yaml': 'packages:\n  - packages/*\n',
      'packages/a/package.json': JSON.stringify({ name: 'a', version: '1.0.0', dependencies: { dep: 'file:./dep' } }),
      'packages/a/dep/package.json': local('dep', '1.0.0'),
      'packages/a/dep/index.js': 'module.exports = "dep of a"\n',
      'packages/b/package.json': JSON.stringify({ name: 'b', version: '1.0.0', dependencies: { dep: 'file:./dep', other: 'file:../../shared' } }),
      'packages/b/dep/package.json': local('dep', '2.0.0'),
      'packages/b/dep/index.js': 'module.exports = "dep of b"\n',
      'shared/package.json': local('other', '1.0.0'),
    })
    assert.match(readLockfileText(projects.lodeProject), /\n {2}dep@file:packages\/a\/dep:\n {4}resolution: \{directory: packages\/a\/dep, type: directory\}\n/)
    await installBoth(projects)
    assert.equal(requireFrom(projects.lodeProject, 'packages/a', 'dep'), 'dep of a')
    assert.equal(requireFrom(projects.lodeProject, 'packages/b', 'dep'), 'dep of b')
  })

  test('dedupePeers: peer suffixes name peers by name@version, and the setting is recorded', async () => {
    const projects = await compare({ name: 'dedupe-peers', version: '1.0.0', dependencies: { sc: '7.2.0', es: '10.15.0', 'es-utils': '4.10.1' } }, { 'pnpm-workspace.yaml': 'dedupePeers: true\n' })
    const lockfile = readLockfileText(projects.lodeProject)
    assert.match(lockfile, /settings:\n {2}autoInstallPeers: true\n {2}dedupePeers: true\n/)
    assert.match(lockfile, /\n {2}es-utils@4\.10\.1\(es@10\.15\.0\):\n/)
    await installBoth(projects)
    // Turned off, the lockfile is out of date for a frozen install, as pnpm says.
    fs.writeFileSync(path.join(projects.lodeProject.dir, 'pnpm-workspace.yaml'), 'dedupePeers: false\n')
    const frozen = await lode(projects.lodeProject, ['install', '--frozen-lockfile', '--lockfile-only'])
    assert.equal(frozen.code, 1)
    assert.match(frozen.stderr, /ERR_LODE_OUTDATED_LOCKFILE.*dedupePeers/)
  })

  test('a project\'s own peerDependencies are installed with autoInstallPeers, and a frozen install accepts pnpm\'s lockfile', async () => {
    const manifest = { name: 'own-peers', version: '1.0.0', peerDependencies: { ms: '^2.1.0', rx: '^18.0.0' }, devDependencies: { rx: '18.3.1' } }
    const projects = await compare(manifest)
    assert.match(readLockfileText(projects.lodeProject), /\n {4}dependencies:\n {6}ms:\n {8}specifier: \^2\.1\.0\n {8}version: 2\.1\.3\n {4}devDependencies:\n {6}rx:\n/)
    // lode installs the lockfile pnpm wrote.
    fs.copyFileSync(path.join(projects.pnpmProject.dir, 'pnpm-lock.yaml'), path.join(projects.lodeProject.dir, 'pnpm-lock.yaml'))
    await installBoth(projects)
    assert.deepEqual(requireFrom(projects.lodeProject, '.', 'ms'), { name: 'ms', version: '2.1.3' })
    // Without autoInstallPeers, peers are the user's to install.
    await compare(manifest, { 'pnpm-workspace.yaml': 'autoInstallPeers: false\n' })
  })

  test('resolvePeersFromWorkspaceRoot: the root\'s dependencies provide peers to every project\'s dependencies', async () => {
    const files = (settings: string): Record<string, string> => ({
      'pnpm-workspace.yaml': `packages:\n  - packages/*\n${settings}`,
      'packages/a/package.json': JSON.stringify({ name: 'a', version: '1.0.0', dependencies: { 'rx-dom': '18.3.1' } }),
      // A project's own version comes first.
      'packages/b/package.json': JSON.stringify({ name: 'b', version: '1.0.0', dependencies: { 'rx-dom': '18.3.1', rx: '17.0.2' } }),
    })
    const root = { name: 'peers-from-root', version: '1.0.0', private: true, dependencies: { rx: '18.3.1' } }
    const withoutAuto = await compare(root, files('autoInstallPeers: false\n'))
    assert.match(readLockfileText(withoutAuto.lodeProject), /\n {2}packages\/a:\n {4}dependencies:\n {6}rx-dom:\n {8}specifier: 18\.3\.1\n {8}version: 18\.3\.1\(rx@18\.3\.1\)\n/)
    await installBoth(withoutAuto)
    const auto = await compare(root, files(''))
    await installBoth(auto)
    await compare(root, files('resolvePeersFromWorkspaceRoot: false\n'))
  })

  test('the catalogs section names bare versions, without peer suffixes', async () => {
    const { lodeProject } = await compare({ name: 'catalog-peers', version: '1.0.0', dependencies: { rx: 'catalog:', 'rx-dom': 'catalog:' } }, { 'pnpm-workspace.yaml': 'catalog:\n  rx: 18.3.1\n  rx-dom: 18.3.1\n' })
    assert.match(readLockfileText(lodeProject), /\n {4}rx-dom:\n {6}specifier: 18\.3\.1\n {6}version: 18\.3\.1\n/)
  })

  test('a package reached only through optional dependencies stays optional when it is also an optional peer', async () => {
    const projects = await compare({ name: 'optional-only', version: '1.0.0', devDependencies: { 'op-vite': '8.3.8', 'op-staged': '17.6.1' } })
    assert.match(readLockfileText(projects.lodeProject), /\n {2}op-yaml@2\.9\.1:\n {4}optional: true\n/)
    await installBoth(projects)
  })

  test('os, cpu and libc written as strings stay strings, and still decide what is installable', async () => {
    const projects = await compare({ name: 'libc-string', version: '1.0.0', optionalDependencies: { 'libc-str': '1.0.0' } })
    assert.match(readLockfileText(projects.lodeProject), /\n {4}cpu: x64\n {4}os: linux\n {4}libc: glibc\n/)
    await installBoth(projects)
  })

  test('patchedDependencies in the { hash, path } form of older pnpm versions is read as pnpm 11 reads it', async () => {
    const patch = ['diff --git a/index.js b/index.js', '--- a/index.js', '+++ b/index.js', '@@ -1 +1 @@', '-module.exports = {"name":"ms","version":"2.1.3"}', '+module.exports = "patched"', ''].join('\n')
    const projects = await compare({ name: 'old-patches', version: '1.0.0', dependencies: { ms: '2.1.3' } }, {
      'pnpm-workspace.yaml': 'patchedDependencies:\n  ms@2.1.3: patches/ms@2.1.3.patch\n',
      'patches/ms@2.1.3.patch': patch,
    })
    const older = readLockfileText(projects.lodeProject).replace(/\npatchedDependencies:\n {2}ms@2\.1\.3: ([0-9a-f]+)\n/, '\npatchedDependencies:\n  ms@2.1.3:\n    hash: $1\n    path: patches/ms@2.1.3.patch\n')
    assert.notEqual(older, readLockfileText(projects.lodeProject))
    for (const { dir } of [projects.pnpmProject, projects.lodeProject]) fs.writeFileSync(path.join(dir, 'pnpm-lock.yaml'), older)
    await pnpm(projects.pnpmProject, ['install', '--frozen-lockfile', '--lockfile-only'])
    const frozen = await lode(projects.lodeProject, ['install', '--frozen-lockfile', '--lockfile-only'])
    assert.equal(frozen.code, 0, frozen.stderr)
    await pnpm(projects.pnpmProject, ['install', '--lockfile-only'])
    const again = await lode(projects.lodeProject, ['install', '--lockfile-only'])
    assert.equal(again.code, 0, again.stderr)
    assert.equal(readLockfileText(projects.lodeProject), readLockfileText(projects.pnpmProject))
    await installBoth(projects)
    assert.equal(requireFrom(projects.lodeProject, '.', 'ms'), 'patched')
  })

  test('bins and builds: the same .bin links, and the .modules.yaml pnpm writes (allowBuilds, ignoredBuilds, pendingBuilds with the projects\' own)', async () => {
    const workspace = { 'pnpm-workspace.yaml': 'packages:\n  - p/*\nallowBuilds:\n  builds: true\n', 'p/q/package.json': JSON.stringify({ name: 'q', version: '1.0.0', scripts: { install: 'echo q' } }), 'p/r/package.json': JSON.stringify({ name: 'r', version: '1.0.0', scripts: { prepublish: 'echo r' } }) }
    const scenarios: Array<{ manifest: Record<string, unknown>, files: Record<string, string>, args: string[] }> = [
      // A package wanted to build: ignoredBuilds is written, empty when allowBuilds decides it.
      { manifest: { name: 'b1', version: '1.0.0', dependencies: { 'bin-pkg': '1.0.0', builds: '1.0.0' } }, files: { 'pnpm-workspace.yaml': 'allowBuilds:\n  builds: false\n' }, args: ['--frozen-lockfile'] },
      { manifest: { name: 'b2', version: '1.0.0', dependencies: { builds: '1.0.0' } }, files: { 'pnpm-workspace.yaml': 'strictDepBuilds: false\n' }, args: ['--frozen-lockfile'] },
      // None did: no ignoredBuilds, allowBuilds still recorded.
      { manifest: { name: 'b3', version: '1.0.0', dependencies: { 'bin-pkg': '1.0.0' } }, files: { 'pnpm-workspace.yaml': 'allowBuilds:\n  esbuild: true\n' }, args: ['--frozen-lockfile'] },
      // --ignore-scripts: the projects with install scripts of their own are pending first.
      { manifest: { name: 'b4', version: '1.0.0', dependencies: { builds: '1.0.0', 'bin-pkg': '1.0.0' }, scripts: { prepare: 'echo hi' } }, files: workspace, args: ['--frozen-lockfile', '--ignore-scripts'] },
      // A package with a bin and a build: its own bins in its own node_modules/.bin, built, denied or pending.
      ...[['true', []], ['false', []], ['true', ['--ignore-scripts']], ['false', ['--ignore-scripts']]].map(([allowed, flags]) => ({
        manifest: { name: 'b9', version: '1.0.0', dependencies: { 'builds-bin': '1.0.0' } },
        files: { 'pnpm-workspace.yaml': `allowBuilds:\n  builds-bin: ${String(allowed)}\n` },
        args: ['--frozen-lockfile', ...flags as string[]],
      })),
      // --ignore-scripts with patches configured: pnpm's build step runs all the same (it applies the
      // patches), so a package that wants a build and a patched one get their own bins, and
      // ignoredBuilds is recorded.
      {
        manifest: { name: 'b10', version: '1.0.0', dependencies: { 'builds-bin': '1.0.0', 'bin-dep': '1.0.0' } },
        files: {
          'pnpm-workspace.yaml': 'patchedDependencies:\n  bin-dep@1.0.0: patches/bin-dep@1.0.0.patch\n',
          'patches/bin-dep@1.0.0.patch': ['diff --git a/cli.js b/cli.js', '--- a/cli.js', '+++ b/cli.js', '@@ -1,2 +1,2 @@', ' #!/usr/bin/env node', '-console.log("bin-dep")', '+console.log("patched")', ''].join('\n'),
        },
        args: ['--frozen-lockfile', '--ignore-scripts'],
      },
      // --ignore-scripts: a build allowBuilds denies is pending too.
      { manifest: { name: 'b8', version: '1.0.0', dependencies: { builds: '1.0.0' } }, files: { 'pnpm-workspace.yaml': 'allowBuilds:\n  builds: false\n' }, args: ['--frozen-lockfile', '--ignore-scripts'] },
      // A command several packages declare.
      { manifest: { name: 'b7', version: '1.0.0', dependencies: { 'cx-b': '1.0.0', 'cx-a': '1.0.0', 'cx-ts': '6.0.3', 'cx-ts7': 'npm:cx-ts@7.0.2' } }, files: {}, args: ['--frozen-lockfile'] },
      // Resolved by the install itself, not from a lockfile.
      { manifest: { name: 'b5', version: '1.0.0', dependencies: { 'bin-pkg': '1.0.0' } }, files: {}, args: [] },
      // Publicly hoisted bins, and a workspace project's bins, with and without scripts.
      ...[[], ['--ignore-scripts']].map((flags) => ({
        manifest: { name: 'b6', version: '1.0.0', private: true, dependencies: { 'bin-pkg': '1.0.0' } },
        files: {
          'pnpm-workspace.yaml': 'packages:\n  - p/*\nshamefullyHoist: true\n',
          'p/tool/package.json': JSON.stringify({ name: 'tool', version: '1.0.0', bin: { tool: 'cli.js', 'not-built': 'dist/cli.js' } }),
          'p/tool/cli.js': '#!/usr/bin/env node\n',
          'p/user/package.json': JSON.stringify({ name: 'user', version: '1.0.0', dependencies: { tool: 'workspace:*' } }),
        },
        args: ['--frozen-lockfile', ...flags],
      })),
    ]
    for (const { manifest, files, args } of scenarios) {
      const projects = await compare(manifest, files)
      if (!args.includes('--frozen-lockfile')) for (const { dir } of [projects.pnpmProject, projects.lodeProject]) fs.rmSync(path.join(dir, 'pnpm-lock.yaml'))
      await installBoth(projects, args)
      const modulesYaml = (project: Project): Record<string, unknown> => {
        const { prunedAt: _at, storeDir: _store, packageManager: _pm, ...rest } = JSON.parse(fs.readFileSync(path.join(project.dir, 'node_modules', '.modules.yaml'), 'utf8')) as Record<string, unknown>
        return rest
      }
      assert.deepEqual(modulesYaml(projects.lodeProject), modulesYaml(projects.pnpmProject), String(manifest['name']))
    }
  })

  test('peerDependencyRules decide which peer issues are reported; missing required peers are reported as pnpm reports them', async () => {
    const manifest = { name: 'peer-rules', version: '1.0.0', dependencies: { rx: '18.3.1', 'rx-old-plugin': '1.0.0' } }
    const cases: Array<{ rules: string, expected: string[] }> = [
      { rules: '', expected: ['missing peer rx-missing@^1.0.0 (wanted by rx-old-plugin@1.0.0)', 'unmet peer rx@^16.0.0: found 18.3.1 (wanted by rx-old-plugin@1.0.0)'] },
      { rules: 'peerDependencyRules:\n  allowedVersions:\n    rx: "18"\n  ignoreMissing:\n    - rx-*\n', expected: [] },
      { rules: 'peerDependencyRules:\n  allowAny:\n    - rx\n', expected: ['missing peer rx-missing@^1.0.0 (wanted by rx-old-plugin@1.0.0)'] },
      { rules: 'peerDependencyRules:\n  allowedVersions:\n    rx-old-plugin@1>rx: "18"\n    other>rx-missing: "1"\n', expected: ['missing peer rx-missing@^1.0.0 (wanted by rx-old-plugin@1.0.0)'] },
      { rules: 'peerDependencyRules:\n  allowedVersions:\n    rx-old-plugin@2>rx: "18"\n  ignoreMissing:\n    - rx-missing\n', expected: ['unmet peer rx@^16.0.0: found 18.3.1 (wanted by rx-old-plugin@1.0.0)'] },
    ]
    for (const { rules, expected } of cases) {
      const pnpmProject = makeProject(registry, manifest, { 'pnpm-workspace.yaml': `autoInstallPeers: false\n${rules}` })
      const lodeProject = cloneProject(pnpmProject)
      const byPnpm = await pnpm(pnpmProject, ['install', '--lockfile-only'])
      const byLode = await lode(lodeProject, ['install', '--lockfile-only'])
      assert.equal(byLode.code, 0, byLode.stderr)
      assert.equal(readLockfileText(lodeProject), readLockfileText(pnpmProject))
      // pnpm only says there are issues (and points at `pnpm peers check`); lode lists them.
      assert.equal(/Issues with peer dependencies found/.test(byLode.stdout), /Issues with peer dependencies found/.test(byPnpm.stdout), rules)
      assert.deepEqual([...byLode.stdout.matchAll(/^ {2}✕ (.*)$/gm)].map((m) => m[1]).sort(), expected, rules)
    }
  })

  test('what is printed: optional dependencies skipped (the projects\' own only, as pnpm says), no peer issue for a workspace: override', async () => {
    const pnpmProject = makeProject(registry, { name: 'printed', version: '1.0.0', private: true, dependencies: { 'has-opt': '1.0.0' }, optionalDependencies: { 'also-not-there': '1.0.0' } }, {
      'pnpm-workspace.yaml': 'packages:\n  - packages/*\noverrides:\n  rx: workspace:*\n',
      'packages/rx/package.json': JSON.stringify({ name: 'rx', version: '18.3.1' }),
      'packages/a/package.json': JSON.stringify({ name: 'a', version: '1.0.0', dependencies: { 'rx-dom': '18.3.1', rx: 'workspace:*' } }),
    })
    const projects = { pnpmProject, lodeProject: cloneProject(pnpmProject) }
    const said = (output: string): string[] => output.split('\n').filter((line) => /^info: |could not be resolved|peer/i.test(line))
    // Resolving, then installing the lockfile in a fresh clone (frozen; the skipped optional dependency is not in it).
    const freshPnpm = await pnpm(projects.pnpmProject, ['install'])
    const freshLode = await lode(projects.lodeProject, ['install'])
    assert.equal(freshLode.code, 0, freshLode.stderr)
    assert.deepEqual(said(freshLode.stdout + freshLode.stderr), said(freshPnpm.stdout + freshPnpm.stderr))
    assert.deepEqual(said(freshLode.stdout), ['info: also-not-there@1.0.0 is an optional dependency that could not be resolved. Excluding it from installation.'])
    assert.equal(readLockfileText(projects.lodeProject), readLockfileText(projects.pnpmProject))
    for (const project of [projects.pnpmProject, projects.lodeProject]) fs.rmSync(path.join(project.dir, 'node_modules'), { recursive: true })
    const frozenPnpm = await pnpm(projects.pnpmProject, ['install', '--frozen-lockfile'])
    const frozenLode = await lode(projects.lodeProject, ['install', '--frozen-lockfile'])
    assert.equal(frozenLode.code, 0, frozenLode.stderr)
    assert.deepEqual(said(frozenLode.stdout + frozenLode.stderr), said(frozenPnpm.stdout + frozenPnpm.stderr))
  })

  test('an up-to-date lockfile is kept byte for byte by --lockfile-only, whatever lode would have written', async () => {
    const projects = await compare({ name: 'kept', version: '1.0.0', dependencies: { ms: '2.1.3', 'rx-dom': '18.3.1', rx: '18.3.1' } })
    // As an older pnpm may have written it: engines as an indexed map.
    const older = readLockfileText(projects.lodeProject).replace(/(\n {2}ms@2\.1\.3:\n {4}resolution: \{[^}]+\}\n)/, "$1    engines: {'0': node >=0.10.0}\n")
    assert.notEqual(older, readLockfileText(projects.lodeProject))
    for (const { dir } of [projects.pnpmProject, projects.lodeProject]) fs.writeFileSync(path.join(dir, 'pnpm-lock.yaml'), older)
    await pnpm(projects.pnpmProject, ['install', '--lockfile-only'])
    const byLode = await lode(projects.lodeProject, ['install', '--lockfile-only'])
    assert.equal(byLode.code, 0, byLode.stderr)
    assert.equal(readLockfileText(projects.pnpmProject), older)
    assert.equal(readLockfileText(projects.lodeProject), older)
  })

  test('a lockfile out of date is brought up to date as pnpm 11 does it: manifests read again, peers hoisted anew, each edge\'s own snapshot', async () => {
    const projects = await compare({ name: 'stale', version: '1.0.0', dependencies: { 'eng-list': '1.0.0', 'hp-plugin': '1.0.0', 'hp-old': '1.0.0', 'aj-formats': '3.0.1', 'uses-aj': '1.0.0', 'uses-aj-latest': '1.0.0' } })
    // As an older pnpm wrote it: engines normalized otherwise, and ajv-formats with its optional peer
    // resolved per parent (a variant for each ajv, the first in key order not the direct dependency's).
    const older = parseYaml(readLockfileText(projects.lodeProject)) as {
      importers: Record<string, { dependencies: Record<string, { version: string }> }>
      packages: Record<string, Record<string, unknown>>
      snapshots: Record<string, Record<string, Record<string, string>>>
    }
    older.packages['eng-list@1.0.0']!['engines'] = { node: '>=0.10.0' }
    delete older.snapshots['aj-formats@3.0.1']
    older.snapshots['aj-formats@3.0.1(aj@8.2.0)'] = { optionalDependencies: { aj: '8.2.0' } }
    older.snapshots['aj-formats@3.0.1(aj@8.3.0)'] = { optionalDependencies: { aj: '8.3.0' } }
    older.importers['.']!.dependencies['aj-formats']!.version = '3.0.1(aj@8.3.0)'
    older.snapshots['uses-aj@1.0.0']!['dependencies']!['aj-formats'] = '3.0.1(aj@8.2.0)'
    older.snapshots['uses-aj-latest@1.0.0']!['dependencies']!['aj-formats'] = '3.0.1(aj@8.3.0)'
    // A new dependency brings another version of a hoisted peer: the locked one stays while its
    // package keeps its dependency path.
    await bothUpdate(projects, stringifyYaml(older), { name: 'stale', version: '1.0.0', dependencies: { 'eng-list': '1.0.0', 'hp-plugin': '1.0.0', 'hp-old': '1.0.0', 'aj-formats': '3.0.1', 'uses-aj': '1.0.0', 'uses-aj-latest': '1.0.0', 'hp-new': '1.0.0' } })
    assert.match(readLockfileText(projects.lodeProject), /hp-plugin@1\.0\.0\(hp@1\.0\.0\)/)
    // The locked one gets a peer of its own now (as @babel/core when supports-color came to the root): hoisted anew.
    const moved = await compare({ name: 'stale-moved', version: '1.0.0', dependencies: { 'hq-plugin': '1.0.0', 'hq-old': '1.0.0' } })
    await bothUpdate(moved, readLockfileText(moved.lodeProject), { name: 'stale-moved', version: '1.0.0', dependencies: { 'hq-plugin': '1.0.0', 'hq-old': '1.0.0', 'hq-new': '1.0.0', sc: '7.2.0' } })
    assert.match(readLockfileText(moved.lodeProject), /hq-plugin@1\.0\.0\(hq@1\.1\.0\)/)
  })

  test('a dependency that is also an optional peer takes the version the parent provides, else its own', async () => {
    const projects = await compare({ name: 'dep-and-peer', version: '1.0.0', dependencies: { 'uses-aj': '1.0.0', 'aj-formats': '3.0.1' } })
    await installBoth(await compare({ name: 'dep-and-peer-same', version: '1.0.0', dependencies: { 'uses-aj-latest': '1.0.0' } }))
    await installBoth(projects)
  })

  test('publishConfig.directory and linkDirectory: recorded per importer, and links to the published directory, as pnpm does', async () => {
    const projects = await compare({ name: 'publish-dirs', version: '1.0.0', private: true }, {
      'pnpm-workspace.yaml': 'packages:\n  - packages/*\n',
      'packages/x/package.json': JSON.stringify({ name: 'x', version: '1.0.0', publishConfig: { directory: 'dist', linkDirectory: false } }),
      'packages/z/package.json': JSON.stringify({ name: 'z', version: '1.0.0', publishConfig: { directory: 'dist' } }),
      'packages/z/dist/package.json': JSON.stringify({ name: 'z', version: '1.0.0' }),
      'packages/w/package.json': JSON.stringify({ name: 'w', version: '1.0.0', publishConfig: { directory: 'dist', linkDirectory: true } }),
      'packages/w/dist/package.json': JSON.stringify({ name: 'w', version: '1.0.0' }),
      'packages/y/package.json': JSON.stringify({ name: 'y', version: '1.0.0', dependencies: { x: 'workspace:*', z: 'workspace:*', w: 'workspace:*' } }),
    })
    await installBoth(projects)
    assert.equal(fs.readlinkSync(path.join(projects.lodeProject.dir, 'packages', 'y', 'node_modules', 'z')), path.join('..', '..', 'z', 'dist'))
    // A lockfile an older pnpm 11 wrote (no linkDirectory) is out of date for both.
    for (const { dir } of [projects.pnpmProject, projects.lodeProject]) fs.writeFileSync(path.join(dir, 'pnpm-lock.yaml'), readLockfileText(projects.lodeProject).replace('    linkDirectory: false\n', ''))
    await pnpm(projects.pnpmProject, ['install', '--frozen-lockfile', '--lockfile-only'], true)
    const frozen = await lode(projects.lodeProject, ['install', '--frozen-lockfile', '--lockfile-only'])
    assert.equal(frozen.code, 1)
    assert.match(frozen.stderr, /ERR_LODE_OUTDATED_LOCKFILE.*"linkDirectory" in the lockfile \(true\) doesn't match "publishConfig\.linkDirectory" in package\.json \(false\)/)
  })

  test('a peer the workspace root provides is named with its own peers in the suffix', async () => {
    await installBoth(await compare({ name: 'root-peer-suffix', version: '1.0.0', private: true, dependencies: { sc: '7.2.0', es: '10.15.0' } }, {
      'pnpm-workspace.yaml': 'packages:\n  - packages/*\n',
      'packages/x/package.json': JSON.stringify({ name: 'x', version: '1.0.0', dependencies: { 'es-utils': '4.10.1', 'es-opt-user': '1.0.0' } }),
    }))
    // The root's two are each other's peers: among themselves they are named bare, elsewhere whole.
    await installBoth(await compare({ name: 'root-peer-cycle', version: '1.0.0', private: true, dependencies: { vt: '4.1.12', 'vt-cov': '4.1.12' } }, {
      'pnpm-workspace.yaml': 'packages:\n  - packages/*\n',
      'packages/x/package.json': JSON.stringify({ name: 'x', version: '1.0.0', dependencies: { 'ng-build': '20.3.41' } }),
    }))
  })

  test('a range under a package is resolved as pnpm resolves it, whatever version the package pins beside it', async () => {
    await compare({ name: 'pinned-beside', version: '1.0.0', dependencies: { aws: '2.1693.0' } })
    await compare({ name: 'pinned-beside-direct', version: '1.0.0', dependencies: { aws: '2.1693.0', xj: '0.6.2' } })
  })

  test('a missing optional peer takes what the importer\'s own tree resolved for it below, not the highest version of the workspace', async () => {
    await compare({ name: 'peer-from-below', version: '1.0.0', private: true, dependencies: { wb: '7.4.0', up: '3.7.0' } }, {
      'pnpm-workspace.yaml': 'packages:\n  - packages/*\n',
      'packages/nuxt/package.json': JSON.stringify({ name: 'nuxt', version: '1.0.0', dependencies: { rp: '4.68.7' } }),
    })
  })

  test('a peer resolved below becomes a provider for the whole importer and, from the workspace root, for every project, whatever its version', async () => {
    await installBoth(await compare({ name: 'provider-below', version: '1.0.0', dependencies: { tsd: '0.12.7', unp: '3.7.0' } }))
    await installBoth(await compare({ name: 'provider-from-root', version: '1.0.0', private: true, dependencies: { tsd: '0.12.7' } }, {
      'pnpm-workspace.yaml': 'packages:\n  - packages/*\n',
      'packages/x/package.json': JSON.stringify({ name: 'x', version: '1.0.0', dependencies: { unp: '3.7.0' } }),
    }))
  })

  test('variants of packages that only differ through a cycle of peers collapse into the richer one, as pnpm\'s dedupePeerDependents does', async () => {
    await installBoth(await compare({ name: 'cycle-variants', version: '1.0.0', private: true }, {
      'pnpm-workspace.yaml': 'packages:\n  - packages/*\n',
      'packages/a/package.json': JSON.stringify({ name: 'a', version: '1.0.0', dependencies: { 'bc-react': '4.7.0', sc: '7.2.0' } }),
      'packages/b/package.json': JSON.stringify({ name: 'b', version: '1.0.0', dependencies: { 'bc-react': '4.7.0' } }),
    }))
  })

  test('a required peer hoisted to a project takes the workspace root\'s specifier for it, not the highest version of the workspace', async () => {
    await installBoth(await compare({ name: 'root-specifier', version: '1.0.0', private: true, dependencies: { rx: '^17.0.0' } }, {
      'pnpm-workspace.yaml': 'packages:\n  - packages/*\n',
      'packages/x/package.json': JSON.stringify({ name: 'x', version: '1.0.0', dependencies: { 'rx-any-dom': '1.0.0' } }),
      'packages/y/package.json': JSON.stringify({ name: 'y', version: '1.0.0', dependencies: { rx: '18.3.1' } }),
    }))
  })

  test('versions asked for in package.json files weigh once per specifier; an npm: alias is no preference', async () => {
    await compare({ name: 'preferences', version: '1.0.0', private: true }, {
      'pnpm-workspace.yaml': 'packages:\n  - packages/*\n',
      'packages/a/package.json': JSON.stringify({ name: 'a', version: '1.0.0', dependencies: { pv: '1.0.0' } }),
      'packages/b/package.json': JSON.stringify({ name: 'b', version: '1.0.0', dependencies: { pv: '1.0.0' } }),
      'packages/c/package.json': JSON.stringify({ name: 'c', version: '1.0.0', dependencies: { pv: '1.1.0' } }),
      'packages/d/package.json': JSON.stringify({ name: 'd', version: '1.0.0', dependencies: { pv: '^1.0.0', aj: '^8.0.0' } }),
      'packages/e/package.json': JSON.stringify({ name: 'e', version: '1.0.0', dependencies: { aj: 'npm:aj', 'aj-pinned': 'npm:aj@8.2.0' } }),
      'packages/f/package.json': JSON.stringify({ name: 'f', version: '1.0.0', dependencies: { aj: '8.2.0' } }),
    })
  })

  test('a dependency that is also an optional peer is left to the peer where its owner has that package in scope', async () => {
    await installBoth(await compare({ name: 'shadowed-dep', version: '1.0.0', dependencies: { aj: '8.2.0', 'uses-ajf': '1.0.0' } }))
  })

  test('a package\'s dependency leaves a provider of the same version above it in place for its siblings\' peers', async () => {
    await installBoth(await compare({ name: 'same-version-provider', version: '1.0.0', dependencies: { cn: '7.0.0', 'wp-core': '1.0.0' } }))
  })

  test('an optional dependency\'s required peer, installed for it, is optional too; a hoisted peer counts only where something reaches it', async () => {
    await installBoth(await compare({ name: 'optional-peer-provider', version: '1.0.0', optionalDependencies: { kt: '2.0.0' } }))
  })

  test('a package.json with a byte order mark is read, in the root, a workspace project and a file: package', async () => {
    const bom = (value: unknown): string => `\uFEFF${JSON.stringify(value)}`
    const projects = await compare({ name: 'bom', version: '1.0.0', private: true, dependencies: { ms: '2.1.3' }, scripts: { hello: 'echo 42' } }, {
      'pnpm-workspace.yaml': 'packages:\n  - packages/*\n',
      'packages/a/package.json': bom({ name: 'a', version: '1.0.0', dependencies: { local: 'file:./local' } }),
      'packages/a/local/package.json': bom({ name: 'local', version: '1.0.0' }),
    })
    for (const { dir } of [projects.pnpmProject, projects.lodeProject]) fs.writeFileSync(path.join(dir, 'package.json'), `\uFEFF${fs.readFileSync(path.join(dir, 'package.json'), 'utf8')}`)
    await installBoth(projects)
    const hello = await lode(projects.lodeProject, ['hello'])
    assert.equal(hello.code, 0, hello.stderr)
    assert.match(hello.stdout, /^42\b/m)
  })
})
