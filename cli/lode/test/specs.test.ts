import assert from 'node:assert/strict'
import { createRequire } from 'node:module'
import path from 'node:path'
import { after, before, test } from 'node:test'

import { TestRegistry } from '@lode/__utils__.test-fixtures'

import { cloneProject, lode, makeProject, pnpm, readLockfileText, virtualStore } from './helpers.js'

let registry: TestRegistry
before(async () => {
  registry = await TestRegistry.start([
    { name: '@nuxt/cli-nightly', version: '4.0.0-20260817-085717-0bb4e52' },
    { name: '@nuxt/cli-nightly', version: '4.0.0-20260901-101010-1a2b3c4', dependencies: { '@scope/helper': '1.0.0-rc.2' } },
    { name: '@nuxt/cli-nightly', version: '4.1.0-20260902-000000-fffffff' },
    { name: '@scope/helper', version: '1.0.0-rc.2' },
  ])
})
after(async () => { await registry.close() })

test('an npm: alias of a scoped package with a prerelease range installs as with pnpm 11 (not taken for a git dependency)', async () => {
  const manifest = { name: 'alias-prerelease', version: '1.0.0', dependencies: { '@nuxt/cli': 'npm:@nuxt/cli-nightly@^4.0.0-20260817-085717-0bb4e52', helper: 'npm:@scope/helper@1.0.0-rc.2' } }
  const pnpmProject = makeProject(registry, manifest)
  const lodeProject = cloneProject(pnpmProject)
  await pnpm(pnpmProject, ['install'])
  const result = await lode(lodeProject, ['install'])
  assert.equal(result.code, 0, `lode failed:\n${result.stdout}\n${result.stderr}`)
  assert.equal(readLockfileText(lodeProject), readLockfileText(pnpmProject))
  assert.match(readLockfileText(lodeProject), /'@nuxt\/cli':\n {8}specifier: npm:@nuxt\/cli-nightly@\^4\.0\.0-20260817-085717-0bb4e52\n {8}version: '@nuxt\/cli-nightly@4\.0\.0-20260901-101010-1a2b3c4'/)
  assert.deepEqual(virtualStore(lodeProject), virtualStore(pnpmProject))
  const required = createRequire(path.join(lodeProject.dir, 'package.json'))('@nuxt/cli') as { name: string, version: string }
  assert.deepEqual(required, { name: '@nuxt/cli-nightly', version: '4.0.0-20260901-101010-1a2b3c4' })
})
