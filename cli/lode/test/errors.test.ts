import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'
import { after, before, test } from 'node:test'

import { TestRegistry } from '@lode/__utils__.test-fixtures'

import { lode, makeProject, readLockfileText } from './helpers.js'
import type { Project } from './helpers.js'

let registry: TestRegistry
before(async () => {
  registry = await TestRegistry.start([
    { name: 'alpha', version: '1.0.0' },
    { name: 'alpha', version: '1.2.0' },
    { name: 'beta', version: '2.0.0', dependencies: { alpha: '^1.0.0' } },
    { name: 'delta', version: '1.0.0' },
  ])
})
after(async () => { await registry.close() })

/** A project already installed once (so it has a lockfile), then given `dependencies`. */
async function installedProject (dependencies: Record<string, string>, npmrc = ''): Promise<{ project: Project, lockfile: string }> {
  const project = makeProject(registry, { name: 'p', version: '1.0.0', dependencies: { beta: '^2.0.0' } })
  const first = await lode(project, ['install', '--lockfile-only'])
  assert.equal(first.code, 0, first.stderr)
  const lockfile = readLockfileText(project)
  fs.writeFileSync(path.join(project.dir, 'package.json'), JSON.stringify({ name: 'p', version: '1.0.0', dependencies }))
  if (npmrc !== '') fs.appendFileSync(path.join(project.home, '.npmrc'), npmrc)
  return { project, lockfile }
}

async function expectError (project: Project, lockfile: string, code: string, args: string[] = []): Promise<string> {
  const result = await lode(project, ['install', '--lockfile-only', ...args])
  assert.equal(result.code, 1, `expected ${code}, got exit 0:\n${result.stdout}`)
  assert.ok(result.stderr.startsWith(`[${code}] `), result.stderr)
  assert.equal(readLockfileText(project), lockfile, 'the lockfile is untouched')
  assert.deepEqual(fs.readdirSync(project.dir).sort(), ['package.json', 'pnpm-lock.yaml'], 'nothing half-written')
  return result.stderr
}

test('an invalid package.json names the file and the position', async () => {
  const { project, lockfile } = await installedProject({})
  fs.writeFileSync(path.join(project.dir, 'package.json'), '{\n  "name": "p",\n  "dependencies": { "beta": "^2.0.0", }\n}\n')
  const stderr = await expectError(project, lockfile, 'ERR_LODE_INVALID_PACKAGE_JSON')
  assert.ok(stderr.includes(path.join(project.dir, 'package.json')))
  assert.match(stderr, /line 3, column \d+/)
})

test('an unknown package names it', async () => {
  const { project, lockfile } = await installedProject({ beta: '^2.0.0', 'no-such-package': '^1.0.0' })
  const stderr = await expectError(project, lockfile, 'ERR_LODE_NOT_FOUND')
  assert.match(stderr, /^\[ERR_LODE_NOT_FOUND\] no-such-package is not in the registry/)
  assert.ok(stderr.includes(registry.url))
})

test('no matching version names the range and the latest release', async () => {
  const { project, lockfile } = await installedProject({ beta: '^2.0.0', alpha: '^3.0.0' })
  const stderr = await expectError(project, lockfile, 'ERR_LODE_NO_MATCHING_VERSION')
  assert.match(stderr, /alpha matches "\^3\.0\.0".*the latest release is 1\.2\.0/)
})

test('an unreachable registry names the URL after the retries', async () => {
  const dead = await TestRegistry.start()
  const deadUrl = dead.url
  await dead.close()
  const { project, lockfile } = await installedProject({ beta: '^2.0.0', alpha: '^1.0.0' })
  // Quick retries, in pnpm's global config file (as pnpm 11, lode reads only registry and auth settings from .npmrc).
  fs.mkdirSync(path.join(project.home, '.config', 'pnpm'), { recursive: true })
  fs.writeFileSync(path.join(project.home, '.config', 'pnpm', 'config.yaml'), 'fetchRetries: 1\nfetchRetryMintimeout: 10\nfetchRetryMaxtimeout: 10\n')
  const result = await lode(project, ['install', '--lockfile-only', '--registry', deadUrl])
  assert.equal(result.code, 1)
  assert.match(result.stderr, new RegExp(`^\\[ERR_LODE_FETCH_FAILED\\] GET ${deadUrl}alpha failed \\(ECONNREFUSED\\)`))
  assert.match(result.stdout, new RegExp(`\\[WARN\\] GET ${deadUrl}alpha error \\(ECONNREFUSED\\)\\. Will retry in 10 milliseconds\\. 1 retries left\\.`))
  assert.equal(readLockfileText(project), lockfile)
})

test('a registry refusing credentials says which setting to check', async () => {
  // delta is not in the metadata cache: the registry is asked (alpha's cached document, fresher than
  // the release age, would answer without a request).
  const { project, lockfile } = await installedProject({ beta: '^2.0.0', delta: '^1.0.0' })
  registry.requiredAuthorization = 'Bearer secret'
  try {
    const stderr = await expectError(project, lockfile, 'ERR_LODE_FETCH_401')
    assert.ok(stderr.includes(`//${new URL(registry.url).host}/:_authToken`))
    fs.appendFileSync(path.join(project.home, '.npmrc'), `//${new URL(registry.url).host}/:_authToken=secret\n`)
    const ok = await lode(project, ['install', '--lockfile-only'])
    assert.equal(ok.code, 0, ok.stderr)
  } finally {
    registry.requiredAuthorization = undefined
  }
})

test('--offline resolves from a warm cache and names a cold package; --prefer-offline makes no request when it can', async () => {
  const project = makeProject(registry, { name: 'p', version: '1.0.0', dependencies: { beta: '^2.0.0' } })
  assert.equal((await lode(project, ['install', '--lockfile-only'])).code, 0)
  const lockfile = readLockfileText(project)
  fs.rmSync(path.join(project.dir, 'pnpm-lock.yaml'))
  const before = registry.requests.length
  const offline = await lode(project, ['install', '--lockfile-only', '--offline'])
  assert.equal(offline.code, 0, offline.stderr)
  assert.equal(readLockfileText(project), lockfile)
  fs.rmSync(path.join(project.dir, 'pnpm-lock.yaml'))
  const preferOffline = await lode(project, ['install', '--lockfile-only', '--prefer-offline'])
  assert.equal(preferOffline.code, 0, preferOffline.stderr)
  assert.equal(registry.requests.length, before, 'no request with a warm cache')

  fs.writeFileSync(path.join(project.dir, 'package.json'), JSON.stringify({ name: 'p', version: '1.0.0', dependencies: { beta: '^2.0.0', gamma: '^1.0.0' } }))
  const stderr = await expectError(project, lockfile, 'ERR_LODE_NO_OFFLINE_META', ['--offline'])
  assert.match(stderr, /gamma is not in the metadata cache/)
})

test('--offline brings an outdated lockfile up to date from the lockfile\'s own records when the metadata cache is cold', async () => {
  const project = makeProject(registry, { name: 'p', version: '1.0.0', dependencies: { alpha: '1.2.0', beta: '^2.0.0' } })
  assert.equal((await lode(project, ['install', '--lockfile-only'])).code, 0)
  // The packuments go (the lockfile verification's verdicts stay).
  const cache = path.join(project.home, '.cache')
  const metadata = fs.globSync('**/lode-metadata-v*', { cwd: cache })
  assert.notEqual(metadata.length, 0)
  for (const dir of metadata) fs.rmSync(path.join(cache, dir), { recursive: true })
  fs.writeFileSync(path.join(project.dir, 'package.json'), JSON.stringify({ name: 'p', version: '1.0.0', dependencies: { beta: '^2.0.0' } }))
  const offline = await lode(project, ['install', '--lockfile-only', '--offline'])
  assert.equal(offline.code, 0, offline.stderr)
  const lockfile = readLockfileText(project)
  assert.doesNotMatch(lockfile, /specifier: 1\.2\.0/)
  assert.match(lockfile, /\n {2}beta@2\.0\.0:\n {4}dependencies:\n {6}alpha: 1\.2\.0\n/)
})

test('a registry package depending on a tarball URL or git is refused (blockExoticSubdeps); the registry\'s own URL is not', async () => {
  const other = registry.url.replace('127.0.0.1', 'localhost')
  await registry.publish({ name: 'exotic-url', version: '1.0.0', dependencies: { alpha: `${other}alpha/-/alpha-1.0.0.tgz` } })
  await registry.publish({ name: 'exotic-git', version: '1.0.0', dependencies: { alpha: 'github:someone/alpha' } })
  await registry.publish({ name: 'registry-url', version: '1.0.0', dependencies: { alpha: `${registry.url}alpha/-/alpha-1.0.0.tgz` } })
  for (const [name, via] of [['exotic-url', 'url'], ['exotic-git', 'git-repository']]) {
    const { project, lockfile } = await installedProject({ beta: '^2.0.0', [name!]: '1.0.0' })
    const stderr = await expectError(project, lockfile, 'ERR_LODE_EXOTIC_SUBDEP')
    assert.ok(stderr.includes(`"alpha" (resolved via ${via})`) && stderr.includes(`${name}@1.0.0`), stderr)
    assert.match(stderr, /blockExoticSubdeps: false/)
  }
  const { project } = await installedProject({ 'registry-url': '1.0.0' })
  const allowed = await lode(project, ['install', '--lockfile-only'])
  assert.equal(allowed.code, 0, allowed.stderr)
  assert.match(readLockfileText(project), /registry-url@1\.0\.0:\n {4}dependencies:\n {6}alpha: 1\.0\.0/)
})

test('a workspace: dependency that matches no project, or no version, names it', async () => {
  const files = (dependencies: Record<string, string>): Record<string, string> => ({
    'pnpm-workspace.yaml': 'packages:\n  - packages/*\n',
    'packages/a/package.json': JSON.stringify({ name: 'a', version: '1.0.0', dependencies }),
    'packages/b/package.json': JSON.stringify({ name: 'b', version: '2.0.0' }),
  })
  const missing = makeProject(registry, { name: 'root', version: '1.0.0' }, files({ nope: 'workspace:*' }))
  const noProject = await lode(missing, ['install', '--lockfile-only'])
  assert.equal(noProject.code, 1)
  assert.match(noProject.stderr, /^\[ERR_LODE_WORKSPACE_PKG_NOT_FOUND\] "nope@workspace:\*" is in the dependencies of .*packages\/a\/package\.json, but no package named "nope" is present in the workspace/)
  const wrongVersion = makeProject(registry, { name: 'root', version: '1.0.0' }, files({ b: 'workspace:^3.0.0' }))
  const noVersion = await lode(wrongVersion, ['install', '--lockfile-only'])
  assert.equal(noVersion.code, 1)
  assert.match(noVersion.stderr, /^\[ERR_LODE_NO_MATCHING_VERSION_INSIDE_WORKSPACE\] .*wants b@\^3\.0\.0, but the workspace has b@2\.0\.0/)
  assert.equal(fs.existsSync(path.join(wrongVersion.dir, 'pnpm-lock.yaml')), false)
})
