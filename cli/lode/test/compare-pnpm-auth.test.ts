import assert from 'node:assert/strict'
import fs from 'node:fs'
import { createRequire } from 'node:module'
import path from 'node:path'
import { after, before, test } from 'node:test'

import { TestRegistry } from '@lode/__utils__.test-fixtures'

import { cloneProject, defaultStoreDir, lode, makeProject, pnpm, readLockfileText, virtualStore } from './helpers.js'
import type { Project } from './helpers.js'

// pnpm 11's authentication scenarios (installing/deps-installer/test/install/auth.ts) beside it: a
// scope's own registry that wants credentials (a token, or a user and password) for its metadata and
// its tarballs alike, from a fresh resolution and from the lockfile (with the metadata cached and the
// store empty, then with neither); the default registry gets none of them.

let publicRegistry: TestRegistry
let privateRegistry: TestRegistry
before(async () => {
  publicRegistry = await TestRegistry.start([{ name: 'dep', version: '1.0.0' }])
  privateRegistry = await TestRegistry.start([{ name: '@private/foo', version: '1.0.0', dependencies: { dep: '1.0.0' } }])
})
after(async () => {
  await publicRegistry.close()
  await privateRegistry.close()
})

const base64 = (text: string): string => Buffer.from(text).toString('base64')

/** A project depending on `@private/foo`, its scope's registry with these credentials in the home's .npmrc. */
function scopedProject (credentials: string[]): Project {
  const project = makeProject(publicRegistry, { name: 'p', version: '1.0.0', dependencies: { '@private/foo': '1.0.0' } })
  const host = new URL(privateRegistry.url).host
  fs.appendFileSync(path.join(project.home, '.npmrc'), [`@private:registry=${privateRegistry.url}`, ...credentials.map((line) => `//${host}/:${line}`)].join('\n') + '\n')
  return project
}

function foo (project: Project): unknown {
  return createRequire(path.join(project.dir, 'package.json'))('@private/foo')
}

const CREDENTIALS: Array<{ label: string, npmrc: string[], authorization: string }> = [
  { label: 'a token', npmrc: ['_authToken=secret'], authorization: 'Bearer secret' },
  { label: 'a user and password (_auth)', npmrc: [`_auth=${base64('foo:bar')}`], authorization: `Basic ${base64('foo:bar')}` },
  { label: 'a user and password (username, _password)', npmrc: ['username=foo', `_password=${base64('bar')}`], authorization: `Basic ${base64('foo:bar')}` },
]

for (const { label, npmrc, authorization } of CREDENTIALS) {
  test(`a scoped package from its scope's registry, which wants ${label}: resolved, then installed from the lockfile with the metadata cached and without it, as pnpm 11`, async () => {
    privateRegistry.requiredAuthorization = authorization
    try {
      const pnpmProject = scopedProject(npmrc)
      const lodeProject = cloneProject(pnpmProject)
      await pnpm(pnpmProject, ['install'])
      const installed = await lode(lodeProject, ['install'])
      assert.equal(installed.code, 0, installed.stderr)
      assert.equal(readLockfileText(lodeProject), readLockfileText(pnpmProject))
      assert.deepEqual(virtualStore(lodeProject), virtualStore(pnpmProject))
      assert.deepEqual(foo(lodeProject), { name: '@private/foo', version: '1.0.0' })
      // The default registry was asked without the scope's credentials (it takes any request).
      assert.ok(publicRegistry.recorded.some((request) => request.url.startsWith('/dep') && request.headers.authorization === undefined))

      // From the lockfile: the store emptied (the metadata cache kept), then the cache too; the tarball is fetched with the credentials.
      const cacheDir = (project: Project): string => path.join(project.home, '.cache')
      for (const dirs of [[defaultStoreDir], [defaultStoreDir, cacheDir]]) {
        for (const project of [pnpmProject, lodeProject]) {
          fs.rmSync(path.join(project.dir, 'node_modules'), { recursive: true })
          for (const dir of dirs) fs.rmSync(dir(project), { recursive: true, force: true })
        }
        const tarballs = privateRegistry.requests.filter((url) => url.endsWith('.tgz')).length
        await pnpm(pnpmProject, ['install', '--frozen-lockfile'])
        const frozen = await lode(lodeProject, ['install', '--frozen-lockfile'])
        assert.equal(frozen.code, 0, frozen.stderr)
        assert.deepEqual(foo(lodeProject), { name: '@private/foo', version: '1.0.0' })
        assert.deepEqual(virtualStore(lodeProject), virtualStore(pnpmProject))
        assert.equal(privateRegistry.requests.filter((url) => url.endsWith('.tgz')).length, tarballs + 2, 'each tool downloaded the tarball')
      }
    } finally {
      privateRegistry.requiredAuthorization = undefined
    }
  })
}
