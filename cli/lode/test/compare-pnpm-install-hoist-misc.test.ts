import assert from 'node:assert/strict'
import { createHash } from 'node:crypto'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { test } from 'node:test'

import { TestRegistry, buildPackageTarball, buildTarball } from '@lode/__utils__.test-fixtures'
import { parse as parseYaml } from 'yaml'

import { git, makeRepo } from './git-hosts.js'
import { cloneProject, defaultStoreDir, listing, makeProject, pnpm, projectFile, readLockfileText, stepsBesidePnpm, withRegistry } from './helpers.js'
import type { Project, Step, ProjectPair as Pair } from './helpers.js'

// pnpm 11's install scenarios (hoisting, versions preferred across the graph, peers, odd packages,
// node_modules left in odd states, minimumReleaseAge, build scripts, local and git dependencies), each
// run by pnpm 11 and by lode on copies of one project (stepsBesidePnpm: the same exit code,
// package.json, lockfile and node_modules after each step). Each test has a registry of its own;
// the scenarios of a test run side by side.


function app (registry: TestRegistry, fields: Record<string, unknown> = {}, files: Record<string, string | Buffer> = {}): Project {
  return makeProject(registry, { name: 'app', version: '1.0.0', ...fields }, files)
}

/** A workspace: the root (with `root`'s fields) and `packages/<name>` projects. */
function workspace (registry: TestRegistry, root: Record<string, unknown>, projects: Record<string, Record<string, unknown>>, settings = ''): Project {
  return makeProject(registry, { name: 'root', version: '1.0.0', ...root }, {
    'pnpm-workspace.yaml': `packages:\n  - packages/*\n${settings}`,
    ...Object.fromEntries(Object.entries(projects).map(([name, fields]) => [`packages/${name}/package.json`, JSON.stringify({ name, version: '1.0.0', ...fields })])),
  })
}

async function begin (project: Project, steps: ReadonlyArray<Step | string[]>, files?: readonly string[]): Promise<Pair> {
  return await stepsBesidePnpm(project, steps, files)
}
async function then (pair: Pair, steps: ReadonlyArray<Step | string[]>, files?: readonly string[]): Promise<Pair> {
  return await stepsBesidePnpm(pair.pnpmProject, steps, files, pair.lodeProject)
}

/** A copy of an installed project and its home, links kept as they are (cloneProject makes relative links absolute). */
function copyInstalled (project: Project): Project {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'lode-cli-'))
  const copy = { dir: path.join(root, 'project'), home: path.join(root, 'home') }
  fs.cpSync(project.dir, copy.dir, { recursive: true, verbatimSymlinks: true })
  fs.cpSync(project.home, copy.home, { recursive: true, verbatimSymlinks: true })
  const modulesYaml = path.join(copy.dir, 'node_modules', '.modules.yaml')
  if (fs.existsSync(modulesYaml)) fs.writeFileSync(modulesYaml, fs.readFileSync(modulesYaml, 'utf8').replaceAll(project.home, copy.home))
  return copy
}

/** Copies of both projects (and their stores), to go on from the same state another way. */
function fork (pair: Pair): Pair {
  return { pnpmProject: copyInstalled(pair.pnpmProject), lodeProject: copyInstalled(pair.lodeProject) }
}

/** A pair whose projects each get `prepare` (files beside the project, which cloneProject does not copy). */
function pairOf (project: Project, prepare: (project: Project, beside: string) => void): Pair {
  const lodeProject = cloneProject(project)
  for (const p of [project, lodeProject]) prepare(p, path.dirname(p.dir))
  return { pnpmProject: project, lodeProject }
}

/** The same edit of a file in both projects (a hand edit between steps). */
function editBoth (pair: Pair, file: string, edit: (text: string | undefined) => string): void {
  for (const project of [pair.pnpmProject, pair.lodeProject]) {
    fs.writeFileSync(path.join(project.dir, file), edit(projectFile(project, file)))
  }
}

function rmBoth (pair: Pair, ...files: string[]): void {
  for (const project of [pair.pnpmProject, pair.lodeProject]) {
    for (const file of files) fs.rmSync(path.join(project.dir, file), { recursive: true, force: true })
  }
}

/** node_modules/.modules.yaml's fields that say what is hoisted, and how. */
function hoisting (project: Project, modulesDir = 'node_modules'): unknown {
  const text = projectFile(project, `${modulesDir}/.modules.yaml`)
  if (text === undefined) return undefined
  const doc = parseYaml(text) as Record<string, unknown>
  return { hoistedDependencies: doc['hoistedDependencies'], hoistPattern: doc['hoistPattern'], publicHoistPattern: doc['publicHoistPattern'] }
}

function sameHoisting (pair: Pair): void {
  assert.deepEqual(hoisting(pair.lodeProject), hoisting(pair.pnpmProject), 'node_modules/.modules.yaml')
}

function hoistedNames (pair: Pair): string[] {
  const { hoistedDependencies } = hoisting(pair.lodeProject) as { hoistedDependencies: Record<string, Record<string, string>> }
  return Object.keys(hoistedDependencies).sort()
}

test('a version a direct dependency pins (under an alias too, or through a dist-tag) is taken by subdependencies; add of a higher one moves the pin (not an aliased one\'s), as pnpm 11', async () => {
  await withRegistry([
    { name: 'dep', version: '1.0.0' },
    { name: 'dep', version: '1.1.0' },
    { name: 'uses-dep', version: '1.0.0', dependencies: { dep: '^1.0.0' } },
    { name: 'uses-aliased', version: '1.0.0', dependencies: { d: 'npm:dep@^1.0.0' } },
    { name: 'pins-a', version: '1.0.0', dependencies: { dep: '1.1.0' } },
    { name: 'pins-b', version: '1.0.0', dependencies: { dep: '1.1.0' } },
  ], async (registry) => {
    registry.setDistTag('dep', 'stable', '1.0.0')
    const lockfileOnly = [['install', '--lockfile-only']]
    const [named, alias, aliasedSub, tag, overSubdeps, refreshed, aliasedKept] = await Promise.all([
      begin(app(registry, { dependencies: { dep: '1.0.0' } }), [['install'], ['add', 'uses-dep']]),
      begin(app(registry, { dependencies: { foo: 'npm:dep@1.0.0', 'uses-dep': '*' } }), lockfileOnly),
      begin(app(registry, { dependencies: { dep: '1.0.0', 'uses-aliased': '1.0.0' } }), lockfileOnly),
      begin(app(registry, { dependencies: { dep: 'stable', 'uses-dep': '1.0.0' } }), lockfileOnly),
      // Two subdependencies pin 1.1.0; the direct 1.0.0 wins for the package added.
      begin(app(registry, { dependencies: { dep: '1.0.0', 'pins-a': '1.0.0', 'pins-b': '1.0.0' } }), [['install'], ['add', 'uses-dep']]),
      begin(app(registry), [['add', 'dep@1.0.0', 'uses-dep@1.0.0'], ['add', 'dep@1.1.0']]),
      // An npm: alias is no plain range: its pin stays where it was.
      begin(app(registry), [['add', 'dep@1.0.0', 'uses-aliased@1.0.0'], ['add', 'dep@1.1.0']]),
    ])
    for (const pair of [named, alias, tag, overSubdeps]) assert.match(readLockfileText(pair.lodeProject), /uses-dep@1\.0\.0:\n {4}dependencies:\n {6}dep: 1\.0\.0\n/)
    assert.doesNotMatch(readLockfileText(alias.lodeProject), /dep@1\.1\.0/)
    assert.match(readLockfileText(aliasedSub.lodeProject), /^ {6}d: dep@1\.0\.0$/m)
    // The stale pin moved to the new direct version; a plain install then changes nothing.
    const lockfile = readLockfileText(refreshed.lodeProject)
    assert.doesNotMatch(lockfile, /^ {2}dep@1\.0\.0/m)
    await then(refreshed, [['install']])
    assert.equal(readLockfileText(refreshed.lodeProject), lockfile)
    assert.match(readLockfileText(aliasedKept.lodeProject), /^ {6}d: dep@1\.0\.0$/m)
  })
})

test('peers: a package whose dependency is also its peer, with and without autoInstallPeers; peer cycles deterministic, through aliases, and transitive peers through cycles, as pnpm 11', async () => {
  await withRegistry([
    { name: 'dep', version: '1.0.0' },
    { name: 'dep', version: '1.1.0' },
    { name: 'has-default-peer', version: '1.0.0', dependencies: { dep: '1.0.0' }, manifest: { peerDependencies: { dep: '^1.0.0' } } },
    { name: 'peer-b', version: '1.0.0' },
    { name: 'peer-c', version: '1.0.0' },
    { name: 'peer-c', version: '2.0.0' },
    {
      name: 'resolves-own',
      version: '1.0.0',
      dependencies: { 'peer-c': '^1.0.0' },
      manifest: { peerDependencies: { 'peer-b': '*', 'peer-c': '*' }, optionalDependencies: { 'peer-b': '^1.0.0' } },
    },
    { name: 'wrap', version: '1.0.0', dependencies: { pa: '1.0.0', pb: '1.0.0' } },
    { name: 'pa', version: '1.0.0', manifest: { peerDependencies: { pb: '1.0.0' } } },
    { name: 'pb', version: '1.0.0', manifest: { peerDependencies: { pa: '1.0.0' } } },
    { name: 'a-real', version: '1.0.0', dependencies: { b: 'npm:b-real@1.0.0', c: 'npm:c-real@1.0.0' } },
    { name: 'b-real', version: '1.0.0', dependencies: { x: '1.0.0' }, manifest: { peerDependencies: { a: 'npm:a-real@1.0.0' } } },
    { name: 'c-real', version: '1.0.0', dependencies: { y: '1.0.0' }, manifest: { peerDependencies: { a: 'npm:a-real@1.0.0' } } },
    { name: 'x', version: '1.0.0', manifest: { peerDependencies: { y: '1.0.0' } } },
    { name: 'y', version: '1.0.0', manifest: { peerDependencies: { x: '1.0.0' } } },
    { name: 'parent', version: '1.0.0', dependencies: { ca: '1.0.0', ch: '1.0.0' } },
    { name: 'ca', version: '1.0.0', dependencies: { cb: '1.0.0', cc: '1.0.0' } },
    { name: 'cb', version: '1.0.0', dependencies: { ca: '1.0.0' } },
    { name: 'cc', version: '1.0.0', dependencies: { cd: '1.0.0' } },
    { name: 'cd', version: '1.0.0', manifest: { peerDependencies: { ce: '1.0.0' }, peerDependenciesMeta: { ce: { optional: true } } } },
    { name: 'ce', version: '1.0.0' },
    { name: 'ch', version: '1.0.0', dependencies: { ca: '1.0.0' } },
  ], async (registry) => {
    registry.setDistTag('peer-c', 'latest', '1.0.0')
    const noAuto = { 'pnpm-workspace.yaml': 'autoInstallPeers: false\n' }
    // The peer cycle's packages answer in one order, then in the other.
    const cycle = app(registry, { dependencies: { wrap: '1.0.0' } })
    const cycles = async (): Promise<string[]> => {
      const lockfiles: string[] = []
      for (const slow of ['/pa', '/pb']) {
        registry.responseDelay = (at: string) => at === slow ? 150 : 0
        const pair = await begin(cloneProject(cycle), [['install', '--lockfile-only']])
        lockfiles.push(readLockfileText(pair.lodeProject))
      }
      return lockfiles
    }
    const [auto, provided, own, resolvesOwn, lockfiles, aliased, transitive] = await Promise.all([
      begin(app(registry), [['add', 'has-default-peer']]),
      begin(app(registry, {}, noAuto), [['add', 'has-default-peer', 'dep@1.1.0']]),
      begin(app(registry, {}, noAuto), [['add', 'has-default-peer']]),
      begin(app(registry), [['add', 'resolves-own', 'peer-c@2.0.0']]),
      cycles(),
      begin(app(registry, { dependencies: { a: 'npm:a-real@1.0.0' } }), [['install', '--lockfile-only']]),
      begin(app(registry, { dependencies: { parent: '1.0.0' } }), [['install', '--lockfile-only']]),
    ])
    assert.match(readLockfileText(auto.lodeProject), /has-default-peer@1\.0\.0\(dep@1\.1\.0\):/)
    assert.match(readLockfileText(provided.lodeProject), /has-default-peer@1\.0\.0\(dep@1\.1\.0\):/)
    assert.doesNotMatch(readLockfileText(provided.lodeProject), /dep@1\.0\.0/)
    assert.match(readLockfileText(own.lodeProject), /has-default-peer@1\.0\.0:\n {4}dependencies:\n {6}dep: 1\.0\.0/)
    assert.match(readLockfileText(resolvesOwn.lodeProject), /resolves-own@1\.0\.0\(peer-c@2\.0\.0\):/)
    assert.equal(lockfiles[0], lockfiles[1])
    assert.match(readLockfileText(aliased.lodeProject), /a-real@1\.0\.0\(a-real@1\.0\.0\)\(x@1\.0\.0\)\(y@1\.0\.0\):/)
    assert.equal(readLockfileText(transitive.lodeProject).match(/transitivePeerDependencies:\n {6}- ce/g)?.length, 5)
  })
})

test('hoisting by pattern, and again after remove, a hand edit, a --lockfile-only run or with another dependency; under an alias; left by remove, as pnpm 11', async () => {
  await withRegistry([
    { name: 'debug', version: '1.0.0' },
    { name: 'debug', version: '2.0.0' },
    { name: 'cookie', version: '1.0.0' },
    { name: 'mime', version: '1.0.0', bin: { mime: 'index.js' } },
    { name: 'express-like', version: '1.0.0', dependencies: { debug: '1.0.0', cookie: '1.0.0', mime: '1.0.0' } },
    { name: '@foo/no-deps', version: '1.0.0' },
    { name: '@foo/has-dep', version: '1.0.0', dependencies: { '@foo/no-deps': '1.0.0' } },
    { name: 'is-negative', version: '1.0.0' },
    { name: 'is-positive', version: '1.0.0' },
    { name: 'dep', version: '1.0.0' },
    { name: 'has-aliased', version: '1.0.0', dependencies: { d: 'npm:dep@^1.0.0' } },
  ], async (registry) => {
    const withoutDebug = (pair: Pair, extra: Record<string, string> = {}): void => {
      editBoth(pair, 'package.json', () => JSON.stringify({ name: 'app', version: '1.0.0', dependencies: { 'express-like': '1.0.0', ...extra } }))
    }
    await Promise.all([
      (async () => {
        const pair = await begin(app(registry, {}, { 'pnpm-workspace.yaml': 'hoistPattern: [\'*\']\npublicHoistPattern: [\'@foo/*\']\n' }), [
          ['add', 'express-like', '@foo/has-dep'],
        ])
        sameHoisting(pair)
        assert.ok(fs.existsSync(path.join(pair.lodeProject.dir, 'node_modules', '@foo', 'no-deps')))
        assert.ok(fs.existsSync(path.join(pair.lodeProject.dir, 'node_modules', '.pnpm', 'node_modules', '.bin', 'mime')))
      })(),
      (async () => {
        const pair = await begin(app(registry, {}, { 'pnpm-workspace.yaml': 'hoistPattern: [mime]\n' }), [['add', 'express-like']])
        sameHoisting(pair)
        assert.deepEqual(hoistedNames(pair), ['mime@1.0.0'])
      })(),
      (async () => {
        // debug 2.0.0 is direct; express-like's debug 1.0.0 is hoisted once it is not.
        const installed = await begin(app(registry, { dependencies: { debug: '2.0.0', 'express-like': '1.0.0' } }), [['install']])
        assert.deepEqual(hoistedNames(installed), ['cookie@1.0.0', 'mime@1.0.0'])
        const removed = fork(installed)
        const edited = fork(installed)
        const lockfileFirst = fork(installed)
        const another = fork(installed)
        withoutDebug(edited)
        withoutDebug(lockfileFirst)
        withoutDebug(another, { 'is-positive': '1.0.0' })
        await Promise.all([
          then(removed, [['remove', 'debug']]),
          then(edited, [['install']]),
          then(lockfileFirst, [['install', '--lockfile-only'], ['install']]),
          then(another, [['install']]),
        ])
        for (const pair of [removed, edited, lockfileFirst, another]) {
          sameHoisting(pair)
          assert.deepEqual(hoistedNames(pair), ['cookie@1.0.0', 'debug@1.0.0', 'mime@1.0.0'])
        }
      })(),
      (async () => {
        const pair = await begin(app(registry), [['add', 'debug@npm:is-negative@1.0.0', 'express-like']])
        sameHoisting(pair)
        assert.match(projectFile(pair.lodeProject, 'node_modules/debug/package.json')!, /"name": "is-negative"/)
      })(),
      (async () => {
        const added = await begin(app(registry), [['add', 'has-aliased']])
        sameHoisting(added)
        assert.ok(fs.existsSync(path.join(added.lodeProject.dir, 'node_modules', '.pnpm', 'node_modules', 'd')))
        const emptied = fork(added)
        editBoth(emptied, 'package.json', () => '{"name":"app","version":"1.0.0"}')
        await Promise.all([then(added, [['remove', 'has-aliased']]), then(emptied, [['install']])])
        for (const pair of [added, emptied]) {
          sameHoisting(pair)
          assert.deepEqual(hoistedNames(pair), [])
        }
      })(),
    ])
  })
})

test('hoisting: a hoisted peer-suffixed package removed, node_modules laid out anew for a new hoistPattern, a skipped optional package, filtered workspace installs, as pnpm 11', async () => {
  await withRegistry([
    { name: 'ajv-like', version: '1.0.0' },
    { name: 'keywords', version: '1.0.0', manifest: { peerDependencies: { 'ajv-like': '^1.0.0' } } },
    { name: 'using', version: '1.0.0', dependencies: { 'ajv-like': '1.0.0', keywords: '1.0.0' } },
    { name: 'a', version: '1.0.0', dependencies: { b: '1.0.0' } },
    { name: 'b', version: '1.0.0' },
    { name: 'leaf', version: '1.0.0' },
    { name: 'win-helper', version: '1.0.0' },
    { name: 'win-only', version: '1.0.0', dependencies: { 'win-helper': '1.0.0' }, manifest: { os: ['win32'] } },
    { name: 'helper', version: '1.0.0' },
    { name: 'helper', version: '1.1.0' },
    { name: 'rt', version: '1.0.0', dependencies: { helper: '1.0.0' } },
    { name: 'rt', version: '1.1.0', dependencies: { helper: '1.1.0' } },
    { name: 'debug', version: '1.0.0' },
    { name: 'debug', version: '2.0.0' },
    { name: 'express-like', version: '1.0.0', dependencies: { debug: '1.0.0' } },
    { name: 'dep', version: '1.0.0' },
    { name: 'uses-dep', version: '1.0.0', dependencies: { dep: '^1.0.0' } },
  ], async (registry) => {
    const withCurrentLockfile = ['package.json', 'pnpm-lock.yaml', 'node_modules/.pnpm/lock.yaml']
    await Promise.all([
      (async () => {
        const pair = await begin(app(registry), [['add', 'using']])
        assert.ok(hoistedNames(pair).some((depPath) => depPath.startsWith('keywords@1.0.0(')))
        await then(pair, [['remove', 'using']])
        sameHoisting(pair)
        assert.deepEqual(hoistedNames(pair), [])
      })(),
      (async () => {
        const pair = await begin(app(registry, {}, { 'pnpm-workspace.yaml': 'hoistPattern: []\n' }), [['add', 'a']])
        assert.deepEqual(hoistedNames(pair), [])
        editBoth(pair, 'pnpm-workspace.yaml', () => 'hoistPattern: [\'*\']\nconfirmModulesPurge: false\n')
        await then(pair, [['install']])
        sameHoisting(pair)
        assert.deepEqual(hoistedNames(pair), ['b@1.0.0'])
      })(),
      (async () => {
        // win-only is skipped on this platform: nothing of it is hoisted, and the current lockfile is the wanted one.
        const project = app(registry, { dependencies: { leaf: '1.0.0' }, optionalDependencies: { 'win-only': '*' } }, { 'pnpm-workspace.yaml': 'publicHoistPattern: [\'*\']\n' })
        const pair = await begin(project, [['install']], withCurrentLockfile)
        sameHoisting(pair)
        rmBoth(pair, 'node_modules')
        await then(pair, [['install', '--frozen-lockfile']], withCurrentLockfile)
        sameHoisting(pair)
        assert.ok(!fs.existsSync(path.join(pair.lodeProject.dir, 'node_modules', 'win-helper')))
      })(),
      (async () => {
        // From a lockfile of both projects, a filtered install hoists only what the selected project uses.
        const pair = await begin(workspace(registry, {}, { p1: { dependencies: { rt: '1.0.0' } }, p2: { dependencies: { rt: '1.1.0' } } }), [
          ['install', '--lockfile-only'],
          ['install', '--filter', 'p2'],
        ])
        sameHoisting(pair)
        assert.ok(hoistedNames(pair).includes('helper@1.1.0') && !hoistedNames(pair).includes('helper@1.0.0'))
      })(),
      (async () => {
        // The root drops debug through a --lockfile-only run; the root's filtered install keeps p's hoisted packages.
        const pair = await begin(workspace(registry, { dependencies: { debug: '2.0.0', 'express-like': '1.0.0' } }, { p: { dependencies: { 'uses-dep': '1.0.0' } } }), [['install']])
        editBoth(pair, 'package.json', () => JSON.stringify({ name: 'root', version: '1.0.0', dependencies: { 'express-like': '1.0.0' } }))
        await then(pair, [['install', '--lockfile-only'], ['install', '--filter', 'root']])
        sameHoisting(pair)
        assert.ok(hoistedNames(pair).includes('dep@1.0.0'))
      })(),
    ])
  })
})

test('odd packages install as pnpm 11: a scoped dependency, a BOM in package.json, files differing in case, a cycle below latest, names differing in case, "*" over prereleases', async () => {
  const bom = await buildTarball([
    { name: 'package/package.json', content: `\uFEFF${JSON.stringify({ name: 'bom-pkg', version: '1.0.0' })}` },
    { name: 'package/index.js', content: 'module.exports = 1\n' },
  ])
  await withRegistry([
    { name: '@scope/inner', version: '1.0.0' },
    { name: 'outer', version: '1.0.0', dependencies: { '@scope/inner': '1.0.0' } },
    { name: 'same-file', version: '1.0.0', files: { 'README.md': 'upper', 'readme.md': 'lower' } },
    { name: 'iter', version: '2.0.0', dependencies: { ext: '^0.10.0' } },
    { name: 'iter', version: '2.0.1', dependencies: { ext: '^0.10.0' } },
    { name: 'ext', version: '0.10.31', dependencies: { iter: '^2.0.0', sym: '1.0.0' } },
    { name: 'sym', version: '1.0.0' },
    { name: 'any-node', version: '1.0.0', manifest: { engines: { node: '*' } } },
    { name: 'File', version: '0.10.2' },
    { name: 'file', version: '0.2.2' },
    { name: 'JSONStream', version: '1.0.3' },
    { name: 'jsonstream', version: '1.0.3' },
    { name: 'beta-only', version: '1.0.0-beta.1' },
    { name: 'beta-only', version: '1.0.0-beta.2' },
  ], async (registry) => {
    registry.publishPacked({ name: 'bom-pkg', version: '1.0.0' }, bom.tarball)
    registry.setDistTag('beta-only', 'latest', '1.0.0-beta.1')
    const project = app(registry, {
      dependencies: {
        File: `${registry.url}File/-/File-0.10.2.tgz`,
        file: `${registry.url}file/-/file-0.2.2.tgz`,
        a: 'npm:JSONStream@1.0.3',
        b: 'npm:jsonstream@1.0.3',
        'beta-only': '*',
      },
    })
    // A cold store, then a warm one.
    const pair = await begin(project, [['add', 'outer', 'bom-pkg', 'same-file', 'iter@2.0.0', 'any-node']])
    rmBoth(pair, 'node_modules')
    await then(pair, [['install', '--frozen-lockfile']])
    const lockfile = readLockfileText(pair.lodeProject)
    assert.match(lockfile, /any-node@1\.0\.0:\n {4}resolution: \{[^}]*\}\n\n/)
    assert.match(lockfile, /beta-only:\n {8}specifier: '\*'\n {8}version: 1\.0\.0-beta\.1/)
    const pnpmDirs = fs.readdirSync(path.join(pair.lodeProject.dir, 'node_modules', '.pnpm'))
    for (const dir of ['iter@2.0.0', 'ext@0.10.31', 'sym@1.0.0', 'bom-pkg@1.0.0']) assert.ok(pnpmDirs.includes(dir), dir)
    assert.equal(fs.readlinkSync(path.join(pair.lodeProject.dir, 'node_modules', '.pnpm', 'ext@0.10.31', 'node_modules', 'iter')), '../../iter@2.0.0/node_modules/iter')
    // Two packages whose names differ in case: two directories.
    assert.equal(pnpmDirs.filter((dir) => dir.toLowerCase().startsWith('jsonstream@1.0.3')).length, 2, pnpmDirs.join())
    assert.deepEqual(fs.readdirSync(path.join(pair.lodeProject.dir, 'node_modules', 'same-file')).sort(), ['README.md', 'index.js', 'package.json', 'readme.md'])
  })
})

test('what add is given as pnpm 11 takes it: name@ and alias@npm:name@, @latest over an exact version, a scope on its own registry; an empty spec in package.json', async () => {
  await withRegistry([
    { name: 'dep', version: '1.0.0' },
    { name: 'dep', version: '1.1.0' },
    { name: 'multi', version: '3.0.0' },
    { name: 'multi', version: '3.1.0' },
    { name: '@scoped/peer', version: '1.0.0' },
    { name: 'is-positive', version: '1.0.0' },
  ], async (registry) => {
    const [trailing, overwritten, scoped, empty] = await Promise.all([
      begin(app(registry), [['add', 'dep@'], ['add', 'foo@npm:dep@']]),
      begin(app(registry), [['add', 'multi@3.0.0'], ['add', 'multi@latest']]),
      // The default registry is down: the scope's own registry serves the package.
      begin(app(registry, {}, { '.npmrc': `registry=http://127.0.0.1:9/\n@scoped:registry=${registry.url}\n` }), [['add', '@scoped/peer']]),
      begin(app(registry, { dependencies: { 'is-positive': '' } }), [['install', '--lockfile-only']]),
    ])
    assert.match(projectFile(trailing.lodeProject, 'package.json')!, /"dep": "\^1\.1\.0",\n {4}"foo": "npm:dep@\^1\.1\.0"/)
    assert.match(projectFile(overwritten.lodeProject, 'package.json')!, /"multi": "3\.1\.0"/)
    assert.ok(fs.existsSync(path.join(scoped.lodeProject.dir, 'node_modules', '@scoped', 'peer', 'package.json')))
    assert.match(readLockfileText(empty.lodeProject), /is-positive:\n {8}specifier: ''\n {8}version: 1\.0\.0/)
  })
})

test('node_modules left in odd states: a file deleted in a package, no node_modules, packages removed with or without the lockfile, a stray file, another virtualStoreDir, as pnpm 11', async () => {
  await withRegistry([
    { name: 'magic', version: '2.0.0', files: { 'dist/index.js': 'magic' } },
    { name: 'is-positive', version: '1.0.0' },
    { name: 'is-negative', version: '1.0.0' },
  ], async (registry) => {
    await Promise.all([
      (async () => {
        // Not forced: add of the same version does not bring back a file deleted in node_modules.
        const pair = await begin(app(registry), [['add', 'magic@2.0.0']])
        rmBoth(pair, 'node_modules/magic/dist')
        await then(pair, [['add', 'magic@2.0.0']])
        assert.ok(!fs.existsSync(path.join(pair.lodeProject.dir, 'node_modules', 'magic', 'dist')))
      })(),
      (async () => {
        const pair = await begin(app(registry), [['add', 'is-negative']])
        rmBoth(pair, 'node_modules')
        await then(pair, [['add', 'is-positive']])
        for (const name of ['is-negative', 'is-positive']) assert.ok(fs.existsSync(path.join(pair.lodeProject.dir, 'node_modules', name, 'package.json')), name)
      })(),
      (async () => {
        const installed = await begin(app(registry), [['add', 'is-positive@1.0.0']])
        const noLockfile = fork(installed)
        const packages = ['node_modules/is-positive', 'node_modules/.pnpm/is-positive@1.0.0/node_modules/is-positive']
        rmBoth(noLockfile, 'pnpm-lock.yaml', ...packages)
        rmBoth(installed, ...packages)
        // Without the lockfile it is put back; with it, node_modules is taken as up to date (by pnpm 11 too).
        await Promise.all([then(noLockfile, [['install']]), then(installed, [['install']])])
        assert.ok(fs.existsSync(path.join(noLockfile.lodeProject.dir, 'node_modules', 'is-positive', 'package.json')))
      })(),
      (async () => {
        const pair = await begin(app(registry, {}, { 'node_modules/foo': 'x' }), [['add', 'is-positive']])
        assert.equal(projectFile(pair.lodeProject, 'node_modules/foo'), 'x')
      })(),
      (async () => {
        const pair = await begin(app(registry, {}, { 'pnpm-workspace.yaml': 'virtualStoreDir: pkgs\n' }), [['add', 'is-positive']])
        editBoth(pair, 'pnpm-workspace.yaml', () => 'virtualStoreDir: other\n')
        // pnpm's add names the change (ERR_PNPM_UNEXPECTED_VIRTUAL_STORE); a plain install would ask to purge.
        await then(pair, [{ args: ['add', 'is-negative'], fails: /ERR_LODE_UNEXPECTED_VIRTUAL_STORE/ }, { args: ['install'], fails: /ERR_LODE_ABORTED_REMOVE_MODULES_DIR/ }])
      })(),
    ])
  })
})

/** Each shim in node_modules' `.bin` directories, with the project's path made neutral. */
const shims = (project: Project): Record<string, string> => Object.fromEntries(listing(path.join(project.dir, 'node_modules'))
  .filter((file) => file.split(path.sep).includes('.bin') && !file.includes(' -> '))
  .map((file) => [file, fs.readFileSync(path.join(project.dir, 'node_modules', file), 'utf8').replaceAll(project.dir, '<project>')]))

test('a lockfile replaced under an installed node_modules: a new version with new subdependencies, a subdependency moved, every link follows as pnpm 11', async () => {
  await withRegistry([
    { name: 'foo', version: '1.0.0' },
    { name: 'foo', version: '1.1.0' },
    { name: 'bar', version: '1.0.0' },
    { name: 'is-positive', version: '1.0.0' },
    { name: 'foobarqar', version: '1.0.0', dependencies: { foo: '1.0.0', bar: '1.0.0' } },
    { name: 'foobarqar', version: '1.0.1', dependencies: { foo: '1.1.0', bar: '1.0.0', 'is-positive': '1.0.0' } },
    { name: 'dep', version: '1.0.0' },
    { name: 'dep', version: '1.1.0' },
    { name: 'mid', version: '1.0.0', dependencies: { dep: '^1.0.0' } },
    { name: 'parent', version: '1.0.0', dependencies: { mid: '1.0.0' } },
  ], async (registry) => {
    registry.setDistTag('dep', 'latest', '1.0.0')
    const integrity = (version: string): string =>
      (registry.packument('dep', false)!['versions'] as Record<string, { dist: { integrity: string } }>)[version]!.dist.integrity
    await Promise.all([
      (async () => {
        const pair = await begin(app(registry, { dependencies: { foobarqar: '1.0.0' } }), [['install']])
        // The lockfile (and package.json) of a teammate who moved to 1.0.1.
        const teammate = app(registry, { dependencies: { foobarqar: '1.0.1' } })
        await pnpm(teammate, ['install', '--lockfile-only'])
        editBoth(pair, 'package.json', () => projectFile(teammate, 'package.json')!)
        editBoth(pair, 'pnpm-lock.yaml', () => readLockfileText(teammate))
        await then(pair, [['install']])
        const links = fs.readdirSync(path.join(pair.lodeProject.dir, 'node_modules', '.pnpm', 'foobarqar@1.0.1', 'node_modules')).sort()
        assert.deepEqual(links, ['bar', 'foo', 'foobarqar', 'is-positive'])
      })(),
      (async () => {
        const pair = await begin(app(registry, { dependencies: { parent: '1.0.0' } }), [['install']])
        editBoth(pair, 'pnpm-lock.yaml', (text) => text!.replaceAll('dep@1.0.0', 'dep@1.1.0').replace(integrity('1.0.0'), integrity('1.1.0')).replace('dep: 1.0.0', 'dep: 1.1.0'))
        await then(pair, [['install']])
        assert.equal(fs.readlinkSync(path.join(pair.lodeProject.dir, 'node_modules', '.pnpm', 'mid@1.0.0', 'node_modules', 'dep')), '../../dep@1.1.0/node_modules/dep')
      })(),
    ])
  })
})

test('minimumReleaseAge with add and update: the newest mature version, minimumReleaseAgeExclude by name, glob and version, the lowest young one, a young locked entry, as pnpm 11', async () => {
  const old = '2025-01-01T00:00:00.000Z'
  const now = new Date().toISOString()
  await withRegistry([
    { name: 'is-odd', version: '0.1.0', publishedAt: old },
    { name: 'is-odd', version: '0.1.1', publishedAt: old },
    { name: 'is-odd', version: '0.1.2', publishedAt: now },
    { name: 'all-young', version: '0.1.0', publishedAt: now },
    { name: 'all-young', version: '0.1.1', publishedAt: now },
    { name: 'bravo', version: '1.0.0', publishedAt: old },
    { name: 'bravo', version: '1.0.1', publishedAt: old },
    { name: 'bravo', version: '1.1.0', publishedAt: now },
    { name: 'is-positive', version: '1.0.0', publishedAt: old },
  ], async (registry) => {
    const policy = (extra = ''): Record<string, string> => ({ 'pnpm-workspace.yaml': `minimumReleaseAge: 1440\n${extra}` })
    const addIsOdd = async (extra: string): Promise<string> => {
      const pair = await begin(app(registry, {}, policy(extra)), [['add', 'is-odd@0.1']])
      return (JSON.parse(projectFile(pair.lodeProject, 'package.json')!) as { dependencies: Record<string, string> }).dependencies['is-odd']!
    }
    const updated = async (args: string[], range: string): Promise<Pair> => {
      const pair = await begin(app(registry, {}, policy()), [['add', 'bravo@1.0.0']])
      editBoth(pair, 'package.json', (text) => text!.replace('"bravo": "1.0.0"', `"bravo": "${range}"`))
      return await then(pair, [args])
    }
    const [saved, fallback, update, latest, bare, locked] = await Promise.all([
      Promise.all(['', 'minimumReleaseAgeExclude: [is-odd]\n', 'minimumReleaseAgeExclude: [\'is-*\']\n', 'minimumReleaseAgeExclude: [is-odd@0.1.2]\n',
        'minimumReleaseAgeExclude: [is-odd@0.1.0]\n'].map(addIsOdd)),
      begin(app(registry), [['add', 'all-young@0.1']]),
      updated(['update'], '^1.0.0'),
      updated(['update', '--latest'], '1.0.0'),
      begin(app(registry, {}, policy()), [['add', 'bravo']]),
      (async () => {
        const pair = await begin(app(registry, {}, { 'pnpm-workspace.yaml': 'minimumReleaseAge: 0\n' }), [['add', 'is-odd@0.1.2']])
        editBoth(pair, 'pnpm-workspace.yaml', () => 'minimumReleaseAge: 1440\nminimumReleaseAgeStrict: true\n')
        return await then(pair, [{ args: ['add', 'is-positive'], fails: /ERR_LODE_MINIMUM_RELEASE_AGE_VIOLATION[\s\S]*is-odd@0\.1\.2/ }])
      })(),
    ])
    assert.deepEqual(saved, ['~0.1.1', '~0.1.2', '~0.1.2', '~0.1.2', '~0.1.1'])
    assert.match(projectFile(fallback.lodeProject, 'pnpm-workspace.yaml')!, /minimumReleaseAgeExclude:\n {2}- all-young@0\.1\.0/)
    for (const pair of [update, latest, bare]) assert.match(readLockfileText(pair.lodeProject), /bravo@1\.0\.1:/)
    assert.match(projectFile(latest.lodeProject, 'package.json')!, /"bravo": "1\.0\.1"/)
    assert.match(projectFile(bare.lodeProject, 'package.json')!, /"bravo": "\^1\.0\.1"/)
    assert.doesNotMatch(readLockfileText(locked.lodeProject), /is-positive/)
  })
})

test('a range in minimumReleaseAgeExclude is refused before anything is written, as pnpm 11', async () => {
  await withRegistry([
    { name: 'is-odd', version: '0.1.1', publishedAt: '2025-01-01T00:00:00.000Z' },
    { name: 'is-odd', version: '0.1.2', publishedAt: new Date().toISOString() },
  ], async (registry) => {
    const settings = { 'pnpm-workspace.yaml': 'minimumReleaseAge: 1440\nminimumReleaseAgeExclude: [\'is-odd@^0.1.1\']\n' }
    await begin(app(registry, {}, settings), [
      { args: ['add', 'is-odd@0.1'], fails: /^\[ERR_LODE_INVALID_MINIMUM_RELEASE_AGE_EXCLUDE\] Invalid value in minimumReleaseAgeExclude: Invalid versions union\. Found: "is-odd@\^0\.1\.1"\. Use exact versions only\./ },
    ])
  })
})

test('a subdependency spec no resolver takes fails naming the packages above it, writing nothing, as pnpm 11', async () => {
  await withRegistry([
    { name: 'bad-parent', version: '1.0.0', dependencies: { child: 'foo:bar' } },
    { name: 'grand', version: '1.0.0', dependencies: { 'bad-parent': '1.0.0' } },
  ], async (registry) => {
    const { pnpmProject } = await begin(app(registry, { dependencies: { grand: '1.0.0' } }), [
      { args: ['install'], fails: /^\[ERR_LODE_SPEC_NOT_SUPPORTED_BY_ANY_RESOLVER\] "child@foo:bar" isn't supported by any available resolver[^\n]* This error happened while installing the dependencies of grand@1\.0\.0 > bad-parent@1\.0\.0\./ },
    ])
    assert.match((await pnpm(pnpmProject, ['install'], true)).stdout, /ERR_PNPM_SPEC_NOT_SUPPORTED_BY_ANY_RESOLVER[\s\S]*bad-parent@1\.0\.0/)
  })
})

test('a bin declared through directories.bin gets pnpm 11\'s shim, through the package\'s real directory', async () => {
  await withRegistry([
    { name: 'dirbin', version: '1.0.0', manifest: { directories: { bin: 'bin' } }, files: { 'bin/dirbin': { content: '#!/usr/bin/env node\nconsole.log("dirbin")\n', mode: 0o755 } } },
  ], async (registry) => {
    const pair = await begin(app(registry), [['add', 'dirbin']])
    assert.deepEqual(shims(pair.lodeProject), shims(pair.pnpmProject))
    assert.match(shims(pair.lodeProject)[path.join('.bin', 'dirbin')]!, /\.pnpm\/dirbin@1\.0\.0\/node_modules\/dirbin\/bin\/dirbin/)
  })
})

test('a package whose files left the store is fetched again, as pnpm 11', async () => {
  await withRegistry([{ name: 'magic', version: '2.0.0', files: { 'dist/index.js': 'magic dist 8d7f6e' } }], async (registry) => {
    const pair = await begin(app(registry), [['add', 'magic@2.0.0']])
    const hex = createHash('sha512').update('magic dist 8d7f6e').digest('hex')
    for (const p of [pair.pnpmProject, pair.lodeProject]) fs.rmSync(path.join(defaultStoreDir(p), 'v11', 'files', hex.slice(0, 2), hex.slice(2)))
    rmBoth(pair, 'node_modules')
    await then(pair, [['add', 'magic@2.0.0']])
    assert.equal(projectFile(pair.lodeProject, 'node_modules/magic/dist/index.js'), 'magic dist 8d7f6e')
  })
})

test('ignoredOptionalDependencies as pnpm 11: an empty list is not recorded, names are recorded sorted, the setting added later drops the package', async () => {
  await withRegistry([
    { name: 'is-positive', version: '1.0.0' },
    { name: 'good-opt', version: '1.0.0', manifest: { optionalDependencies: { 'is-positive': '1.0.0' } } },
  ], async (registry) => {
    const setting = (list: string): Record<string, string> => ({ 'pnpm-workspace.yaml': `ignoredOptionalDependencies: ${list}\n` })
    const [empty, sorted, later] = await Promise.all([
      begin(app(registry, {}, setting('[]')), [['add', 'good-opt']]),
      begin(app(registry, {}, setting('[qux, foo, baz, bar]')), [['add', 'good-opt']]),
      begin(app(registry, { dependencies: { 'good-opt': '1.0.0' } }), [['install']]),
    ])
    editBoth(later, 'pnpm-workspace.yaml', () => 'ignoredOptionalDependencies: [is-positive]\n')
    await then(later, [['install']])
    assert.doesNotMatch(readLockfileText(empty.lodeProject), /ignoredOptionalDependencies/)
    assert.match(readLockfileText(empty.lodeProject), /is-positive@1\.0\.0/)
    assert.match(readLockfileText(sorted.lodeProject), /ignoredOptionalDependencies:\n {2}- bar\n {2}- baz\n {2}- foo\n {2}- qux\n/)
    assert.doesNotMatch(readLockfileText(later.lodeProject), /is-positive@/)
  })
})

test('build scripts as pnpm 11: a package added to an existing node_modules, unlisted bins through hoisting, root dependencies linked first, allowBuilds per package, INIT_CWD, a hoisted workspace', async () => {
  const write = (file: string): string => `node -e "require('fs').writeFileSync('${file}', '')"`
  const jsonAppend = '#!/usr/bin/env node\nconst fs = require(\'fs\'); let s = \'\'\nprocess.stdin.on(\'data\', (d) => { s += d })\n' +
    'process.stdin.on(\'end\', () => { const f = process.argv[2]; const a = fs.existsSync(f) ? JSON.parse(fs.readFileSync(f, \'utf8\')) : []; ' +
    'a.push(s.trim()); fs.writeFileSync(f, JSON.stringify(a)) })\n'
  await withRegistry([
    { name: 'is-positive', version: '1.0.0' },
    { name: 'hello', version: '1.0.0', bin: { hello: 'index.js' } },
    { name: 'pre-post', version: '1.0.0', scripts: { preinstall: write('pre.txt'), postinstall: write('post.txt') } },
    { name: 'pre-post', version: '2.0.0', scripts: { preinstall: write('pre.txt'), postinstall: write('post.txt') } },
    { name: 'install-script', version: '1.0.0', scripts: { install: write('install.txt') } },
    { name: 'env-writer', version: '1.0.0', scripts: { postinstall: 'node -e "require(\'fs\').writeFileSync(\'env.json\', JSON.stringify(process.env.INIT_CWD))"' } },
    { name: 'json-append', version: '1.0.0', bin: { 'json-append': 'cli.js' }, files: { 'cli.js': { content: jsonAppend, mode: 0o755 } } },
    { name: 'needs-json-append', version: '1.0.0', dependencies: { 'json-append': '1.0.0' } },
    { name: 'calls-unlisted', version: '1.0.0', dependencies: { 'needs-json-append': '1.0.0' }, scripts: { postinstall: 'echo hi | json-append output.json' } },
    { name: 'needs-root', version: '1.0.0', scripts: { postinstall: 'node -e "require(\'is-positive\')"' } },
  ], async (registry) => {
    const allow = (...names: string[]): Record<string, string> => ({ 'pnpm-workspace.yaml': `allowBuilds:\n${names.map((name) => `  ${name}: true\n`).join('')}` })
    const built = (pair: Pair, file: string): boolean => fs.existsSync(path.join(pair.lodeProject.dir, 'node_modules', file))
    await Promise.all([
      (async () => {
        const pair = await begin(app(registry, {}, allow('pre-post')), [['add', 'hello'], ['add', '-D', 'pre-post@1.0.0']])
        assert.ok(built(pair, 'pre-post/pre.txt') && built(pair, 'pre-post/post.txt'))
      })(),
      (async () => {
        const pair = await begin(app(registry, {}, allow('calls-unlisted')), [['add', 'calls-unlisted']])
        assert.equal(projectFile(pair.lodeProject, 'node_modules/calls-unlisted/output.json'), '["hi"]')
      })(),
      (async () => {
        // needs-root's postinstall requires is-positive, which only the project depends on.
        const pair = await begin(app(registry, { dependencies: { 'is-positive': '1.0.0', 'needs-root': '1.0.0' } }, allow('needs-root')), [['install']])
        rmBoth(pair, 'node_modules')
        await then(pair, [['install', '--frozen-lockfile']])
      })(),
      (async () => {
        // install-script allowed, pre-post not mentioned, then denied; each time from the lockfile as well.
        const pair = await begin(app(registry, {}, { 'pnpm-workspace.yaml': 'allowBuilds:\n  install-script: true\nstrictDepBuilds: false\n' }), [
          ['add', 'pre-post@1.0.0', 'install-script'],
        ])
        rmBoth(pair, 'node_modules')
        await then(pair, [['install', '--frozen-lockfile']])
        editBoth(pair, 'pnpm-workspace.yaml', () => 'allowBuilds:\n  install-script: true\n  pre-post: false\n')
        rmBoth(pair, 'node_modules')
        await then(pair, [['install', '--frozen-lockfile']])
        assert.ok(built(pair, 'install-script/install.txt') && !built(pair, 'pre-post/pre.txt') && !built(pair, 'pre-post/post.txt'))
      })(),
      (async () => {
        // Run from a workspace project: its own script sees that directory, a dependency's the workspace root.
        const ws = workspace(registry, {}, {
          a: { dependencies: { 'env-writer': '1.0.0' }, scripts: { install: 'node -e "require(\'fs\').writeFileSync(\'output.json\', JSON.stringify(process.env.INIT_CWD))"' } },
        }, 'allowBuilds:\n  env-writer: true\n')
        const lodeWs = cloneProject(ws)
        const inA = (project: Project): Project => ({ dir: path.join(project.dir, 'packages', 'a'), home: project.home })
        await stepsBesidePnpm(inA(ws), [['install']], ['package.json'], inA(lodeWs))
        const seen = (project: Project): Array<string | undefined> => ['packages/a/output.json', 'packages/a/node_modules/env-writer/env.json']
          .map((file) => projectFile(project, file)?.replaceAll(project.dir, '<root>'))
        assert.deepEqual(seen(lodeWs), seen(ws))
        assert.deepEqual(seen(lodeWs), ['"<root>/packages/a"', '"<root>"'])
        assert.equal(readLockfileText(lodeWs), readLockfileText(ws))
      })(),
      (async () => {
        const projects: Record<string, Record<string, unknown>> = {}
        for (const [name, range] of [['p1', '1'], ['p2', '1'], ['p3', '2'], ['p4', '2']] as const) projects[name] = { dependencies: { 'pre-post': range } }
        const pair = await begin(workspace(registry, {}, projects, 'nodeLinker: hoisted\nallowBuilds:\n  pre-post: true\n'), [['install']])
        assert.ok(built(pair, 'pre-post/post.txt'))
        const elsewhere = ['p1', 'p2', 'p3', 'p4'].filter((name) => fs.existsSync(path.join(pair.lodeProject.dir, 'packages', name, 'node_modules', 'pre-post', 'post.txt')))
        assert.equal(elsewhere.length, 2)
      })(),
    ])
  })
})

test('a build that rewrites a file of its package leaves the store\'s file as it was (the package is copied, not hardlinked), as pnpm 11', async () => {
  await withRegistry([
    { name: 'edits', version: '1.0.0', files: { 'file.txt': '' }, scripts: { postinstall: 'node -e "require(\'fs\').writeFileSync(\'file.txt\', \'hello\')"' } },
    { name: 'plain', version: '1.0.0', files: { 'empty.txt': '' } },
  ], async (registry) => {
    const pair = await begin(app(registry, { dependencies: { edits: '1.0.0', plain: '1.0.0' } }, { 'pnpm-workspace.yaml': 'allowBuilds:\n  edits: true\n' }), [['install']])
    const empty = createHash('sha512').update('').digest('hex')
    for (const project of [pair.pnpmProject, pair.lodeProject]) {
      assert.equal(projectFile(project, 'node_modules/edits/file.txt'), 'hello')
      assert.equal(projectFile(project, 'node_modules/plain/empty.txt'), '', 'a package with the same (empty) file is not touched')
      assert.equal(fs.readFileSync(path.join(defaultStoreDir(project), 'v11', 'files', empty.slice(0, 2), empty.slice(2)), 'utf8'), '')
      assert.equal(fs.statSync(path.join(project.dir, 'node_modules/edits/file.txt')).nlink, 1, 'the package that builds is a copy')
      assert.ok(fs.statSync(path.join(project.dir, 'node_modules/plain/empty.txt')).nlink > 1, 'the one that does not is hardlinked')
    }
  })
})

test('add of a tarball URL, a local tarball, directories (bare, file:, link:, without package.json) saves what pnpm 11 saves; nameless or climbing names are refused', async () => {
  const [tarball, noName, evil] = await Promise.all([
    buildPackageTarball({ name: 'tar-dep', version: '1.0.0' }).then(({ tarball }) => tarball),
    buildTarball([{ name: 'package/package.json', content: '{"version":"1.0.0"}' }]).then(({ tarball }) => tarball),
    buildTarball([{ name: 'package/package.json', content: '{"name":"../../evil","version":"1.0.0"}' }]).then(({ tarball }) => tarball),
  ])
  await withRegistry([{ name: 'dep', version: '1.0.0' }], async (registry) => {
    const dirs = (_: Project, beside: string): void => {
      fs.writeFileSync(path.join(beside, 'tar-dep-1.0.0.tgz'), tarball)
      for (const name of ['dir-a', 'dir-b', 'dir-c']) {
        fs.mkdirSync(path.join(beside, name))
        fs.writeFileSync(path.join(beside, name, 'package.json'), JSON.stringify({ name: `${name}-pkg`, version: '1.0.0' }))
      }
    }
    await Promise.all([
      (async () => {
        const pair = await begin(app(registry), [['add', `${registry.url}dep/-/dep-1.0.0.tgz`]])
        await then(pair, [['remove', 'dep']])
      })(),
      then(pairOf(app(registry), dirs), [['add', '../tar-dep-1.0.0.tgz', '../dir-a', 'file:../dir-b', 'link:../dir-c']]),
      (async () => {
        const pair = await begin(app(registry, {}, { 'pkg/index.js': 'hello' }), [['add', 'file:./pkg']])
        rmBoth(pair, 'node_modules')
        await then(pair, [['install', '--frozen-lockfile']])
      })(),
      begin(app(registry, {}, { 'no-name.tgz': noName }), [{ args: ['add', 'file:./no-name.tgz'], fails: /ERR_LODE_MISSING_PACKAGE_NAME/ }]),
      begin(app(registry, {}, { 'evil.tgz': evil }), [{ args: ['add', 'file:./evil.tgz'], fails: /ERR_LODE_INVALID_DEPENDENCY_NAME/ }]),
    ])
  })
})

test('add of a tarball URL naming no package (another server, a path without .tgz), and of one at a non-standard path of the registry: locked by URL, as pnpm 11', async () => {
  const [taffydb, positive] = await Promise.all([
    buildPackageTarball({ name: 'taffydb', version: '2.7.3' }),
    buildPackageTarball({ name: 'is-positive', version: '3.1.0' }),
  ])
  await withRegistry([{ name: 'dep', version: '1.0.0' }], async (registry) => {
    const other = await TestRegistry.start([])
    try {
      other.serveFile('/hegemonic/taffydb/tarball/master', taffydb.tarball)
      registry.serveFile('/is-positive/download/is-positive-3.1.0.tgz', positive.tarball)
      const fromOther = await begin(app(registry), [['add', `${other.url}hegemonic/taffydb/tarball/master`]])
      assert.match(readLockfileText(fromOther.lodeProject), /taffydb@http:\/\/127\.0\.0\.1:\d+\/hegemonic\/taffydb\/tarball\/master:\n {4}resolution: \{integrity: sha512-[^,]+, tarball: http/)
      const nonStandard = await begin(app(registry), [['add', `${registry.url}is-positive/download/is-positive-3.1.0.tgz`, '--lockfile-only']])
      assert.match(readLockfileText(nonStandard.lodeProject), /is-positive@http:\/\/127\.0\.0\.1:\d+\/is-positive\/download\/is-positive-3\.1\.0\.tgz/)
    } finally {
      await other.close()
    }
  })
})

test('local and git dependencies installed as pnpm 11: a scoped directory, a link through a symlink, a git branch kept at its commit by an unrelated add, a git prepare that fails', async () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'lode-git-'))
  try {
    const lib = await makeRepo(root, 'lib', [{ files: { 'package.json': JSON.stringify({ name: 'lib', version: '1.0.0' }), 'index.js': '' } }])
    const prep = await makeRepo(root, 'prep', [{
      files: { 'package.json': JSON.stringify({ name: 'prep', version: '1.0.0', scripts: { prepare: 'node -e "process.exit(1)"' } }), 'index.js': '' },
      tags: ['v1.0.0'],
    }])
    await withRegistry([{ name: 'dep', version: '1.0.0' }], async (registry) => {
      await Promise.all([
        (async () => {
          const files = { 'local-scoped/package.json': JSON.stringify({ name: '@scope/local-scoped', version: '1.0.0' }), 'local-scoped/index.js': '' }
          const pair = await begin(app(registry, { dependencies: { '@scope/local-scoped': 'file:local-scoped' } }, files), [['install']])
          assert.ok(fs.existsSync(path.join(pair.lodeProject.dir, 'node_modules', '@scope', 'local-scoped', 'package.json')))
        })(),
        (async () => {
          // link:../symlink, where ../symlink is a symlink to ../local-pkg: node_modules links through the symlink.
          const pair = pairOf(app(registry, { dependencies: { 'local-pkg': 'link:../symlink' } }), (_, beside) => {
            fs.mkdirSync(path.join(beside, 'local-pkg'))
            fs.writeFileSync(path.join(beside, 'local-pkg', 'package.json'), JSON.stringify({ name: 'local-pkg', version: '1.0.0' }))
            fs.symlinkSync(path.join(beside, 'local-pkg'), path.join(beside, 'symlink'))
          })
          await then(pair, [['install']])
          assert.equal(fs.readlinkSync(path.join(pair.lodeProject.dir, 'node_modules', 'local-pkg')), '../../symlink')
        })(),
        (async () => {
          const pair = await begin(app(registry, { dependencies: { lib: `git+${lib.url}#main` } }), [['install']])
          const lockfile = readLockfileText(pair.lodeProject)
          // main moves on; an add of another package keeps lib at the locked commit.
          const work = path.join(root, 'work', 'lib')
          fs.writeFileSync(path.join(work, 'index.js'), 'changed')
          await git(['commit', '-qam', 'next'], work)
          await git(['fetch', '-q', work, 'main:main'], lib.dir)
          await then(pair, [['add', 'dep']])
          assert.ok(lockfile.includes(lib.commits[0]!) && readLockfileText(pair.lodeProject).includes(lib.commits[0]!))
        })(),
        (async () => {
          const settings = { 'pnpm-workspace.yaml': `allowBuilds:\n  'prep@git+${prep.url}': true\n` }
          // Fails each time: nothing half-built was kept.
          await begin(app(registry, { dependencies: { prep: `git+${prep.url}#v1.0.0` } }, settings), [
            { args: ['install'], fails: /ERR_LODE_GIT_PREPARE_FAILED/ },
            { args: ['install'], fails: /ERR_LODE_GIT_PREPARE_FAILED/ },
          ])
        })(),
      ])
    })
  } finally {
    fs.rmSync(root, { recursive: true, force: true })
  }
})

test('a hoistPattern changed over an installed node_modules: add is refused (HOIST_PATTERN_DIFF), install without a TTY is refused, as pnpm 11', async () => {
  await withRegistry([
    { name: 'a', version: '1.0.0', dependencies: { b: '1.0.0' } },
    { name: 'b', version: '1.0.0' },
    { name: 'c', version: '1.0.0' },
  ], async (registry) => {
    for (const [before, after] of [['hoistPattern: []\n', 'hoistPattern: [\'*\']\n'], ['', 'hoistPattern: []\n']]) {
      const pair = await begin(app(registry, {}, { 'pnpm-workspace.yaml': before! }), [['add', 'a']])
      editBoth(pair, 'pnpm-workspace.yaml', () => after!)
      await then(pair, [{ args: ['add', 'c'], fails: /ERR_LODE_HOIST_PATTERN_DIFF/ }, { args: ['install'], fails: /ERR_LODE_ABORTED_REMOVE_MODULES_DIR[^]*confirmModulesPurge/ }])
    }
  })
})

test('a publicly hoisted subdependency\'s bin does not replace a direct dependency\'s bin of the same name, as pnpm 11', async () => {
  await withRegistry([
    { name: 'hello', version: '1.0.0', bin: { hello: 'index.js' } },
    { name: 'hello-parent', version: '1.0.0', bin: { hello: 'index.js' }, dependencies: { hello: '1.0.0' } },
  ], async (registry) => {
    const pair = await begin(app(registry, {}, { 'pnpm-workspace.yaml': 'publicHoistPattern: [\'*\']\n' }), [['add', 'hello-parent']])
    assert.deepEqual(shims(pair.lodeProject), shims(pair.pnpmProject))
    rmBoth(pair, 'node_modules')
    await then(pair, [['install', '--frozen-lockfile']])
    assert.deepEqual(shims(pair.lodeProject), shims(pair.pnpmProject))
    assert.match(shims(pair.lodeProject)[path.join('.bin', 'hello')]!, /hello-parent\/index\.js/)
  })
})

test('public hoisting leaves a directory and a symlink the user put in node_modules under a hoisted name, as pnpm 11', async () => {
  await withRegistry([
    { name: 'debug', version: '1.0.0' },
    { name: 'cookie', version: '1.0.0' },
    { name: 'mime', version: '1.0.0' },
    { name: 'express-like', version: '1.0.0', dependencies: { debug: '1.0.0', cookie: '1.0.0', mime: '1.0.0' } },
  ], async (registry) => {
    const project = app(registry, {}, { 'node_modules/debug/pnpm-test.txt': 'mine', 'cookie/pnpm-test.txt': 'mine', 'pnpm-workspace.yaml': 'publicHoistPattern: [\'*\']\n' })
    const lodeProject = cloneProject(project)
    for (const p of [project, lodeProject]) fs.symlinkSync('../cookie', path.join(p.dir, 'node_modules', 'cookie'))
    const pair = await stepsBesidePnpm(project, [['add', 'express-like'], ['install']], undefined, lodeProject)
    sameHoisting(pair)
    assert.equal(fs.readlinkSync(path.join(lodeProject.dir, 'node_modules', 'cookie')), '../cookie')
    assert.equal(projectFile(lodeProject, 'node_modules/debug/pnpm-test.txt'), 'mine')
  })
})

test('a package depending on an older version of itself finds that version in its own node_modules, as pnpm 11', async () => {
  await withRegistry([
    { name: 'self-trap', version: '1.0.0' },
    { name: 'self-trap', version: '2.0.0', dependencies: { 'self-trap': '1.0.0' } },
  ], async (registry) => {
    const pair = await begin(app(registry), [['add', 'self-trap@2.0.0']])
    const inner = 'node_modules/.pnpm/self-trap@2.0.0/node_modules/self-trap/node_modules/self-trap/package.json'
    assert.match(projectFile(pair.lodeProject, inner)!, /"version": "1\.0\.0"/)
    rmBoth(pair, 'node_modules')
    await then(pair, [['install', '--frozen-lockfile']])
    assert.match(projectFile(pair.lodeProject, inner)!, /"version": "1\.0\.0"/)
  })
})

test('the project\'s pnpm:devPreinstall runs before its other install scripts, in an install with work to do, as pnpm 11', async () => {
  await withRegistry([{ name: 'leaf', version: '1.0.0' }, { name: 'other', version: '1.0.0' }], async (registry) => {
    const log = (name: string): string => `node -e "require('fs').appendFileSync('log.txt', '${name}\\n')"`
    const scripts = Object.fromEntries(['pnpm:devPreinstall', 'preinstall', 'install', 'postinstall', 'preprepare', 'prepare', 'postprepare'].map((s) => [s, log(s)]))
    const files = ['package.json', 'pnpm-lock.yaml', 'log.txt']
    const pair = await begin(app(registry, { scripts, dependencies: { leaf: '1.0.0' } }), [['install'], ['install'], ['add', 'other'], ['install', '--ignore-scripts']], files)
    assert.match(projectFile(pair.lodeProject, 'log.txt')!, /^pnpm:devPreinstall\npreinstall\n/)
  })
})

test('bins a postinstall creates in directories.bin are linked after the build, from the lockfile too, as pnpm 11', async () => {
  const generate = 'const fs = require(\'fs\'); fs.mkdirSync(\'bin\', { recursive: true }); ' +
    'for (const c of [\'cmd1\', \'cmd2\']) fs.writeFileSync(`bin/${c}`, \'#!/usr/bin/env node\\n\', { mode: 0o755 })\n'
  await withRegistry([
    { name: 'gen-bins', version: '1.0.0', manifest: { directories: { bin: 'bin' } }, scripts: { postinstall: 'node generate.js' }, files: { 'generate.js': generate } },
    { name: 'has-gen-bins', version: '1.0.0', dependencies: { 'gen-bins': '1.0.0' } },
  ], async (registry) => {
    // (A package with a bin of its own and a build, installed again from pnpm's side-effects cache,
    // gets no bin in its own node_modules/.bin from pnpm, which then runs no build; lode runs it.)
    const settings = { 'pnpm-workspace.yaml': 'allowBuilds:\n  gen-bins: true\n  has-gen-bins: true\n' }
    await Promise.all(['gen-bins', 'has-gen-bins'].map(async (name) => {
      const pair = await begin(app(registry, {}, settings), [['add', name]])
      rmBoth(pair, 'node_modules')
      await then(pair, [['install', '--frozen-lockfile']])
    }))
  })
})

test('add -w of another version of a package a workspace project has keeps that project\'s version hoisted, as pnpm 11', async () => {
  await withRegistry([
    { name: 'dep', version: '1.0.0' },
    { name: 'uses-dep', version: '1.0.0', dependencies: { dep: '^1.0.0' } },
    { name: 'foo', version: '1.0.0' },
    { name: 'foo', version: '1.1.0' },
  ], async (registry) => {
    registry.setDistTag('foo', 'latest', '1.0.0')
    const project = makeProject(registry, { name: 'root', version: '1.0.0', dependencies: { 'uses-dep': '1.0.0' } }, {
      'pnpm-workspace.yaml': 'packages:\n  - packages/*\n',
      'packages/p/package.json': JSON.stringify({ name: 'p', version: '1.0.0', dependencies: { foo: '1.0.0' } }),
    })
    const pair = await begin(project, [['install'], ['add', '-w', 'foo@1.1.0']], ['package.json', 'pnpm-lock.yaml', 'packages/p/package.json', 'node_modules/.pnpm/lock.yaml'])
    sameHoisting(pair)
  })
})
