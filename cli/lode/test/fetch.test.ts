import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'
import { after, before, test } from 'node:test'

import { TestRegistry } from '@lode/__utils__.test-fixtures'

import { lode, makeProject } from './helpers.js'

// `lode fetch`: the lockfile's packages into the store, from the lockfile alone; an offline install follows with no request.

let registry: TestRegistry
before(async () => {
  registry = await TestRegistry.start([
    { name: 'leaf', version: '1.0.0', files: { 'index.js': 'module.exports = "leaf"' } },
    { name: 'top', version: '1.0.0', dependencies: { leaf: '^1.0.0' }, files: { 'index.js': 'module.exports = "top+" + require("leaf")' } },
    { name: 'devtool', version: '2.0.0', files: { 'index.js': 'module.exports = "devtool"' } },
  ])
})
after(async () => { await registry.close() })

const MANIFEST = { name: 'f', version: '1.0.0', dependencies: { top: '1.0.0' }, devDependencies: { devtool: '2.0.0' } }

test('lode fetch fills the store from pnpm-lock.yaml alone; then an offline frozen install makes no request', async () => {
  const source = makeProject(registry, MANIFEST)
  assert.equal((await lode(source, ['install', '--lockfile-only'])).code, 0)
  // A fresh machine: the lockfile only (as in a container layer), its own store.
  const project = makeProject(registry, { name: 'ignored-by-fetch' }, { 'pnpm-lock.yaml': fs.readFileSync(path.join(source.dir, 'pnpm-lock.yaml'), 'utf8') })
  const before = registry.tarballRequests.length
  const fetched = await lode(project, ['fetch'])
  assert.equal(fetched.code, 0, fetched.stderr)
  assert.match(fetched.stdout, /Progress: resolved 3, reused 0, downloaded 3, added 0, done/)
  assert.equal(registry.tarballRequests.length - before, 3)
  assert.deepEqual(fs.readdirSync(project.dir).sort(), ['package.json', 'pnpm-lock.yaml'], 'nothing linked')
  const again = await lode(project, ['fetch'])
  assert.match(again.stdout, /Progress: resolved 3, reused 3, downloaded 0, added 0, done/)
  fs.writeFileSync(path.join(project.dir, 'package.json'), JSON.stringify(MANIFEST))
  const requestsBefore = registry.requests.length
  const offline = await lode(project, ['install', '--offline', '--frozen-lockfile'])
  assert.equal(offline.code, 0, offline.stderr)
  assert.equal(registry.requests.length, requestsBefore, 'the offline install asked the registry nothing')
  assert.equal(fs.readFileSync(path.join(project.dir, 'node_modules', 'top', 'index.js'), 'utf8'), 'module.exports = "top+" + require("leaf")')
})

test('lode fetch --prod leaves the dev dependencies out; without pnpm-lock.yaml it is ERR_LODE_NO_LOCKFILE', async () => {
  const source = makeProject(registry, MANIFEST)
  assert.equal((await lode(source, ['install', '--lockfile-only'])).code, 0)
  const project = makeProject(registry, { name: 'p' }, { 'pnpm-lock.yaml': fs.readFileSync(path.join(source.dir, 'pnpm-lock.yaml'), 'utf8') })
  const before = registry.tarballRequests.length
  const prod = await lode(project, ['fetch', '--prod'])
  assert.equal(prod.code, 0, prod.stderr)
  assert.match(prod.stdout, /Progress: resolved 2, reused 0, downloaded 2,/)
  assert.equal(registry.tarballRequests.slice(before).some((url) => url.includes('devtool')), false)
  const empty = makeProject(registry, { name: 'e' })
  const refused = await lode(empty, ['fetch'])
  assert.equal(refused.code, 1)
  assert.match(refused.stderr, /^\[ERR_LODE_NO_LOCKFILE\] There is no pnpm-lock\.yaml in .*: lode fetch installs into the store from the lockfile alone\./)
  assert.deepEqual(fs.readdirSync(empty.dir), ['package.json'])
})
