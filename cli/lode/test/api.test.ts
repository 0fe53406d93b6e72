import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { after, before, test } from 'node:test'
import { promisify } from 'node:util'

import { TestRegistry } from '@lode/__utils__.test-fixtures'
import type { PackageSpec } from '@lode/__utils__.test-fixtures'
import { add, getConfig, install, remove, update } from '@lode/pkg-manager.core'

import { makeProject } from './helpers.js'

const run = promisify(execFile)
const PACKAGES: PackageSpec[] = [
  ...Array.from({ length: 60 }, (_, i) => ({ name: `api-${i}`, version: '1.0.0', files: { 'index.js': `module.exports = ${i}` } })),
  { name: 'api-0', version: '1.1.0' },
  { name: 'api-0', version: '2.0.0' },
]

let registry: TestRegistry
before(async () => { registry = await TestRegistry.start(PACKAGES) })
after(async () => { await registry.close() })

const manifest = { name: 'api', version: '1.0.0', dependencies: Object.fromEntries(PACKAGES.slice(0, 60).map((p) => [p.name, p.version])) }

test('the API example in pkg-manager/core/README.md runs as written', async () => {
  const project = makeProject(registry, manifest)
  const readme = fs.readFileSync(path.join(import.meta.dirname, '..', '..', '..', '..', 'pkg-manager', 'core', 'README.md'), 'utf8')
  const example = /```js\n([\s\S]*?)```/.exec(readme)![1]!
  // Beside the tests, so that '@lode/pkg-manager.core' resolves as it does for a dependent package.
  const script = path.join(import.meta.dirname, `readme-example-${process.pid}.mjs`)
  fs.writeFileSync(script, example)
  try {
    const { stdout } = await run(process.execPath, [script], { cwd: project.dir, env: { PATH: process.env['PATH'] ?? '', HOME: project.home, XDG_CACHE_HOME: path.join(project.home, '.cache'), XDG_DATA_HOME: path.join(project.home, '.local', 'share') } })
    assert.match(stdout, /^resolved 60, added 60$/m)
    const last = JSON.parse(stdout.trim().split('\n').at(-1)!) as { added: number, downloaded: number, changes: unknown[], timings: { resolveMs: number, linkMs: number, totalMs: number } }
    assert.equal(last.added, 60)
    assert.equal(last.changes.length, 60)
    assert.ok(
      last.timings.totalMs + 1 >= last.timings.resolveMs + last.timings.linkMs && last.timings.resolveMs > 0 && last.timings.linkMs > 0,
      JSON.stringify(last.timings)
    )
  } finally {
    fs.rmSync(script, { force: true })
  }
})

test('an install cancelled through its AbortSignal rejects, and the next install completes the tree', async () => {
  const project = makeProject(registry, manifest)
  const env = { HOME: project.home, XDG_CACHE_HOME: path.join(project.home, '.cache'), XDG_DATA_HOME: path.join(project.home, '.local', 'share') }
  const config = getConfig({ dir: project.dir, env, overrides: {}, lodeVersion: '0.0.0-test' })
  const controller = new AbortController()
  let addedWhenAborted = -1
  await assert.rejects(install({
    config,
    now: Date.now,
    signal: controller.signal,
    onEvent: (event) => {
      if (event.type === 'progress' && event.downloaded + event.reused >= 5 && !controller.signal.aborted) {
        addedWhenAborted = event.added
        controller.abort()
      }
    },
  }), { name: 'AbortError' })
  assert.ok(addedWhenAborted < 60, 'cancelled before the end')
  const result = await install({ config, now: Date.now })
  assert.equal(result.packages, 60)
  for (let i = 0; i < 60; i++) {
    assert.equal(fs.readFileSync(path.join(project.dir, 'node_modules', `api-${i}`, 'index.js'), 'utf8'), `module.exports = ${i}`)
  }
})

test('add, update and remove over several workspace projects through the API', async () => {
  const project = makeProject(registry, { name: 'root', private: true }, {
    'pnpm-workspace.yaml': 'packages:\n  - packages/*\n',
    'packages/a/package.json': JSON.stringify({ name: 'a', version: '1.0.0' }),
    'packages/b/package.json': JSON.stringify({ name: 'b', version: '1.0.0' }),
  })
  const env = { HOME: project.home, XDG_CACHE_HOME: path.join(project.home, '.cache'), XDG_DATA_HOME: path.join(project.home, '.local', 'share') }
  const config = getConfig({ dir: project.dir, env, overrides: {}, lodeVersion: '0.0.0-test' })
  const projectDirs = ['packages/a', 'packages/b']
  const saved = (dir: string): Record<string, unknown> => JSON.parse(fs.readFileSync(path.join(project.dir, dir, 'package.json'), 'utf8')) as Record<string, unknown>
  await add({ config, now: Date.now, projectDirs, dependencies: ['api-0@^1.0.0', 'api-1'] })
  assert.deepEqual(saved('packages/b')['dependencies'], { 'api-0': '^1.1.0', 'api-1': '^1.0.0' })
  await update({ config, now: Date.now, projectDir: 'packages/a', dependencies: ['api-0'], latest: true })
  assert.deepEqual(saved('packages/a')['dependencies'], { 'api-0': '^2.0.0', 'api-1': '^1.0.0' })
  assert.deepEqual(saved('packages/b')['dependencies'], { 'api-0': '^1.1.0', 'api-1': '^1.0.0' })
  await remove({ config, now: Date.now, projectDirs, dependencies: ['api-1'] })
  assert.deepEqual([saved('packages/a')['dependencies'], saved('packages/b')['dependencies']], [{ 'api-0': '^2.0.0' }, { 'api-0': '^1.1.0' }])
  assert.equal(fs.readFileSync(path.join(project.dir, 'packages', 'a', 'node_modules', 'api-0', 'package.json'), 'utf8').includes('"2.0.0"'), true)
  assert.equal(fs.existsSync(path.join(project.dir, 'packages', 'b', 'node_modules', 'api-1')), false)
})

test('install() with pnpm-lock.yaml deleted over an intact node_modules writes node_modules\' lockfile back and reports up to date', async () => {
  const project = makeProject(registry, manifest)
  const env = { HOME: project.home, XDG_CACHE_HOME: path.join(project.home, '.cache'), XDG_DATA_HOME: path.join(project.home, '.local', 'share') }
  const config = getConfig({ dir: project.dir, env, overrides: {}, lodeVersion: '0.0.0-test' })
  assert.equal((await install({ config, now: Date.now })).added, 60)
  const lockfile = path.join(project.dir, 'pnpm-lock.yaml')
  const text = fs.readFileSync(lockfile, 'utf8')
  fs.rmSync(lockfile)
  const result = await install({ config, now: Date.now })
  assert.equal(result.upToDate, true)
  assert.equal(result.lockfileChanged, true)
  assert.equal(fs.readFileSync(lockfile, 'utf8'), text)
  // Frozen, it is an error instead, as with pnpm.
  fs.rmSync(lockfile)
  await assert.rejects(install({ config, now: Date.now, frozenLockfile: true }), { code: 'ERR_LODE_NO_LOCKFILE' })
  assert.equal(fs.existsSync(lockfile), false)
})
