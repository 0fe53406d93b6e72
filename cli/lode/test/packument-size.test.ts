import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import fs from 'node:fs'
import path from 'node:path'
import { after, before, test } from 'node:test'

import { TestRegistry } from '@lode/__utils__.test-fixtures'

import { changesOutside, lode, makeProject, snapshot } from './helpers.js'

let registry: TestRegistry
before(async () => {
  registry = await TestRegistry.start([
    { name: 'a', version: '1.0.0' },
    // A few hundred bytes gzipped, 100 kB once inflated.
    { name: 'inflates-large', version: '1.0.0', manifest: { funding: `https://127.0.0.1/${'x'.repeat(100_000)}` } },
    // Random text: past the bound as sent.
    { name: 'sent-large', version: '1.0.0', manifest: { funding: `https://127.0.0.1/${randomBytes(60_000).toString('base64')}` } },
  ])
})
after(async () => { await registry.close() })

/** Every metadata cache entry under the project's home. */
function cachedPackuments (home: string): string[] {
  return fs.readdirSync(home, { recursive: true }).map(String).filter((file) => file.endsWith('.mpk')).map((file) => path.basename(file)).sort()
}

test('a packument past packumentMaxSize (as sent, or once inflated) fails the install with ERR_LODE_FETCH_TOO_LARGE naming the package and the setting; nothing is written to the project or the cache', async () => {
  for (const name of ['inflates-large', 'sent-large']) {
    const project = makeProject(registry, { name: 'p', version: '1.0.0', dependencies: { a: '1.0.0' } }, { 'pnpm-workspace.yaml': 'packumentMaxSize: 20000\n' })
    assert.equal((await lode(project, ['install'])).code, 0)
    fs.writeFileSync(path.join(project.dir, 'package.json'), JSON.stringify({ name: 'p', version: '1.0.0', dependencies: { a: '1.0.0', [name]: '1.0.0' } }))
    const before = snapshot(project.dir)
    const home = snapshot(project.home)
    const result = await lode(project, ['install'])
    assert.equal(result.code, 1, result.stdout)
    assert.ok(result.stderr.startsWith(`[ERR_LODE_FETCH_TOO_LARGE] GET ${registry.url}${name} answered with more than 20000 bytes while fetching ${name}.`), result.stderr)
    assert.match(result.stderr, /raise packumentMaxSize in pnpm-workspace\.yaml/)
    assert.deepEqual(changesOutside(before, snapshot(project.dir), []), [], 'the project is as it was')
    assert.deepEqual(changesOutside(home, snapshot(project.home), []), [], 'the store and the cache are as they were')
    assert.deepEqual(cachedPackuments(project.home), ['a.mpk'])
    // Raised, the same install goes through.
    fs.writeFileSync(path.join(project.dir, 'pnpm-workspace.yaml'), 'packumentMaxSize: 1000000\n')
    assert.equal((await lode(project, ['install'])).code, 0)
    assert.deepEqual(cachedPackuments(project.home), ['a.mpk', `${name}.mpk`])
    assert.ok(fs.existsSync(path.join(project.dir, 'node_modules', name, 'package.json')))
  }
})
