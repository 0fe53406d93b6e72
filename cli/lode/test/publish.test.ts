import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { after, before, test } from 'node:test'

import { Verdaccio } from '@lode/__utils__.test-fixtures/verdaccio'

import { lode, pnpm } from './helpers.js'
import type { Project, RunResult } from './helpers.js'

// `lode publish` beside pnpm 11's, each to its own verdaccio on 127.0.0.1: the same lines printed,
// the same document stored (manifest, dist-tags, tarball bytes), then installed from there.

let forPnpm: Verdaccio
let forLode: Verdaccio
before(async () => {
  [forPnpm, forLode] = await Promise.all([Verdaccio.start(), Verdaccio.start()])
})
after(async () => { await Promise.all([forPnpm.close(), forLode.close()]) })

/** A project (files by path) whose home's .npmrc points at the registry with its token. */
function project (registry: Verdaccio, files: Record<string, string>): Project {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'lode-publish-'))
  const dir = path.join(root, 'project')
  const home = path.join(root, 'home')
  for (const [file, content] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true })
    fs.writeFileSync(path.join(dir, file), content)
  }
  fs.mkdirSync(home, { recursive: true })
  fs.writeFileSync(path.join(home, '.npmrc'), registry.npmrc())
  return { dir, home }
}

/** Both tools' output, with each registry's URL as `<registry>` and pnpm's error prefix as lode's. */
function shown (result: RunResult, registry: Verdaccio): string {
  return (result.stdout + result.stderr).split(registry.url).join('<registry>/').replace(/ERR_PNPM_/g, 'ERR_LODE_')
}

/** What the registry stored of a version, the host-dependent tarball URL aside. */
async function storedVersion (registry: Verdaccio, name: string, version: string): Promise<Record<string, unknown>> {
  const packument = await registry.packument(name)
  const stored = { ...(packument!['versions'] as Record<string, Record<string, unknown>>)[version] }
  const dist = { ...stored['dist'] as Record<string, unknown> }
  assert.equal(dist['tarball'], `${registry.url}${name}/-/${name.replace(/^@[^/]+\//, '')}-${version}.tgz`)
  delete dist['tarball']
  return { ...stored, dist }
}

const HELLO = {
  'package.json': JSON.stringify({
    name: '@acme/hello',
    version: '1.0.0',
    main: 'index.js',
    description: 'says hi',
    scripts: { prepublishOnly: 'node -e "require(\'fs\').writeFileSync(\'built.js\', \'module.exports = 1\')"', postpublish: 'echo POSTPUBLISH' },
  }),
  'index.js': 'module.exports = \'hi\' + require(\'./built.js\')\n',
}

test('lode publish sends what pnpm 11 sends, and what it published installs', async () => {
  const pnpmProject = project(forPnpm, HELLO)
  const lodeProject = project(forLode, HELLO)
  for (const args of [['publish', '--dry-run'], ['publish', '--tag', 'next', '--access', 'public']]) {
    const expected = await pnpm(pnpmProject, args)
    const actual = await lode(lodeProject, args)
    assert.equal(actual.code, 0, actual.stderr)
    assert.equal(shown(actual, forLode), shown(expected, forPnpm), args.join(' '))
  }
  assert.deepEqual(await storedVersion(forLode, '@acme/hello', '1.0.0'), await storedVersion(forPnpm, '@acme/hello', '1.0.0'))
  assert.deepEqual((await forLode.packument('@acme/hello'))!['dist-tags'], (await forPnpm.packument('@acme/hello'))!['dist-tags'])
  assert.equal(((await forLode.packument('@acme/hello'))!['dist-tags'] as Record<string, string>)['next'], '1.0.0')
  // The version is there: the registry refuses it again, and says why.
  const expected = await pnpm(pnpmProject, ['publish'], true)
  const again = await lode(lodeProject, ['publish'])
  assert.equal(again.code, 1)
  assert.match(again.stderr, new RegExp(`^\\[ERR_LODE_PUBLISH_FAILED\\] 409 Conflict - PUT ${forLode.url}@acme%2fhello - this package is already present$`, 'm'))
  assert.match(expected.stdout, new RegExp(`409 Conflict - PUT ${forPnpm.url}@acme%2fhello - this package is already present`))

  // Installed from the registry it went to.
  const consumer = project(forLode, {
    'package.json': JSON.stringify({ name: 'consumer', version: '1.0.0', dependencies: { '@acme/hello': 'next' } }),
    'pnpm-workspace.yaml': 'minimumReleaseAge: 0\n',
  })
  const installed = await lode(consumer, ['install'])
  assert.equal(installed.code, 0, installed.stderr)
  assert.equal(execFileSync(process.execPath, ['-p', 'require("@acme/hello")'], { cwd: consumer.dir, encoding: 'utf8' }), 'hi1\n')
})

test('lode publish -r publishes the workspace\'s new versions, dependencies first, as pnpm 11 does', async () => {
  const files = {
    'package.json': JSON.stringify({ name: 'root', version: '0.0.0', private: true }),
    'pnpm-workspace.yaml': 'packages:\n  - packages/*\n',
    'packages/core/package.json': JSON.stringify({ name: '@ws/core', version: '1.0.0' }),
    'packages/core/index.js': 'module.exports = 1\n',
    'packages/app/package.json': JSON.stringify({ name: '@ws/app', version: '2.0.0', dependencies: { '@ws/core': 'workspace:^' } }),
    'packages/app/index.js': 'module.exports = require(\'@ws/core\') + 1\n',
    'packages/secret/package.json': JSON.stringify({ name: '@ws/secret', version: '1.0.0', private: true }),
  }
  const pnpmProject = project(forPnpm, files)
  const lodeProject = project(forLode, files)
  await pnpm(pnpmProject, ['install'])
  assert.equal((await lode(lodeProject, ['install'])).code, 0)
  const expected = await pnpm(pnpmProject, ['publish', '-r'])
  const actual = await lode(lodeProject, ['publish', '-r'])
  assert.equal(actual.code, 0, actual.stderr)
  assert.equal(shown(actual, forLode), shown(expected, forPnpm))
  assert.match(actual.stdout, /@ws\/core@1\.0\.0[^]*@ws\/app@2\.0\.0/, 'the dependency first')
  for (const [name, version] of [['@ws/core', '1.0.0'], ['@ws/app', '2.0.0']] as const) {
    assert.deepEqual(await storedVersion(forLode, name, version), await storedVersion(forPnpm, name, version), name)
  }
  assert.deepEqual((await storedVersion(forLode, '@ws/app', '2.0.0'))['dependencies'], { '@ws/core': '^1.0.0' })
  assert.equal(await forLode.packument('@ws/secret'), undefined)
  // Nothing new: nothing sent.
  const none = await lode(lodeProject, ['publish', '-r'])
  assert.equal(shown(none, forLode), shown(await pnpm(pnpmProject, ['publish', '-r']), forPnpm))
  assert.match(none.stdout, /There are no new packages that should be published/)
})

test('lode publish checks git as pnpm 11 does, and refuses what it cannot send', async () => {
  const files = { 'package.json': JSON.stringify({ name: 'git-checked', version: '1.0.0' }), 'index.js': '' }
  const lodeProject = project(forLode, files)
  const pnpmProject = project(forPnpm, files)
  for (const { dir } of [lodeProject, pnpmProject]) {
    const git = (...args: string[]): string => execFileSync('git', ['-c', 'user.email=lode@example.com', '-c', 'user.name=lode', ...args], { cwd: dir, encoding: 'utf8' })
    git('init', '-q', '-b', 'main')
    git('add', '-A')
    git('commit', '-qm', 'init')
    fs.writeFileSync(path.join(dir, 'uncommitted.txt'), 'x')
  }
  const unclean = await lode(lodeProject, ['publish'])
  assert.equal(unclean.code, 1)
  assert.equal(shown(unclean, forLode), shown(await pnpm(pnpmProject, ['publish'], true), forPnpm))
  assert.match(unclean.stderr, /ERR_LODE_GIT_UNCLEAN/)
  for (const { dir } of [lodeProject, pnpmProject]) {
    fs.rmSync(path.join(dir, 'uncommitted.txt'))
    execFileSync('git', ['checkout', '-q', '-b', 'feature'], { cwd: dir })
  }
  // pnpm asks whether to go on (and waits for an answer while its input is open); lode fails with pnpm's error for a "no".
  const branch = await lode(lodeProject, ['publish'])
  assert.equal(branch.code, 1)
  assert.match(branch.stderr, /^\[ERR_LODE_GIT_NOT_CORRECT_BRANCH\] Branch is not on 'master\|main'\./)
  assert.equal(await forLode.packument('git-checked'), undefined)
  // --publish-branch and --no-git-checks let it go.
  assert.equal((await lode(lodeProject, ['publish', '--publish-branch', 'feature', '--dry-run'])).code, 0)
  const published = await lode(lodeProject, ['publish', '--no-git-checks'])
  assert.equal(published.code, 0, published.stderr)
  assert.notEqual(await forLode.packument('git-checked'), undefined)

  // Restricted access for an unscoped package: refused before anything is sent.
  fs.writeFileSync(path.join(lodeProject.dir, 'package.json'), JSON.stringify({ name: 'git-checked', version: '1.0.1' }))
  const restricted = await lode(lodeProject, ['publish', '--no-git-checks', '--access', 'restricted'])
  assert.equal(restricted.code, 1)
  assert.match(restricted.stderr, /ERR_LODE_PUBLISH_UNSCOPED_RESTRICTED/)
  // A private package is never uploaded (npm's publish refuses it for pnpm).
  fs.writeFileSync(path.join(lodeProject.dir, 'package.json'), JSON.stringify({ name: 'git-checked', version: '1.0.2', private: true }))
  const privatePackage = await lode(lodeProject, ['publish', '--no-git-checks'])
  assert.equal(privatePackage.code, 1)
  assert.match(privatePackage.stderr, /^\[ERR_LODE_PRIVATE_PACKAGE\] git-checked@1\.0\.2 has been marked as private\./)
  // A setting lode cannot honour yet is refused, not ignored.
  fs.writeFileSync(path.join(lodeProject.dir, 'pnpm-workspace.yaml'), 'provenance: true\n')
  const provenance = await lode(lodeProject, ['publish', '--no-git-checks'])
  assert.equal(provenance.code, 1)
  assert.match(provenance.stderr, /ERR_LODE_UNSUPPORTED_SETTING.*provenance/)
  assert.equal(Object.keys((await forLode.packument('git-checked'))!['versions'] as object).join(), '1.0.0')
})

test('lode publish <tarball> sends a packed tarball as it is, as pnpm 11 does', async () => {
  const files = { 'package.json': JSON.stringify({ name: '@acme/packed', version: '3.0.0', scripts: { prepublishOnly: 'exit 1' } }), 'index.js': '' }
  const pnpmProject = project(forPnpm, files)
  const lodeProject = project(forLode, files)
  await pnpm(pnpmProject, ['pack'])
  assert.equal((await lode(lodeProject, ['pack'])).code, 0)
  const expected = await pnpm(pnpmProject, ['publish', 'acme-packed-3.0.0.tgz', '--no-git-checks'])
  const actual = await lode(lodeProject, ['publish', 'acme-packed-3.0.0.tgz', '--no-git-checks'])
  assert.equal(actual.code, 0, actual.stderr)
  assert.equal(shown(actual, forLode), shown(expected, forPnpm))
  assert.deepEqual(await storedVersion(forLode, '@acme/packed', '3.0.0'), await storedVersion(forPnpm, '@acme/packed', '3.0.0'))
  // Not a tarball: refused, nothing sent.
  fs.writeFileSync(path.join(lodeProject.dir, 'broken.tgz'), 'not gzip')
  const broken = await lode(lodeProject, ['publish', 'broken.tgz', '--no-git-checks'])
  assert.equal(broken.code, 1)
  assert.match(broken.stderr, /^\[ERR_LODE_PUBLISH_BAD_TARBALL\] .*broken\.tgz cannot be published: it is not gzipped/)
})
