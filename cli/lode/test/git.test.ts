import assert from 'node:assert/strict'
import fs from 'node:fs'
import { createRequire } from 'node:module'
import os from 'node:os'
import path from 'node:path'
import { after, before, describe, test } from 'node:test'

import { TestRegistry } from '@lode/__utils__.test-fixtures'

import { HOSTED_GIT_CERT, HostedGitProxy, makeRepo } from './git-hosts.js'
import { changesOutside, cloneProject, inTerminal, listing, lode, lodeBin, makeProject, pnpm, pnpmBin, readLockfileText, snapshot } from './helpers.js'
import type { Project, RunResult } from './helpers.js'

// Git dependencies from repositories in this test's temp dir (`git+file:`), and from "GitHub"
// (`github:`, `user/repo`): git reaches it through `url.<base>.insteadOf` in the isolated home's
// .gitconfig, HTTPS (the repository's page, its archives) through a proxy on 127.0.0.1 that
// serves the hosts with a certificate of its own. Nothing reaches the internet.

const manifestOf = (name: string, version: string, extra: Record<string, unknown> = {}): string => JSON.stringify({ name, version, main: 'index.js', ...extra }, null, 2)
const indexOf = (name: string, version: string): string => `module.exports = ${JSON.stringify({ name, version })}\n`

let registry: TestRegistry
let root: string
let hosts: HostedGitProxy
let lib: { url: string, commits: string[], dir: string }
let prep: { url: string, commits: string[], dir: string }

before(async () => {
  registry = await TestRegistry.start([
    { name: 'dep', version: '1.0.0' },
    { name: 'dep', version: '1.1.0' },
    { name: 'has-git-dep', version: '1.0.0', dependencies: { lib: 'github:acme/lib#v1.1.0' } },
    // pnpm 11's GitHub scenarios, with its packages' shapes (see "pnpm 11's scenarios with GitHub dependencies").
    { name: 'hi', version: '0.0.0' },
    { name: 'hi', version: '1.0.0' },
    { name: 'has-say-hi-peer', version: '1.0.0', manifest: { peerDependencies: { hi: '*' } } },
    { name: 'has-aliased-git-dependency', version: '1.0.0', dependencies: { 'say-hi': 'github:acme/hi#v1.0.0', 'has-say-hi-peer': '1.0.0' } },
    { name: 'has-github-dep', version: '1.0.0', dependencies: { hi: 'github:acme/hi#v1.0.0' } },
    { name: 'has-github-dep', version: '1.1.0', dependencies: { hi: 'github:acme/hi#v1.0.0', dep: '^1.0.0' } },
    { name: 'peer-child', version: '1.0.0', manifest: { peerDependencies: { 'is-negative': '*' } } },
    { name: 'peer-deps-in-child-pkg', version: '1.0.0', dependencies: { 'peer-child': '1.0.0' } },
    { name: 'the-plugin', version: '1.0.0' },
    { name: 'plugin-host', version: '1.0.0', dependencies: { 'the-plugin': '1.0.0' } },
  ])
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'lode-git-'))
  // One repository, reached both as a git+file: URL and as github:acme/lib.
  lib = await makeRepo(path.join(root, 'hosted', 'acme'), 'lib', [
    { files: { 'package.json': manifestOf('lib', '1.0.0', { dependencies: { dep: '^1.0.0' } }), 'index.js': indexOf('lib', '1.0.0') }, tags: ['v1.0.0'] },
    {
      files: {
        'package.json': manifestOf('lib', '1.1.0', { files: ['index.js', 'lib/'] }),
        'index.js': indexOf('lib', '1.1.0'),
        'lib/util.js': 'module.exports = 1\n',
        'test/unpacked.js': 'not in the package (files)\n',
        'README.md': '# lib\n',
      },
      tags: [{ name: 'v1.1.0', annotated: true }],
      branch: 'stable',
    },
    {
      files: {
        'package.json': manifestOf('lib', '2.0.0-beta.1'),
        'index.js': indexOf('lib', '2.0.0-beta.1'),
        'packages/sub/package.json': manifestOf('sub', '3.0.0', { dependencies: { dep: '1.0.0' } }),
        'packages/sub/index.js': indexOf('sub', '3.0.0'),
        '.npmignore': 'ignored.txt\n',
        'ignored.txt': 'left out by .npmignore\n',
      },
      tags: ['v2.0.0-beta.1'],
    },
  ])
  prep = await makeRepo(path.join(root, 'repos'), 'prep', [{
    files: {
      'package.json': manifestOf('prep', '1.0.0', { scripts: { prepare: 'node -e "require(\'fs\').writeFileSync(\'built.txt\', process.env.npm_lifecycle_event)"' } }),
      'index.js': indexOf('prep', '1.0.0'),
    },
    tags: ['v1.0.0'],
  }])
  const hi = { 'package.json': manifestOf('hi', '1.0.0', { bin: { hi: 'bin.js', szia: 'bin.js' } }), 'index.js': 'module.exports = \'Hi\'\n', 'bin.js': '#!/usr/bin/env node\nconsole.log(\'Hi\')\n' }
  await makeRepo(path.join(root, 'hosted', 'acme'), 'hi', [{ files: hi, tags: ['v1.0.0'], branch: 'branch/with-slash' }])
  await makeRepo(path.join(root, 'hosted', 'acme'), 'is-negative', [{ files: { 'package.json': manifestOf('is-negative', '2.1.0'), 'index.js': indexOf('is-negative', '2.1.0') }, tags: ['2.1.0'] }])
  // A tool whose bin loads a plugin that only another package depends on (it is found in .pnpm/node_modules).
  const jsBuild = { bin: { 'js-build': 'cli.js' } }
  await makeRepo(path.join(root, 'hosted', 'acme'), 'js-build', [{
    files: { 'package.json': manifestOf('js-build', '1.0.0', jsBuild), 'cli.js': '#!/usr/bin/env node\nrequire(\'the-plugin\')\nrequire(\'fs\').writeFileSync(\'built.js\', \'\')\n' },
    tags: ['v1.0.0'],
  }])
  hosts = await HostedGitProxy.start(path.join(root, 'hosted'))
})
after(async () => {
  await hosts.close()
  await registry.close()
  fs.rmSync(root, { recursive: true, force: true })
})

/** A project whose home sends git to the local "GitHub" and HTTPS to the hosts' proxy. */
function gitProject (manifest: Record<string, unknown>, files: Record<string, string> = {}): Project {
  const project = makeProject(registry, manifest, files)
  fs.appendFileSync(path.join(project.home, '.npmrc'), `https-proxy=${hosts.url}\ncafile=${HOSTED_GIT_CERT}\n`)
  fs.writeFileSync(path.join(project.home, '.gitconfig'), `[url "file://${path.join(root, 'hosted')}/"]\n\tinsteadOf = https://github.com/\n`)
  return project
}

/** Installs with pnpm and lode (copies of one project); both must succeed and write the same lockfile and `.pnpm` files. */
async function installBoth (
  manifest: Record<string, unknown>,
  files: Record<string, string> = {}
): Promise<{ pnpmProject: Project, lodeProject: Project }> {
  const pnpmProject = gitProject(manifest, files)
  const lodeProject = cloneProject(pnpmProject)
  await pnpm(pnpmProject, ['install'])
  const result = await lode(lodeProject, ['install'])
  assert.equal(result.code, 0, `lode failed:\n${result.stdout}\n${result.stderr}`)
  assert.equal(readLockfileText(lodeProject), readLockfileText(pnpmProject))
  assert.deepEqual(packagesListing(lodeProject), packagesListing(pnpmProject))
  return { pnpmProject, lodeProject }
}

/** Every file and link under node_modules/.pnpm (its lock.yaml aside). */
function packagesListing (project: Project): string[] {
  return listing(path.join(project.dir, 'node_modules', '.pnpm')).filter((file) => file !== 'lock.yaml')
}

function load (project: Project, alias: string): unknown {
  return createRequire(path.join(project.dir, 'package.json'))(alias)
}

/** The store the project was installed from (`.modules.yaml` is JSON, as pnpm writes it). */
function storeDirOf (project: Project): string {
  return (JSON.parse(fs.readFileSync(path.join(project.dir, 'node_modules', '.modules.yaml'), 'utf8')) as { storeDir: string }).storeDir
}

function expectFailure (result: RunResult, code: string): string {
  assert.notEqual(result.code, 0, `expected ${code}:\n${result.stdout}`)
  assert.match(result.stderr, new RegExp(`^\\[${code}\\]`, 'm'), result.stderr)
  return result.stderr
}

describe('git dependencies install as with pnpm 11', () => {
  test('git+file: a tag, an annotated tag, a branch, a commit prefix, #semver:, path: subdirectories, aliases; a frozen reinstall asks git nothing', async () => {
    const url = `git+${lib.url}`
    const manifest = {
      name: 'git-file',
      version: '1.0.0',
      dependencies: {
        lib: `${url}#v1.0.0`,
        'lib-annotated': `${url}#v1.1.0`,
        'lib-branch': `${url}#stable`,
        'lib-commit': `${url}#${lib.commits[0]!.slice(0, 10)}`,
        'lib-range': `${url}#semver:^1.0.0`,
        sub: `${url}#path:/packages/sub`,
        'sub-tagged': `${url}#v2.0.0-beta.1&path:packages/sub`,
      },
    }
    const { lodeProject } = await installBoth(manifest)
    const lockfile = readLockfileText(lodeProject)
    assert.match(lockfile, new RegExp(`lib-range:\\n {8}specifier: ${escape(url)}#semver:\\^1\\.0\\.0\\n {8}version: lib@${escape(url)}#${lib.commits[1]!}\\n`))
    assert.match(lockfile, new RegExp(`sub@${escape(url)}#${lib.commits[2]!}&path:/packages/sub:\\n {4}resolution: \\{commit: ${lib.commits[2]!}, path: /packages/sub, repo: ${escape(lib.url)}, type: git\\}\\n {4}version: 3\\.0\\.0`))
    assert.deepEqual(load(lodeProject, 'lib-annotated'), { name: 'lib', version: '1.1.0' })
    assert.deepEqual(load(lodeProject, 'sub'), { name: 'sub', version: '3.0.0' })
    const packed = fs.readdirSync(path.join(lodeProject.dir, 'node_modules', 'lib-range')).sort()
    assert.deepEqual(packed, ['README.md', 'index.js', 'lib', 'package.json'], 'the files npm would pack')

    // The repository gone, a frozen install from the lockfile and the store needs no git.
    fs.renameSync(lib.dir, `${lib.dir}.away`)
    try {
      fs.rmSync(path.join(lodeProject.dir, 'node_modules'), { recursive: true })
      const frozen = await lode(lodeProject, ['install', '--frozen-lockfile'])
      assert.equal(frozen.code, 0, frozen.stderr)
      assert.deepEqual(load(lodeProject, 'lib'), { name: 'lib', version: '1.0.0' })
    } finally {
      fs.renameSync(`${lib.dir}.away`, lib.dir)
    }
    // With an empty store, it clones each commit again.
    const before = packagesListing(lodeProject)
    fs.rmSync(storeDirOf(lodeProject), { recursive: true })
    fs.rmSync(path.join(lodeProject.dir, 'node_modules'), { recursive: true })
    const cold = await lode(lodeProject, ['install', '--frozen-lockfile'])
    assert.equal(cold.code, 0, cold.stderr)
    assert.deepEqual(packagesListing(lodeProject), before)
    assert.equal(readLockfileText(lodeProject), lockfile)
  })

  test('github: shorthands of a public repository come from its archive, locked with their integrity; a frozen reinstall downloads and checks it', async () => {
    hosts.publicRepos.add('acme/lib')
    try {
      const manifest = { name: 'hosted', version: '1.0.0', dependencies: { lib: 'github:acme/lib#v1.0.0', 'lib-short': 'acme/lib#semver:~1.1.0', 'lib-sub': 'github:acme/lib#path:/packages/sub' } }
      const { lodeProject } = await installBoth(manifest)
      const lockfile = readLockfileText(lodeProject)
      assert.match(lockfile, new RegExp(`lib@https://codeload\\.github\\.com/acme/lib/tar\\.gz/${lib.commits[0]!}:\\n {4}resolution: \\{gitHosted: true, integrity: sha512-[^,]+, tarball: https://codeload\\.github\\.com/acme/lib/tar\\.gz/${lib.commits[0]!}\\}`))
      assert.match(lockfile, /lib-sub:\n {8}specifier: github:acme\/lib#path:\/packages\/sub\n {8}version: sub@https:\/\/codeload\.github\.com\/acme\/lib\/tar\.gz\/[0-9a-f]{40}#path:\/packages\/sub\n/)
      assert.deepEqual(load(lodeProject, 'lib-short'), { name: 'lib', version: '1.1.0' })

      const before = packagesListing(lodeProject)
      fs.rmSync(storeDirOf(lodeProject), { recursive: true })
      fs.rmSync(path.join(lodeProject.dir, 'node_modules'), { recursive: true })
      const downloads = hosts.requests.length
      const frozen = await lode(lodeProject, ['install', '--frozen-lockfile'])
      assert.equal(frozen.code, 0, frozen.stderr)
      assert.deepEqual(packagesListing(lodeProject), before)
      assert.ok(hosts.requests.slice(downloads).some((request) => request.startsWith('GET https://codeload.github.com/acme/lib/tar.gz/')), hosts.requests.slice(downloads).join('\n'))
    } finally {
      hosts.publicRepos.delete('acme/lib')
    }
  })

  test('a repository that is not public is cloned over HTTPS (git\'s insteadOf reaches it), and so when no host answers', async () => {
    const { lodeProject } = await installBoth({ name: 'private', version: '1.0.0', dependencies: { lib: 'github:acme/lib#v1.1.0', 'lib-url': 'git+https://github.com/acme/lib.git#semver:1.0.0' } })
    assert.match(readLockfileText(lodeProject), /resolution: \{commit: [0-9a-f]{40}, repo: https:\/\/github\.com\/acme\/lib\.git, type: git\}/)
    hosts.refuse = true
    try {
      await installBoth({ name: 'offline-hosts', version: '1.0.0', dependencies: { lib: 'acme/lib' } })
    } finally {
      hosts.refuse = false
    }
  })

  test('a git package with a prepare script is built when allowBuilds names its repository; not named, both refuse it; false installs it unbuilt', async () => {
    const manifest = { name: 'prepare', version: '1.0.0', dependencies: { prep: `git+${prep.url}#v1.0.0` } }
    const allowed = await installBoth(manifest, { 'pnpm-workspace.yaml': `allowBuilds:\n  "prep@git+${prep.url}": true\n` })
    assert.equal(fs.readFileSync(path.join(allowed.lodeProject.dir, 'node_modules', 'prep', 'built.txt'), 'utf8'), 'prepare')

    const refused = gitProject(manifest)
    const refusedLode = cloneProject(refused)
    const pnpmResult = await pnpm(refused, ['install'], true)
    assert.match(pnpmResult.stdout, /ERR_PNPM_GIT_DEP_PREPARE_NOT_ALLOWED/)
    const before = snapshot(refusedLode.dir)
    const stderr = expectFailure(await lode(refusedLode, ['install']), 'ERR_LODE_GIT_DEP_PREPARE_NOT_ALLOWED')
    assert.match(stderr, /The git-hosted package "prep@1\.0\.0" needs to execute build scripts/)
    assert.deepEqual(changesOutside(before, snapshot(refusedLode.dir), []), [], 'nothing written')

    const unbuilt = await installBoth(manifest, { 'pnpm-workspace.yaml': 'allowBuilds:\n  prep: false\n' })
    assert.equal(fs.existsSync(path.join(unbuilt.lodeProject.dir, 'node_modules', 'prep', 'built.txt')), false)
  })

  test('a registry package\'s git dependency: refused by blockExoticSubdeps (the default), installed without it', async () => {
    const manifest = { name: 'exotic', version: '1.0.0', dependencies: { 'has-git-dep': '1.0.0' } }
    const blocked = gitProject(manifest)
    const blockedLode = cloneProject(blocked)
    const pnpmResult = await pnpm(blocked, ['install'], true)
    assert.match(pnpmResult.stdout, /ERR_PNPM_EXOTIC_SUBDEP/)
    const stderr = expectFailure(await lode(blockedLode, ['install']), 'ERR_LODE_EXOTIC_SUBDEP')
    assert.match(stderr, /"lib" \(resolved via git-repository\).*has-git-dep@1\.0\.0/)
    const { lodeProject } = await installBoth(manifest, { 'pnpm-workspace.yaml': 'blockExoticSubdeps: false\n' })
    assert.deepEqual(createRequire(fs.realpathSync(path.join(lodeProject.dir, 'node_modules', 'has-git-dep', 'index.js')))('lib'), { name: 'lib', version: '1.1.0' })
  })
})

/** Runs the same commands with pnpm and lode (copies of one project); package.json, the lockfile and `.pnpm` must be the same. */
async function stepsBoth (
  manifest: Record<string, unknown>,
  steps: string[][],
  files: Record<string, string> = {}
): Promise<{ pnpmProject: Project, lodeProject: Project }> {
  const pnpmProject = gitProject(manifest, files)
  const lodeProject = cloneProject(pnpmProject)
  for (const args of steps) {
    await pnpm(pnpmProject, args)
    const result = await lode(lodeProject, args)
    assert.equal(result.code, 0, `lode ${args.join(' ')} failed:\n${result.stdout}\n${result.stderr}`)
    assert.deepEqual(dependenciesOf(lodeProject), dependenciesOf(pnpmProject), `package.json after ${args.join(' ')}`)
    assert.equal(readLockfileText(lodeProject), readLockfileText(pnpmProject), `pnpm-lock.yaml after ${args.join(' ')}`)
    assert.deepEqual(packagesListing(lodeProject), packagesListing(pnpmProject), `node_modules/.pnpm after ${args.join(' ')}`)
  }
  return { pnpmProject, lodeProject }
}

function dependenciesOf (project: Project): unknown {
  return (JSON.parse(fs.readFileSync(path.join(project.dir, 'package.json'), 'utf8')) as { dependencies?: unknown }).dependencies
}

describe('add of git repositories, as pnpm 11 adds them', () => {
  test('a git URL is saved under its package\'s name; another tag of it replaces it; a path: subdirectory under its own package\'s name', async () => {
    const url = `git+${lib.url}`
    const { lodeProject } = await stepsBoth({ name: 'add-git', version: '1.0.0' }, [
      ['add', `${url}#v1.0.0`],
      ['add', `${url}#v1.1.0`],
      ['add', `${url}#v2.0.0-beta.1&path:/packages/sub`, 'renamed@' + `${url}#v1.0.0`],
    ])
    assert.deepEqual(load(lodeProject, 'lib'), { name: 'lib', version: '1.1.0' })
    assert.deepEqual(load(lodeProject, 'sub'), { name: 'sub', version: '3.0.0' })
    assert.deepEqual(load(lodeProject, 'renamed'), { name: 'lib', version: '1.0.0' })
    assert.deepEqual(dependenciesOf(lodeProject), { lib: `${url}#v1.1.0`, renamed: `${url}#v1.0.0`, sub: `${url}#v2.0.0-beta.1&path:/packages/sub` })
  })

  test('user/repo and hosted https URLs are saved as github: shorthands (a public repository\'s archive) or https URLs (cloned), an alias too; a repository without package.json by its name', async () => {
    await makeRepo(path.join(root, 'hosted', 'acme'), 'files-only', [{ files: { 'index.js': indexOf('files-only', '0.0.0') } }])
    const steps = [
      ['add', 'acme/lib#v1.0.0', 'acme/files-only'],
      ['add', 'https://github.com/acme/lib.git#semver:^1.1.0', 'other@acme/lib#v1.0.0'],
      ['add', 'https://github.com/acme/files-only'],
    ]
    const cloned = await stepsBoth({ name: 'add-hosted', version: '1.0.0' }, steps)
    assert.deepEqual(dependenciesOf(cloned.lodeProject), {
      'files-only': 'git+https://github.com/acme/files-only.git',
      lib: 'git+https://github.com/acme/lib.git#semver:^1.1.0',
      other: 'git+https://github.com/acme/lib.git#v1.0.0',
    })
    assert.deepEqual(load(cloned.lodeProject, 'other'), { name: 'lib', version: '1.0.0' })
    hosts.publicRepos.add('acme/lib')
    hosts.publicRepos.add('acme/files-only')
    try {
      const { lodeProject } = await stepsBoth({ name: 'add-public', version: '1.0.0' }, steps)
      assert.deepEqual(dependenciesOf(lodeProject), { 'files-only': 'github:acme/files-only', lib: 'github:acme/lib#semver:^1.1.0', other: 'github:acme/lib#v1.0.0' })
    } finally {
      hosts.publicRepos.delete('acme/lib')
      hosts.publicRepos.delete('acme/files-only')
    }
  })

  test('a repository without a package.json name, a path: outside it: coded errors, nothing written', async () => {
    const nameless = await makeRepo(path.join(root, 'repos'), 'nameless', [{ files: { 'package.json': '{"version": "1.0.0"}\n', 'index.js': '' }, tags: ['v1.0.0'] }])
    const cases: Array<[string, string, RegExp]> = [
      [`git+${nameless.url}#v1.0.0`, 'ERR_LODE_MISSING_PACKAGE_NAME', /nameless\.git#v1\.0\.0/],
      [`git+${lib.url}#path:/../../etc`, 'ERR_LODE_GIT_INVALID_PATH', /The path "\/\.\.\/\.\.\/etc" of .* is not inside the repository/],
    ]
    for (const [spec, code, message] of cases) {
      const project = gitProject({ name: 'add-fails', version: '1.0.0' })
      await pnpm(cloneProject(project), ['add', spec], true)
      const before = snapshot(project.dir)
      assert.match(expectFailure(await lode(project, ['add', spec]), code), message)
      assert.deepEqual(changesOutside(before, snapshot(project.dir), []), [], `nothing written for ${spec}`)
    }
  })
})

/** `body` with these repositories public: their packages come from the hosts' archives, locked by URL. */
async function withPublicRepos (repos: string[], body: () => Promise<void>): Promise<void> {
  for (const repo of repos) hosts.publicRepos.add(repo)
  try {
    await body()
  } finally {
    for (const repo of repos) hosts.publicRepos.delete(repo)
  }
}

const EXOTIC_SUBDEPS = { 'pnpm-workspace.yaml': 'blockExoticSubdeps: false\n' }

describe('pnpm 11\'s scenarios with GitHub dependencies', () => {
  test('add of a branch whose name has a slash, cloned and from the archive', async () => {
    const add = [['add', 'https://github.com/acme/hi.git#branch/with-slash']]
    const cloned = await stepsBoth({ name: 'slash', version: '1.0.0' }, add)
    assert.equal(load(cloned.lodeProject, 'hi'), 'Hi')
    await withPublicRepos(['acme/hi'], async () => {
      const { lodeProject } = await stepsBoth({ name: 'slash', version: '1.0.0' }, add)
      assert.deepEqual(dependenciesOf(lodeProject), { hi: 'github:acme/hi#branch/with-slash' })
    })
  })

  test('a registry package\'s aliased GitHub dependency that is its other dependency\'s peer: the peer suffix names the archive, its bins are linked; updated to a version with more dependencies', async () => {
    await withPublicRepos(['acme/hi'], async () => {
      const { lodeProject } = await stepsBoth({ name: 'aliased', version: '1.0.0' }, [['add', 'has-aliased-git-dependency']], EXOTIC_SUBDEPS)
      const archive = /hi@https:\/\/codeload\.github\.com\/acme\/hi\/tar\.gz\/[0-9a-f]{40}/.source
      assert.match(readLockfileText(lodeProject), new RegExp(`has-say-hi-peer: 1\\.0\\.0\\(${archive}\\)\\n {6}say-hi: ${archive}\\n`))
      const own = fs.realpathSync(path.join(lodeProject.dir, 'node_modules', 'has-aliased-git-dependency'))
      for (const bin of ['hi', 'szia']) assert.ok(fs.statSync(path.join(own, 'node_modules', '.bin', bin)).mode & 0o111, bin)
      assert.equal(createRequire(path.join(own, 'index.js'))('say-hi'), 'Hi')

      await stepsBoth({ name: 'updated', version: '1.0.0' }, [['add', 'has-github-dep@1.0.0'], ['add', 'has-github-dep@latest']], EXOTIC_SUBDEPS)
    })
  })

  test('a GitHub package at the root is the peer of a package below it', async () => {
    const { lodeProject } = await stepsBoth({ name: 'root-peer', version: '1.0.0' }, [['add', 'is-negative@acme/is-negative#2.1.0', 'peer-deps-in-child-pkg']])
    assert.deepEqual(load(lodeProject, 'is-negative'), { name: 'is-negative', version: '2.1.0' })
    const child = fs.realpathSync(path.join(lodeProject.dir, 'node_modules', '.pnpm', 'node_modules', 'peer-child'))
    assert.deepEqual(createRequire(path.join(child, 'index.js'))('is-negative'), { name: 'is-negative', version: '2.1.0' })
  })

  test('a project\'s prepare script runs a GitHub dependency\'s bin, which loads a plugin from node_modules/.pnpm/node_modules', async () => {
    const manifest = { name: 'tooling', version: '1.0.0', dependencies: { 'js-build': 'github:acme/js-build#v1.0.0', 'plugin-host': '1.0.0' }, scripts: { prepare: 'js-build' } }
    const { pnpmProject, lodeProject } = await installBoth(manifest)
    assert.ok(fs.existsSync(path.join(pnpmProject.dir, 'built.js')))
    assert.ok(fs.existsSync(path.join(lodeProject.dir, 'built.js')))
  })

  test('patch of a GitHub dependency beside the registry\'s version of the package: chosen on a terminal, committed as hi@1.0.0 and applied', async () => {
    await withPublicRepos(['acme/hi'], async () => {
      const { pnpmProject, lodeProject } = await installBoth({ name: 'patch-git', version: '1.0.0', dependencies: { hi: '0.0.0', 'hi-git': 'github:acme/hi#v1.0.0' } })
      const steps: Array<[RegExp, string]> = [[/Choose which version to patch/, '\x1b[B'], [/❯ 1\.0\.0/, '\r'], [/Apply this patch to all versions\?/, 'n\r']]
      await inTerminal(pnpmBin, ['patch', 'hi'], pnpmProject, steps)
      await inTerminal(lodeBin, ['patch', 'hi'], lodeProject, steps)
      // Named after the archive the version came from, as pnpm names it.
      const editDirs = [pnpmProject, lodeProject].map((project) => fs.readdirSync(path.join(project.dir, 'node_modules/.pnpm_patches')).filter((name) => name !== 'state.json'))
      assert.deepEqual(editDirs[1], editDirs[0])
      assert.match(editDirs[1]![0]!, /^hi@https\+codeload\.github\.com\+acme\+hi\+tar\.gz\+[0-9a-f]{40}$/)
      const editDir = `node_modules/.pnpm_patches/${editDirs[1]![0]!}`
      for (const project of [pnpmProject, lodeProject]) {
        assert.equal(fs.readFileSync(path.join(project.dir, editDir, 'index.js'), 'utf8'), 'module.exports = \'Hi\'\n')
        fs.appendFileSync(path.join(project.dir, editDir, 'index.js'), '// test patching')
      }
      await pnpm(pnpmProject, ['patch-commit', editDir])
      const committed = await lode(lodeProject, ['patch-commit', editDir])
      assert.equal(committed.code, 0, committed.stderr)
      for (const file of ['pnpm-workspace.yaml', 'patches/hi@1.0.0.patch', 'pnpm-lock.yaml']) {
        assert.equal(fs.readFileSync(path.join(lodeProject.dir, file), 'utf8'), fs.readFileSync(path.join(pnpmProject.dir, file), 'utf8'), file)
      }
      assert.equal(fs.readFileSync(path.join(lodeProject.dir, 'pnpm-workspace.yaml'), 'utf8'), 'patchedDependencies:\n  hi@1.0.0: patches/hi@1.0.0.patch\n')
      assert.equal(fs.readFileSync(path.join(lodeProject.dir, 'node_modules/hi-git/index.js'), 'utf8'), fs.readFileSync(path.join(pnpmProject.dir, 'node_modules/hi-git/index.js'), 'utf8'))
      assert.match(fs.readFileSync(path.join(lodeProject.dir, 'node_modules/hi-git/index.js'), 'utf8'), /\/\/ test patching\n$/)
      assert.equal(fs.readFileSync(path.join(lodeProject.dir, 'node_modules/hi/index.js'), 'utf8'), indexOf('hi', '0.0.0'))
    })
  })
})

test('run from a git hook (GIT_DIR and GIT_WORK_TREE set), git still clones into the store, not into that repository', async () => {
  const hookRepo = await makeRepo(path.join(root, 'repos'), 'hook', [{ files: { 'README.md': 'a repository whose hook runs lode\n' } }])
  const before = snapshot(hookRepo.dir)
  const project = gitProject({ name: 'in-hook', version: '1.0.0', dependencies: { lib: `git+${lib.url}#v1.1.0` } })
  const result = await lode(project, ['install'], { GIT_DIR: hookRepo.dir, GIT_WORK_TREE: path.join(root, 'work', 'hook') })
  assert.equal(result.code, 0, result.stderr)
  assert.deepEqual(load(project, 'lib'), { name: 'lib', version: '1.1.0' })
  assert.deepEqual(changesOutside(before, snapshot(hookRepo.dir), []), [], 'the hook\'s repository is untouched')
})

describe('git failures are coded errors naming the dependency, and change nothing', () => {
  test('a repository that does not exist, a tag it does not have, a range none of its tags meets', async () => {
    const cases: Array<[string, string, RegExp]> = [
      [`git+file://${path.join(root, 'nowhere.git')}#v1.0.0`, 'ERR_LODE_GIT_RESOLVE_FAILED', /Failed to resolve the git dependency x@git\+file:.*nowhere\.git#v1\.0\.0: git ls-remote .* failed/],
      [`git+${lib.url}#v9.9.9`, 'ERR_LODE_GIT_REF_NOT_FOUND', /x@git\+file:.*: could not resolve v9\.9\.9 to a commit of/],
      [`git+${lib.url}#semver:^5`, 'ERR_LODE_GIT_REF_NOT_FOUND', /no tag of .* matches \^5\. Available versions are: v1\.0\.0, v1\.1\.0, v2\.0\.0-beta\.1/],
    ]
    for (const [spec, code, message] of cases) {
      const project = gitProject({ name: 'fails', version: '1.0.0', dependencies: { x: spec } })
      await pnpm(cloneProject(project), ['install'], true)
      const before = snapshot(project.dir)
      assert.match(expectFailure(await lode(project, ['install']), code), message)
      assert.deepEqual(changesOutside(before, snapshot(project.dir), []), [], `nothing written for ${spec}`)
    }
  })

  test('a clone that fails (the repository gone, the store empty) is ERR_LODE_GIT_FETCH_FAILED naming the package and the repository', async () => {
    const gone = await makeRepo(path.join(root, 'repos'), 'gone', [{ files: { 'package.json': manifestOf('gone', '1.0.0'), 'index.js': indexOf('gone', '1.0.0') }, tags: ['v1.0.0'] }])
    const project = gitProject({ name: 'clone-fails', version: '1.0.0', dependencies: { gone: `git+${gone.url}#v1.0.0`, dep: '1.0.0' } })
    const installed = await lode(project, ['install'])
    assert.equal(installed.code, 0, installed.stderr)
    fs.rmSync(storeDirOf(project), { recursive: true })
    fs.rmSync(gone.dir, { recursive: true })
    fs.rmSync(path.join(project.dir, 'node_modules'), { recursive: true })
    const before = snapshot(project.dir)
    const stderr = expectFailure(await lode(project, ['install', '--frozen-lockfile']), 'ERR_LODE_GIT_FETCH_FAILED')
    assert.match(stderr, new RegExp(`Failed to fetch gone@git\\+${escape(gone.url)}#${gone.commits[0]!} from the git repository ${escape(gone.url)}`))
    assert.deepEqual(changesOutside(before, snapshot(project.dir), []), [], 'nothing written')
  })

  test('git missing from PATH is ERR_LODE_GIT_NOT_FOUND naming the dependency, with a hint', async () => {
    const project = gitProject({ name: 'no-git', version: '1.0.0', dependencies: { lib: `git+${lib.url}#v1.0.0` } })
    const emptyPath = fs.mkdtempSync(path.join(os.tmpdir(), 'lode-no-git-'))
    const failed = await pnpm(cloneProject(project), ['install'], true, { PATH: emptyPath })
    assert.match(failed.stdout, /`git` executable not found on PATH/)
    const before = snapshot(project.dir)
    const stderr = expectFailure(await lode(project, ['install'], { PATH: emptyPath }), 'ERR_LODE_GIT_NOT_FOUND')
    assert.match(stderr, /`git` was not found on PATH; it is needed to install lib@git\+file:/)
    assert.match(stderr, /Install git/)
    assert.deepEqual(changesOutside(before, snapshot(project.dir), []), [], 'nothing written')
  })
})

function escape (text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
}
