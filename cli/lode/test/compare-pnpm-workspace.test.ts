import assert from 'node:assert/strict'
import fs from 'node:fs'
import { createRequire } from 'node:module'
import path from 'node:path'
import { after, before, test } from 'node:test'

import { TestRegistry } from '@lode/__utils__.test-fixtures'

import { cloneProject, listing, lode, makeProject, pnpm, projectFile, snapshot } from './helpers.js'
import type { Project, Step } from './helpers.js'

// pnpm 11's own workspace scenarios (recursive and filtered installs, catalogs, workspace links,
// peers across projects, injected projects), each run by pnpm 11 on one copy and lode on another:
// the same exit codes, the same files after each step, the same node_modules.

let registry: TestRegistry

const writeFile = (name: string): string => `node -e "require('fs').writeFileSync('${name}', '')"`

before(async () => {
  registry = await TestRegistry.start([
    { name: 'dep-a', version: '1.0.0' },
    { name: 'dep-b', version: '1.0.0' },
    { name: 'dep-c', version: '1.0.0' },
    { name: 'dep', version: '1.0.0' },
    { name: 'dep', version: '2.0.0' },
    { name: 'other', version: '1.0.0' },
    { name: 'foo', version: '1.0.0' },
    { name: 'foo', version: '1.0.5' },
    { name: 'foo', version: '1.1.0' },
    { name: 'foo', version: '1.3.0' },
    { name: 'foo', version: '2.0.0' },
    { name: 'foobar', version: '1.0.0', dependencies: { foo: '^1.0.0' } },
    { name: 'bar', version: '1.0.0' },
    { name: 'bar', version: '1.1.0' },
    { name: 'conv-dep', version: '1.0.0' },
    { name: 'conv-dep', version: '1.1.0' },
    { name: 'conv-with', version: '1.0.0', dependencies: { 'conv-dep': '^1.0.0' } },
    { name: 'cw-dep-of', version: '1.0.0' },
    { name: 'cw-dep-of', version: '1.1.0' },
    { name: 'cw-with-dep', version: '1.0.0', dependencies: { 'cw-dep-of': '^1.0.0' } },
    { name: 'cw-with-dep', version: '1.1.0', dependencies: { 'cw-dep-of': '^1.0.0' } },
    { name: 'wd', version: '1.0.0' },
    { name: 'wd', version: '1.1.0' },
    { name: 'wd2', version: '1.0.0' },
    { name: 'wd2', version: '1.1.0' },
    { name: 'peer-host', version: '1.0.0' },
    { name: 'peer-host', version: '1.1.0' },
    { name: 'plugin', version: '1.0.0', manifest: { peerDependencies: { 'peer-host': '*' } } },
    // A registry package whose own dependency says catalog:.
    { name: 'bad-cat', version: '1.0.0', dependencies: { dep: 'catalog:foo' } },
    { name: 'sub', version: '1.0.0' },
    { name: 'parent', version: '1.0.0', dependencies: { sub: '^1.0.0' } },
    { name: 'host', version: '4.10.4' },
    { name: 'host-kw', version: '1.5.0', manifest: { peerDependencies: { host: '4' } } },
    { name: 'peer-a', version: '1.0.0' },
    { name: 'peer-b', version: '1.0.0' },
    { name: 'peer-c', version: '1.0.0' },
    { name: 'abc', version: '1.0.0', manifest: { peerDependencies: { 'peer-a': '^1.0.0' } } },
    { name: 'pabc', version: '1.0.0', manifest: { peerDependencies: { 'peer-a': '^1.0.0', 'peer-b': '^1.0.0', 'peer-c': '^1.0.0' } } },
    { name: 'pabc-parent', version: '1.0.0', dependencies: { pabc: '1.0.0', 'peer-a': '1.0.0', 'peer-b': '1.0.0' } },
    { name: 'pabc-grand', version: '1.0.0', dependencies: { 'pabc-parent': '^1.0.0', 'peer-c': '1.0.0' } },
    // Newer versions that `latest` names only between the steps of one test.
    { name: 'pabc-parent', version: '1.0.1', dependencies: { pabc: '1.0.0', 'peer-a': '1.0.0', 'peer-b': '1.0.0' } },
    { name: 'pabc-grand', version: '1.0.1', dependencies: { 'pabc-parent': '^1.0.0', 'peer-c': '1.0.0' } },
    { name: 'pabc-missing', version: '1.0.0', manifest: { peerDependencies: { 'peer-a': '^1.0.0', 'peer-b': '^1.0.0', 'peer-c': '^1.0.0' } } },
    { name: 'bin-dep', version: '1.0.0', bin: { 'bin-dep': 'bin.js' }, files: { 'bin.js': '#!/usr/bin/env node\nconsole.log("bin-dep")\n' } },
    { name: 'builds', version: '1.0.0', scripts: { postinstall: writeFile('built.txt') } },
    { name: 'pabc-opt', version: '1.0.0', manifest: { peerDependencies: { 'peer-a': '^1.0.0', 'peer-b': '^1.0.0', 'peer-c': '^1.0.0' }, peerDependenciesMeta: { 'peer-c': { optional: true } } } },
    { name: 'pabc-ab', version: '1.0.0', dependencies: { 'pabc-opt': '1.0.0', 'peer-a': '^1.0.0', 'peer-b': '1.0.0' } },
    { name: 'pabc-gc', version: '1.0.0', dependencies: { 'pabc-ab': '1.0.0', 'peer-c': '1.0.0' } },
    // A package with two peers, in two versions (the catalog entry widened over it).
    ...['1.0.0', '1.0.1'].map((version) => ({ name: 'cat-peer-a', version })),
    { name: 'cat-peer-b', version: '1.0.0' },
    ...['1.0.0', '2.0.0'].map((version) => ({ name: 'abc2', version, dependencies: { 'dep-c': '1.0.0' }, manifest: { peerDependencies: { 'cat-peer-a': '^1.0.0', 'cat-peer-b': '^1.0.0' } } })),
    // An optional peer found below a project (pv-holder's pv beside its pv-user), and the root's auto-installed one.
    ...['1.0.0', '1.1.0'].map((version) => ({ name: 'pv', version })),
    { name: 'pv-user', version: '1.0.0', manifest: { peerDependencies: { pv: '*' }, peerDependenciesMeta: { pv: { optional: true } } } },
    { name: 'pv-holder', version: '1.0.0', dependencies: { pv: '1.0.0', 'pv-user': '1.0.0' } },
    { name: 'pv-root-user', version: '1.0.0', manifest: { peerDependencies: { pv: '^1.1.0' }, peerDependenciesMeta: { pv: { optional: true } } } },
    { name: 'pv-root-dep', version: '1.0.0', dependencies: { pv: '1.1.0' } },
    ...['1.0.0', '2.0.0'].map((version) => ({ name: 'print-version', version, bin: { 'print-version': 'bin.js' }, files: { 'bin.js': `#!/usr/bin/env node\nconsole.log("${version}")\n` } })),
  ])
  // `latest` moves later, between the steps.
  for (const name of ['cw-dep-of', 'cw-with-dep', 'wd', 'wd2', 'pabc-parent', 'pabc-grand']) registry.setDistTag(name, 'latest', '1.0.0')
})

after(async () => { await registry.close() })

const json = (value: unknown): string => JSON.stringify(value, null, 2) + '\n'

/** A workspace: pnpm-workspace.yaml (`packages/*` and `settings`), the root's package.json, and packages/<name> for each project. */
function workspace (
  settings: string,
  projects: Record<string, Record<string, unknown>>,
  root: Record<string, unknown> = {},
  files: Record<string, string> = {}
): Project {
  return makeProject(registry, { name: 'root', version: '1.0.0', private: true, ...root }, {
    'pnpm-workspace.yaml': `packages:\n  - packages/*\n${settings}`,
    ...Object.fromEntries(Object.entries(projects).map(([name, manifest]) => [`packages/${name}/package.json`, json({ name, version: '1.0.0', ...manifest })])),
    ...files,
  })
}

/** The files a workspace step is compared on: every package.json, pnpm-workspace.yaml and the lockfile. */
function filesOf (projects: string[], extra: string[] = []): string[] {
  return ['package.json', ...projects.map((name) => `packages/${name}/package.json`), 'pnpm-workspace.yaml', 'pnpm-lock.yaml', ...extra]
}

/** A hand edit between the steps, done to pnpm's copy and to lode's. */
type Edit = (dir: string) => void

/** A step: also, output neither tool may print. */
interface Check extends Step {
  quiet?: RegExp
}

/**
 * Each step by pnpm on `project` and by lode on a copy, at once: the same exit code (a failing lode
 * changing nothing), the same `files` after it, and the same files and links in the whole
 * workspace (node_modules, build outputs). Hand edits are done to both copies. `lodeProject` goes on
 * from earlier steps.
 */
async function flow (
  project: Project,
  steps: ReadonlyArray<Check | string[] | Edit>,
  files: readonly string[],
  lodeProject: Project = cloneProject(project)
): Promise<{ lodeProject: Project, pnpmProject: Project }> {
  // pnpm 11's record of a recursive run (node_modules/.pnpm-task-run-state-v1) is not lode's: see pnpm-11-differences.md.
  const tree = (of: Project): string[] => listing(of.dir).filter((file) => !file.endsWith(`.pnpm${path.sep}lock.yaml`) && !file.includes('.pnpm-task-run-state-v1'))
  for (const step of steps) {
    if (typeof step === 'function') {
      step(project.dir)
      step(lodeProject.dir)
      continue
    }
    const { args, fails, warns, quiet } = Array.isArray(step) ? { args: step } as Check : step
    const before = fails === undefined ? undefined : snapshot(lodeProject.dir)
    const [byPnpm, byLode] = await Promise.all([pnpm(project, args, fails !== undefined), lode(lodeProject, args)])
    const said = `lode ${args.join(' ')}:\n${byLode.stdout}\n${byLode.stderr}`
    if (fails === undefined) {
      assert.equal(byLode.code, 0, said)
    } else {
      assert.equal(byLode.code, 1, said)
      assert.match(byLode.stderr, fails)
      assert.deepEqual(snapshot(lodeProject.dir), before, `lode ${args.join(' ')} changed nothing`)
    }
    if (warns !== undefined) {
      assert.match(byPnpm.stdout, warns)
      assert.match(byLode.stdout + byLode.stderr, warns, said)
    }
    if (quiet !== undefined) {
      assert.doesNotMatch(byPnpm.stdout + byPnpm.stderr, quiet)
      assert.doesNotMatch(byLode.stdout + byLode.stderr, quiet)
    }
    for (const file of files) assert.equal(projectFile(lodeProject, file), projectFile(project, file), `${file} after ${args.join(' ')}`)
    assert.deepEqual(tree(lodeProject), tree(project), `the workspace after ${args.join(' ')}`)
  }
  return { lodeProject, pnpmProject: project }
}

const removeNodeModules: Edit = (dir) => {
  for (const sub of ['.', ...fs.readdirSync(path.join(dir, 'packages')).map((name) => `packages/${name}`)]) {
    fs.rmSync(path.join(dir, sub, 'node_modules'), { recursive: true, force: true })
  }
}

const writeJson = (file: string, value: unknown): Edit => (dir) => {
  fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true })
  fs.writeFileSync(path.join(dir, file), json(value))
}

const writeText = (file: string, text: string): Edit => (dir) => { fs.writeFileSync(path.join(dir, file), text) }

const moveLatest = (names: string[], version: string): Edit => () => { for (const name of names) registry.setDistTag(name, 'latest', version) }

/** pnpm-workspace.yaml with `packages/*`, other settings, the default catalog and named ones. */
function catalogYaml (entries: Record<string, string>, named: Record<string, Record<string, string>> = {}, settings = ''): string {
  const lines = (of: Record<string, string>, indent: string): string => Object.entries(of).map(([name, spec]) => `${indent}${name}: ${spec}\n`).join('')
  return `packages:\n  - packages/*\n${settings}` +
    (Object.keys(entries).length > 0 ? `catalog:\n${lines(entries, '  ')}` : '') +
    (Object.keys(named).length > 0 ? `catalogs:\n${Object.entries(named).map(([name, of]) => `  ${name}:\n${lines(of, '    ')}`).join('')}` : '')
}

const lockfileOnly = ['install', '--lockfile-only']
const SKIPPED = /Lockfile is up to date, resolution step is skipped/
const CYCLES = /cyclic workspace dependencies/

test('a recursive install as pnpm 11: a link: between projects, a frozen reinstall, a project deleted, a package the registry lacks fails it all', async () => {
  const project = workspace('', {
    p1: { dependencies: { 'dep-a': '1.0.0', p2: 'link:../p2' } },
    p2: { dependencies: { 'dep-b': '1.0.0' } },
    p3: { dependencies: { 'dep-c': '1.0.0' } },
  })
  await flow(project, [
    { args: ['install'], quiet: CYCLES },
    removeNodeModules,
    ['install', '--frozen-lockfile'],
    // Its importer and its packages leave the lockfile and node_modules.
    (dir) => { fs.rmSync(path.join(dir, 'packages', 'p3'), { recursive: true }) },
    ['install'],
    writeJson('packages/p4/package.json', { name: 'p4', version: '1.0.0', dependencies: { 'missing-pkg': '100.100.100' } }),
    { args: ['install'], fails: /ERR_LODE_NOT_FOUND.*missing-pkg/ },
  ], filesOf(['p1', 'p2']))
  // A cycle with ignoreWorkspaceCycles: installed, and nothing said of it.
  const cyclic = workspace('ignoreWorkspaceCycles: true\n', { p1: { dependencies: { p2: 'workspace:*' } }, p2: { devDependencies: { p1: 'workspace:*' } } })
  await flow(cyclic, [{ args: ['install'], quiet: CYCLES }], filesOf(['p1', 'p2']))
})

test('where the workspace is, as pnpm 11 finds it: through a symlinked path, a yaml of settings only, packages globs that exclude or reach ../', async () => {
  // Reached through a symlink (pnpm's stand-in for a Windows subst drive).
  const linked = workspace('', { p1: { dependencies: { dep: '1.0.0' } } })
  const linkedCopy = cloneProject(linked)
  for (const of of [linked, linkedCopy]) fs.symlinkSync(of.dir, `${of.dir}-link`)
  const [byPnpm, byLode] = await Promise.all([pnpm({ ...linked, dir: `${linked.dir}-link` }, ['install']), lode({ ...linkedCopy, dir: `${linkedCopy.dir}-link` }, ['install'])])
  assert.equal(byLode.code, 0, byLode.stderr)
  assert.equal(byPnpm.code, 0)
  assert.equal(projectFile(linkedCopy, 'pnpm-lock.yaml'), projectFile(linked, 'pnpm-lock.yaml'))
  assert.deepEqual(listing(linkedCopy.dir), listing(linked.dir))
  // sharedWorkspaceLockfile alone, with no packages: a project of its own.
  const settingsOnly = makeProject(registry, { name: 'app', version: '1.0.0', dependencies: { 'dep-a': '1.0.0' } }, { 'pnpm-workspace.yaml': 'sharedWorkspaceLockfile: true\n' })
  await flow(settingsOnly, [['install']], ['package.json', 'pnpm-lock.yaml'])
  // A project the globs exclude matches no filter: nothing installed, and a failure with --fail-if-no-match.
  const excluded = makeProject(registry, { name: 'root', version: '1.0.0', private: true }, {
    'pnpm-workspace.yaml': 'packages:\n  - "**"\n  - "!p1"\n',
    'p1/package.json': json({ name: 'p1', version: '1.0.0', dependencies: { 'dep-a': '1.0.0', p2: '1.0.0' } }),
    'p2/package.json': json({ name: 'p2', version: '1.0.0', dependencies: { 'dep-b': '1.0.0' } }),
  })
  await flow(excluded, [
    { args: ['install', '--filter', 'p1...'], warns: /No projects matched the filters in/ },
    { args: ['install', '--filter', 'p1...', '--fail-if-no-match'], fails: /ERR_LODE_FILTER_NO_MATCH/ },
  ], ['package.json', 'pnpm-lock.yaml'])
  // The root as the only project: --filter . adds to it.
  await flow(makeProject(registry, { name: 'root', version: '1.0.0' }, { 'pnpm-workspace.yaml': 'packages:\n  - "."\n' }), [['--filter', '.', 'add', 'dep-a']], ['package.json', 'pnpm-lock.yaml'])
  // pnpm-workspace.yaml in monorepo/workspace, its projects beside it (../**): importers ../package-1 and ../package-2.
  const outside = makeProject(registry, { name: 'outer', private: true }, {
    'monorepo/workspace/pnpm-workspace.yaml': 'packages:\n  - "../**"\nlinkWorkspacePackages: true\nsaveWorkspaceProtocol: false\n',
    'monorepo/workspace/package.json': json({ name: 'root-package', version: '1.0.0', dependencies: { 'package-1': '1.0.0', 'package-2': '1.0.0' } }),
    'monorepo/package-1/package.json': json({ name: 'package-1', version: '1.0.0', dependencies: { 'dep-a': '1.0.0', 'package-2': '1.0.0' } }),
    'monorepo/package-2/package.json': json({ name: 'package-2', version: '1.0.0', dependencies: { 'dep-b': '1.0.0' } }),
  })
  await flow(outside, [['--dir', 'monorepo/workspace', 'install']], ['monorepo/workspace/pnpm-lock.yaml'])
})

test('filtered installs as pnpm 11: from a lockfile resolution is skipped, a frozen install of one project keeps the others\' packages, the rest installed later', async () => {
  const project = workspace('', {
    p1: { dependencies: { dep: '1.0.0', 'dep-a': '1.0.0', p2: 'link:../p2' } },
    p2: { dependencies: { 'dep-b': '1.0.0' } },
    // A workspace: range.
    p3: { dependencies: { 'conv-with': '1.0.0', p2: 'workspace:1.0.0' } },
    p4: { dependencies: { 'dep-c': '1.0.0' } },
  })
  await flow(project, [
    lockfileOnly,
    { args: ['install', '--filter', 'p1'], warns: SKIPPED },
    { args: ['install'], warns: SKIPPED },
    removeNodeModules,
    ['install', '--filter', 'p1', '--frozen-lockfile'],
    ['install', '--frozen-lockfile'],
    // A new version locked for p1 alone: its frozen install replaces dep, the other projects' packages stay.
    writeJson('packages/p1/package.json', { name: 'p1', version: '1.0.0', dependencies: { dep: '2', 'dep-a': '1.0.0', p2: 'link:../p2' } }),
    lockfileOnly,
    ['install', '--filter', 'p1', '--frozen-lockfile'],
  ], filesOf(['p1', 'p2', 'p3', 'p4']))
  // Resolved for one project, installed for another.
  const two = workspace('', { p1: { dependencies: { 'dep-a': '1.0.0' } }, p2: { dependencies: { 'dep-b': '1.0.0' } } })
  await flow(two, [['install', '--filter', 'p1', '--lockfile-only'], ['install', '--filter', 'p2']], filesOf(['p1', 'p2']))
  // A workspace project's name also taken from the registry (linkWorkspacePackages is off), and workspace:*.
  const sameName = workspace('', { p1: { dependencies: { 'dep-b': 'workspace:*' } }, p2: { dependencies: { 'dep-b': '1.0.0' } }, 'dep-b': {} })
  await flow(sameName, [lockfileOnly, { args: ['install'], warns: SKIPPED }], filesOf(['p1', 'p2', 'dep-b']))
})

test('a filtered install records the other projects as empty importers in node_modules/.pnpm/lock.yaml, as pnpm 11', async () => {
  const two = { p1: { dependencies: { 'dep-a': '1.0.0' } }, p2: { dependencies: { 'dep-b': '1.0.0' } } }
  const current = filesOf(['p1', 'p2'], ['node_modules/.pnpm/lock.yaml'])
  await flow(workspace('lockfile: false\n', two), [['install', '--filter', 'p1']], current)
  await flow(workspace('', two), [['install', '--filter', 'p1', '--lockfile-only'], ['install', '--filter', 'p2']], current)
  await flow(workspace('', two), [['install'], removeNodeModules, ['install', '--filter', 'p1', '--frozen-lockfile']], current)
})

test('install --filter: every workspace project linked at the root under nodeLinker hoisted; a project named as a registry package not hoisted, as pnpm 11', async () => {
  const two = { p1: { dependencies: { 'dep-a': '1.0.0' } }, p2: { dependencies: { 'dep-b': '1.0.0' } } }
  await flow(workspace('nodeLinker: hoisted\n', two), [['install', '--filter', 'p1']], filesOf(['p1', 'p2']))
  const sameName = workspace('', {
    p1: { dependencies: { 'dep-a': '1.0.0' } },
    p3: { dependencies: { 'dep-c': 'workspace:*' } },
    p4: { dependencies: { 'dep-c': '1.0.0' } },
    'dep-c': {},
  })
  await flow(sameName, [lockfileOnly, ['install', '--filter', 'p1']], filesOf(['p1', 'p3', 'p4', 'dep-c']))
})

test('the lockfile\'s catalogs as pnpm 11: peers per importer, locked entries kept, filtered installs keep other projects\' entries, unused entries dropped', async () => {
  const project = workspace('', {
    p1: { dependencies: { bar: 'catalog:', plugin: 'catalog:', 'peer-host': '1.0.0', 'cw-with-dep': 'catalog:', other: '1.0.0' } },
    p2: { dependencies: { foo: 'catalog:', plugin: 'catalog:', 'peer-host': '1.1.0' } },
  }, {}, { 'pnpm-workspace.yaml': catalogYaml({ bar: '^1.0.0', foo: '^1.0.0', plugin: '^1.0.0', 'cw-with-dep': '^1.0.0' }) })
  const catalogUsers = (p1: Record<string, string>): Edit => writeJson('packages/p1/package.json', { name: 'p1', version: '1.0.0', dependencies: p1 })
  await flow(project, [
    // One catalog version of plugin, with each project's peer.
    lockfileOnly,
    // Newer versions of a catalog entry and of its dependency: removing another dependency moves neither.
    moveLatest(['cw-dep-of', 'cw-with-dep'], '1.1.0'),
    catalogUsers({ bar: 'catalog:', plugin: 'catalog:', 'peer-host': '1.0.0', 'cw-with-dep': 'catalog:' }),
    lockfileOnly,
    // p2's entry changes; installing p2 alone keeps p1's entries.
    writeText('pnpm-workspace.yaml', catalogYaml({ bar: '^1.0.0', foo: '=1.0.0', plugin: '^1.0.0', 'cw-with-dep': '^1.0.0' })),
    ['install', '--filter', 'p2', '--lockfile-only'],
    // An entry no project uses leaves the lockfile; pnpm-workspace.yaml keeps it.
    catalogUsers({ plugin: 'catalog:', 'peer-host': '1.0.0', 'cw-with-dep': 'catalog:' }),
    lockfileOnly,
  ], filesOf(['p1', 'p2']))
  // A registry package whose dependency says catalog: fails to resolve.
  await flow(makeProject(registry, { name: 'app', version: '1.0.0', dependencies: { 'bad-cat': '1.0.0' } }), [{ args: lockfileOnly, fails: /catalog:/ }], ['package.json', 'pnpm-lock.yaml'])
})

test('a catalog changed, then one project installed: its importer updated in the lockfile, the other\'s node_modules left until a full install, as pnpm 11', async () => {
  const projects = { p1: {}, p2: { dependencies: { dep: 'catalog:' } } }
  await flow(workspace('', projects, {}, { 'pnpm-workspace.yaml': catalogYaml({ dep: '=1.0.0' }) }), [
    ['install'],
    writeText('pnpm-workspace.yaml', catalogYaml({ dep: '=2.0.0' })),
    ['install', '--filter', 'p1'],
    ['install'],
  ], filesOf(['p1', 'p2']))
  // The same with dedupePeerDependents off: the catalogs section and p2's importer stay.
  const settings = 'dedupePeerDependents: false\n'
  await flow(workspace('', projects, {}, { 'pnpm-workspace.yaml': catalogYaml({ dep: '1.0.0' }, {}, settings) }), [
    lockfileOnly,
    writeText('pnpm-workspace.yaml', catalogYaml({ dep: '^1.0.0' }, {}, settings)),
    ['install', '--filter', 'p1', '--lockfile-only'],
  ], filesOf(['p1', 'p2']))
})

test('add and update --latest with catalogs write package.json, pnpm-workspace.yaml and the lockfile as pnpm 11', async () => {
  const project = workspace('', {
    p1: { dependencies: { 'conv-dep': 'catalog:', foo: 'catalog:', p2: 'workspace:*', 'peer-host': '^1.0.0' } },
    p2: { dependencies: { bar: 'catalog:', foo: 'catalog:' } },
    p3: {},
  }, {}, { 'pnpm-workspace.yaml': catalogYaml({ dep: '1.0.0', bar: '^1.1.0', foo: '1.0.0', 'conv-dep': '1.0.0' }) })
  await flow(project, [
    ['install'],
    // dep@catalog: saves catalog:; a name the catalog has, added bare, uses it and leaves the entry as it is.
    ['--filter', 'p3', 'add', 'dep@catalog:'],
    ['--filter', 'p3', 'add', 'bar'],
    // --save-catalog beside an entry of the catalog.
    ['--filter=p3', 'add', '--save-catalog', 'dep-a'],
    // Two projects on one entry: one move of the catalog, both keep catalog:.
    ['update', '-r', '--latest', 'foo'],
    // A catalog: and a plain range in a project with a workspace: dependency: the entry moves, the range moves.
    ['--filter', 'p1', 'update', '--latest', 'conv-dep', 'peer-host'],
  ], filesOf(['p1', 'p2', 'p3']))
  // catalogMode strict: re-adding a catalog: dependency keeps catalog: and a range in the catalog.
  const single = makeProject(registry, { name: 'app', version: '1.0.0', dependencies: { dep: 'catalog:named', foo: 'catalog:' } }, {
    'pnpm-workspace.yaml': 'catalogMode: strict\ncatalog:\n  foo: ^1.3.0\ncatalogs:\n  named:\n    dep: 1.0.0\n',
  })
  await flow(single, [
    ['install'],
    ['add', 'foo'],
    // catalogMode prefer: update --latest of a named catalog's dependency moves that catalog.
    (dir) => { fs.writeFileSync(path.join(dir, 'pnpm-workspace.yaml'), fs.readFileSync(path.join(dir, 'pnpm-workspace.yaml'), 'utf8').replace('catalogMode: strict', 'catalogMode: prefer')) },
    ['update', '--latest', 'dep'],
    // A dependency added by hand (*) stays as it is when --save-catalog adds another.
    writeJson('package.json', { name: 'app', version: '1.0.0', dependencies: { dep: 'catalog:named', foo: 'catalog:', bar: '*' } }),
    ['add', '--save-catalog', 'dep-b'],
  ], ['package.json', 'pnpm-workspace.yaml', 'pnpm-lock.yaml'])
})

test('versions across projects as pnpm 11: a workspace project for a registry package\'s dependency (deep, overrides), a version in use reused, a bump that converges', async () => {
  const deep = workspace('linkWorkspacePackages: deep\n', { sub: { version: '1.1.0' }, p: { dependencies: { parent: '1.0.0' } } })
  const { lodeProject, pnpmProject } = await flow(deep, [['install'], removeNodeModules, ['install', '--frozen-lockfile']], filesOf(['p']))
  // An override to workspace:* links it too.
  await flow(pnpmProject, [
    writeText('pnpm-workspace.yaml', 'packages:\n  - packages/*\noverrides:\n  sub: workspace:*\n'),
    ['install'],
    removeNodeModules,
    ['install', '--frozen-lockfile'],
  ], filesOf(['p']), lodeProject)
  const project = workspace('', {
    p1: { dependencies: { wd: '^1.0.0', wd2: '^1.0.0' } },
    p2: {},
    // A project named as a registry package (linkWorkspacePackages is off).
    wd2: { version: '1.1.0' },
    p3: { dependencies: { 'conv-with': '1.0.0' } },
    p4: { dependencies: { 'conv-dep': '1.0.0' } },
  })
  await flow(project, [
    ['install'],
    moveLatest(['wd', 'wd2'], '1.1.0'),
    // The version p1 has locked, not the new latest.
    ['--filter', 'p2', 'add', 'wd'],
    // Adding something else moves neither.
    ['--filter', 'p1', 'add', 'other'],
    moveLatest(['wd', 'wd2'], '1.0.0'),
    // p4 bumps what p3 has transitively: p3's edge follows, the old version leaves.
    writeJson('packages/p4/package.json', { name: 'p4', version: '1.0.0', dependencies: { 'conv-dep': '1.1.0' } }),
    ['install'],
  ], filesOf(['p1', 'p2', 'wd2', 'p3', 'p4']))
})

test('update rolls workspace: ranges with saveWorkspaceProtocol: rolling as pnpm 11, to the projects\' new version', async () => {
  const specs = ['workspace:1.0.0', 'workspace:~1.0.0', 'workspace:^1.0.0', 'workspace:1', 'workspace:1.0', 'workspace:*', 'workspace:^', 'workspace:~']
  const dependencies = Object.fromEntries(specs.map((spec, i) => [`dep${i + 1}`, spec]))
  const projects = Object.fromEntries(specs.map((_, i) => [`dep${i + 1}`, {}]))
  const bump: Edit = (dir) => { specs.forEach((_, i) => { writeJson(`packages/dep${i + 1}/package.json`, { name: `dep${i + 1}`, version: '2.0.0' })(dir) }) }
  await flow(workspace('saveWorkspaceProtocol: rolling\n', { p1: { dependencies }, p2: { dependencies }, ...projects }), [
    ['install'],
    bump,
    ['--filter', 'p1', 'update', 'dep1', 'dep2', 'dep3', 'dep4', 'dep5', 'dep6'],
    ['--filter', 'p2', 'update'],
  ], filesOf(['p1', 'p2']))
})

test('peers across workspace projects as pnpm 11: deduplicated when a project adds one, taken from the root, from a workspace project, dropped with the peer', async () => {
  const project = workspace('dedupePeerDependents: true\nautoInstallPeers: false\n', {
    p1: { dependencies: { 'pabc-grand': '1.0.0' } },
    p2: {},
    // A registry package whose peer is a workspace project.
    p3: { dependencies: { abc: '1.0.0', 'peer-a': 'workspace:*' } },
    'peer-a': {},
  })
  await flow(project, [['install'], ['--filter', 'p2', 'add', 'pabc@1.0.0'], ['--filter', 'p3', 'add', 'other@1.0.0']], filesOf(['p1', 'p2', 'p3', 'peer-a']))
  // The root's auto-installed peers stay when another project adds a dependency.
  const rootPeers = makeProject(registry, { name: 'p1', version: '1.0.0', dependencies: { 'pabc-missing': '1.0.0' } }, {
    'pnpm-workspace.yaml': 'packages:\n  - "**"\ndedupePeerDependents: true\nautoInstallPeers: true\n',
    'p2/package.json': json({ name: 'p2', version: '1.0.0' }),
  })
  await flow(rootPeers, [['install'], ['--filter', 'p2', 'add', 'other@1.0.0']], ['package.json', 'p2/package.json', 'pnpm-lock.yaml'])
  // Added inside a project, the peer resolved from the root's dependencies.
  await flow(workspace('', { p2: {} }, { dependencies: { host: '4.10.4' } }), [['install'], ['--dir', 'packages/p2', 'add', 'host-kw@1.5.0']], filesOf(['p2']))
  // Added beside its peer inside a project, then the peer removed: the suffix goes.
  const grouped = workspace('linkWorkspacePackages: true\nautoInstallPeers: false\n', { foo: { dependencies: { bar: 'workspace:1.0.0' } }, bar: {} })
  await flow(grouped, [['--dir', 'packages/foo', 'add', 'host@4.10.4', 'host-kw@1.5.0'], ['--dir', 'packages/foo', 'remove', 'host']], filesOf(['foo', 'bar']))
})

test('injected workspace projects as pnpm 11: remove inside a project keeps link: and file:(peers) forms; a prepare script and a bin-having dependency', async () => {
  const project = workspace('injectWorkspacePackages: true\n', {
    a: { dependencies: { b: 'workspace:*', dep: '1.0.0' } },
    b: {},
    c: { dependencies: { d: 'workspace:*', dep: '1.0.0' } },
    d: { dependencies: { other: '1.0.0' } },
  })
  await flow(project, [['install'], ['--dir', 'packages/a', 'remove', 'dep'], ['--dir', 'packages/c', 'remove', 'dep']], filesOf(['a', 'b', 'c', 'd']))
  const peers = workspace('injectWorkspacePackages: true\nautoInstallPeers: false\n', {
    a: { dependencies: { b: 'workspace:*', dep: '1.0.0', other: '1.0.0' } },
    b: { peerDependencies: { dep: '>=1.0.0' } },
  })
  await flow(peers, [['install'], ['--dir', 'packages/a', 'remove', 'other']], filesOf(['a', 'b']))
  const built = workspace('', {
    p1: { dependencies: { 'bin-dep': '1.0.0' }, scripts: { prepare: writeFile('built.txt') } },
    p2: { dependencies: { p1: 'workspace:1.0.0' }, dependenciesMeta: { p1: { injected: true } } },
  })
  await flow(built, [['install']], filesOf(['p1', 'p2']))
})

test('scripts and layout in a workspace as pnpm 11: a bin its project\'s prepare creates, a virtual store elsewhere, rebuild in a deployed directory', async () => {
  const bin = workspace('', {
    p1: { scripts: { prepare: 'bin' }, dependencies: { p2: 'link:../p2' } },
    p2: { bin: { bin: 'bin.js' }, scripts: { prepare: 'node -e "require(\'fs\').renameSync(\'__bin.js\', \'bin.js\')"' } },
  }, {}, { 'packages/p2/__bin.js': '#!/usr/bin/env node\nrequire("fs").writeFileSync("created-by-prepare", "", "utf8")\n' })
  await flow(bin, [
    ['install'],
    removeNodeModules,
    (dir) => {
      fs.renameSync(path.join(dir, 'packages/p2/bin.js'), path.join(dir, 'packages/p2/__bin.js'))
      fs.rmSync(path.join(dir, 'packages/p1/created-by-prepare'))
    },
    ['install', '--frozen-lockfile'],
  ], filesOf(['p1', 'p2'], ['packages/p1/created-by-prepare']))
  const store = workspace('virtualStoreDir: virtual-store\n', { p1: { dependencies: { dep: '1.0.0' } } })
  await flow(store, [
    ['install'],
    (dir) => { removeNodeModules(dir); fs.rmSync(path.join(dir, 'virtual-store'), { recursive: true }) },
    ['install', '--frozen-lockfile'],
  ], filesOf(['p1']))
  const deployed = workspace('injectWorkspacePackages: true\nallowBuilds:\n  builds: true\n', { app: { dependencies: { builds: '1.0.0' } } })
  await flow(deployed, [
    ['install'],
    ['--filter', 'app', 'deploy', 'out'],
    (dir) => { fs.rmSync(path.join(dir, 'out/node_modules/builds/built.txt')) },
    ['--dir', 'out', 'rebuild'],
  ], filesOf(['app'], ['out/package.json', 'out/node_modules/builds/built.txt']))
})

/** Catalog `foo: 1.0.0` installed, then widened to ^1.0.0 and installed again (1.0.0 stays locked), then `steps`. */
async function widened (projects: Record<string, Record<string, unknown>>, steps: ReadonlyArray<Check | string[] | Edit>, named = false, settings = ''): Promise<void> {
  const yaml = (spec: string): string =>
    named ? catalogYaml({}, { foo: { foo: spec } }, settings) : catalogYaml({ foo: spec }, {}, settings)
  const project = workspace('', projects, {}, { 'pnpm-workspace.yaml': yaml('1.0.0') })
  await flow(project, [['install'], writeText('pnpm-workspace.yaml', yaml('^1.0.0')), ['install'], ...steps], filesOf(Object.keys(projects)))
}

test('update without --latest moves a catalog entry to the version it installs, as pnpm 11: default and named catalogs, -r, overrides, a project left behind', async () => {
  await widened({ p1: { dependencies: { foo: 'catalog:' } } }, [['--filter', 'p1', 'update', 'foo']])
  await widened({ p1: { dependencies: { foo: 'catalog:foo' } } }, [['--filter', 'p1', 'update', 'foo']], true)
  await widened({ p1: { dependencies: { bar: '^1.0.0', foo: 'catalog:' } } }, [['update', '-r']])
  await widened({ p1: { dependencies: { foo: 'catalog:', p2: 'workspace:*' } }, p2: {} }, [['update', '-r']])
  await widened({ p1: { dependencies: { foo: 'catalog:' } }, p2: { dependencies: { foo: 'catalog:' } } }, [['update', '-r']])
  await widened({ p1: { dependencies: { foo: 'catalog:' } }, p2: { dependencies: { foo: 'catalog:' } } }, [['--filter', 'p1', 'update', 'foo'], ['install']])
  await widened({ p1: { dependencies: { foo: 'catalog:', foobar: '1.0.0' } } }, [['--filter', 'p1', 'update', 'foo'], ['install', '--frozen-lockfile']], false, 'overrides:\n  foobar>foo: "catalog:"\n')
  const tilde = workspace('', { p1: { dependencies: { foo: 'catalog:foo1-0' } } }, {}, { 'pnpm-workspace.yaml': catalogYaml({}, { 'foo1-0': { foo: '~1.0.0' } }) })
  await flow(tilde, [['install'], ['update', '-r']], filesOf(['p1']))
})
test('catalogMode strict: add or update of a version the range covers rewrites the entry, as pnpm 11', async () => {
  const two = { p1: { dependencies: { foo: 'catalog:' } }, p2: { dependencies: { foo: 'catalog:' } } }
  await widened(two, [['--filter', 'p1', 'add', 'foo@1.3.0'], ['install']], false, 'catalogMode: strict\n')
  await widened(two, [['--filter', 'p1', 'add', 'foo@1.1.0'], ['install']], false, 'catalogMode: strict\n')
  await widened(two, [['update', '-r', 'foo@1.1.0']], false, 'catalogMode: strict\n')
  const readd = workspace('', { p1: { dependencies: { foo: 'catalog:' } } }, {}, { 'pnpm-workspace.yaml': catalogYaml({ foo: '^1.0.0' }, {}, 'catalogMode: strict\n') })
  await flow(readd, [['install'], ['--filter', 'p1', 'add', 'foo']], filesOf(['p1']))
})
test('a workspace cycle: install warns of it, as pnpm 11', async () => {
  const cyclic = workspace('', { p1: { dependencies: { p2: 'workspace:*' } }, p2: { devDependencies: { p1: 'workspace:*' } } })
  await flow(cyclic, [{ args: ['install'], warns: /There are cyclic workspace dependencies: / }], filesOf(['p1', 'p2']))
})
test('update keeps the order of package.json\'s dependencies and moves only the named catalog entry, as pnpm 11', async () => {
  const yaml = (spec: string): string => catalogYaml({ foo: spec, bar: spec })
  const project = workspace('', { p1: { dependencies: { foo: 'catalog:', bar: 'catalog:' } } }, {}, { 'pnpm-workspace.yaml': yaml('1.0.0') })
  await flow(project, [['install'], writeText('pnpm-workspace.yaml', yaml('^1.0.0')), ['install'], ['--filter', 'p1', 'update', 'bar']], filesOf(['p1']))
  const withLink = workspace('', { p1: { dependencies: { p2: 'workspace:*', foo: 'catalog:' } }, p2: {} }, {}, { 'pnpm-workspace.yaml': catalogYaml({ foo: '1.0.0' }) })
  await flow(withLink, [['install'], ['--filter', 'p1', 'update', '--latest', 'foo']], filesOf(['p1', 'p2']))
})

test('a catalog entry widened keeps its locked version for old and new users, as pnpm 11', async () => {
  for (const first of ['=1.0.0', '1.0.0']) {
    const project = workspace('', { p1: { dependencies: { bar: 'catalog:' } }, p2: {}, p3: {} }, {}, { 'pnpm-workspace.yaml': catalogYaml({ bar: first }) })
    await flow(project, [lockfileOnly, writeText('pnpm-workspace.yaml', catalogYaml({ bar: '^1.0.0' })), lockfileOnly,
      writeJson('packages/p2/package.json', { name: 'p2', version: '1.0.0', dependencies: { bar: '1.1.0' } }), lockfileOnly,
      writeJson('packages/p3/package.json', { name: 'p3', version: '1.0.0', dependencies: { bar: 'catalog:' } }), lockfileOnly], filesOf(['p1', 'p2', 'p3']))
  }
})

test('a catalog entry put back after update --latest is installed again, as pnpm 11', async () => {
  const yaml = 'packages:\n  - .\ncatalog:\n  bar: 1.0.0\n'
  const project = makeProject(registry, { name: 'app', version: '1.0.0', dependencies: { bar: 'catalog:' } }, { 'pnpm-workspace.yaml': yaml })
  await flow(project, [['install'], ['update', 'bar', '--latest'], writeText('pnpm-workspace.yaml', yaml), { args: ['install'], quiet: /Already up to date/ }],
    ['package.json', 'pnpm-workspace.yaml', 'pnpm-lock.yaml', 'node_modules/.pnpm/lock.yaml'])
})

test('add of the exact version a catalog has saves catalog: (and keeps a named catalog), as pnpm 11', async () => {
  await flow(workspace('', { p1: {} }, {}, { 'pnpm-workspace.yaml': catalogYaml({ dep: '1.0.0' }) }), [['--filter', 'p1', 'add', 'dep@1.0.0']], filesOf(['p1']))
  const named = workspace('', { p1: { dependencies: { foo: 'catalog:foo' } } }, {}, { 'pnpm-workspace.yaml': catalogYaml({}, { foo: { foo: '1.0.0' } }, 'catalogMode: strict\n') })
  await flow(named, [['install'], ['--filter', 'p1', 'add', 'foo@1.0.0']], filesOf(['p1']))
})

test('linkWorkspacePackages: a registry dependency becomes a link once a workspace project matches it, an npm: alias too, as pnpm 11', async () => {
  const project = workspace('linkWorkspacePackages: true\n', {
    app: { dependencies: { 'peer-host': '1.0.0', neg: 'npm:dep-a@1.0.0' } },
    'peer-host': { version: '3.0.0' },
    'dep-a': { version: '3.0.0' },
  })
  await flow(project, [
    ['install'],
    writeJson('packages/peer-host/package.json', { name: 'peer-host', version: '1.0.0' }),
    writeJson('packages/dep-a/package.json', { name: 'dep-a', version: '1.0.0' }),
    ['install'],
  ], filesOf(['app', 'peer-host', 'dep-a']))
})

test('an injected project\'s copies get what its own scripts build, as pnpm 11', async () => {
  const injected = { injected: true }
  for (const [script, p2] of [['prepublishOnly', { p1: 'workspace:1.0.0' }], ['prepare', { p1: 'file:../p1' }]] as const) {
    const p1 = { dependencies: { 'dep-a': '1.0.0' }, peerDependencies: { other: '1.0.0' }, scripts: { [script]: writeFile('main.js') } }
    const meta = script === 'prepublishOnly' ? { dependenciesMeta: { p1: injected } } : {}
    await flow(workspace('autoInstallPeers: false\n', { p1, p2: { dependencies: { other: '1.0.0', ...p2 }, ...meta } }),
      [['install'], (dir) => { removeNodeModules(dir); fs.rmSync(path.join(dir, 'packages/p1/main.js'), { force: true }) }, ['install', '--frozen-lockfile']], filesOf(['p1', 'p2']))
  }
  await flow(workspace('nodeLinker: hoisted\ndedupeInjectedDeps: false\n', {
    'peer-host': { scripts: { prepare: writeFile('prepare.txt') } },
    p1: { dependencies: { 'peer-host': 'workspace:1.0.0' }, dependenciesMeta: { 'peer-host': injected } },
    p2: { dependencies: { 'peer-host': 'workspace:1.0.0' }, dependenciesMeta: { 'peer-host': injected } },
  }, { dependencies: { 'peer-host': '1.1.0' } }), [['install']], filesOf(['peer-host', 'p1', 'p2']))
})

test('an injected copy edited by hand is restored by the next install, as pnpm 11', async () => {
  await flow(workspace('dedupeInjectedDeps: false\n', { dep9: {}, main: { dependencies: { dep9: 'workspace:1.0.0' }, dependenciesMeta: { dep9: { injected: true } } } }, {}, { 'packages/dep9/index.js': 'console.log("dep")' }), [
    ['install'],
    (dir) => { const file = path.join(dir, 'packages/main/node_modules/dep9/index.js'); fs.unlinkSync(file); fs.writeFileSync(file, 'console.log("dep updated")') },
    ['install'],
  ], filesOf(['dep9', 'main'], ['packages/main/node_modules/dep9/index.js']))
})

test('catalog: inside an injected project, by dependenciesMeta and by injectWorkspacePackages, as pnpm 11', async () => {
  for (const [settings, meta] of [['dedupeInjectedDeps: false\n', { dependenciesMeta: { p2: { injected: true } } }], ['dedupeInjectedDeps: false\ninjectWorkspacePackages: true\n', {}]] as const) {
    const project = workspace('', { p1: { dependencies: { p2: 'workspace:*' }, ...meta }, p2: { dependencies: { dep: 'catalog:' } } }, {}, { 'pnpm-workspace.yaml': catalogYaml({ dep: '1.0.0' }, {}, settings) })
    await flow(project, [lockfileOnly, ['install']], filesOf(['p1', 'p2']))
  }
})

test('an npm: alias in a catalog: the lockfile\'s catalogs, a second user, update --latest, as pnpm 11', async () => {
  const project = workspace('', { p1: { dependencies: { 'dep-alias': 'catalog:' } }, p2: {} }, {}, { 'pnpm-workspace.yaml': catalogYaml({ 'dep-alias': 'npm:dep@1.0.0' }) })
  await flow(project, [lockfileOnly, writeJson('packages/p2/package.json', { name: 'p2', version: '1.0.0', dependencies: { 'dep-alias': 'catalog:' } }), lockfileOnly], filesOf(['p1', 'p2']))
  const latest = workspace('', { p1: { dependencies: { 'foo-alias': 'catalog:' } } }, {}, { 'pnpm-workspace.yaml': catalogYaml({ 'foo-alias': 'npm:foo@~1.0.0' }) })
  await flow(latest, [['install'], ['--filter', 'p1', 'update', '--latest', 'foo-alias']], filesOf(['p1']))
})

test('dedupe keeps a catalog entry on its locked version, as pnpm 11', async () => {
  const project = workspace('', { p1: { dependencies: { bar: 'catalog:' } }, p2: {} }, {}, { 'pnpm-workspace.yaml': catalogYaml({ bar: '1.0.0' }) })
  await flow(project, [lockfileOnly, writeText('pnpm-workspace.yaml', catalogYaml({ bar: '^1.0.0' })), lockfileOnly,
    writeJson('packages/p2/package.json', { name: 'p2', version: '1.0.0', dependencies: { bar: '1.1.0' } }), lockfileOnly, ['dedupe']], filesOf(['p1', 'p2']))
})

test('run -r with an empty pnpm-workspace.yaml runs the root; --workspace-root adds the root to a filter, as pnpm 11', async () => {
  const empty = makeProject(registry, { name: 'project', version: '1.0.0', scripts: { test: 'echo Passed' } }, { 'pnpm-workspace.yaml': '' })
  await flow(empty, [{ args: ['run', '-r', 'test'], warns: /Passed/ }], ['package.json'])
  const write = `${writeFile('ran')} --`
  const project = workspace('', { project: { scripts: { test: write } }, other: { scripts: { test: write } } }, { scripts: { test: write } })
  await flow(project, [['--filter=project', '--workspace-root', 'test']], ['ran', 'packages/project/ran', 'packages/other/ran'])
})

test('list with a filter that matches nothing, and list -r without projects, say so as pnpm 11', async () => {
  const project = workspace('', { project: {} })
  for (const [args, code] of [[['list', '--filter=not-exists'], 0], [['list', '--filter=not-exists', '--fail-if-no-match'], 1]] as const) {
    const byLode = await lode(project, [...args])
    assert.equal(byLode.code, code)
    assert.match(byLode.stdout, /^No projects matched the filters in "/)
  }
  const empty = makeProject(registry, {})
  fs.rmSync(path.join(empty.dir, 'package.json'))
  assert.match((await pnpm(empty, ['list', '-r'])).stdout, /^No projects found in "/)
  assert.match((await lode(empty, ['list', '-r'])).stdout, /^No projects found in "/)
})

test('projects that depend on themselves: the lockfile, and install and test scripts in topological order, as pnpm 11', async () => {
  const log = (name: string, file: string): string => `node -e "require('fs').appendFileSync('../../${file}', '${name} ')"`
  const scripts = (name: string): Record<string, string> => ({ install: log(name, 'install.log'), test: `${log(name, 'test.log')} --` })
  await flow(workspace('linkWorkspacePackages: true\n', {
    'project-1': { dependencies: { 'project-2': '1.0.0', 'project-3': '1.0.0' }, scripts: scripts('project-1') },
    'project-2': { dependencies: { 'project-2': '1.0.0' }, scripts: scripts('project-2') },
    'project-3': { dependencies: { 'project-2': '1.0.0', 'project-3': '1.0.0' }, scripts: scripts('project-3') },
  }), [['--dir', 'packages/project-1', 'install'], ['-r', 'test']], filesOf(['project-1', 'project-2', 'project-3'], ['install.log', 'test.log']))
})

test('a bin of the workspace root runs as a command inside a project that lacks it, the project\'s own where it has one, as pnpm 11', async () => {
  const project = workspace('', { 'project-1': {}, 'project-2': { dependencies: { 'print-version': '1' } } }, { dependencies: { 'print-version': '2' } })
  const { lodeProject, pnpmProject } = await flow(project, [['install']], filesOf(['project-1', 'project-2']))
  for (const [sub, version] of [['project-1', '2.0.0'], ['project-2', '1.0.0']] as const) {
    assert.match((await pnpm({ ...pnpmProject, dir: path.join(pnpmProject.dir, 'packages', sub) }, ['print-version'])).stdout, new RegExp(version))
    const byLode = await lode({ ...lodeProject, dir: path.join(lodeProject.dir, 'packages', sub) }, ['print-version'])
    assert.equal(byLode.code, 0, byLode.stderr)
    assert.match(byLode.stdout, new RegExp(version))
    // `exec` finds it the same way.
    const exec = await lode({ ...lodeProject, dir: path.join(lodeProject.dir, 'packages', sub) }, ['exec', 'print-version'])
    assert.match(exec.stdout, new RegExp(version))
  }
})

test('a project symlinked in from another workspace: linked, no importer, and links that resolve from its real place, as pnpm 11', async () => {
  const twoWorkspaces = makeProject(registry, { name: 'outer', private: true }, {
    'workspace-1/package.json': json({ name: 'ws1', private: true }),
    'workspace-1/pnpm-workspace.yaml': 'packages:\n  - "**"\nlinkWorkspacePackages: true\n',
    'workspace-1/package-1/package.json': json({ name: 'package-1', version: '1.0.0', dependencies: { 'dep-a': '1.0.0', 'package-2': 'workspace:*' } }),
    'workspace-2/pnpm-workspace.yaml': 'packages:\n  - "**"\n',
    'workspace-2/package-2/package.json': json({ name: 'package-2', version: '1.0.0', dependencies: { 'dep-b': '1.0.0' } }),
  })
  const { lodeProject } = await flow(twoWorkspaces, [
    (dir) => { fs.symlinkSync('../workspace-2/package-2', path.join(dir, 'workspace-1/package-2')) },
    ['--dir', 'workspace-1', 'install'],
  ], ['workspace-1/pnpm-lock.yaml', 'workspace-2/pnpm-lock.yaml'])
  const required: unknown = createRequire(path.join(lodeProject.dir, 'workspace-2/package-2/package.json'))('dep-b')
  assert.deepEqual(required, { name: 'dep-b', version: '1.0.0' })
})

test('add of a local directory with --save-catalog links it and writes no catalog, as pnpm 11', async () => {
  // Inside the project, so that lode's copy has it too (pnpm's test adds ../local-dep).
  const project = makeProject(registry, { name: 'main' }, { 'libs/local-dep/package.json': json({ name: 'local-dep', version: '0.1.2-local' }) })
  await flow(project, [['add', './libs/local-dep', '--save-catalog']], ['package.json', 'pnpm-workspace.yaml', 'pnpm-lock.yaml'])
})

test('a catalog entry with peers widened keeps its locked version for old and new users, as pnpm 11', async () => {
  const peers = { 'cat-peer-a': '1.0.0', 'cat-peer-b': '1.0.0' }
  const project = workspace('', { p1: { dependencies: { abc2: 'catalog:', ...peers } }, p2: {}, p3: {} }, {}, { 'pnpm-workspace.yaml': catalogYaml({ abc2: '1.0.0' }) })
  await flow(project, [lockfileOnly, writeText('pnpm-workspace.yaml', catalogYaml({ abc2: '"*"' })), lockfileOnly,
    writeJson('packages/p2/package.json', { name: 'p2', version: '1.0.0', dependencies: { abc2: '2.0.0', ...peers } }), lockfileOnly,
    writeJson('packages/p3/package.json', { name: 'p3', version: '1.0.0', dependencies: { abc2: 'catalog:', 'cat-peer-a': '1.0.1', 'cat-peer-b': '1.0.0' } }), lockfileOnly],
  filesOf(['p1', 'p2', 'p3']))
})

test('linkWorkspacePackages deep: a workspace project as a peer below a registry package, optional peers where they are provided, as pnpm 11', async () => {
  const peer = workspace('linkWorkspacePackages: deep\nautoInstallPeers: false\ndedupePeerDependents: false\n', {
    'peer-a': { version: '1.0.1' },
    p: { dependencies: { 'pabc-gc': '1.0.0', 'pabc-ab': '1.0.0' } },
  })
  await flow(peer, [['install']], filesOf(['peer-a', 'p']))
})

test('injected workspace projects with deep linking: a hoisted peer a workspace project provides is linked into the project, and kept through update, as pnpm 11', async () => {
  const settings = 'injectWorkspacePackages: true\nlinkWorkspacePackages: deep\npreferWorkspacePackages: true\n'
  await flow(workspace(settings, {
    a: {},
    b: { dependencies: { 'dep-b': '^1.0.0', c: 'workspace:^' }, peerDependencies: { foo: '^1' }, peerDependenciesMeta: { foo: { optional: true } } },
    c: { peerDependencies: { a: '>=1.0.0' }, dependencies: { 'dep-c': '^1.0.0' } },
    d: { peerDependencies: { a: '*', b: '^1' }, dependencies: { 'dep-c': '^1.0.0' } },
    consumer: { dependencies: { d: 'workspace:*', a: 'workspace:*' } },
  }, { devDependencies: { foo: '1.0.0' } }), [['install'], ['update', 'foo@1.3.0', '-r']], filesOf(['a', 'b', 'c', 'd', 'consumer']))
})

test('a project\'s own auto-installed peer, locked, moves when another project depends on a newer version in its range, as pnpm 11', async () => {
  await flow(workspace('', {
    q: { peerDependencies: { bar: '*' } },
    consumer: {},
  }, { dependencies: { bar: '1.0.0' } }), [
    ['install'],
    writeJson('packages/consumer/package.json', { name: 'consumer', version: '1.0.0', dependencies: { bar: '1.1.0' } }),
    ['install'],
  ], filesOf(['q', 'consumer']))
  // Added by a command, the new range counts from the next install on (pnpm reads the projects' specs before the edit).
  await flow(workspace('', { q: { peerDependencies: { bar: '*' } }, consumer: {} }, { dependencies: { bar: '1.0.0' } }), [
    ['install'],
    ['--filter', 'consumer', 'add', 'bar@1.1.0'],
    ['install'],
  ], filesOf(['q', 'consumer']))
})

test('injected workspace projects with deep linking: a consumer change makes a peer diverge, as pnpm 11', async () => {
  const settings = 'injectWorkspacePackages: true\nlinkWorkspacePackages: deep\npreferWorkspacePackages: true\n'
  await flow(workspace(settings, {
    q: { peerDependencies: { bar: '*' } },
    n: { dependencies: { q: 'workspace:^' } },
    consumer: { dependencies: { n: 'workspace:*' } },
  }, { dependencies: { bar: '1.0.0' } }), [
    ['install'],
    writeJson('packages/consumer/package.json', { name: 'consumer', version: '1.0.0', dependencies: { n: 'workspace:*', bar: '1.1.0' } }),
    ['install'],
  ], filesOf(['q', 'n', 'consumer']))
})

test('update inside one project with dedupePeerDependents: its tree moves, the other project\'s stays locked, as pnpm 11', async () => {
  const project = workspace('dedupePeerDependents: true\nautoInstallPeers: false\n', { p1: { dependencies: { 'pabc-grand': '^1.0.0' } }, p2: { dependencies: { 'pabc-grand': '^1.0.0' } } })
  // pnpm would read pabc-parent's `latest` from the metadata it cached at the install (see pnpm-11-differences.md): both read the registry.
  const forgetMetadata: Edit = (dir) => { fs.rmSync(path.join(dir, '..', 'home', '.cache'), { recursive: true, force: true }) }
  await flow(project, [
    ['install'],
    moveLatest(['pabc-parent', 'pabc-grand'], '1.0.1'),
    forgetMetadata,
    ['--dir', 'packages/p2', 'update'],
    moveLatest(['pabc-parent', 'pabc-grand'], '1.0.0'),
  ], filesOf(['p1', 'p2']))
})

test('nodeLinker hoisted: injected projects resolve their peers where they are used, as pnpm 11', async () => {
  const injected = { injected: true }
  await flow(workspace('nodeLinker: hoisted\nautoInstallPeers: false\n', {
    p1: { dependencies: { 'dep-a': '1.0.0' }, peerDependencies: { 'peer-host': '>=1' } },
    p2: { dependencies: { p1: 'workspace:1.0.0' }, devDependencies: { 'peer-host': '1.0.0' }, dependenciesMeta: { p1: injected } },
    p3: { dependencies: { p2: 'workspace:1.0.0' }, devDependencies: { 'peer-host': '1.1.0' }, dependenciesMeta: { p2: injected } },
  }), [['install']], filesOf(['p1', 'p2', 'p3']))
  await flow(workspace('nodeLinker: hoisted\nautoInstallPeers: false\n', {
    p1: {},
    p2: { devDependencies: { p1: 'workspace:1.0.0' }, peerDependencies: { p1: 'workspace:^1.0.0' } },
    p3: { dependencies: { p1: 'workspace:1.0.0', p2: 'workspace:1.0.0' }, dependenciesMeta: { p2: injected } },
  }), [['install']], filesOf(['p1', 'p2', 'p3']))
})

test('an optional peer found below a project provides it there over the workspace root\'s auto-installed one, as pnpm 11', async () => {
  // The root gets pv@1.1.0 for pv-root-user (the version its graph has); in project p, pv-user takes
  // the pv@1.0.0 that pv-holder brings (lode took the root's before).
  await flow(workspace('', { p: { dependencies: { 'pv-holder': '1.0.0', 'pv-user': '1.0.0' } } }, { dependencies: { 'pv-root-user': '1.0.0', 'pv-root-dep': '1.0.0' } }), [
    ['install'],
  ], filesOf(['p']))
})
