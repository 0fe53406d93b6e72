import assert from 'node:assert/strict'
import fs from 'node:fs'
import { createRequire } from 'node:module'
import path from 'node:path'
import { after, before, test } from 'node:test'

import { TestRegistry } from '@lode/__utils__.test-fixtures'

import { defaultStoreDir, lode, lodeExactly, makeProject, pnpm, pnpmExactly } from './helpers.js'
import type { Project } from './helpers.js'

// pnpm 11's global virtual store (enableGlobalVirtualStore): packages live in slots under
// `<store>/v11/links`, shared by every project, and lode and pnpm 11 find each other's there.

let registry: TestRegistry
before(async () => {
  const main = (body: string): { manifest: Record<string, unknown>, files: Record<string, string> } =>
    ({ manifest: { main: 'main.js' }, files: { 'main.js': body } })
  registry = await TestRegistry.start([
    { name: 'leaf', version: '1.0.0' },
    { name: '@scope/util', version: '1.0.0', dependencies: { leaf: '1.0.0' }, ...main('module.exports = "util:" + require("leaf").version\n') },
    { name: 'mid', version: '1.0.0', dependencies: { '@scope/util': '1.0.0', 'leaf': '1.0.0' }, ...main('module.exports = "mid:" + require("@scope/util")\n') },
    { name: 'host', version: '1.0.0' },
    { name: 'plugin', version: '1.0.0', manifest: { main: 'main.js', peerDependencies: { host: '^1.0.0' } }, files: { 'main.js': 'module.exports = "plugin:" + require("host").version\n' } },
    { name: 'cyc-a', version: '1.0.0', dependencies: { 'cyc-b': '1.0.0' }, ...main('exports.name = "a"; exports.other = () => require("cyc-b").name\n') },
    { name: 'cyc-b', version: '1.0.0', dependencies: { 'cyc-a': '1.0.0' }, ...main('exports.name = "b"; exports.other = () => require("cyc-a").name\n') },
    { name: 'tool', version: '1.0.0', bin: { tool: 'cli.js' }, files: { 'cli.js': '#!/usr/bin/env node\nconsole.log("tool")\n' } },
    { name: 'builder', version: '1.0.0', scripts: { postinstall: 'node -e "require(\'fs\').writeFileSync(\'built.txt\', \'yes\')"' } },
  ])
})
after(async () => { await registry.close() })

const MANIFEST = {
  name: 'gvs',
  version: '1.0.0',
  dependencies: { 'mid': '1.0.0', 'plugin': '1.0.0', 'host': '1.0.0', 'cyc-a': '1.0.0', 'tool': '1.0.0', '@scope/util': '1.0.0' },
}
const GVS = { 'pnpm-workspace.yaml': 'enableGlobalVirtualStore: true\n' }

const linksDir = (project: Project): string => path.join(defaultStoreDir(project), 'v11', 'links')

/** The slots under the links dir (`@/leaf/1.0.0/<hash>`), sorted. */
function slots (project: Project): string[] {
  const root = linksDir(project)
  if (!fs.existsSync(root)) return []
  return fs.readdirSync(root, { recursive: true }).map(String)
    .filter((entry) => entry.split(path.sep).length === 4 && /^[0-9a-f]{64}$/.test(path.basename(entry))).sort()
}

/** Another project beside `project`, with the same home (the same store). */
function sibling (project: Project, name: string, files: Record<string, string> = GVS): Project {
  const dir = path.join(path.dirname(project.dir), name)
  fs.mkdirSync(dir)
  fs.copyFileSync(path.join(project.dir, 'package.json'), path.join(dir, 'package.json'))
  for (const [file, content] of Object.entries(files)) fs.writeFileSync(path.join(dir, file), content)
  return { dir, home: project.home }
}

/** Every symlink under node_modules (not into slots' insides): path → target as written. */
function links (project: Project): Record<string, string> {
  const out: Record<string, string> = {}
  const modulesDir = path.join(project.dir, 'node_modules')
  for (const entry of fs.readdirSync(modulesDir, { recursive: true }).map(String)) {
    const file = path.join(modulesDir, entry)
    if (fs.lstatSync(file).isSymbolicLink() && !entry.split(path.sep).includes('.bin')) out[entry] = fs.readlinkSync(file)
  }
  return out
}

function modulesYaml (project: Project): Record<string, unknown> {
  const { prunedAt, packageManager, ...rest } = JSON.parse(fs.readFileSync(path.join(project.dir, 'node_modules', '.modules.yaml'), 'utf8')) as Record<string, unknown>
  assert.equal(typeof prunedAt, 'string')
  assert.equal(typeof packageManager, 'string')
  return rest
}

const inode = (file: string): number => fs.statSync(file).ino
/** A file of the package in a slot (`@/leaf/…` is leaf's, `@scope/util/…` is @scope/util's). */
function slotFile (project: Project, slot: string, file: string): string {
  const name = slot.split(path.sep).slice(0, -2)
  return path.join(linksDir(project), slot, 'node_modules', ...name[0] === '@' ? name.slice(1) : name, file)
}

function assertRequires (project: Project): void {
  const require = createRequire(path.join(project.dir, 'index.js'))
  assert.equal(require('mid'), 'mid:util:1.0.0')
  assert.equal(require('plugin'), 'plugin:1.0.0')
  assert.equal((require('cyc-a') as { other: () => string }).other(), 'b')
  assert.equal(require('@scope/util'), 'util:1.0.0')
  assert.ok(fs.realpathSync(path.join(project.dir, 'node_modules', 'mid')).startsWith(fs.realpathSync(linksDir(project))))
}

test('lode and pnpm 11 with enableGlobalVirtualStore: the same slots, links and .modules.yaml; each reuses the other\'s slots', async () => {
  const lodeProject = makeProject(registry, MANIFEST, GVS)
  const result = await lode(lodeProject, ['install'])
  assert.equal(result.code, 0, result.stderr)
  assertRequires(lodeProject)
  const made = slots(lodeProject)
  assert.equal(made.length, 8, made.join('\n'))
  assert.ok(made.some((slot) => slot.startsWith(path.join('@scope', 'util', '1.0.0'))), 'a scoped package is under its scope')
  assert.ok(!fs.existsSync(path.join(lodeProject.dir, 'node_modules', '.pnpm', 'mid@1.0.0')), 'no package directory in the project')
  assert.deepEqual(fs.readdirSync(path.join(lodeProject.dir, 'node_modules', '.pnpm')).sort(), ['lock.yaml', 'node_modules'])
  const midSlot = made.find((slot) => slot.startsWith(path.join('@', 'mid')))!
  const midInode = inode(slotFile(lodeProject, midSlot, 'main.js'))
  // pnpm 11, into the same store, resolves the same lockfile and takes every slot lode made as it is.
  const pnpmProject = sibling(lodeProject, 'pnpm-project')
  const tarballs = registry.tarballRequests.length
  await pnpm(pnpmProject, ['install'])
  assert.equal(registry.tarballRequests.length, tarballs, 'pnpm downloaded nothing')
  assert.equal(fs.readFileSync(path.join(pnpmProject.dir, 'pnpm-lock.yaml'), 'utf8'), fs.readFileSync(path.join(lodeProject.dir, 'pnpm-lock.yaml'), 'utf8'))
  assert.deepEqual(slots(lodeProject), made, 'pnpm made no slot of its own')
  assert.equal(inode(slotFile(lodeProject, midSlot, 'main.js')), midInode, 'pnpm re-imported nothing')
  assert.deepEqual(links(lodeProject), links(pnpmProject))
  assert.deepEqual(modulesYaml(lodeProject), modulesYaml(pnpmProject))
  assert.deepEqual(fs.readdirSync(path.join(lodeProject.dir, 'node_modules', '.bin')), fs.readdirSync(path.join(pnpmProject.dir, 'node_modules', '.bin')))
  assertRequires(pnpmProject)
})

test('lode reuses the slots pnpm 11 made: nothing downloaded or imported, the same inodes', async () => {
  const pnpmProject = makeProject(registry, MANIFEST, GVS)
  await pnpm(pnpmProject, ['install'])
  const made = slots(pnpmProject)
  assert.equal(made.length, 8)
  const inodes = made.map((slot) => inode(slotFile(pnpmProject, slot, 'package.json')))
  const lodeProject = sibling(pnpmProject, 'lode-project')
  const tarballs = registry.tarballRequests.length
  const result = await lode(lodeProject, ['install'])
  assert.equal(result.code, 0, result.stderr)
  assert.equal(registry.tarballRequests.length, tarballs, 'lode downloaded nothing')
  assert.deepEqual(slots(lodeProject), made)
  assert.deepEqual(made.map((slot) => inode(slotFile(pnpmProject, slot, 'package.json'))), inodes)
  assert.deepEqual(links(lodeProject), links(pnpmProject))
  assert.deepEqual(modulesYaml(lodeProject), modulesYaml(pnpmProject))
  assertRequires(lodeProject)
})

test('a warm install (another project, or node_modules deleted) reuses every slot; lode store prune removes the slots no project reaches', async () => {
  const first = makeProject(registry, MANIFEST, GVS)
  assert.equal((await lode(first, ['install'])).code, 0)
  const made = slots(first)
  const inodes = made.map((slot) => inode(slotFile(first, slot, 'package.json')))
  const tarballs = registry.tarballRequests.length
  fs.rmSync(path.join(first.dir, 'node_modules'), { recursive: true })
  const again = await lode(first, ['install', '--frozen-lockfile'])
  assert.equal(again.code, 0, again.stderr)
  assertRequires(first)
  // A second project with one more dependency than the first uses.
  const second = sibling(first, 'second')
  fs.writeFileSync(path.join(second.dir, 'package.json'), JSON.stringify({ ...MANIFEST, dependencies: { ...MANIFEST.dependencies, builder: '1.0.0' } }))
  fs.writeFileSync(path.join(second.dir, 'pnpm-workspace.yaml'), 'enableGlobalVirtualStore: true\nallowBuilds:\n  builder: false\n')
  assert.equal((await lode(second, ['install'])).code, 0)
  assert.equal(registry.tarballRequests.length, tarballs + 1, 'only the new package was downloaded')
  assert.deepEqual(made.map((slot) => inode(slotFile(first, slot, 'package.json'))), inodes, 'the same files')
  assert.equal(slots(first).length, made.length + 1)
  assertRequires(second)
  // The second project gone: its one slot of its own goes, the rest is used by the first.
  fs.rmSync(path.join(second.dir, 'node_modules'), { recursive: true })
  const pruned = await lodeExactly(first, ['store', 'prune'])
  assert.equal(pruned.code, 0, pruned.stderr)
  assert.match(pruned.stderr, /Checking 2 registered project\(s\) for global virtual store usage\nRemoved 1 package from global virtual store\n/)
  assert.deepEqual(slots(first), made)
  assert.ok(!fs.existsSync(path.join(linksDir(first), '@', 'builder')), 'the empty directories above it go too')
  assertRequires(first)
  // pnpm's prune agrees: nothing more to remove.
  const pnpmPruned = await pnpmExactly(first, ['store', 'prune'])
  assert.equal(pnpmPruned.code, 0, pnpmPruned.stderr)
  assert.deepEqual(slots(first), made)
})

test('a build that would run in a slot is refused, and the project is left as it was', async () => {
  const project = makeProject(registry, { name: 'b', version: '1.0.0', dependencies: { builder: '1.0.0', leaf: '1.0.0' } }, {
    'pnpm-workspace.yaml': 'enableGlobalVirtualStore: true\nallowBuilds:\n  builder: true\n',
  })
  const result = await lode(project, ['install'])
  assert.notEqual(result.code, 0)
  assert.match(result.stderr + result.stdout, /ERR_LODE_GVS_BUILD_UNSUPPORTED/)
  assert.match(result.stderr + result.stdout, /builder@1\.0\.0/)
  assert.ok(!fs.existsSync(path.join(project.dir, 'pnpm-lock.yaml')), 'no lockfile')
  const left = fs.existsSync(path.join(project.dir, 'node_modules')) ? fs.readdirSync(path.join(project.dir, 'node_modules')) : []
  assert.deepEqual(left.filter((entry) => !entry.startsWith('.lode-install')), [], 'no link, state or lockfile in node_modules')
  assert.ok(!slots(project).some((slot) => slot.startsWith(path.join('@', 'builder'))), 'no unbuilt slot is left')
})

test('settings: virtualStoreType wins over enableGlobalVirtualStore, another value is refused, nodeLinker: hoisted ignores the global virtual store', async () => {
  const typed = makeProject(registry, { name: 't', version: '1.0.0', dependencies: { leaf: '1.0.0' } }, {
    'pnpm-workspace.yaml': 'enableGlobalVirtualStore: false\nvirtualStoreType: global\n',
  })
  assert.equal((await lode(typed, ['install'])).code, 0)
  assert.match(fs.readlinkSync(path.join(typed.dir, 'node_modules', 'leaf')), /store\/v11\/links\/@\/leaf\/1\.0\.0\/[0-9a-f]{64}\/node_modules\/leaf$/)
  const bad = makeProject(registry, { name: 't', version: '1.0.0', dependencies: { leaf: '1.0.0' } }, { 'pnpm-workspace.yaml': 'virtualStoreType: shared\n' })
  const refused = await lode(bad, ['install'])
  assert.notEqual(refused.code, 0)
  assert.match(refused.stderr + refused.stdout, /ERR_LODE_INVALID_SETTING[\s\S]*virtualStoreType[\s\S]*"shared"/)
  assert.ok(!fs.existsSync(path.join(bad.dir, 'node_modules')))
  const hoisted = makeProject(registry, { name: 't', version: '1.0.0', dependencies: { leaf: '1.0.0' } }, {
    'pnpm-workspace.yaml': 'enableGlobalVirtualStore: true\nnodeLinker: hoisted\n',
  })
  assert.equal((await lode(hoisted, ['install'])).code, 0)
  assert.ok(fs.lstatSync(path.join(hoisted.dir, 'node_modules', 'leaf')).isDirectory())
  assert.deepEqual(slots(hoisted), [])
  // Turned on over a node_modules laid out without it: laid out anew only when asked to (pnpm asks).
  const toggled = makeProject(registry, { name: 't', version: '1.0.0', dependencies: { leaf: '1.0.0' } })
  assert.equal((await lode(toggled, ['install'])).code, 0)
  fs.writeFileSync(path.join(toggled.dir, 'pnpm-workspace.yaml'), 'enableGlobalVirtualStore: true\n')
  const asked = await lode(toggled, ['install'])
  assert.notEqual(asked.code, 0)
  assert.match(asked.stderr + asked.stdout, /ERR_LODE_ABORTED_REMOVE_MODULES_DIR/)
  assert.equal((await lode(toggled, ['install'], { CI: 'true' })).code, 0)
  assert.ok(fs.realpathSync(path.join(toggled.dir, 'node_modules', 'leaf')).startsWith(fs.realpathSync(linksDir(toggled))))
  assert.ok(!fs.existsSync(path.join(toggled.dir, 'node_modules', '.pnpm', 'leaf@1.0.0')))
})

test('a workspace: workspace: dependencies stay links to the projects, each project links its own into the slots, as pnpm 11 lays it out', async () => {
  const files = {
    'pnpm-workspace.yaml': 'packages:\n  - packages/*\nenableGlobalVirtualStore: true\n',
    'packages/a/package.json': JSON.stringify({ name: 'a', version: '1.0.0', dependencies: { b: 'workspace:*', leaf: '1.0.0' } }),
    'packages/b/package.json': JSON.stringify({ name: 'b', version: '1.0.0', dependencies: { mid: '1.0.0' } }),
  }
  const lodeProject = makeProject(registry, { name: 'root', version: '1.0.0', private: true }, files)
  const result = await lode(lodeProject, ['install'])
  assert.equal(result.code, 0, result.stderr)
  assert.equal(fs.readlinkSync(path.join(lodeProject.dir, 'packages', 'a', 'node_modules', 'b')), path.join('..', '..', 'b'))
  assert.equal(createRequire(path.join(lodeProject.dir, 'packages', 'b', 'index.js'))('mid'), 'mid:util:1.0.0')
  const pnpmProject = sibling(lodeProject, 'pnpm-workspace', {})
  for (const [file, content] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(pnpmProject.dir, file)), { recursive: true })
    fs.writeFileSync(path.join(pnpmProject.dir, file), content)
  }
  const made = slots(lodeProject)
  await pnpm(pnpmProject, ['install'])
  assert.deepEqual(slots(lodeProject), made)
  for (const dir of ['.', path.join('packages', 'a'), path.join('packages', 'b')]) {
    const at = (project: Project): Project => ({ ...project, dir: path.join(project.dir, dir) })
    assert.deepEqual(links(at(lodeProject)), links(at(pnpmProject)), dir)
  }
  assert.deepEqual(modulesYaml(lodeProject), modulesYaml(pnpmProject))
})
