import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'
import { test } from 'node:test'

import type { TestRegistry, PackageSpec } from '@lode/__utils__.test-fixtures'

import { aDayLater, json, lode, makeProject, pnpm, projectFile, readLockfileText, stepsBesidePnpm, withRegistry } from './helpers.js'
import type { Project, Step, ProjectPair as Pair } from './helpers.js'

// pnpm 11's own add and update scenarios, each run by pnpm 11 and by lode on copies of one project
// (stepsBesidePnpm: the same exit code, package.json files, lockfile and node_modules after each step).
// Each test has a registry of its own: versions published between steps make the "newer" ones.

const NOW = new Date().toISOString()



/** The same edit of a file in each project (a hand edit between steps). */
function editBoth (projects: Project[], file: string, edit: (text: string | undefined) => string): void {
  for (const project of projects) fs.writeFileSync(path.join(project.dir, file), edit(projectFile(project, file)))
}


/** The files a workspace step compares: the root's, and each project's package.json. */
function workspaceFiles (projects: string[]): string[] {
  return ['package.json', 'pnpm-workspace.yaml', 'pnpm-lock.yaml', ...projects.map((dir) => `${dir}/package.json`)]
}

/** A workspace of `packages/<name>` projects (named as their directory). */
function makeWorkspace (registry: TestRegistry, projects: Record<string, Record<string, unknown>>, settings = ''): Project {
  return makeProject(registry, { name: 'root', version: '1.0.0', private: true }, {
    'pnpm-workspace.yaml': `packages:\n  - packages/*\n${settings}`,
    ...Object.fromEntries(Object.entries(projects).map(([name, fields]) => [`packages/${name}/package.json`, json({ name, version: '1.0.0', ...fields })])),
  })
}

/** A step, then the next ones on the same pair of projects. */
async function begin (project: Project, steps: ReadonlyArray<Step | string[]>, files?: readonly string[]): Promise<Pair> {
  return await stepsBesidePnpm(project, steps, files)
}
async function then (pair: Pair, steps: ReadonlyArray<Step | string[]>, files?: readonly string[]): Promise<Pair> {
  return await stepsBesidePnpm(pair.pnpmProject, steps, files, pair.lodeProject)
}

test('add --save-peer then remove, savePrefix "", names already in devDependencies or optionalDependencies, dependencies moved to devDependencies by hand, as pnpm 11', async () => {
  await withRegistry([
    { name: 'dep', version: '1.0.0' },
    { name: 'dep', version: '1.1.0' },
    { name: 'foo', version: '100.0.0' },
    { name: 'bar', version: '100.0.0' },
    { name: 'qar', version: '100.0.0' },
  ], async (registry) => {
    // devDependencies and peerDependencies; remove takes it out of both.
    const peer = await begin(makeProject(registry, { name: 'app', version: '1.0.0' }), [['add', '--save-peer', 'dep@1.0.0'], ['remove', 'dep']])
    assert.equal(projectFile(peer.lodeProject, 'package.json'), json({ name: 'app', version: '1.0.0' }).trimEnd())
    // An empty savePrefix saves versions as they are (a name already there keeps its spec).
    const noPrefix = await begin(makeProject(registry, { name: 'app', version: '1.0.0' }, { 'pnpm-workspace.yaml': 'savePrefix: \'\'\n' }), [
      ['add', 'dep@1.0.0'], ['add', 'dep'], ['add', 'foo'],
    ])
    assert.match(projectFile(noPrefix.lodeProject, 'package.json')!, /"dep": "1\.0\.0",\n {4}"foo": "100\.0\.0"/)
    // Already in a group: left there, the lockfile's importer and `optional: true` as pnpm writes them.
    const kept = await begin(makeProject(registry, { name: 'app', version: '1.0.0', devDependencies: { foo: '^100.0.0' }, optionalDependencies: { bar: '^100.0.0' } }), [
      ['add', 'foo', 'bar'],
    ])
    assert.match(readLockfileText(kept.lodeProject), /bar@100\.0\.0:\n {4}optional: true/)
    // A hand edit moves every dependency to devDependencies: install regroups the lockfile's importer.
    const moved = await begin(makeProject(registry, { name: 'app', version: '1.0.0', dependencies: { bar: '^100.0.0', foo: '^100.0.0', qar: '^100.0.0' } }), [['install']])
    editBoth([moved.pnpmProject, moved.lodeProject], 'package.json', () => json({ name: 'app', version: '1.0.0', devDependencies: { bar: '^100.0.0', foo: '^100.0.0', qar: '^100.0.0' } }))
    await then(moved, [['install']])
    assert.doesNotMatch(readLockfileText(moved.lodeProject), /^ {4}dependencies:/m)
  })
})

test('add installs a package\'s missing peers, only the optional packages of the libc asked for, and refuses a version younger than a strict minimumReleaseAge, as pnpm 11', async () => {
  await withRegistry([
    { name: 'peer-a', version: '1.0.0' },
    { name: 'peer-b', version: '1.0.0' },
    { name: 'dep', version: '1.0.0' },
    { name: 'abc', version: '1.0.0', dependencies: { dep: '1.0.0' }, manifest: { peerDependencies: { 'peer-a': '^1.0.0', 'peer-b': '^1.0.0' } } },
    { name: 'plat-glibc', version: '1.0.0', manifest: { os: ['linux'], cpu: ['x64'], libc: ['glibc'] } },
    { name: 'plat-musl', version: '1.0.0', manifest: { os: ['linux'], cpu: ['x64'], libc: ['musl'] } },
    { name: 'multi', version: '1.0.0', manifest: { optionalDependencies: { 'plat-glibc': '1.0.0', 'plat-musl': '1.0.0' } } },
    { name: 'young', version: '1.0.0', publishedAt: NOW },
  ], async (registry) => {
    const peers = await begin(makeProject(registry, { name: 'app', version: '1.0.0' }), [['add', 'abc@1.0.0']])
    assert.match(readLockfileText(peers.lodeProject), /abc@1\.0\.0\(peer-a@1\.0\.0\)\(peer-b@1\.0\.0\):/)
    for (const libc of ['musl', 'glibc']) {
      const settings = `supportedArchitectures:\n  os: [linux]\n  cpu: [x64]\n  libc: [${libc}]\n`
      const { lodeProject } = await begin(makeProject(registry, { name: 'app', version: '1.0.0' }, { 'pnpm-workspace.yaml': settings }), [['add', 'multi']])
      const other = libc === 'musl' ? 'glibc' : 'musl'
      assert.ok(fs.existsSync(path.join(lodeProject.dir, 'node_modules', '.pnpm', `plat-${libc}@1.0.0`)), libc)
      assert.ok(!fs.existsSync(path.join(lodeProject.dir, 'node_modules', '.pnpm', `plat-${other}@1.0.0`)), libc)
    }
    const strict = makeProject(registry, { name: 'app', version: '1.0.0' }, { 'pnpm-workspace.yaml': 'minimumReleaseAge: 1440\nminimumReleaseAgeStrict: true\n' })
    const { lodeProject } = await begin(strict, [{ args: ['add', 'young@1.0.0'], fails: /ERR_LODE_NO_MATURE_MATCHING_VERSION/ }])
    assert.equal(projectFile(lodeProject, 'pnpm-lock.yaml'), undefined)
  })
})

test('add <project>@workspace:* with saveWorkspaceProtocol: false saves workspace:^<version>; update -r keeps an aliased workspace: spec and its link, as pnpm 11', async () => {
  await withRegistry([], async (registry) => {
    const files = workspaceFiles(['packages/p1', 'packages/p2'])
    const off = makeWorkspace(registry, { p1: {}, p2: { version: '2.0.0' } }, 'saveWorkspaceProtocol: false\n')
    const { lodeProject } = await begin(off, [['add', 'p2@workspace:*', '--filter', 'p1']], files)
    assert.match(projectFile(lodeProject, 'packages/p1/package.json')!, /"p2": "workspace:\^2\.0\.0"/)
    assert.ok(fs.lstatSync(path.join(lodeProject.dir, 'packages', 'p1', 'node_modules', 'p2')).isSymbolicLink())

    const aliased = makeWorkspace(registry, { p1: { dependencies: { pkg: 'workspace:p2@^' } }, p2: {} })
    const pair = await begin(aliased, [['update', '-r']], files)
    assert.match(projectFile(pair.lodeProject, 'packages/p1/package.json')!, /"pkg": "workspace:p2@\^"/)
    assert.ok(fs.lstatSync(path.join(pair.lodeProject.dir, 'packages', 'p1', 'node_modules', 'pkg')).isSymbolicLink())
  })
})

test('update moves a ^prerelease range to the newest rc, saving ^3.0.0-rc.1, and a frozen install then passes, as pnpm 11', async () => {
  await withRegistry([
    { name: 'pre', version: '1.0.0' },
    { name: 'pre', version: '2.0.0' },
    { name: 'pre', version: '3.0.0-rc.0' },
    { name: 'pre', version: '3.0.0-rc.1' },
  ], async (registry) => {
    const range = await begin(makeProject(registry, { name: 'app', version: '1.0.0', dependencies: { pre: '3.0.0-rc.0' } }), [['install']])
    editBoth([range.pnpmProject, range.lodeProject], 'package.json', () => json({ name: 'app', version: '1.0.0', dependencies: { pre: '^3.0.0-rc.0' } }))
    await then(range, [['update'], ['install', '--frozen-lockfile']])
    assert.match(projectFile(range.lodeProject, 'package.json')!, /"pre": "\^3\.0\.0-rc\.1"/)
    assert.doesNotMatch(readLockfileText(range.lodeProject), /pre@3\.0\.0-rc\.0/)
  })
})

test('update --latest of named dependencies moves only those, an npm: alias to its package\'s latest in the spec\'s style, in a project and across a workspace, as pnpm 11', async () => {
  await withRegistry([
    { name: 'dep', version: '100.0.0' },
    { name: 'bar', version: '100.0.0' },
    { name: 'foo', version: '100.0.0' },
    { name: 'qar', version: '100.0.0' },
    { name: 'baz', version: '1.0.0' },
  ], async (registry) => {
    const dependencies = { dep: '100.0.0', bar: '^100.0.0', foo: '100.0.0', alias: 'npm:qar@^100.0.0', 'baz-alias': 'npm:baz@~1.0.0' }
    const one = await begin(makeProject(registry, { name: 'app', version: '1.0.0', dependencies }), [['install']])
    const projects = { p1: { dependencies: { alias: 'npm:qar@100.0.0', dep: '100.0.0', foo: '100.0.0' } }, p2: { dependencies: { bar: '100.0.0', foo: '100.0.0' } } }
    const files = workspaceFiles(['packages/p1', 'packages/p2'])
    const workspace = await begin(makeWorkspace(registry, projects), [['install']], files)
    for (const name of ['bar', 'foo', 'qar']) await registry.publish({ name, version: '100.1.0' })
    await registry.publish({ name: 'dep', version: '101.0.0' })
    await registry.publish({ name: 'baz', version: '100.1.0' })
    aDayLater([one, workspace])

    await then(one, [['update', '-L', 'bar', 'alias']])
    assert.match(projectFile(one.lodeProject, 'package.json')!, /"alias": "npm:qar@\^100\.1\.0",\n {4}"bar": "\^100\.1\.0",\n {4}"baz-alias": "npm:baz@~1\.0\.0",\n {4}"dep": "100\.0\.0",\n {4}"foo": "100\.0\.0"/)
    // All of them: an alias whose name is on no registry takes its package's latest, in its spec's style.
    await then(one, [['update', '--latest']])
    assert.match(projectFile(one.lodeProject, 'package.json')!, /"baz-alias": "npm:baz@~100\.1\.0",\n {4}"dep": "101\.0\.0"/)
    await then(workspace, [['update', '-r', '--latest', 'foo', 'alias']], files)
    assert.match(projectFile(workspace.lodeProject, 'packages/p1/package.json')!, /"alias": "npm:qar@100\.1\.0",\n {4}"dep": "100\.0\.0",\n {4}"foo": "100\.1\.0"/)
  })
})

const GLOBS: PackageSpec[] = [
  { name: '@sc/peer-a', version: '1.0.0' },
  { name: '@sc/peer-c', version: '1.0.0' },
  { name: 'foo', version: '1.0.0' },
  { name: 'dep-of-x', version: '100.0.0' },
  { name: 'print-version', version: '1.0.0' },
  { name: 'bar', version: '100.0.0' },
  { name: 'qar', version: '100.0.0' },
  { name: 'regex', version: '0.1.0' },
]
async function publishNewer (registry: TestRegistry): Promise<void> {
  for (const [name, version] of [['@sc/peer-a', '1.0.1'], ['@sc/peer-c', '2.0.0'], ['foo', '2.0.0'], ['dep-of-x', '100.1.0'], ['print-version', '2.0.0'], ['bar', '100.1.0'], ['regex', '0.2.0']]) {
    await registry.publish({ name: name!, version: version! })
  }
}

test('update --latest with a glob, or a negated glob, moves only the dependencies it matches, as pnpm 11', async () => {
  await withRegistry(GLOBS, async (registry) => {
    const dependencies = { '@sc/peer-a': '1.0.0', '@sc/peer-c': '1.0.0', foo: '1.0.0' }
    const glob = await begin(makeProject(registry, { name: 'app', version: '1.0.0', dependencies }), [['install']])
    const negation = await begin(makeProject(registry, { name: 'app', version: '1.0.0', dependencies }), [['install']])
    await publishNewer(registry)
    aDayLater([glob, negation])
    await then(glob, [['update', '--latest', '@sc/peer-*']])
    assert.match(projectFile(glob.lodeProject, 'package.json')!, /"@sc\/peer-a": "1\.0\.1",\n {4}"@sc\/peer-c": "2\.0\.0",\n {4}"foo": "1\.0\.0"/)
    await then(negation, [['update', '--latest', '!@sc/peer-*']])
    assert.match(projectFile(negation.lodeProject, 'package.json')!, /"@sc\/peer-a": "1\.0\.0",\n {4}"@sc\/peer-c": "1\.0\.0",\n {4}"foo": "2\.0\.0"/)
  })
})

test('update -r --latest with globs and names moves each only in the projects that have it, the rest of the shared lockfile kept, as pnpm 11', async () => {
  await withRegistry(GLOBS, async (registry) => {
    const files = workspaceFiles(['packages/p1', 'packages/p2'])
    const patterns = await begin(makeWorkspace(registry, {
      p1: { dependencies: { 'dep-of-x': '100.0.0', foo: '1.0.0' } },
      p2: { dependencies: { '@sc/peer-c': '1.0.0', 'print-version': '1.0.0' } },
    }), [['install']], files)
    const some = await begin(makeWorkspace(registry, {
      p1: { dependencies: { foo: '1.0.0', qar: '100.0.0' } },
      p2: { dependencies: { regex: '0.1.0', bar: '^100.0.0' } },
    }), [['install']], files)
    await publishNewer(registry)
    aDayLater([patterns, some])
    await then(patterns, [['update', '-r', '--latest', '@sc/peer-*', 'dep-of-*'], ['update', '-r', '--latest', '@sc/peer-*', 'dep-of-*', 'print-version']], files)
    assert.match(projectFile(patterns.lodeProject, 'packages/p1/package.json')!, /"dep-of-x": "100\.1\.0",\n {4}"foo": "1\.0\.0"/)
    assert.match(projectFile(patterns.lodeProject, 'packages/p2/package.json')!, /"@sc\/peer-c": "2\.0\.0",\n {4}"print-version": "2\.0\.0"/)
    await then(some, [['update', '-r', '--latest', 'regex', 'foo']], files)
    assert.match(readLockfileText(some.lodeProject), /bar@100\.0\.0:/)
    assert.match(projectFile(some.lodeProject, 'packages/p2/package.json')!, /"bar": "\^100\.0\.0",\n {4}"regex": "0\.2\.0"/)
  })
})

test('update without --latest keeps dist-tag and exact specs; update --latest "*" moves empty specs; update --latest with every dependency ignored changes nothing, as pnpm 11', async () => {
  await withRegistry([
    { name: 'a', version: '1.0.0' },
    { name: 'c', version: '1.0.0' },
    { name: 'c', version: '2.0.0' },
    { name: 'foo', version: '1.0.0' },
  ], async (registry) => {
    registry.setDistTag('c', 'latest', '1.0.0')
    registry.setDistTag('c', 'canary', '2.0.0')
    const tags = await begin(makeProject(registry, { name: 'app', version: '1.0.0', dependencies: { a: 'latest', c: 'canary', foo: '1.0.0' } }), [['install']])
    // (pnpm 11 does not link devDependencies of an empty spec on install: lockfile only.)
    const empty = await begin(makeProject(registry, { name: 'app', version: '1.0.0', dependencies: { a: '1.0.0' }, devDependencies: { foo: '', c: '' } }), [['install', '--lockfile-only']])
    const ignored = await begin(makeProject(registry, { name: 'app', version: '1.0.0', dependencies: { foo: '1.0.0' } }, { 'pnpm-workspace.yaml': 'update:\n  ignoreDeps:\n    - foo\n' }), [['install']])
    await registry.publish({ name: 'a', version: '1.0.1' })
    await registry.publish({ name: 'foo', version: '2.0.0' })
    aDayLater([tags, empty, ignored])
    await then(tags, [['update']])
    assert.match(projectFile(tags.lodeProject, 'package.json')!, /"a": "latest",\n {4}"c": "canary",\n {4}"foo": "1\.0\.0"/)
    await then(empty, [['update', '--latest', '*']])
    const lockfile = readLockfileText(ignored.lodeProject)
    await then(ignored, [['update', '--latest']])
    assert.equal(readLockfileText(ignored.lodeProject), lockfile)
  })
})

test('update and update --latest take the newest version older than minimumReleaseAge, as pnpm 11', async () => {
  await withRegistry([
    { name: 'bravo', version: '1.0.0' },
    { name: 'bravo', version: '1.0.1' },
    { name: 'bravo', version: '1.0.2', publishedAt: NOW },
  ], async (registry) => {
    const inRange = await begin(makeProject(registry, { name: 'app', version: '1.0.0' }), [['add', 'bravo@1.0.0']])
    const latest = await begin(makeProject(registry, { name: 'app', version: '1.0.0' }), [['add', 'bravo@1.0.0']])
    const pairs = [inRange, latest]
    editBoth(pairs.flatMap((pair) => [pair.pnpmProject, pair.lodeProject]), 'pnpm-workspace.yaml', () => 'minimumReleaseAge: 1440\n')
    editBoth([inRange.pnpmProject, inRange.lodeProject], 'package.json', () => json({ name: 'app', version: '1.0.0', dependencies: { bravo: '^1.0.0' } }))
    await then(inRange, [['update']])
    assert.match(readLockfileText(inRange.lodeProject), /bravo:\n {8}specifier: \^1\.0\.1\n {8}version: 1\.0\.1/)
    await then(latest, [['update', '--latest']])
    assert.match(projectFile(latest.lodeProject, 'package.json')!, /"bravo": "1\.0\.1"/)
  })
})

// foobarqar depends on bar, foo and qar; grand-parent on abc-parent, whose peer peer-c it provides.
const SUBDEPS: PackageSpec[] = [
  { name: 'bar', version: '100.0.0' },
  { name: 'foo', version: '100.0.0' },
  { name: 'qar', version: '100.0.0' },
  { name: 'foobarqar', version: '1.0.0', dependencies: { bar: '^100.0.0', foo: '^100.0.0', qar: '^100.0.0' } },
  { name: 'peer-c', version: '1.0.0' },
  { name: 'abc-parent', version: '1.0.0', manifest: { peerDependencies: { 'peer-c': '^1.0.0' } } },
  { name: 'grand-parent', version: '1.0.0', dependencies: { 'abc-parent': '^1.0.0', 'peer-c': '^1.0.0' } },
  { name: 'is-positive', version: '1.0.0' },
]
const SUBDEPS_LATER: PackageSpec[] = [
  { name: 'foobarqar', version: '1.0.1', dependencies: { bar: '^100.0.0', foo: '^100.0.0', qar: '^100.0.0' } },
  { name: 'grand-parent', version: '1.0.1', dependencies: { 'abc-parent': '^1.0.0', 'peer-c': '^1.0.0' } },
  { name: 'abc-parent', version: '1.0.1', manifest: { peerDependencies: { 'peer-c': '^1.0.0' } } },
  { name: 'bar', version: '100.1.0' },
  { name: 'foo', version: '100.1.0' },
]

test('update of direct dependencies keeps their subdependencies and peer-resolved packages at the locked versions, with or without node_modules, as pnpm 11', async () => {
  await withRegistry(SUBDEPS, async (registry) => {
    const installed = await begin(makeProject(registry, { name: 'app', version: '1.0.0' }), [['add', 'foobarqar', 'grand-parent']])
    const lockfileOnly = await begin(makeProject(registry, { name: 'app', version: '1.0.0', dependencies: { foobarqar: '^1.0.0', 'grand-parent': '^1.0.0' } }), [['install', '--lockfile-only']])
    const edited = await begin(makeProject(registry, { name: 'app', version: '1.0.0' }), [['add', 'foobarqar', 'grand-parent']])
    const removed = await begin(makeProject(registry, { name: 'app', version: '1.0.0' }), [['add', 'foobarqar', 'is-positive@1.0.0']])
    for (const spec of SUBDEPS_LATER) await registry.publish(spec)
    aDayLater([installed, lockfileOnly, edited, removed])
    for (const pair of [installed, lockfileOnly]) {
      await then(pair, [['update', 'foobarqar', 'grand-parent']])
      assert.match(readLockfileText(pair.lodeProject), /abc-parent@1\.0\.0\(peer-c@1\.0\.0\):/)
      assert.match(readLockfileText(pair.lodeProject), /foobarqar@1\.0\.1:\n {4}dependencies:\n {6}bar: 100\.0\.0\n {6}foo: 100\.0\.0\n {6}qar: 100\.0\.0/)
    }
    // A spec edited by hand, or another dependency removed: install re-resolves nothing else.
    editBoth([edited.pnpmProject, edited.lodeProject], 'package.json', (text) => text!.replace('"foobarqar": "^1.0.0"', '"foobarqar": "^1.0.1"'))
    await then(edited, [['install']])
    assert.match(readLockfileText(edited.lodeProject), /foobarqar@1\.0\.1:\n {4}dependencies:\n {6}bar: 100\.0\.0/)
    editBoth([removed.pnpmProject, removed.lodeProject], 'package.json', (text) => text!.replace(/,\n {4}"is-positive": "1\.0\.0"/, ''))
    await then(removed, [['install']])
    assert.match(readLockfileText(removed.lodeProject), /foobarqar@1\.0\.0:\n {4}dependencies:\n {6}bar: 100\.0\.0/)
  })
})

test('update <name> moves only that dependency (an npm: alias of another left locked); an exact pin keeps a dependency\'s range deduped onto it, as pnpm 11', async () => {
  await withRegistry(SUBDEPS, async (registry) => {
    const only = await begin(makeProject(registry, { name: 'app', version: '1.0.0' }), [['add', 'bar', 'foo', 'bar-alias@npm:bar']])
    const pinned = await begin(makeProject(registry, { name: 'app', version: '1.0.0' }), [['add', 'foo@100.0.0', 'foobarqar']])
    for (const spec of SUBDEPS_LATER) await registry.publish(spec)
    aDayLater([only, pinned])
    await then(only, [['update', 'foo']])
    assert.match(projectFile(only.lodeProject, 'package.json')!, /"bar": "\^100\.0\.0",\n {4}"bar-alias": "npm:bar@\^100\.0\.0",\n {4}"foo": "\^100\.1\.0"/)
    await then(pinned, [['update', 'foo']])
    assert.doesNotMatch(readLockfileText(pinned.lodeProject), /foo@100\.1\.0/)
  })
})

test('update of a dependency that has only peers, or of a project with only peerDependencies, adds nothing; update --latest <name> leaves its auto-installed peers locked, as pnpm 11', async () => {
  await withRegistry([
    { name: 'peer', version: '1.0.0' },
    { name: 'has-peer-only', version: '1.0.0', manifest: { peerDependencies: { peer: '^1.0.0' } } },
    { name: 'is-positive', version: '3.0.0' },
    { name: 'peer-a', version: '1.0.0' },
    { name: 'peer-c', version: '1.0.0' },
    { name: 'abc', version: '1.0.0', manifest: { peerDependencies: { 'peer-a': '^1.0.0', 'peer-c': '^1.0.0' } } },
  ], async (registry) => {
    await begin(makeProject(registry, { name: 'app', version: '1.0.0' }), [['add', 'has-peer-only'], ['update']])
    const peersOnly = await begin(makeProject(registry, { name: 'app', version: '1.0.0', peerDependencies: { 'is-positive': '^3.0.0' } }), [['install'], ['update']])
    assert.equal(projectFile(peersOnly.lodeProject, 'package.json'), JSON.stringify({ name: 'app', version: '1.0.0', peerDependencies: { 'is-positive': '^3.0.0' } }, null, 2))
    const auto = await begin(makeProject(registry, { name: 'app', version: '1.0.0', dependencies: { abc: '1.0.0' } }), [['install']])
    await registry.publish({ name: 'peer-a', version: '1.0.1' })
    await registry.publish({ name: 'peer-c', version: '1.0.1' })
    await registry.publish({ name: 'abc', version: '2.0.0', manifest: { peerDependencies: { 'peer-a': '^1.0.0', 'peer-c': '^1.0.0' } } })
    aDayLater([auto])
    await then(auto, [['update', '--latest', 'abc']])
    assert.match(readLockfileText(auto.lodeProject), /abc@2\.0\.0\(peer-a@1\.0\.0\)\(peer-c@1\.0\.0\)/)
  })
})

test('dedupe --check lists the packages whose dependencies change sorted by name, and dedupe --ignore-scripts runs none of the project\'s install scripts, as pnpm 11', async () => {
  await withRegistry([
    { name: 'shared', version: '1.0.0' },
    { name: 'z', version: '1.0.0', dependencies: { shared: '^1.0.0' } },
    { name: 'a', version: '1.0.0', dependencies: { shared: '^1.0.0' } },
  ], async (registry) => {
    // z and a keep shared@1.0.0 when b, added later, takes 1.1.0: dedupe moves both.
    const stale = await begin(makeProject(registry, { name: 'app', version: '1.0.0', dependencies: { z: '1.0.0', a: '1.0.0' } }), [['install']])
    await registry.publish({ name: 'shared', version: '1.1.0' })
    await registry.publish({ name: 'b', version: '1.0.0', dependencies: { shared: '^1.1.0' } })
    editBoth([stale.pnpmProject, stale.lodeProject], 'package.json', () => json({ name: 'app', version: '1.0.0', dependencies: { z: '1.0.0', a: '1.0.0', b: '1.0.0' } }))
    await then(stale, [['install']])
    const lockfile = readLockfileText(stale.lodeProject)
    const expected = await pnpm(stale.pnpmProject, ['dedupe', '--check'], true)
    const actual = await lode(stale.lodeProject, ['dedupe', '--check'])
    assert.equal(actual.code, 1)
    assert.equal(readLockfileText(stale.lodeProject), lockfile)
    const report = expected.stdout.slice(expected.stdout.indexOf('[ERR_PNPM_')).replace('ERR_PNPM_', 'ERR_LODE_').replace('Run pnpm dedupe', 'Run lode dedupe')
    assert.equal(actual.stderr, report)
    assert.match(report, /^a@1\.0\.0\n[\s\S]*^z@1\.0\.0\n/m)

    const write = (name: string): string => `node -e "require('fs').writeFileSync('${name}.txt', '')"`
    const project = makeProject(registry, {
      name: 'app',
      version: '1.0.0',
      dependencies: { shared: '1.0.0' },
      scripts: { preinstall: write('preinstall'), prepare: write('prepare'), postinstall: write('postinstall') },
    })
    const pair = await begin(project, [['install', '--ignore-scripts'], ['dedupe', '--ignore-scripts']])
    for (const of of [pair.lodeProject, pair.pnpmProject]) assert.deepEqual(fs.readdirSync(of.dir).sort(), ['node_modules', 'package.json', 'pnpm-lock.yaml'])
  })
})

test('add -O/-P/-D moves a dependency between groups, dropping an emptied group and appending a new one, as pnpm 11', async () => {
  await withRegistry([
    { name: 'foo', version: '100.0.0' },
    { name: 'bar', version: '100.0.0' },
    { name: 'qar', version: '100.0.0' },
  ], async (registry) => {
    const project = makeProject(registry, { name: 'app', version: '1.0.0', dependencies: { foo: '^100.0.0' }, devDependencies: { bar: '^100.0.0' }, optionalDependencies: { qar: '^100.0.0' } })
    const moved = await begin(project, [['add', '-O', 'foo'], ['add', '-P', 'bar'], ['add', '-D', 'qar'], ['add', '-P', 'bar', 'foo', 'qar']])
    assert.equal(projectFile(moved.lodeProject, 'package.json'), json({ name: 'app', version: '1.0.0', dependencies: { bar: '^100.0.0', foo: '^100.0.0', qar: '^100.0.0' } }).trimEnd())
  })
})

test('update <name>@<spec> resolves the dependency to that spec and saves it: a tag, an npm: alias\'s spec, a version in one workspace project, as pnpm 11', async () => {
  await withRegistry([
    { name: 'dep', version: '100.0.0' },
    { name: 'qar', version: '100.0.0' },
    { name: 'pre', version: '2.0.0' },
    { name: 'pre', version: '3.0.0-rc.0' },
    { name: 'is-positive', version: '1.0.0' },
    { name: 'is-positive', version: '2.0.0' },
    { name: 'is-negative', version: '1.0.0' },
  ], async (registry) => {
    const tag = await begin(makeProject(registry, { name: 'app', version: '1.0.0', dependencies: { dep: '^100.0.0' } }), [['install']])
    const alias = await begin(makeProject(registry, { name: 'app', version: '1.0.0', dependencies: { alias: 'npm:qar@^100.0.0' } }), [['install', '--lockfile-only']])
    const pre = await begin(makeProject(registry, { name: 'app', version: '1.0.0' }), [['add', 'pre@3.0.0-rc.0']])
    const files = workspaceFiles(['packages/p1', 'packages/p2'])
    const workspace = await begin(makeWorkspace(registry, { p1: { dependencies: { 'is-positive': '1.0.0' } }, p2: { dependencies: { 'is-negative': '1.0.0' } } }), [['install']], files)
    await registry.publish({ name: 'dep', version: '101.0.0' })
    await registry.publish({ name: 'qar', version: '100.1.0' })
    aDayLater([tag, alias, pre, workspace])
    await then(tag, [['update', 'dep@latest']])
    assert.match(projectFile(tag.lodeProject, 'package.json')!, /"dep": "\^101\.0\.0"/)
    await then(alias, [['update', 'alias@npm:qar@^100.0.0']])
    assert.match(readLockfileText(alias.lodeProject), /qar@100\.1\.0:/)
    // A tag below an installed prerelease: downgraded to it.
    await then(pre, [['update', 'pre@latest']])
    assert.match(projectFile(pre.lodeProject, 'package.json')!, /"pre": "2\.0\.0"/)
    await then(workspace, [['update', '-r', 'is-positive@2.0.0']], files)
    assert.match(projectFile(workspace.lodeProject, 'packages/p1/package.json')!, /"is-positive": "2\.0\.0"/)
  })
})

test('update <name> of a package only found deeper in the graph updates it there, package.json and the direct dependencies kept, as pnpm 11', async () => {
  await withRegistry([
    { name: 'child', version: '100.0.0' },
    { name: 'parent', version: '100.0.0', dependencies: { child: '^100.0.0' } },
    { name: 'foo', version: '1.0.0' },
  ], async (registry) => {
    const manifest = (dependencies: Record<string, string>): Record<string, unknown> => ({ name: 'app', version: '1.0.0', dependencies })
    const tagged = await begin(makeProject(registry, manifest({ parent: '^100.0.0' })), [['install']])
    const mixed = await begin(makeProject(registry, manifest({ foo: '1.0.0', parent: '100.0.0' })), [['install']])
    const plain = await begin(makeProject(registry, manifest({ parent: '100.0.0' })), [['install']])
    await registry.publish({ name: 'child', version: '100.1.0' })
    await registry.publish({ name: 'parent', version: '100.1.0', dependencies: { child: '^100.0.0' } })
    aDayLater([tagged, mixed, plain])
    for (const [pair, args] of [[tagged, ['update', 'child@latest']], [mixed, ['update', 'child', 'foo']], [plain, ['update', 'child']]] as const) {
      await then(pair, [[...args]])
      assert.match(readLockfileText(pair.lodeProject), /parent@100\.0\.0:\n {4}dependencies:\n {6}child: 100\.1\.0/)
    }
  })
})

test('update <name> of a package only a dependency has moves it alone, the rest of the tree locked, as pnpm 11', async () => {
  await withRegistry(SUBDEPS, async (registry) => {
    const pair = await begin(makeProject(registry, { name: 'app', version: '1.0.0' }), [['add', 'foobarqar', 'grand-parent']])
    for (const spec of SUBDEPS_LATER) await registry.publish(spec)
    aDayLater([pair])
    await then(pair, [['update', 'foo']])
    assert.match(readLockfileText(pair.lodeProject), /foobarqar@1\.0\.0:\n {4}dependencies:\n {6}bar: 100\.0\.0\n {6}foo: 100\.1\.0/)
    assert.match(readLockfileText(pair.lodeProject), /abc-parent@1\.0\.0\(peer-c@1\.0\.0\):/)
  })
})

test('update (-r, --latest) of names no project depends on succeeds and changes nothing, as pnpm 11', async () => {
  await withRegistry([
    { name: 'is-positive', version: '1.0.0' },
    { name: 'is-negative', version: '1.0.0' },
    { name: 'child', version: '100.0.0' },
    { name: 'parent', version: '100.0.0', dependencies: { child: '^100.0.0' } },
  ], async (registry) => {
    const files = workspaceFiles(['packages/p1'])
    await begin(makeWorkspace(registry, { p1: { dependencies: { 'is-positive': '1.0.0' } } }), [['install'], ['update', '-r', '--latest', 'not-there']], files)
    // See 14 and 15.
    await begin(makeProject(registry, { name: 'app', version: '1.0.0' }), [['update', 'is-positive']])
    const kept = await begin(makeProject(registry, { name: 'app', version: '1.0.0' }, { 'pnpm-workspace.yaml': 'dedupePeerDependents: false\n' }), [['add', 'parent@100.0.0']])
    const lockfile = readLockfileText(kept.lodeProject)
    await then(kept, [['update', 'is-negative']])
    assert.equal(readLockfileText(kept.lodeProject), lockfile)
  })
})

test('update --latest <name> of a peerDependency the project auto-installs (not a dependency of its own) changes what pnpm 11 changes', async () => {
  await withRegistry([{ name: 'pfoo', version: '1.0.0' }], async (registry) => {
    const pair = await begin(makeProject(registry, { name: 'app', version: '1.0.0', peerDependencies: { pfoo: '^1.0.0' } }), [['install']])
    await registry.publish({ name: 'pfoo', version: '1.3.0' })
    aDayLater([pair])
    await then(pair, [['update', '--latest', 'pfoo']])
  })
})

test('update --latest with name@spec selectors is ERR_LODE_LATEST_WITH_SPEC naming them; nothing is written, as pnpm 11', async () => {
  await withRegistry([{ name: 'foo', version: '1.0.0' }], async (registry) => {
    const pair = await begin(makeProject(registry, { name: 'app', version: '1.0.0', dependencies: { foo: '1.0.0' } }), [['install']])
    await then(pair, [{ args: ['update', '--latest', 'foo@latest', 'bar@next', 'baz'], fails: /ERR_LODE_LATEST_WITH_SPEC.*Specs are not allowed to be used with --latest \(foo@latest, bar@next\)/ }])
  })
})

test('update <name>@<version> of a package only found deeper is ERR_LODE_UPDATE_VERSION_ON_INDIRECT_DEP; nothing is written, as pnpm 11', async () => {
  await withRegistry([
    { name: 'child', version: '100.0.0' },
    { name: 'star', version: '1.0.0', dependencies: { child: '*' } },
    { name: 'foo', version: '1.0.0' },
  ], async (registry) => {
    const pair = await begin(makeProject(registry, { name: 'app', version: '1.0.0', dependencies: { star: '1.0.0', foo: '1.0.0' } }), [['install']])
    await registry.publish({ name: 'child', version: '100.1.0' })
    await registry.publish({ name: 'child', version: '101.0.0' })
    aDayLater([pair])
    await then(pair, [
      { args: ['update', 'child@100.1.0'], fails: /ERR_LODE_UPDATE_VERSION_ON_INDIRECT_DEP.*"child" \(requested "100\.1\.0"\) is not a direct dependency/ },
      // See 19: a crafted name.
      { args: ['update', '__proto__@1.0.0'], fails: /ERR_LODE_UPDATE_VERSION_ON_INDIRECT_DEP.*"__proto__" \(requested "1\.0\.0"\)/ },
    ])
  })
})

test('update --latest keeps an exact prerelease newer than latest, in a project and across a workspace, as pnpm 11', async () => {
  await withRegistry([
    { name: 'pre', version: '1.0.0' },
    { name: 'pre', version: '2.0.0' },
    { name: 'pre', version: '3.0.0-rc.0' },
  ], async (registry) => {
    const kept = await begin(makeProject(registry, { name: 'app', version: '1.0.0' }), [['add', 'pre@3.0.0-rc.0'], ['update', '--latest'], ['update', '-r', '--latest']])
    assert.match(projectFile(kept.lodeProject, 'package.json')!, /"pre": "3\.0\.0-rc\.0"/)
    // Projects outdated, up to date, on the prerelease: each moves to the higher of latest and its own.
    for (const versions of [['1.0.0', '2.0.0', '3.0.0-rc.0', '1.0.0'], ['3.0.0-rc.0', '1.0.0']]) {
      const projects = Object.fromEntries(versions.map((version, i) => [`p${i + 1}`, { dependencies: { pre: version } }]))
      const files = workspaceFiles(Object.keys(projects).map((name) => `packages/${name}`))
      const { lodeProject } = await begin(makeWorkspace(registry, projects), [['install'], ['update', '-r', '--latest']], files)
      assert.doesNotMatch(readLockfileText(lodeProject), /pre@1\.0\.0/)
      assert.match(readLockfileText(lodeProject), /pre@3\.0\.0-rc\.0:/)
    }
  })
})
