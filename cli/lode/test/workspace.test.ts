import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { after, before, test } from 'node:test'

import { TestRegistry } from '@lode/__utils__.test-fixtures'
import type { PackageSpec } from '@lode/__utils__.test-fixtures'

import { cloneProject, listing, lode, makeProject, pnpm, readLockfileText } from './helpers.js'
import type { Project } from './helpers.js'

const PACKAGES: PackageSpec[] = [
  { name: 'leaf', version: '1.0.0', files: { 'index.js': 'module.exports = "leaf@1.0.0"' } },
  { name: 'leaf', version: '1.1.0', files: { 'index.js': 'module.exports = "leaf@1.1.0"' } },
  { name: 'leaf', version: '2.0.0', files: { 'index.js': 'module.exports = "leaf@2.0.0"' } },
  { name: 'host', version: '1.0.0', files: { 'index.js': 'module.exports = "host@1.0.0"' } },
  { name: 'host', version: '1.1.0', files: { 'index.js': 'module.exports = "host@1.1.0"' } },
  { name: 'plugin', version: '1.0.0', manifest: { peerDependencies: { host: '^1.0.0' } }, files: { 'index.js': 'module.exports = "plugin+" + require("host")' } },
  // Its peer is a project of the workspace.
  { name: 'core-plugin', version: '1.0.0', manifest: { peerDependencies: { '@ws/core': '^1.0.0' } }, files: { 'index.js': 'module.exports = "core-plugin+" + require("@ws/core")' } },
  { name: '@scope/mid', version: '1.0.0', dependencies: { leaf: '^1.0.0' }, files: { 'index.js': 'module.exports = "mid:" + require("leaf")' } },
  { name: 'aliased', version: '3.0.0', files: { 'index.js': 'module.exports = "aliased"' } },
  { name: 'tool', version: '1.0.0', bin: { tool: 'cli.js' }, files: { 'cli.js': '#!/usr/bin/env node\nconsole.log("tool")\n' } },
]

let registry: TestRegistry
before(async () => { registry = await TestRegistry.start(PACKAGES) })
after(async () => { await registry.close() })

const json = (value: unknown): string => JSON.stringify(value, null, 2) + '\n'

/**
 * Seven importers: `workspace:` in every form (`*`, `^`, `~`, a range, a path, an alias), the default and a
 * named catalog, a version shared by several projects and one that diverges, a registry package whose peer
 * is a sibling project, a project's own peer, a negated glob, and a `**` glob that must not enter node_modules.
 */
const WORKSPACE: Record<string, string> = {
  'pnpm-workspace.yaml': [
    'packages:', '  - packages/*', '  - apps/*', '  - tools/**', '  - \'!packages/excluded\'',
    'catalog:', '  leaf: ^1.0.0', '  host: 1.0.0',
    'catalogs:', '  legacy:', '    leaf: 2.0.0', '',
  ].join('\n'),
  'packages/core/package.json': json({ name: '@ws/core', version: '1.2.0', main: 'index.js', dependencies: { leaf: 'catalog:' }, peerDependencies: { host: '^1.0.0' }, devDependencies: { host: 'catalog:' } }),
  'packages/core/index.js': 'module.exports = "core with " + require("leaf")',
  'packages/ui/package.json': json({ name: '@ws/ui', version: '2.0.0', dependencies: { '@ws/core': 'workspace:^', plugin: '1.0.0', host: 'catalog:' } }),
  'packages/ui/index.js': 'module.exports = "ui with " + require("@ws/core") + " and " + require("plugin")',
  'packages/utils/package.json': json({ name: 'utils', version: '0.3.1', dependencies: { leaf: 'catalog:legacy' }, devDependencies: { '@ws/core': 'workspace:~' } }),
  'packages/utils/index.js': 'module.exports = "utils with " + require("leaf")',
  'packages/excluded/package.json': json({ name: 'excluded', version: '1.0.0', dependencies: { 'not-in-the-registry': '1.0.0' } }),
  'apps/web/package.json': json({
    name: 'web',
    private: true,
    dependencies: { '@ws/ui': 'workspace:2.0.0', 'core-alias': 'workspace:@ws/core@*', utils: 'workspace:../../packages/utils', 'core-plugin': '1.0.0', '@ws/core': 'workspace:*', '@scope/mid': '^1.0.0' },
  }),
  'apps/cli/package.json': json({ name: 'cli', version: '1.0.0', bin: { 'ws-cli': 'cli.js' }, dependencies: { utils: 'workspace:~', leaf: '^1.0.0', 'my-alias': 'npm:aliased@^3.0.0' } }),
  'apps/cli/cli.js': '#!/usr/bin/env node\nconsole.log("ws-cli with " + require("utils"))\n',
  'tools/gen/package.json': json({ name: 'gen', version: '1.0.0', devDependencies: { tool: '1.0.0', cli: 'workspace:*' } }),
  'tools/gen/node_modules/stray/package.json': json({ name: 'stray', version: '1.0.0', dependencies: { 'not-in-the-registry': '1.0.0' } }),
}
const ROOT_MANIFEST = { name: 'ws-root', version: '0.0.0', private: true, devDependencies: { tool: '1.0.0', '@ws/ui': 'workspace:*' } }
const PROJECT_DIRS = ['.', 'packages/core', 'packages/ui', 'packages/utils', 'apps/web', 'apps/cli', 'tools/gen']

/** What Node resolves from each project for each of its direct dependencies: project → alias → real path inside the workspace. */
function resolvedFromProjects (project: Project): Record<string, Record<string, string>> {
  const out: Record<string, Record<string, string>> = {}
  for (const dir of PROJECT_DIRS) {
    const manifest = JSON.parse(fs.readFileSync(path.join(project.dir, dir, 'package.json'), 'utf8')) as Record<string, Record<string, string> | undefined>
    const aliases = Object.keys({ ...manifest['dependencies'], ...manifest['devDependencies'] })
    const script = `const path = require('node:path'); const fs = require('node:fs'); console.log(JSON.stringify(Object.fromEntries(${JSON.stringify(aliases)}.map((a) => [a, path.relative(${JSON.stringify(fs.realpathSync(project.dir))}, fs.realpathSync(path.dirname(require.resolve(a + '/package.json'))))]))))`
    out[dir] = JSON.parse(execFileSync(process.execPath, ['-e', script], { cwd: path.join(project.dir, dir), encoding: 'utf8' })) as Record<string, string>
  }
  return out
}

test('a workspace of seven importers: pnpm\'s lockfile byte for byte, and every project\'s node_modules as pnpm lays it out', async () => {
  const pnpmProject = makeProject(registry, ROOT_MANIFEST, WORKSPACE)
  const lodeProject = cloneProject(pnpmProject)
  await pnpm(pnpmProject, ['install'])
  const result = await lode(lodeProject, ['install'])
  assert.equal(result.code, 0, `${result.stdout}\n${result.stderr}`)
  const lockfile = readLockfileText(lodeProject)
  assert.equal(lockfile, readLockfileText(pnpmProject))
  // The parts this fixture is for, as pnpm names them.
  assert.match(lockfile, /\n {2}apps\/web:\n {4}dependencies:\n(?: {6}.*\n)*? {6}core-plugin:\n {8}specifier: 1\.0\.0\n {8}version: 1\.0\.0\(@ws\/core@packages\+core\)\n/)
  assert.match(lockfile, /\n {6}leaf:\n {8}specifier: catalog:legacy\n {8}version: 2\.0\.0\n/)
  assert.doesNotMatch(lockfile, /excluded|stray/)
  for (const dir of PROJECT_DIRS) {
    const modules = path.join(dir, 'node_modules')
    assert.deepEqual(listing(path.join(lodeProject.dir, modules)), listing(path.join(pnpmProject.dir, modules)), modules)
  }
  assert.deepEqual(resolvedFromProjects(lodeProject), resolvedFromProjects(pnpmProject))
  // Node loads across projects, through a sibling's peer and a project's bin.
  const load = (cwd: string, specifier: string): string => execFileSync(process.execPath, ['-e', `console.log(require(${JSON.stringify(specifier)}))`], { cwd: path.join(lodeProject.dir, cwd), encoding: 'utf8' }).trim()
  assert.equal(load('apps/web', '@ws/ui'), 'ui with core with leaf@1.1.0 and plugin+host@1.0.0')
  assert.equal(load('apps/web', 'core-plugin'), 'core-plugin+core with leaf@1.1.0')
  assert.equal(load('apps/web', 'utils'), 'utils with leaf@2.0.0')
  assert.equal(execFileSync(path.join(lodeProject.dir, 'tools', 'gen', 'node_modules', '.bin', 'ws-cli'), { encoding: 'utf8' }), 'ws-cli with utils with leaf@2.0.0\n')
  // A second install, from the root or from inside a project, finds everything in place.
  for (const dir of ['.', 'apps/web']) {
    const again = await lode(lodeProject, ['install', '--frozen-lockfile', '--dir', dir])
    assert.equal(again.code, 0, again.stderr)
    assert.match(again.stdout, /Already up to date/)
  }
  // A project's manifest is an input too: an edit there is installed, as pnpm installs it.
  for (const project of [pnpmProject, lodeProject]) {
    const file = path.join(project.dir, 'apps', 'cli', 'package.json')
    fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace('"leaf": "^1.0.0"', '"leaf": "1.0.0", "host": "catalog:"'))
  }
  await pnpm(pnpmProject, ['install'])
  const edited = await lode(lodeProject, ['install'])
  assert.equal(edited.code, 0, edited.stderr)
  assert.doesNotMatch(edited.stdout, /Already up to date/)
  assert.equal(readLockfileText(lodeProject), readLockfileText(pnpmProject))
  assert.deepEqual(listing(path.join(lodeProject.dir, 'apps/cli/node_modules')), listing(path.join(pnpmProject.dir, 'apps/cli/node_modules')))
})

/** Every package.json of the workspace, by path. */
function manifests (project: Project): Record<string, string> {
  return Object.fromEntries(['package.json', 'packages/a/package.json', 'packages/b/package.json', 'apps/c/package.json'].map((file) => [file, fs.readFileSync(path.join(project.dir, file), 'utf8')]))
}

test('add, remove and update with --filter and -r leave the package.json files and the lockfile pnpm leaves', async () => {
  const files = {
    'pnpm-workspace.yaml': 'packages:\n  - packages/*\n  - apps/*\ncatalog:\n  host: ^1.0.0\n',
    'packages/a/package.json': json({ name: 'a', version: '1.0.0', dependencies: { leaf: '^1.0.0' } }),
    'packages/b/package.json': '{\n    "name": "b",\n    "version": "2.0.0",\n    "dependencies": {\n        "leaf": "~1.0.0",\n        "host": "1.0.0"\n    }\n}\n',
    'apps/c/package.json': json({ name: 'c', private: true }),
  }
  const pnpmProject = makeProject(registry, { name: 'root', private: true }, files)
  const lodeProject = cloneProject(pnpmProject)
  await pnpm(pnpmProject, ['install'])
  assert.equal((await lode(lodeProject, ['install'])).code, 0)
  const steps = [
    ['add', '--filter', 'a', 'host'],
    ['add', '--filter', 'c', 'a@workspace:*', 'my-alias@npm:aliased'],
    ['add', '-r', '-D', 'tool'],
    ['remove', '--filter', 'b', 'leaf'],
    ['update', '-r', 'leaf'],
    ['update', '--filter', 'a', '--latest', 'leaf'],
    ['update', '-r', 'h*'],
    ['add', '--filter', './apps/c', '--save-peer', 'leaf@^1.0.0'],
    ['remove', '-r', 'tool'],
    ['update', '-r'],
    // A name no project depends on: looked for deeper (pnpm's default depth), nothing changes.
    ['update', '-r', 'not-a-dependency'],
  ]
  for (const args of steps) {
    await pnpm(pnpmProject, args)
    const result = await lode(lodeProject, args)
    assert.equal(result.code, 0, `lode ${args.join(' ')}:\n${result.stdout}\n${result.stderr}`)
    assert.deepEqual(manifests(lodeProject), manifests(pnpmProject), `package.json files after ${args.join(' ')}`)
    assert.equal(readLockfileText(lodeProject), readLockfileText(pnpmProject), `pnpm-lock.yaml after ${args.join(' ')}`)
  }
  const saved = manifests(lodeProject)
  assert.match(saved['packages/a/package.json']!, /"host": "catalog:",\n {4}"leaf": "\^2\.0\.0"/, '--latest keeps the prefix; a cataloged name is saved as catalog:')
  assert.match(saved['apps/c/package.json']!, /"a": "workspace:\*",\n {4}"my-alias": "npm:aliased@\^3\.0\.0"/)
  assert.match(saved['apps/c/package.json']!, /"devDependencies": {\n {4}"leaf": "\^1\.1\.0"\n {2}},\n {2}"peerDependencies": {\n {4}"leaf": "\^1\.1\.0"\n {2}}/, '--save-peer')
  // Names no selected project depends on.
  const notThere = await lode(lodeProject, ['remove', '-r', 'not-a-dependency'])
  assert.equal(notThere.code, 1)
  assert.match(notThere.stderr, /^\[ERR_LODE_CANNOT_REMOVE_MISSING_DEPS\] Cannot remove 'not-a-dependency': no such dependency found in any of the 4 projects\./)
  assert.deepEqual(manifests(lodeProject), saved, 'a failed remove writes nothing')
  const noMatch = await lode(lodeProject, ['add', '--filter', 'nope', '--fail-if-no-match', 'leaf'])
  assert.equal(noMatch.code, 1)
  assert.match(noMatch.stderr, /^\[ERR_LODE_FILTER_NO_MATCH\] No projects matched the filters "nope"/)
})

test('install --filter installs only the projects selected, as pnpm does; a later install completes the rest', async () => {
  const files = {
    'pnpm-workspace.yaml': 'packages:\n  - packages/*\n  - apps/*\n',
    'packages/a/package.json': json({ name: 'a', version: '1.0.0', dependencies: { leaf: '^1.0.0', b: 'workspace:*' } }),
    'packages/b/package.json': json({ name: 'b', version: '1.0.0', dependencies: { host: '1.1.0' }, scripts: { postinstall: 'node -e "require(\'fs\').writeFileSync(\'installed\', \'\')"' } }),
    'apps/c/package.json': json({ name: 'c', version: '1.0.0', dependencies: { plugin: '1.0.0', host: '1.0.0' }, devDependencies: { tool: '1.0.0' } }),
  }
  const pnpmProject = makeProject(registry, { name: 'root', private: true, devDependencies: { '@scope/mid': '1.0.0' } }, files)
  const lodeProject = cloneProject(pnpmProject)
  const dirs = ['node_modules', 'packages/a/node_modules', 'packages/b/node_modules', 'apps/c/node_modules', 'packages/b/installed']
  const onDisk = (project: Project): Record<string, string[] | null> => Object.fromEntries(dirs.map((dir) => {
    const full = path.join(project.dir, dir)
    return [dir, !fs.existsSync(full) ? null : fs.statSync(full).isDirectory() ? listing(full) : []]
  }))
  for (const args of [['install', '--filter', 'a'], ['install', '--filter', 'c...', '--filter', 'b'], ['install']]) {
    await pnpm(pnpmProject, args)
    const result = await lode(lodeProject, args)
    assert.equal(result.code, 0, `lode ${args.join(' ')}:\n${result.stdout}\n${result.stderr}`)
    assert.equal(readLockfileText(lodeProject), readLockfileText(pnpmProject), `pnpm-lock.yaml after ${args.join(' ')}`)
    assert.deepEqual(onDisk(lodeProject), onDisk(pnpmProject), `node_modules after ${args.join(' ')}`)
  }
})

test('add in one project leaves the other projects\' node_modules as they are, as pnpm does (a link and a .bin removed there are not written again, a .bin there stays)', async () => {
  const files = {
    'pnpm-workspace.yaml': 'packages:\n  - packages/*\n  - apps/*\n',
    'packages/a/package.json': json({ name: 'a', version: '1.0.0', dependencies: { leaf: '^1.0.0' } }),
    'apps/c/package.json': json({ name: 'c', version: '1.0.0', dependencies: { host: '1.0.0', a: 'workspace:*' }, devDependencies: { tool: '1.0.0' } }),
    'apps/d/package.json': json({ name: 'd', version: '1.0.0', devDependencies: { tool: '1.0.0' } }),
  }
  const pnpmProject = makeProject(registry, { name: 'root', private: true }, files)
  const lodeProject = cloneProject(pnpmProject)
  const dirs = ['node_modules', 'packages/a/node_modules', 'packages/a/node_modules/.bin', 'apps/c/node_modules', 'apps/c/node_modules/.bin', 'apps/d/node_modules/.bin']
  const onDisk = (project: Project): Record<string, string[] | null> => Object.fromEntries(dirs.map((dir) => {
    const full = path.join(project.dir, dir)
    return [dir, fs.existsSync(full) ? listing(full) : null]
  }))
  for (const project of [pnpmProject, lodeProject]) {
    const result = project === pnpmProject ? await pnpm(project, ['install']) : await lode(project, ['install'])
    assert.equal(result.code, 0, result.stderr)
    fs.rmSync(path.join(project.dir, 'apps/c/node_modules/host'))
    fs.rmSync(path.join(project.dir, 'apps/c/node_modules/.bin'), { recursive: true })
  }
  await pnpm(pnpmProject, ['add', '--filter', 'a', 'tool@1.0.0'])
  const result = await lode(lodeProject, ['add', '--filter', 'a', 'tool@1.0.0'])
  assert.equal(result.code, 0, `${result.stdout}\n${result.stderr}`)
  assert.equal(readLockfileText(lodeProject), readLockfileText(pnpmProject))
  assert.deepEqual(onDisk(lodeProject), onDisk(pnpmProject))
  // The project added to got its link and its .bin; the other one is as it was left.
  assert.ok(fs.existsSync(path.join(lodeProject.dir, 'packages/a/node_modules/.bin/tool')))
  assert.equal(fs.existsSync(path.join(lodeProject.dir, 'apps/c/node_modules/host')), false)
  // (lode took the other projects' .bin away with the ones it writes again, and wrote only this one's.)
  assert.ok(fs.existsSync(path.join(lodeProject.dir, 'apps/d/node_modules/.bin/tool')))
  // A full install after it (up to date) leaves node_modules as pnpm's does.
  await pnpm(pnpmProject, ['install'])
  assert.equal((await lode(lodeProject, ['install'])).code, 0)
  assert.deepEqual(onDisk(lodeProject), onDisk(pnpmProject))
})

test('linkWorkspacePackages: true links a project that satisfies a plain range (an npm: alias too), for direct dependencies only, as pnpm does', async () => {
  const files = {
    'pnpm-workspace.yaml': 'packages:\n  - packages/*\nlinkWorkspacePackages: true\n',
    'packages/leaf/package.json': json({ name: 'leaf', version: '1.5.0' }),
    'packages/a/package.json': json({ name: 'a', version: '1.0.0', dependencies: { leaf: '^1.0.0', '@scope/mid': '1.0.0' } }),
    'packages/b/package.json': json({ name: 'b', version: '1.0.0', dependencies: { leaf: '^2.0.0', alias: 'npm:leaf@^1.0.0' } }),
  }
  const pnpmProject = makeProject(registry, { name: 'root', private: true }, files)
  const lodeProject = cloneProject(pnpmProject)
  await pnpm(pnpmProject, ['install', '--lockfile-only'])
  const result = await lode(lodeProject, ['install', '--lockfile-only'])
  assert.equal(result.code, 0, result.stderr)
  const lockfile = readLockfileText(lodeProject)
  assert.equal(lockfile, readLockfileText(pnpmProject))
  assert.match(lockfile, /\n {6}leaf:\n {8}specifier: \^1\.0\.0\n {8}version: link:\.\.\/leaf\n/)
})
