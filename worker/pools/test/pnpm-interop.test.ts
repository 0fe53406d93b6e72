import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import fs from 'node:fs'
import { createRequire } from 'node:module'
import path from 'node:path'
import { after, before, test } from 'node:test'
import { promisify } from 'node:util'

import { TestRegistry } from '@lode/__utils__.test-fixtures'
import { StoreIndex, storeIndexKey } from '@lode/store.index'
import { StorePool, addTarballToStore } from '@lode/worker.pools'

import { tempDir } from './helpers.js'

// Real pnpm 11 (a dev dependency, run on the Node running this test) against the test registry.
const pnpmBin = path.join(path.dirname(createRequire(import.meta.url).resolve('pnpm')), 'bin', 'pnpm.mjs')
const run = promisify(execFile)

let registry: TestRegistry
before(async () => {
  registry = await TestRegistry.start([
    { name: 'dep-a', version: '1.0.0', bin: { 'dep-a': 'cli.js' }, files: { 'cli.js': { content: '#!/usr/bin/env node\nconsole.log("dep-a cli")\n', mode: 0o755 } } },
    { name: 'dep-b', version: '1.0.0', dependencies: { 'dep-a': '^1.0.0' }, files: { 'lib/b.js': 'module.exports = require("dep-a")\n' } },
    { name: '@scope/dep-c', version: '2.0.0', files: { 'README.md': '# c\n', 'données.txt': 'unicode\n' } },
  ])
})
after(async () => { await registry.close() })

/** A project depending on the registry's packages, with pnpm's settings for an isolated run. */
function makeProject (): { dir: string, home: string } {
  const dir = tempDir('interop')
  const project = path.join(dir, 'project')
  fs.mkdirSync(project)
  fs.writeFileSync(path.join(project, 'package.json'), JSON.stringify({ name: 'interop', version: '1.0.0', dependencies: { 'dep-b': '1.0.0', '@scope/dep-c': '^2.0.0' } }))
  fs.writeFileSync(path.join(project, 'pnpm-workspace.yaml'), 'minimumReleaseAge: 0\ntrustLockfile: true\n')
  const home = path.join(dir, 'home')
  fs.mkdirSync(home)
  fs.writeFileSync(path.join(home, '.npmrc'), `registry=${registry.url}\n`)
  return { dir: project, home }
}

async function pnpm (project: { dir: string, home: string }, args: string[]): Promise<void> {
  // Only what pnpm needs: no npm_config_* of the test runner, no real home, cache or store.
  const env = {
    PATH: process.env['PATH'] ?? '',
    HOME: project.home,
    XDG_CONFIG_HOME: path.join(project.home, '.config'),
    XDG_CACHE_HOME: path.join(project.home, '.cache'),
    XDG_DATA_HOME: path.join(project.home, '.local', 'share'),
    XDG_STATE_HOME: path.join(project.home, '.local', 'state'),
    CI: 'true',
  }
  try {
    await run(process.execPath, [pnpmBin, ...args, '--reporter=append-only'], { cwd: project.dir, env })
  } catch (err) {
    const { stdout, stderr } = err as { stdout: string, stderr: string }
    assert.fail(`pnpm ${args.join(' ')} failed:\n${stdout}\n${stderr}`)
  }
}

/** lode downloads (real HTTP from the test registry) and imports every package into `storeDir`. */
async function lodeImportAll (storeDir: string): Promise<Map<string, string>> {
  const pool = new StorePool({ threads: 2 })
  const index = new StoreIndex(storeDir)
  const keys = new Map<string, string>()
  try {
    for (const versions of registry.packages.values()) {
      for (const pkg of versions) {
        const response = await fetch(pkg.tarballUrl)
        assert.equal(response.status, 200)
        const pkgId = `${pkg.name}@${pkg.version}`
        await addTarballToStore({
          pool,
          index,
          storeDir,
          pkgId,
          integrity: pkg.integrity,
          tarball: new Uint8Array(await response.arrayBuffer()),
        })
        keys.set(pkgId, storeIndexKey(pkg.integrity, pkgId))
      }
    }
  } finally {
    index.close()
    await pool.close()
  }
  return keys
}

test('pnpm 11 installs offline from a store that lode populated, downloading no tarball', async () => {
  const project = makeProject()
  await pnpm(project, ['install', '--lockfile-only'])
  assert.ok(fs.existsSync(path.join(project.dir, 'pnpm-lock.yaml')))

  const storeDir = path.join(path.dirname(project.dir), 'lode-store')
  await lodeImportAll(storeDir)
  const tarballsBefore = registry.tarballRequests.length

  await pnpm(project, ['install', '--frozen-lockfile', '--offline', `--store-dir=${storeDir}`])
  assert.equal(registry.tarballRequests.length, tarballsBefore, 'pnpm downloaded no tarball')

  const loaded = await run(process.execPath, ['-e', `
    const b = require('dep-b'); const c = require('@scope/dep-c')
    console.log(JSON.stringify([b, c, require('dep-b/lib/b.js')]))
  `], { cwd: project.dir })
  assert.deepEqual(JSON.parse(loaded.stdout), [
    { name: 'dep-b', version: '1.0.0' },
    { name: '@scope/dep-c', version: '2.0.0' },
    { name: 'dep-a', version: '1.0.0' },
  ])
  const depC = path.join(project.dir, 'node_modules', '@scope', 'dep-c')
  assert.equal(fs.readFileSync(path.join(depC, 'données.txt'), 'utf8'), 'unicode\n')
  // Files are hardlinked from lode's CAS, not copies pnpm made itself.
  assert.ok(fs.statSync(path.join(depC, 'README.md')).nlink > 1)
})

test('lode reads the rows pnpm 11 writes, and they equal the rows lode writes for the same tarballs', async () => {
  const project = makeProject()
  const pnpmStore = path.join(path.dirname(project.dir), 'pnpm-store')
  await pnpm(project, ['install', `--store-dir=${pnpmStore}`])
  const lodeStore = path.join(path.dirname(project.dir), 'lode-store')
  const keys = await lodeImportAll(lodeStore)

  const pnpmIndex = new StoreIndex(pnpmStore)
  const lodeIndex = new StoreIndex(lodeStore)
  try {
    const pnpmRows = pnpmIndex.getMany(keys.values())
    assert.equal(pnpmRows.size, keys.size, 'pnpm wrote a row under the key lode computes for each package')
    for (const [pkgId, key] of keys) {
      const theirs = pnpmRows.get(key)!
      const ours = lodeIndex.get(key)!
      assert.deepEqual(Object.keys(ours), Object.keys(theirs), `${pkgId}: same fields in the same order`)
      const withoutTimes = (row: typeof ours): unknown => ({
        ...row,
        files: [...row.files].map(([file, { checkedAt: _, ...info }]) => [file, info]).sort(),
      })
      assert.deepEqual(withoutTimes(ours), withoutTimes(theirs), `${pkgId}: same row`)
      for (const info of theirs.files.values()) assert.equal(typeof info.checkedAt, 'number')
    }
  } finally {
    pnpmIndex.close()
    lodeIndex.close()
  }
})
