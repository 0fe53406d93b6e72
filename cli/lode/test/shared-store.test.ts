import assert from 'node:assert/strict'
import { createHash } from 'node:crypto'
import fs from 'node:fs'
import { createRequire } from 'node:module'
import path from 'node:path'
import { after, before, test } from 'node:test'

import { TestRegistry } from '@lode/__utils__.test-fixtures'

import { defaultStoreDir, lode, lodeExactly, makeProject, pnpm, pnpmExactly } from './helpers.js'
import type { Project } from './helpers.js'

// lode and pnpm 11 share pnpm's default store: each registers its installs there as the other
// does, and each one's `store prune` keeps what the other's projects use.

let registry: TestRegistry
before(async () => {
  registry = await TestRegistry.start([
    // No index.js of its own: the fixture's tarball has one, and a second entry of a name leaves a store file no row names.
    { name: 'leaf', version: '1.0.0', files: { 'README.md': '# leaf\n' } },
    { name: 'broken', version: '1.0.0' },
  ])
})
after(async () => { await registry.close() })

const MANIFEST = { name: 'shared', version: '1.0.0', dependencies: { leaf: '1.0.0' } }

const storeFiles = (project: Project): string[] =>
  fs.readdirSync(path.join(defaultStoreDir(project), 'v11', 'files'), { recursive: true }).map(String).filter((file) => file.length > 3).sort()

/** node_modules replaced by a copy of itself: nothing in it links to the store any more (nlink 1), as after a copy or a move across disks. */
function copyNodeModules (project: Project): void {
  const modulesDir = path.join(project.dir, 'node_modules')
  fs.cpSync(modulesDir, `${modulesDir}.copy`, { recursive: true, verbatimSymlinks: true })
  fs.rmSync(modulesDir, { recursive: true })
  fs.renameSync(`${modulesDir}.copy`, modulesDir)
  assert.equal(fs.statSync(path.join(modulesDir, 'leaf', 'index.js')).nlink, 1)
}

const requireLeaf = (project: Project): unknown => createRequire(path.join(project.dir, 'index.js'))('leaf/package.json')

test('lode registers an install in <store>/v11/projects as pnpm 11 does: pnpm store prune keeps the files of a project lode installed by copy', async () => {
  const project = makeProject(registry, MANIFEST)
  assert.equal((await lode(project, ['install'])).code, 0)
  const registry_ = path.join(defaultStoreDir(project), 'v11', 'projects')
  const name = createHash('sha256').update(fs.realpathSync(project.dir)).digest('hex').slice(0, 32)
  assert.deepEqual(fs.readdirSync(registry_), [name])
  assert.equal(fs.readlinkSync(path.join(registry_, name)), fs.realpathSync(project.dir))
  const files = storeFiles(project)
  copyNodeModules(project)
  const pruned = await pnpmExactly(project, ['store', 'prune'])
  assert.equal(pruned.code, 0, pruned.stderr)
  assert.match(pruned.stderr, /Removed 0 files \(0 B\)\nRemoved 0 packages\n$/)
  assert.deepEqual(storeFiles(project), files)
  assert.equal((requireLeaf(project) as { name: string }).name, 'leaf')
  // pnpm registers the same project under the same name: one entry still.
  await pnpm(project, ['install'])
  assert.deepEqual(fs.readdirSync(registry_), [name])
})

test('lode store prune keeps the files of a project pnpm 11 installed whose node_modules was copied; registrations of projects gone are dropped', async () => {
  const project = makeProject(registry, MANIFEST)
  await pnpm(project, ['install'])
  const files = storeFiles(project)
  copyNodeModules(project)
  const kept = await lodeExactly(project, ['store', 'prune'])
  assert.equal(kept.code, 0, kept.stderr)
  assert.match(kept.stderr, /Removed 0 files \(0 B\)\nRemoved 0 packages\n$/)
  assert.deepEqual(storeFiles(project), files)
  assert.equal((requireLeaf(project) as { name: string }).name, 'leaf')
  // The project gone: its registration goes, then its files (nothing links to them).
  fs.renameSync(project.dir, `${project.dir}.gone`)
  const pruned = await lodeExactly({ ...project, dir: path.dirname(project.dir) }, ['store', 'prune'])
  assert.equal(pruned.code, 0, pruned.stderr)
  assert.ok(pruned.stderr.includes(`Removed stale project registry entry: ${fs.realpathSync(path.dirname(project.dir))}${path.sep}project\n`), pruned.stderr)
  assert.match(pruned.stderr, /Removed [1-9]\d* files? \(/)
  assert.deepEqual(fs.readdirSync(path.join(defaultStoreDir(project), 'v11', 'projects')), [])
})

test('lode store prune stops, removing nothing, when a registered project\'s installed lockfile cannot be read', async () => {
  const project = makeProject(registry, MANIFEST)
  assert.equal((await lode(project, ['install'])).code, 0)
  const files = storeFiles(project)
  copyNodeModules(project)
  const installed = path.join(project.dir, 'node_modules', '.pnpm', 'lock.yaml')
  fs.writeFileSync(installed, 'packages: [not, a, map\n')
  const cacheDir = path.join(project.home, '.cache', 'lode')
  const cached = fs.readdirSync(cacheDir).sort()
  assert.ok(cached.some((entry) => entry.startsWith('lode-metadata')), cached.join(' '))
  const refused = await lodeExactly(project, ['store', 'prune'])
  assert.equal(refused.code, 1)
  assert.match(refused.stderr, /^\[ERR_LODE_STORE_DIR_PRUNE_IN_USE_FILES\] Failed to read the store files that registered projects use: .*project: /m)
  assert.match(refused.stderr, /Install that project again, or remove its node_modules, then prune again\./)
  assert.deepEqual(storeFiles(project), files)
  assert.deepEqual(fs.readdirSync(cacheDir).sort(), cached, 'the metadata cache stays')
})

test('a failed install registers nothing', async () => {
  const project = makeProject(registry, { name: 'fails', version: '1.0.0', dependencies: { broken: '1.0.0' } })
  registry.injectFaults('/broken/-/broken-1.0.0.tgz', Array.from({ length: 10 }, () => ({ status: 404 })))
  const failed = await lode(project, ['install'])
  assert.equal(failed.code, 1, failed.stdout)
  assert.equal(fs.existsSync(path.join(defaultStoreDir(project), 'v11', 'projects')), false)
})

test('lode\'s former default store, when still there, is named once per install as no longer used; not when storeDir is set', async () => {
  const project = makeProject(registry, MANIFEST)
  const former = path.join(project.home, '.local', 'share', 'lode', 'store')
  fs.mkdirSync(path.join(former, 'v11'), { recursive: true })
  const warned = await lode(project, ['install'])
  assert.equal(warned.code, 0, warned.stderr)
  const expected = `The store at ${former} is no longer used: lode now shares pnpm's store (${path.join(defaultStoreDir(project), 'v11')}). Remove ${former} to free its space.`
  assert.equal(warned.stdout.split(expected).length - 1, 1, warned.stdout)
  fs.rmSync(path.join(project.dir, 'node_modules'), { recursive: true })
  const set = await lode(project, ['install', '--store-dir', path.join(project.home, 'own-store')])
  assert.equal(set.code, 0, set.stderr)
  assert.doesNotMatch(set.stdout, /no longer used/)
})

test('a store directory that cannot be created is a coded error naming it', async () => {
  const project = makeProject(registry, MANIFEST)
  const file = path.join(project.home, 'a-file')
  fs.writeFileSync(file, '')
  const result = await lode(project, ['install', '--store-dir', path.join(file, 'store')])
  assert.equal(result.code, 1)
  assert.match(result.stderr, /^\[ERR_LODE_[A-Z_]+\] .*a-file/m)
})

test('a node_modules linked from another store is laid out anew from this one, refused without CI or confirmModulesPurge: false, as with pnpm 11', async () => {
  const pnpmProject = makeProject(registry, MANIFEST)
  const lodeProject = makeProject(registry, MANIFEST)
  const storeA = ['--store-dir', '../store-a']
  const storeB = ['--store-dir', '../store-b']
  assert.equal((await pnpm(pnpmProject, ['install', ...storeA])).code, 0)
  assert.equal((await lode(lodeProject, ['install', ...storeA])).code, 0)
  const pnpmRefused = await pnpm(pnpmProject, ['install', ...storeB], true)
  assert.match(pnpmRefused.stdout, /ERR_PNPM_ABORTED_REMOVE_MODULES_DIR_NO_TTY/)
  const modulesYaml = path.join(lodeProject.dir, 'node_modules', '.modules.yaml')
  const recorded = fs.readFileSync(modulesYaml, 'utf8')
  const refused = await lode(lodeProject, ['install', ...storeB])
  assert.equal(refused.code, 1)
  assert.match(refused.stderr, /^\[ERR_LODE_ABORTED_REMOVE_MODULES_DIR\] .*node_modules was laid out with a different storeDir/)
  assert.equal(fs.readFileSync(modulesYaml, 'utf8'), recorded)
  assert.ok(!fs.existsSync(path.join(lodeProject.dir, '..', 'store-b')), 'nothing was put in the other store')
  // In CI both remove node_modules and link it anew from the other store.
  const results = [await pnpm(pnpmProject, ['install', ...storeB], false, { CI: 'true' }), await lode(lodeProject, ['install', ...storeB], { CI: 'true' })]
  for (const [i, project] of [pnpmProject, lodeProject].entries()) {
    assert.equal(results[i]!.code, 0, results[i]!.stderr)
    const storeDir = (JSON.parse(fs.readFileSync(path.join(project.dir, 'node_modules', '.modules.yaml'), 'utf8')) as { storeDir: string }).storeDir
    assert.equal(storeDir, path.join(project.dir, '..', 'store-b', 'v11'))
    const leaf = fs.statSync(path.join(project.dir, 'node_modules', 'leaf', 'README.md'))
    const inStoreB = fs.readdirSync(path.join(project.dir, '..', 'store-b', 'v11', 'files'), { recursive: true, withFileTypes: true })
      .filter((entry) => entry.isFile()).map((entry) => fs.statSync(path.join(entry.parentPath, entry.name)).ino)
    assert.ok(inStoreB.includes(leaf.ino), 'linked from the other store')
  }
})
