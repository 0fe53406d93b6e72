import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'
import { test } from 'node:test'

import { quickKey, quickUpToDate, watchedDirs } from '../src/quick-check.js'
import { sandbox, writeState } from './helpers.js'

test('quickKey changes with every input it names: lode\'s version, a flag, a settings variable, a settings file, a variable .npmrc reads', () => {
  const box = sandbox()
  try {
    const key = (over: { env?: Record<string, string>, flags?: Record<string, unknown>, version?: string } = {}): string =>
      quickKey({ cwd: box.dir, env: { ...box.env, ...over.env }, flags: over.flags ?? {}, version: over.version ?? '0.0.0' }).key
    const base = key()
    assert.equal(key(), base, 'the same inputs, the same key')
    assert.equal(key({ flags: { prod: undefined } }), base, 'a flag not given is no input')
    assert.notEqual(key({ version: '0.0.1' }), base)
    assert.notEqual(key({ flags: { prod: true } }), base)
    assert.notEqual(key({ env: { npm_config_registry: 'http://127.0.0.1:1/' } }), base)
    assert.equal(key({ env: { UNRELATED: '1' } }), base, 'a variable that is no setting is no input')
    fs.writeFileSync(path.join(box.dir, '.npmrc'), '//127.0.0.1:1/:_authToken=${TOKEN}\n')
    const withNpmrc = key()
    assert.notEqual(withNpmrc, base)
    assert.notEqual(key({ env: { TOKEN: 'secret' } }), withNpmrc, 'a variable the .npmrc reads is an input')
    fs.writeFileSync(path.join(box.dir, 'pnpm-workspace.yaml'), 'packages: []\n')
    assert.notEqual(key(), withNpmrc)
    // From a project below the workspace root, the key is the root's.
    fs.mkdirSync(path.join(box.dir, 'packages', 'a'), { recursive: true })
    const below = quickKey({ cwd: path.join(box.dir, 'packages', 'a'), env: box.env, flags: {}, version: '0.0.0' })
    assert.equal(below.dir, box.dir)
    assert.equal(below.key, key())
  } finally {
    fs.rmSync(box.root, { recursive: true, force: true })
  }
})

test('quickUpToDate: up to date after a recorded install; touched but unchanged stays so (and records the new stamps); a changed file, another key or an install under way is not', async () => {
  const box = sandbox()
  try {
    await writeState(box)
    assert.equal(quickUpToDate(box.quick), 0)
    assert.equal(quickUpToDate({ ...box.quick, key: '0'.repeat(16) }), undefined)
    // Rewritten with the same content: the stamps moved, the digest did not.
    const manifest = path.join(box.dir, 'package.json')
    const stateFile = path.join(box.dir, 'node_modules', '.lode-state.json')
    const before = fs.readFileSync(stateFile, 'utf8')
    fs.writeFileSync(manifest, fs.readFileSync(manifest))
    const later = new Date(Date.now() + 5000)
    fs.utimesSync(manifest, later, later)
    assert.equal(quickUpToDate(box.quick), 0)
    assert.notEqual(fs.readFileSync(stateFile, 'utf8'), before, 'the new stamps are recorded')
    fs.writeFileSync(path.join(box.dir, 'node_modules', '.lode-installing'), '')
    assert.equal(quickUpToDate(box.quick), undefined, 'an install under way')
    fs.rmSync(path.join(box.dir, 'node_modules', '.lode-installing'))
    assert.equal(quickUpToDate(box.quick), 0)
    fs.writeFileSync(manifest, JSON.stringify({ name: 'p', version: '1.0.1' }))
    assert.equal(quickUpToDate(box.quick), undefined, 'package.json changed')
  } finally {
    fs.rmSync(box.root, { recursive: true, force: true })
  }
})

test('quickUpToDate: a deleted pnpm-lock.yaml is written back from node_modules\' own when not frozen; frozen, it is not up to date', async () => {
  const box = sandbox()
  try {
    const lockfile = path.join(box.dir, 'pnpm-lock.yaml')
    fs.copyFileSync(lockfile, path.join(box.dir, 'node_modules', '.pnpm', 'lock.yaml'))
    await writeState(box)
    const text = fs.readFileSync(lockfile, 'utf8')
    fs.rmSync(lockfile)
    assert.equal(quickUpToDate(box.quick, { frozenLockfile: true }), undefined)
    assert.equal(fs.existsSync(lockfile), false, 'frozen: nothing written')
    assert.equal(quickUpToDate(box.quick, { frozenLockfile: false }), 0)
    assert.equal(fs.readFileSync(lockfile, 'utf8'), text)
  } finally {
    fs.rmSync(box.root, { recursive: true, force: true })
  }
})

test('watchedDirs: each pattern\'s fixed prefix and the directories down to its depth (all under **), never node_modules or hidden ones', () => {
  const box = sandbox()
  try {
    for (const dir of ['packages/a/src', 'packages/b', 'packages/.hidden', 'packages/node_modules/x', 'apps/web/nested/deep', 'tools']) {
      fs.mkdirSync(path.join(box.dir, dir), { recursive: true })
    }
    const names = (patterns: string[]): string[] => watchedDirs(box.dir, patterns).map(([dir]) => dir)
    assert.deepEqual(names(['packages/*']), ['packages', 'packages/a', 'packages/b'])
    assert.deepEqual(names(['apps/**']), ['apps', 'apps/web', 'apps/web/nested', 'apps/web/nested/deep'])
    assert.deepEqual(names(['tools', '!packages/*']), [], 'a plain path and an exclusion watch nothing')
    assert.ok(watchedDirs(box.dir, ['packages/*']).every(([, mtime]) => typeof mtime === 'number'))
  } finally {
    fs.rmSync(box.root, { recursive: true, force: true })
  }
})
