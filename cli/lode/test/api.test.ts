import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { after, before, test } from 'node:test'
import { promisify } from 'node:util'

import { TestRegistry } from '@lode/__utils__.test-fixtures'
import type { PackageSpec } from '@lode/__utils__.test-fixtures'
import { getConfig, install } from '@lode/pkg-manager.core'

import { makeProject } from './helpers.js'

const run = promisify(execFile)
const PACKAGES: PackageSpec[] = Array.from({ length: 60 }, (_, i) => ({ name: `api-${i}`, version: '1.0.0', files: { 'index.js': `module.exports = ${i}` } }))

let registry: TestRegistry
before(async () => { registry = await TestRegistry.start(PACKAGES) })
after(async () => { await registry.close() })

const manifest = { name: 'api', version: '1.0.0', dependencies: Object.fromEntries(PACKAGES.map((p) => [p.name, p.version])) }

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
    assert.ok(last.timings.totalMs + 1 >= last.timings.resolveMs + last.timings.linkMs && last.timings.resolveMs > 0 && last.timings.linkMs > 0, JSON.stringify(last.timings))
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
