import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { after, before, test } from 'node:test'

import { TestRegistry } from '@lode/__utils__.test-fixtures'
import type { PackageSpec } from '@lode/__utils__.test-fixtures'

import { cloneProject, listing, lode, makeProject, pnpm, readLockfileText, snapshot } from './helpers.js'
import type { Project } from './helpers.js'

// Version conflicts at several depths, bins (nested ones too), a peer, an optional dependency for
// another platform, a scoped package and a build.
const PACKAGES: PackageSpec[] = [
  { name: 'leaf', version: '1.0.0', files: { 'index.js': 'module.exports = "leaf@1.0.0"' } },
  { name: 'leaf', version: '2.0.0', files: { 'index.js': 'module.exports = "leaf@2.0.0"' } },
  { name: 'uses-leaf1', version: '1.0.0', dependencies: { leaf: '^1.0.0' }, files: { 'index.js': 'module.exports = "uses-leaf1:" + require("leaf")' } },
  { name: 'uses-leaf2', version: '1.0.0', dependencies: { leaf: '^2.0.0' }, files: { 'index.js': 'module.exports = "uses-leaf2:" + require("leaf")' } },
  { name: 'deep', version: '1.0.0', dependencies: { 'uses-leaf1': '1.0.0', 'uses-leaf2': '1.0.0' }, files: { 'index.js': 'module.exports = "deep:" + require("uses-leaf1") + "," + require("uses-leaf2")' } },
  { name: '@sc/pkg', version: '1.0.0', dependencies: { leaf: '2.0.0' }, files: { 'index.js': 'module.exports = "@sc/pkg:" + require("leaf")' } },
  { name: 'tool', version: '1.0.0', bin: { tool: 'cli.js' }, dependencies: { leaf: '^1.0.0' }, files: { 'cli.js': '#!/usr/bin/env node\nconsole.log("tool 1 with " + require("leaf"))\n' } },
  { name: 'tool', version: '2.0.0', bin: { tool: 'cli.js', tool2: 'cli.js' }, files: { 'cli.js': '#!/usr/bin/env node\nconsole.log("tool 2")\n' } },
  { name: 'uses-tool1', version: '1.0.0', dependencies: { tool: '1.0.0' } },
  { name: 'host', version: '1.0.0' },
  { name: 'host', version: '2.0.0' },
  { name: 'plugin', version: '1.0.0', manifest: { peerDependencies: { host: '*' } }, files: { 'index.js': 'module.exports = "plugin+host@" + require("host/package.json").version' } },
  { name: 'has-plugin', version: '1.0.0', dependencies: { plugin: '1.0.0', host: '1.0.0' }, files: { 'index.js': 'module.exports = "has-plugin:" + require("plugin")' } },
  { name: 'win-only', version: '1.0.0', manifest: { os: ['win32'] } },
  { name: 'has-opt', version: '1.0.0', manifest: { optionalDependencies: { 'win-only': '1.0.0' } } },
  { name: 'builder', version: '1.0.0', scripts: { postinstall: 'node -e "require(\'fs\').writeFileSync(\'built.txt\', \'built\')"' } },
  { name: 'a-package-whose-name-is-long-enough-to-be-cut-in-the-virtual-store', version: '1.0.0', dependencies: { leaf: '1.0.0' } },
  { name: 'broken', version: '1.0.0' },
  { name: 'nest-host', version: '1.0.0', dependencies: { leaf: '2.0.0' }, files: { 'index.js': 'module.exports = "nest-host@1 with " + require("leaf")' } },
  { name: 'nest-host', version: '2.0.0', dependencies: { leaf: '2.0.0' }, files: { 'index.js': 'module.exports = "nest-host@2 with " + require("leaf")' } },
]

let registry: TestRegistry
before(async () => { registry = await TestRegistry.start(PACKAGES) })
after(async () => { await registry.close() })

const json = (value: unknown): string => JSON.stringify(value, null, 2) + '\n'
const MANIFEST = {
  name: 'app',
  version: '1.0.0',
  dependencies: { deep: '1.0.0', 'uses-leaf2': '1.0.0', tool: '2.0.0', 'uses-tool1': '1.0.0', 'has-plugin': '1.0.0', '@sc/pkg': '1.0.0', builder: '1.0.0' },
  optionalDependencies: { 'has-opt': '1.0.0' },
}
const HOISTED = 'nodeLinker: hoisted\nallowBuilds:\n  builder: true\n'

/** `.modules.yaml` without what differs between tools and runs (the package manager, the store, times), `hoistedLocations` in a stable order. */
function modulesYaml (project: Project): Record<string, unknown> {
  const { packageManager: _pm, storeDir: _store, prunedAt: _pruned, ...rest } = JSON.parse(fs.readFileSync(path.join(project.dir, 'node_modules', '.modules.yaml'), 'utf8')) as Record<string, unknown>
  const locations = rest['hoistedLocations'] as Record<string, string[]> | undefined
  if (locations !== undefined) rest['hoistedLocations'] = Object.fromEntries(Object.entries(locations).sort(([a], [b]) => a < b ? -1 : 1).map(([depPath, places]) => [depPath, [...places].sort()]))
  return rest
}

/** What Node loads for each of `specifiers`, from `dir`. */
function load (dir: string, specifiers: readonly string[]): Record<string, unknown> {
  const script = `console.log(JSON.stringify(Object.fromEntries(${JSON.stringify(specifiers)}.map((s) => [s, require(s)]))))`
  return JSON.parse(execFileSync(process.execPath, ['-e', script], { cwd: dir, encoding: 'utf8' })) as Record<string, unknown>
}

async function installBoth (pnpmProject: Project, lodeProject: Project, args: string[], env: Record<string, string> = {}): Promise<void> {
  await pnpm(pnpmProject, args, false, env)
  const result = await lode(lodeProject, args, env)
  assert.equal(result.code, 0, `${result.stdout}\n${result.stderr}`)
}

function assertSameTree (pnpmProject: Project, lodeProject: Project, dirs: readonly string[]): void {
  for (const dir of dirs) assert.deepEqual(listing(path.join(lodeProject.dir, dir)), listing(path.join(pnpmProject.dir, dir)), dir)
  assert.deepEqual(modulesYaml(lodeProject), modulesYaml(pnpmProject))
}

test('nodeLinker: hoisted lays out node_modules as pnpm 11 does: conflicts nested, peers, bins, builds in place, a skipped optional dependency', async () => {
  const pnpmProject = makeProject(registry, MANIFEST, { 'pnpm-workspace.yaml': HOISTED })
  const lodeProject = cloneProject(pnpmProject)
  await installBoth(pnpmProject, lodeProject, ['install'])
  assert.equal(readLockfileText(lodeProject), readLockfileText(pnpmProject))
  assertSameTree(pnpmProject, lodeProject, ['node_modules'])
  const tree = listing(path.join(lodeProject.dir, 'node_modules'))
  // The parts this fixture is for.
  assert.ok(tree.includes('uses-leaf2/node_modules/leaf/index.js'), 'a second version is nested where it is needed')
  assert.ok(tree.includes('uses-tool1/node_modules/.bin/tool -> ../tool/cli.js'), 'a nested package\'s command is in its dependent\'s node_modules/.bin')
  assert.ok(tree.includes('.bin/tool2 -> ../tool/cli.js'))
  assert.ok(tree.includes('builder/built.txt'), 'the build ran in place')
  assert.ok(!tree.some((entry) => entry.startsWith('win-only')), 'the package for another platform is not installed')
  assert.deepEqual(tree.filter((entry) => entry.startsWith('.pnpm/')), ['.pnpm/lock.yaml'])
  const expected = {
    deep: 'deep:uses-leaf1:leaf@1.0.0,uses-leaf2:leaf@2.0.0',
    '@sc/pkg': '@sc/pkg:leaf@2.0.0',
    'has-plugin': 'has-plugin:plugin+host@1.0.0',
    'uses-leaf2': 'uses-leaf2:leaf@2.0.0',
  }
  assert.deepEqual(load(lodeProject.dir, Object.keys(expected)), expected)
  assert.equal(execFileSync(path.join(lodeProject.dir, 'node_modules', '.bin', 'tool'), { encoding: 'utf8' }), 'tool 2\n')
  assert.equal(execFileSync(path.join(lodeProject.dir, 'node_modules', 'uses-tool1', 'node_modules', '.bin', 'tool'), { encoding: 'utf8' }), 'tool 1 with leaf@1.0.0\n')

  // From the lockfile alone (pnpm reads its dependencies in the lockfile's order, not package.json's: another layout).
  for (const project of [pnpmProject, lodeProject]) fs.rmSync(path.join(project.dir, 'node_modules'), { recursive: true })
  await installBoth(pnpmProject, lodeProject, ['install', '--frozen-lockfile'])
  assertSameTree(pnpmProject, lodeProject, ['node_modules'])
  assert.deepEqual(load(lodeProject.dir, Object.keys(expected)), expected)
  const again = await lode(lodeProject, ['install'])
  assert.equal(again.code, 0, again.stderr)
  assert.match(again.stdout, /Already up to date/)

  // Dependencies change: versions move between places, a package goes, one comes.
  for (const project of [pnpmProject, lodeProject]) {
    fs.writeFileSync(path.join(project.dir, 'package.json'), json({ ...MANIFEST, dependencies: { 'uses-leaf2': '1.0.0', 'uses-leaf1': '1.0.0', tool: '1.0.0', 'has-plugin': '1.0.0', '@sc/pkg': '1.0.0', builder: '1.0.0' } }))
  }
  await installBoth(pnpmProject, lodeProject, ['install'])
  assert.equal(readLockfileText(lodeProject), readLockfileText(pnpmProject))
  assertSameTree(pnpmProject, lodeProject, ['node_modules'])
  assert.equal(execFileSync(path.join(lodeProject.dir, 'node_modules', '.bin', 'tool'), { encoding: 'utf8' }), 'tool 1 with leaf@1.0.0\n')
})

test('nodeLinker: hoisted in a workspace: each project\'s node_modules, links to projects, the projects linked into the root\'s node_modules, as pnpm 11', async () => {
  const files = {
    'pnpm-workspace.yaml': `packages:\n  - packages/*\n${HOISTED}`,
    'packages/a/package.json': json({ name: 'a', version: '1.0.0', dependencies: { b: 'workspace:*', leaf: '2.0.0', 'has-plugin': '1.0.0' } }),
    'packages/a/index.js': 'module.exports = "a with " + require("b") + " and " + require("leaf")',
    'packages/b/package.json': json({ name: 'b', version: '1.0.0', bin: { bcli: 'cli.js' }, dependencies: { tool: '1.0.0', host: '2.0.0' } }),
    'packages/b/index.js': 'module.exports = "b with host@" + require("host/package.json").version',
    'packages/b/cli.js': '#!/usr/bin/env node\nconsole.log("bcli")\n',
  }
  const pnpmProject = makeProject(registry, { name: 'root', version: '1.0.0', private: true, dependencies: { 'uses-leaf1': '1.0.0' }, devDependencies: { tool: '2.0.0' } }, files)
  const lodeProject = cloneProject(pnpmProject)
  await installBoth(pnpmProject, lodeProject, ['install'])
  assert.equal(readLockfileText(lodeProject), readLockfileText(pnpmProject))
  assertSameTree(pnpmProject, lodeProject, ['.'])
  const tree = listing(lodeProject.dir)
  assert.ok(tree.includes('node_modules/b -> ../packages/b'), 'a project is linked into the root\'s node_modules')
  assert.ok(tree.includes('packages/a/node_modules/leaf/index.js'), 'a version the root does not have stays in the project')
  assert.deepEqual(load(path.join(lodeProject.dir, 'packages', 'a'), ['.', 'has-plugin']), { '.': 'a with b with host@2.0.0 and leaf@2.0.0', 'has-plugin': 'has-plugin:plugin+host@1.0.0' })
  assert.equal(execFileSync(path.join(lodeProject.dir, 'packages', 'a', 'node_modules', '.bin', 'bcli'), { encoding: 'utf8' }), 'bcli\n')
  assert.equal(execFileSync(path.join(lodeProject.dir, 'packages', 'b', 'node_modules', '.bin', 'tool'), { encoding: 'utf8' }), 'tool 1 with leaf@1.0.0\n')
  // A project's dependencies change; another version takes the root's place.
  for (const project of [pnpmProject, lodeProject]) {
    fs.writeFileSync(path.join(project.dir, 'packages', 'b', 'package.json'), json({ name: 'b', version: '1.0.0', bin: { bcli: 'cli.js' }, dependencies: { tool: '1.0.0', leaf: '1.0.0' } }))
    fs.writeFileSync(path.join(project.dir, 'package.json'), json({ name: 'root', version: '1.0.0', private: true, dependencies: { 'uses-leaf2': '1.0.0' }, devDependencies: { tool: '2.0.0' } }))
  }
  await installBoth(pnpmProject, lodeProject, ['install'])
  assertSameTree(pnpmProject, lodeProject, ['.'])
})

test('a package replaced by another version in its place keeps the packages nested in it, as with pnpm 11', async () => {
  const pnpmProject = makeProject(registry, { name: 'app', version: '1.0.0', dependencies: { leaf: '1.0.0', 'nest-host': '1.0.0' } }, { 'pnpm-workspace.yaml': 'nodeLinker: hoisted\n' })
  const lodeProject = cloneProject(pnpmProject)
  await installBoth(pnpmProject, lodeProject, ['install'])
  assert.ok(listing(path.join(lodeProject.dir, 'node_modules')).includes('nest-host/node_modules/leaf/index.js'))
  for (const project of [pnpmProject, lodeProject]) fs.writeFileSync(path.join(project.dir, 'package.json'), json({ name: 'app', version: '1.0.0', dependencies: { leaf: '1.0.0', 'nest-host': '2.0.0' } }))
  await installBoth(pnpmProject, lodeProject, ['install'])
  assertSameTree(pnpmProject, lodeProject, ['node_modules'])
  assert.deepEqual(load(lodeProject.dir, ['leaf', 'nest-host']), { leaf: 'leaf@1.0.0', 'nest-host': 'nest-host@2 with leaf@2.0.0' })
})

test('switching between isolated and hoisted: refused without confirmModulesPurge: false or CI, node_modules laid out anew with it, as with pnpm 11', async () => {
  const pnpmProject = makeProject(registry, { name: 'app', version: '1.0.0', dependencies: { 'uses-leaf2': '1.0.0', tool: '2.0.0', 'uses-tool1': '1.0.0' } })
  const lodeProject = cloneProject(pnpmProject)
  await installBoth(pnpmProject, lodeProject, ['install'])
  for (const project of [pnpmProject, lodeProject]) fs.writeFileSync(path.join(project.dir, 'pnpm-workspace.yaml'), 'nodeLinker: hoisted\n')
  const pnpmRefused = await pnpm(pnpmProject, ['install'], true)
  assert.match(pnpmRefused.stdout, /ERR_PNPM_ABORTED_REMOVE_MODULES_DIR_NO_TTY/)
  const before = snapshot(lodeProject.dir)
  const refused = await lode(lodeProject, ['install'])
  assert.equal(refused.code, 1)
  assert.match(refused.stderr, /^\[ERR_LODE_ABORTED_REMOVE_MODULES_DIR\] .*node_modules was laid out with a different nodeLinker/)
  assert.match(refused.stderr, /confirmModulesPurge: false/)
  assert.deepEqual([...snapshot(lodeProject.dir)].filter(([rel, what]) => before.get(rel) !== what), [])
  assert.equal(snapshot(lodeProject.dir).size, before.size)
  // In CI pnpm removes node_modules and lays it out anew.
  await installBoth(pnpmProject, lodeProject, ['install'], { CI: 'true' })
  assertSameTree(pnpmProject, lodeProject, ['node_modules'])
  assert.equal(load(lodeProject.dir, ['uses-leaf2'])['uses-leaf2'], 'uses-leaf2:leaf@2.0.0')
  // And back, with confirmModulesPurge: false.
  for (const project of [pnpmProject, lodeProject]) fs.writeFileSync(path.join(project.dir, 'pnpm-workspace.yaml'), 'confirmModulesPurge: false\n')
  await installBoth(pnpmProject, lodeProject, ['install'])
  assertSameTree(pnpmProject, lodeProject, ['node_modules'])
  assert.equal(load(lodeProject.dir, ['uses-leaf2'])['uses-leaf2'], 'uses-leaf2:leaf@2.0.0')
})

test('a hoisted install that fails (a tarball that cannot be downloaded) changes nothing', async () => {
  const project = makeProject(registry, { name: 'app', version: '1.0.0', dependencies: { 'uses-leaf2': '1.0.0', tool: '1.0.0' } }, { 'pnpm-workspace.yaml': 'nodeLinker: hoisted\n' })
  fs.appendFileSync(path.join(project.home, '.npmrc'), 'fetch-retries=0\n')
  const first = await lode(project, ['install'])
  assert.equal(first.code, 0, first.stderr)
  // Versions that move (tool 1 replaced by 2 at the top) and a package whose tarball is missing.
  fs.writeFileSync(path.join(project.dir, 'package.json'), json({ name: 'app', version: '1.0.0', dependencies: { 'uses-leaf1': '1.0.0', tool: '2.0.0', broken: '1.0.0' } }))
  const before = snapshot(project.dir)
  registry.injectFaults('/broken/-/broken-1.0.0.tgz', [{ status: 404 }])
  const failed = await lode(project, ['install'])
  assert.equal(failed.code, 1, failed.stdout)
  assert.match(failed.stderr, /broken/)
  assert.deepEqual([...snapshot(project.dir)].filter(([rel, what]) => before.get(rel) !== what), [])
  assert.equal(snapshot(project.dir).size, before.size)
  // A first install that fails leaves no node_modules.
  const empty = makeProject(registry, { name: 'app', version: '1.0.0', dependencies: { 'uses-leaf1': '1.0.0', broken: '1.0.0' } }, { 'pnpm-workspace.yaml': 'nodeLinker: hoisted\n' })
  fs.appendFileSync(path.join(empty.home, '.npmrc'), 'fetch-retries=0\n')
  registry.injectFaults('/broken/-/broken-1.0.0.tgz', [{ status: 404 }])
  assert.equal((await lode(empty, ['install'])).code, 1)
  assert.deepEqual(fs.readdirSync(empty.dir).sort(), ['package.json', 'pnpm-workspace.yaml'])
})

test('shamefullyHoist: true hoists every dependency into node_modules, as pnpm 11 (publicHoistPattern *)', async () => {
  const pnpmProject = makeProject(registry, { name: 'app', version: '1.0.0', dependencies: { deep: '1.0.0', 'has-plugin': '1.0.0', tool: '2.0.0', 'uses-tool1': '1.0.0' } }, { 'pnpm-workspace.yaml': 'shamefullyHoist: true\n' })
  const lodeProject = cloneProject(pnpmProject)
  await installBoth(pnpmProject, lodeProject, ['install'])
  assertSameTree(pnpmProject, lodeProject, ['node_modules'])
  assert.deepEqual(modulesYaml(lodeProject)['publicHoistPattern'], ['*'])
  assert.deepEqual(load(lodeProject.dir, ['leaf', 'uses-leaf1', 'plugin']), { leaf: 'leaf@1.0.0', 'uses-leaf1': 'uses-leaf1:leaf@1.0.0', plugin: 'plugin+host@1.0.0' })
  // Turning it off changes publicHoistPattern: node_modules is laid out anew (here in CI).
  for (const project of [pnpmProject, lodeProject]) fs.writeFileSync(path.join(project.dir, 'pnpm-workspace.yaml'), 'shamefullyHoist: false\n')
  await installBoth(pnpmProject, lodeProject, ['install'], { CI: 'true' })
  assert.deepEqual(listing(path.join(lodeProject.dir, 'node_modules')), listing(path.join(pnpmProject.dir, 'node_modules')))
  assert.equal(fs.existsSync(path.join(lodeProject.dir, 'node_modules', 'leaf')), false)
})

test('virtualStoreDir and virtualStoreDirMaxLength place and name the virtual store as pnpm 11 does', async () => {
  const pnpmProject = makeProject(registry, {
    name: 'app',
    version: '1.0.0',
    dependencies: { 'uses-leaf2': '1.0.0', tool: '2.0.0', 'a-package-whose-name-is-long-enough-to-be-cut-in-the-virtual-store': '1.0.0' },
  }, { 'pnpm-workspace.yaml': 'virtualStoreDir: vs\nvirtualStoreDirMaxLength: 50\n' })
  const lodeProject = cloneProject(pnpmProject)
  await pnpm(pnpmProject, ['install'])
  const result = await lode(lodeProject, ['install'])
  assert.equal(result.code, 0, result.stderr)
  assert.match(result.stdout, /Virtual store is at: {13}vs\n/)
  assertSameTree(pnpmProject, lodeProject, ['node_modules', 'vs'])
  assert.ok(listing(path.join(lodeProject.dir, 'vs')).some((entry) => /^a-package-whose-n_[0-9a-f]{32}\//.test(entry)), 'a long name is cut and hashed at 50 characters')
  assert.equal(fs.existsSync(path.join(lodeProject.dir, 'node_modules', '.pnpm', 'lock.yaml')), true, 'node_modules keeps its lockfile')
  assert.deepEqual(load(lodeProject.dir, ['uses-leaf2']), { 'uses-leaf2': 'uses-leaf2:leaf@2.0.0' })
  assert.equal(execFileSync(path.join(lodeProject.dir, 'node_modules', '.bin', 'tool2'), { encoding: 'utf8' }), 'tool 2\n')
  // An absolute path outside the project (each its own): node_modules is laid out anew (here in CI).
  for (const project of [pnpmProject, lodeProject]) fs.writeFileSync(path.join(project.dir, 'pnpm-workspace.yaml'), `virtualStoreDir: ${JSON.stringify(path.join(path.dirname(project.dir), 'elsewhere'))}\n`)
  await installBoth(pnpmProject, lodeProject, ['install'], { CI: 'true' })
  assertSameTree(pnpmProject, lodeProject, ['node_modules', '../elsewhere'])
  assert.equal(modulesYaml(lodeProject)['virtualStoreDir'], '../../elsewhere')
  assert.deepEqual(load(lodeProject.dir, ['uses-leaf2']), { 'uses-leaf2': 'uses-leaf2:leaf@2.0.0' })
})

test('node-linker, shamefully-hoist and virtual-store-dir in .npmrc change nothing, as with pnpm 11 (it reads them from pnpm-workspace.yaml only)', async () => {
  const pnpmProject = makeProject(registry, { name: 'app', version: '1.0.0', dependencies: { 'uses-leaf2': '1.0.0' } }, { '.npmrc': 'node-linker=hoisted\nshamefully-hoist=true\nvirtual-store-dir=vs\n' })
  const lodeProject = cloneProject(pnpmProject)
  await installBoth(pnpmProject, lodeProject, ['install'])
  assert.deepEqual(listing(lodeProject.dir), listing(pnpmProject.dir))
  assert.deepEqual(modulesYaml(lodeProject), modulesYaml(pnpmProject))
  assert.equal(modulesYaml(lodeProject)['nodeLinker'], 'isolated')
  assert.ok(fs.lstatSync(path.join(lodeProject.dir, 'node_modules', 'uses-leaf2')).isSymbolicLink())
})

test('--node-linker, --shamefully-hoist and --virtual-store-dir set them on the command line, as with pnpm 11', async () => {
  for (const flags of [['--node-linker=hoisted'], ['--shamefully-hoist', '--virtual-store-dir=vs']]) {
    const pnpmProject = makeProject(registry, { name: 'app', version: '1.0.0', dependencies: { deep: '1.0.0', 'uses-leaf2': '1.0.0' } })
    const lodeProject = cloneProject(pnpmProject)
    await installBoth(pnpmProject, lodeProject, ['install', ...flags])
    assert.deepEqual(listing(lodeProject.dir), listing(pnpmProject.dir), flags.join(' '))
    assert.deepEqual(modulesYaml(lodeProject), modulesYaml(pnpmProject))
  }
  const project = makeProject(registry, { name: 'app', version: '1.0.0', dependencies: { leaf: '1.0.0' } })
  const wrong = await lode(project, ['install', '--node-linker=flat'])
  assert.equal(wrong.code, 1)
  assert.match(wrong.stderr, /^\[ERR_LODE_INVALID_SETTING\] --node-linker is "flat"/)
})
