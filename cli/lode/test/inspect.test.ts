import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'
import { after, before, test } from 'node:test'

import { TestRegistry } from '@lode/__utils__.test-fixtures'
import type { PackageSpec } from '@lode/__utils__.test-fixtures'

import { cloneProject, defaultStoreDir, lode, makeProject, pnpm } from './helpers.js'
import type { Project } from './helpers.js'

// pnpm's commands that inspect a project, beside pnpm 11: what both print, and that they write nothing.

const PACKAGES: PackageSpec[] = [
  { name: 'alpha', version: '1.0.0' },
  {
    name: 'leaf-a',
    version: '1.0.0',
    manifest: { description: 'Leaf A', repository: { type: 'git', url: 'git+https://example.com/leaf-a.git' }, homepage: 'https://example.com/leaf-a', license: 'MIT' },
  },
  { name: 'leaf-b', version: '1.0.0' },
  { name: 'mid', version: '1.0.0', dependencies: { 'leaf-a': '^1.0.0', 'leaf-b': '^1.0.0' } },
  { name: 'top', version: '1.0.0', dependencies: { mid: '^1.0.0', 'leaf-a': '^1.0.0' } },
  { name: 'host', version: '1.0.0' },
  { name: 'host', version: '1.1.0' },
  { name: 'plugin', version: '1.0.0', dependencies: { 'leaf-b': '^1.0.0' }, manifest: { peerDependencies: { host: '^1.0.0' } } },
  { name: 'cyc-a', version: '1.0.0', dependencies: { 'cyc-b': '^1.0.0' } },
  { name: 'cyc-b', version: '1.0.0', dependencies: { 'cyc-a': '^1.0.0' } },
  { name: 'opt-x', version: '1.0.0', dependencies: { 'leaf-b': '^1.0.0' } },
  { name: '@sc/thing', version: '2.0.0', dependencies: { 'leaf-a': '^1.0.0' } },
  { name: 'builder', version: '1.0.0', manifest: { scripts: { postinstall: 'node -e 1' } } },
  { name: 'other-builder', version: '1.0.0', manifest: { scripts: { install: 'node -e 1' } } },
  { name: 'opt-peer', version: '1.0.0', dependencies: { 'leaf-b': '^1.0.0' } },
  {
    name: 'uses-opt-peer',
    version: '1.0.0',
    dependencies: { 'leaf-a': '^1.0.0' },
    manifest: {
      license: 'MIT',
      peerDependencies: { 'opt-peer': '^1.0.0' },
      peerDependenciesMeta: { 'opt-peer': { optional: true } },
      // pnpm reads package.json through normalize-package-data: the repository rewritten, a homepage made of it, the author parsed.
      repository: 'github:someone/uses-opt-peer',
      author: 'Ann <ann@example.com> (https://ann.example.com)',
    },
  },
]

/** pnpm 11's --json names the public registry in `resolved` whatever registry is configured; lode names the configured one. */
function registryOrigin (text: string): string {
  return text.replace(/"resolved": "[a-z]+:\/\/[^/]+\//g, '"resolved": "<registry>/')
}

let registry: TestRegistry
before(async () => {
  registry = await TestRegistry.start(PACKAGES)
})
after(async () => { await registry.close() })

const json = (value: unknown): string => `${JSON.stringify(value, null, 2)}\n`

/** A workspace with a dependency reached on many paths, a cycle, peer variants, an `npm:` alias, a workspace link and every group. */
const WORKSPACE: Record<string, string> = {
  'pnpm-workspace.yaml': 'packages:\n  - packages/*\n',
  'packages/p1/package.json': json({
    name: 'p1',
    version: '0.1.0',
    dependencies: { top: '^1.0.0', host: '1.0.0', plugin: '^1.0.0', p2: 'workspace:*', myalias: 'npm:leaf-b@^1.0.0' },
    devDependencies: { 'cyc-a': '^1.0.0' },
    optionalDependencies: { 'opt-x': '^1.0.0' },
  }),
  'packages/p2/package.json': json({
    name: 'p2',
    version: '0.2.0',
    private: true,
    dependencies: { host: '1.1.0', plugin: '^1.0.0', 'leaf-a': '^1.0.0' },
    devDependencies: { '@sc/thing': '^2.0.0' },
  }),
  'packages/p3/package.json': json({ name: 'p3', version: '0.3.0' }),
}

/** The same project, entered in `sub` (its home kept). */
function inDir (project: Project, sub: string): Project {
  return { dir: path.join(project.dir, sub), home: project.home }
}

test('lode root and lode bin print the nearest project\'s node_modules and .bin, as pnpm 11 does', async () => {
  const project = makeProject(registry, { name: 'p', version: '1.0.0' }, { 'src/deep/file.js': '' })
  const outside = path.dirname(project.dir)
  for (const [label, where, args] of [
    ['in the project', project, []],
    ['below it (the nearest package.json up)', inDir(project, 'src/deep'), []],
    ['with --dir, taken as given', project, ['--dir', path.join(project.dir, 'src')]],
    ['with -C outside any project', project, ['-C', outside]],
  ] as const) {
    for (const command of ['root', 'bin', 'prefix']) {
      const expected = await pnpm(where, [command, ...args])
      const actual = await lode(where, [command, ...args])
      assert.equal(actual.code, 0, actual.stderr)
      assert.equal(actual.stdout, expected.stdout, `lode ${command} ${label}`)
    }
  }
  const rootOut = await lode(inDir(project, 'src/deep'), ['root'])
  assert.equal(rootOut.stdout, `${path.join(project.dir, 'node_modules')}\n`)
  assert.deepEqual(fs.readdirSync(project.dir).sort(), ['package.json', 'src'], 'nothing is written')
})

test('lode root -g is refused with a coded error (lode has no global packages); a --dir that does not exist too', async () => {
  const project = makeProject(registry, { name: 'p', version: '1.0.0' })
  const global = await lode(project, ['root', '-g'])
  assert.equal(global.code, 1)
  assert.match(global.stderr, /^\[ERR_LODE_GLOBAL_NOT_SUPPORTED\] .*lode root --global/)
  assert.match(global.stderr, /pnpm root -g/)
  assert.match((await lode(project, ['prefix', '-g'])).stderr, /^\[ERR_LODE_GLOBAL_NOT_SUPPORTED\] .*lode prefix --global/)
  const missing = await lode(project, ['bin', '--dir', 'nowhere'])
  assert.equal(missing.code, 1)
  assert.match(missing.stderr, /^\[ERR_LODE_DIR_NOT_FOUND\] The directory .*nowhere \(--dir\) does not exist\./)
  assert.equal(missing.stdout, '')
})

/** The workspace installed by pnpm 11 in one copy and by lode in another. */
async function installedWorkspaces (): Promise<{ pnpmProject: Project, lodeProject: Project }> {
  const pnpmProject = makeProject(registry, { name: 'root-ws', version: '1.0.0', private: true, devDependencies: { top: '^1.0.0' } }, WORKSPACE)
  const lodeProject = cloneProject(pnpmProject)
  await pnpm(pnpmProject, ['install'])
  const installed = await lode(lodeProject, ['install'])
  assert.equal(installed.code, 0, installed.stderr)
  return { pnpmProject, lodeProject }
}

test('lode why prints the paths from the projects to a package as pnpm 11 does: tree, --json, --parseable, --depth, groups', async () => {
  const { pnpmProject, lodeProject } = await installedWorkspaces()
  const lockfile = fs.readFileSync(path.join(lodeProject.dir, 'pnpm-lock.yaml'), 'utf8')
  const cases: string[][] = [
    ['leaf-b'], ['leaf-a'], ['cyc-a'], ['host'], ['myalias'], ['plugin'], ['leaf-*', 'cyc-b'], ['host@1.0.0'], ['host@^1.1.0'],
    ['leaf-b', '--depth', '1'], ['leaf-a', '--depth', '2'], ['leaf-a', '--prod'], ['leaf-a', '--dev'], ['leaf-b', '--no-optional'],
    ['plugin', '--json'], ['leaf-a', '--json', '--depth', '2'], ['leaf-*', '--parseable'], ['leaf-b', '--parseable', '--depth', '2'],
    ['nothing-like-it'], ['nothing-like-it', '--json'], ['leaf-a', '--filter', 'p2'], ['@sc/*'],
    ['leaf-a', '--long'], ['leaf-a', '--long', '--json'], ['leaf-*', '--long', '--parseable'], ['mid', '--long'],
  ]
  for (const args of cases) {
    for (const where of ['.', 'packages/p2']) {
      const expected = await pnpm(inDir(pnpmProject, where), ['why', ...args])
      const actual = await lode(inDir(lodeProject, where), ['why', ...args])
      assert.equal(actual.code, 0, actual.stderr)
      assert.equal(actual.stdout.replaceAll(lodeProject.dir, pnpmProject.dir), expected.stdout, `lode why ${args.join(' ')} in ${where}`)
    }
  }
  const tree = await lode(lodeProject, ['why', 'leaf-b'])
  assert.match(tree.stdout, /^leaf-b@1\.0\.0\n├─┬ mid@1\.0\.0\n│ └─┬ top@1\.0\.0\n│ {3}├── p1@0\.1\.0 \(dependencies\)\n│ {3}└── root-ws@1\.0\.0 \(devDependencies\)\n/)
  assert.match(tree.stdout, /├─┬ plugin@1\.0\.0 peer#[0-9a-f]{4} \(2 variations\)\n/)
  assert.match(tree.stdout, /\n\nFound 1 version of leaf-b\n$/)
  const cycle = await lode(lodeProject, ['why', 'cyc-a'])
  assert.match(cycle.stdout, /│ └── cyc-a@1\.0\.0 \[circular\]\n/)
  assert.equal(fs.readFileSync(path.join(lodeProject.dir, 'pnpm-lock.yaml'), 'utf8'), lockfile, 'why writes nothing')
})

test('lode why without a name, with a query it cannot search by, or with a --depth that is no number fails with a coded error', async () => {
  const project = makeProject(registry, { name: 'p', version: '1.0.0', dependencies: { alpha: '1.0.0' } })
  for (const [args, pattern] of [
    [['why'], /^\[ERR_LODE_MISSING_PACKAGE_NAME\] `lode why` requires the package name\./],
    [['why', 'alpha@latest'], /^\[ERR_LODE_INVALID_PACKAGE_QUERY\] Invalid query - alpha@latest\./],
    [['why', 'alpha', '--depth', 'deep'], /^\[ERR_LODE_BAD_ARGUMENTS\] --depth takes a number, not "deep"\./],
  ] as const) {
    const result = await lode(project, [...args])
    assert.equal(result.code, 1, `lode ${args.join(' ')}`)
    assert.match(result.stderr, pattern)
    assert.equal(result.stdout, '')
  }
  // Nothing installed and no lockfile: nothing to say, as pnpm.
  const none = await lode(project, ['why', 'alpha'])
  assert.equal(none.code, 0, none.stderr)
  assert.equal(none.stdout, '')
  assert.deepEqual(fs.readdirSync(project.dir), ['package.json'])
})

test('lode list prints the projects\' dependencies as pnpm 11 does: the tree, --depth, groups, --parseable, a workspace from its root or a project', async () => {
  const { pnpmProject, lodeProject } = await installedWorkspaces()
  const cases: string[][] = [
    [], ['--depth', '1'], ['--depth', 'Infinity'], ['--depth', '-1'], ['--prod'], ['--dev'], ['--no-optional', '--depth', '2'],
    ['--parseable'], ['--parseable', '--depth', 'Infinity'], ['--parseable', '--depth', '-1'], ['-r'], ['--filter', 'p2', '--depth', '1'],
    ['--lockfile-only', '--depth', '1'], ['--json'], ['--json', '--depth', 'Infinity'], ['--json', '--depth', '-1'], ['--json', '--prod', '--depth', '1'],
    ['--long'], ['--long', '--depth', 'Infinity'], ['--parseable', '--long', '--depth', '1'], ['--json', '--long', '--depth', '1'],
    // Searching: only the paths to what the patterns match.
    ['top'], ['leaf-a', '--depth', 'Infinity'], ['leaf-*', '--depth', '1'], ['leaf-a@^1.0.0', 'host', '--depth', 'Infinity'], ['nothing-such'],
    ['leaf-a', '--json', '--depth', 'Infinity'], ['leaf-a', '--parseable', '--depth', 'Infinity'], ['-r', 'top', '--depth', '2'],
  ]
  for (const args of cases) {
    for (const where of ['.', 'packages/p1', 'packages/p3']) {
      const expected = await pnpm(inDir(pnpmProject, where), ['list', ...args])
      const actual = await lode(inDir(lodeProject, where), ['ls', ...args])
      assert.equal(actual.code, 0, actual.stderr)
      const lodeOut = registryOrigin(actual.stdout.replaceAll(lodeProject.dir, pnpmProject.dir))
      const pnpmOut = registryOrigin(expected.stdout)
      // With --long, pnpm 11's JSON has its keys in the order its reads of package.json finish: compared as values.
      if (args.includes('--json') && args.includes('--long')) assert.deepStrictEqual(JSON.parse(lodeOut), JSON.parse(pnpmOut), `lode list ${args.join(' ')} in ${where}`)
      else assert.equal(lodeOut, pnpmOut, `lode list ${args.join(' ')} in ${where}`)
    }
  }
  const listed = JSON.parse((await lode(lodeProject, ['ls', '--json'])).stdout) as Array<{ devDependencies?: Record<string, { resolved?: string }> }>
  assert.equal(listed[0]!.devDependencies!['top']!.resolved, `${registry.url}top/-/top-1.0.0.tgz`, 'resolved: the configured registry\'s tarball URL')
  const tree = await lode(lodeProject, ['list', '--depth', 'Infinity'])
  assert.match(tree.stdout, /^Legend: production dependency, optional only, dev only\n\nroot-ws@1\.0\.0 .* \(PRIVATE\)\n│\n│ {3}devDependencies:\n└─┬ top@1\.0\.0\n/)
  assert.match(tree.stdout, /├── top@1\.0\.0 \[deduped\]\n/)
  assert.match(tree.stdout, /\n\n\d+ packages in 4 projects\n$/)
  const refused = await lode(lodeProject, ['list', 'top@latest'])
  assert.equal(refused.code, 1)
  assert.match(refused.stderr, /^\[ERR_LODE_INVALID_PACKAGE_QUERY\] /)
})

test('lode ignored-builds prints the builds the last install left out as pnpm 11 does; lode store path the store', async () => {
  const pnpmProject = makeProject(registry, { name: 'b', version: '1.0.0', dependencies: { builder: '1.0.0', 'other-builder': '1.0.0', alpha: '1.0.0' } }, {
    'pnpm-workspace.yaml': 'strictDepBuilds: false\nallowBuilds:\n  refused-one: false\n',
  })
  const lodeProject = cloneProject(pnpmProject)
  const same = async (args: string[], label: string): Promise<string> => {
    const expected = await pnpm(pnpmProject, args)
    const actual = await lode(lodeProject, args)
    assert.equal(actual.code, 0, actual.stderr)
    assert.equal(actual.stdout.replaceAll(lodeProject.home, pnpmProject.home).replace('"lode rebuild"', '"pnpm rebuild"'), expected.stdout, label)
    return actual.stdout
  }
  await same(['ignored-builds'], 'before any install')
  await pnpm(pnpmProject, ['install'])
  assert.equal((await lode(lodeProject, ['install'])).code, 0)
  const listed = await same(['ignored-builds'], 'after an install that left two builds out')
  assert.match(listed, /^Automatically ignored builds during installation:\n {2}builder\n {2}other-builder\nhint: .*then run "lode rebuild"\./)
  assert.match(listed, /\nExplicitly ignored package builds \(via allowBuilds\):\n {2}refused-one\n$/)
  // pnpm's store, by default and as --store-dir names it.
  await same(['store', 'path'], 'the default store')
  assert.equal((await lode(lodeProject, ['store', 'path'])).stdout, `${path.join(defaultStoreDir(lodeProject), 'v11')}\n`)
  await same(['store', 'path', '--store-dir', path.join(path.dirname(lodeProject.dir), 'elsewhere')], 'the store --store-dir names')
  const plain = makeProject(registry, { name: 'p', version: '1.0.0', dependencies: { alpha: '1.0.0' } })
  const plainPnpm = cloneProject(plain)
  await pnpm(plainPnpm, ['install'])
  assert.equal((await lode(plain, ['install'])).code, 0)
  assert.equal((await lode(plain, ['ignored-builds'])).stdout, (await pnpm(plainPnpm, ['ignored-builds'])).stdout, 'nothing was left out')
  const refused = await lode(plain, ['store', 'add', 'leaf'])
  assert.equal(refused.code, 1)
  assert.match(refused.stderr, /^\[ERR_LODE_COMMAND_NOT_IMPLEMENTED\] "store add" is a pnpm command lode does not have yet\./)
  for (const args of [['store'], ['store', 'paths']]) {
    const bad = await lode(plain, args)
    assert.equal(bad.code, 1)
    assert.match(bad.stderr, /^\[ERR_LODE_BAD_ARGUMENTS\] lode store takes a subcommand: path/)
  }
})

test('--prod and --dev walk past an optional peer that only a project provides, as pnpm 11 does (list, why, licenses)', async () => {
  // uses-opt-peer has opt-peer as an optional peer; the project provides it as a dev dependency. The
  // edge uses-opt-peer → opt-peer is there for the project's sake: --prod does not follow it, and
  // opt-peer is development-only.
  const files = {
    'pnpm-workspace.yaml': 'packages:\n  - packages/*\n',
    'packages/app/package.json': JSON.stringify({ name: 'app', version: '1.0.0', dependencies: { 'uses-opt-peer': '1.0.0' }, devDependencies: { 'opt-peer': '1.0.0' } }),
    'packages/lib/package.json': JSON.stringify({ name: 'lib', version: '1.0.0', dependencies: { 'leaf-a': '1.0.0' } }),
  }
  const pnpmProject = makeProject(registry, { name: 'root', version: '1.0.0', private: true }, files)
  const lodeProject = cloneProject(pnpmProject)
  await pnpm(pnpmProject, ['install'])
  assert.equal((await lode(lodeProject, ['install'])).code, 0)
  const cases = [
    ['ls', '-r', '--prod', '--depth', '2'], ['ls', '-r', '--dev', '--depth', '2'], ['ls', '-r', '--depth', '2'],
    ['why', 'leaf-b', '--prod'], ['why', 'opt-peer', '--prod'], ['why', 'leaf-b'],
    ['licenses', 'list', '-r'], ['licenses', 'list', '-r', '--prod'], ['licenses', 'list', '-r', '--dev', '--json'],
    ['ls', '-r', '--long', '--depth', '1'], ['ls', '-r', '--long', '--json'], ['licenses', 'list', '-r', '--json', '--long'],
  ]
  for (const args of cases) {
    const expected = await pnpm(pnpmProject, args)
    const actual = await lode(lodeProject, args)
    assert.equal(actual.code, 0, actual.stderr)
    assert.equal(registryOrigin(actual.stdout.replaceAll(lodeProject.dir, pnpmProject.dir)), registryOrigin(expected.stdout), args.join(' '))
  }
  const prod = (await lode(lodeProject, ['ls', '-r', '--prod', '--depth', '2'])).stdout
  assert.doesNotMatch(prod, /── opt-peer/, `the edge to the optional peer is not followed with --prod:\n${prod}`)
  assert.match((await lode(lodeProject, ['licenses', 'list', '-r'])).stdout, /│ opt-peer \(dev\) +│/)
  // lode's install links the peer with --prod (it follows every edge): fetch --prod puts it in the store for the offline install that follows.
  const store = path.join(path.dirname(lodeProject.dir), 'fresh-store')
  assert.equal((await lode(lodeProject, ['fetch', '--prod', '--store-dir', store])).code, 0)
  fs.rmSync(path.join(lodeProject.dir, 'node_modules'), { recursive: true })
  const offline = await lode(lodeProject, ['install', '--prod', '--offline', '--frozen-lockfile', '--store-dir', store])
  assert.equal(offline.code, 0, offline.stderr)
  // Back to the default store: a node_modules linked from another store is laid out anew only in CI.
  assert.equal((await lode(lodeProject, ['install', '--frozen-lockfile'], { CI: 'true' })).code, 0)
  const long = (await lode(lodeProject, ['ls', '-r', '--long', '--json'])).stdout
  assert.match(long, /"repository": "git\+https:\/\/github\.com\/someone\/uses-opt-peer\.git"/)
  assert.match(long, /"homepage": "https:\/\/github\.com\/someone\/uses-opt-peer#readme"/)
  assert.match(long, /"author": \{\n\s+"name": "Ann",\n\s+"email": "ann@example\.com",\n\s+"url": "https:\/\/ann\.example\.com"/)
})
