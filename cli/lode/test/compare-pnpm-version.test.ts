import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { after, before, test } from 'node:test'

import { TestRegistry } from '@lode/__utils__.test-fixtures'

import { cloneProject, failure, lodeExactly, makeProject, pnpmExactly } from './helpers.js'
import type { Project, RunResult } from './helpers.js'

// `lode version` beside pnpm 11's `version`, on copies of one git repository: the same output, exit
// code, package.json bytes, scripts run, and the same commit and tag objects (identities and dates
// are fixed, so equal hashes mean equal trees, messages and parents).

const GIT_ENV = {
  GIT_AUTHOR_NAME: 'lode test', GIT_AUTHOR_EMAIL: 'test@example.invalid', GIT_AUTHOR_DATE: '2025-01-01T00:00:00Z',
  GIT_COMMITTER_NAME: 'lode test', GIT_COMMITTER_EMAIL: 'test@example.invalid', GIT_COMMITTER_DATE: '2025-01-01T00:00:00Z',
  GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null',
}

let registry: TestRegistry
before(async () => { registry = await TestRegistry.start([{ name: 'alpha', version: '1.0.0' }]) })
after(async () => { await registry.close() })

function git (dir: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd: dir, encoding: 'utf8', env: { ...process.env, ...GIT_ENV } }).trim()
}

/** A project (its package.json as this text) and other files, committed in a fresh repository. */
function repoProject (manifestText: string, files: Record<string, string> = {}): Project {
  const project = makeProject(registry, {}, files)
  fs.writeFileSync(path.join(project.dir, 'package.json'), manifestText)
  git(project.dir, 'init', '-q', '-b', 'main')
  git(project.dir, 'add', '.')
  git(project.dir, 'commit', '-qm', 'init')
  return project
}

/** What a version command leaves behind: every package.json, the commits and the tags (objects included), the tree's state. */
function state (project: Project, manifests: readonly string[] = ['package.json']): Record<string, unknown> {
  return {
    manifests: manifests.map((file) => fs.readFileSync(path.join(project.dir, file), 'utf8')),
    log: git(project.dir, 'log', '--format=%H %s'),
    tags: git(project.dir, 'for-each-ref', 'refs/tags', '--format=%(refname:short) %(objecttype) %(objectname) %(contents:subject)'),
    status: git(project.dir, 'status', '--porcelain'),
  }
}

interface BothRuns { pnpm: RunResult, lode: RunResult, pnpmProject: Project, lodeProject: Project }

async function both (project: Project, args: string[]): Promise<BothRuns> {
  const pnpmProject = project
  const lodeProject = cloneProject(project)
  const [byPnpm, byLode] = [await pnpmExactly(pnpmProject, args, GIT_ENV), await lodeExactly(lodeProject, args, GIT_ENV)]
  return { pnpm: byPnpm, lode: byLode, pnpmProject, lodeProject }
}

/** pnpm's error line `ERR_PNPM_<CODE>  <message>` and lode's `[ERR_LODE_<CODE>] <message>`, as code and message. */
const SCRIPTS = {
  preversion: 'node -e "require(\'fs\').appendFileSync(\'../scripts.log\', \'preversion \' + require(\'./package.json\').version + \'\\n\')"',
  version: 'node -e "require(\'fs\').appendFileSync(\'../scripts.log\', \'version \' + require(\'./package.json\').version + \'\\n\')"',
  postversion: 'node -e "require(\'fs\').appendFileSync(\'../scripts.log\', \'postversion \' + require(\'child_process\').execSync(\'git describe --tags\') )"',
}

test('version minor with a message: the same output, package.json, scripts, commit and annotated tag as pnpm 11', async () => {
  const project = repoProject(`${JSON.stringify({ name: 'app', version: '1.0.0', scripts: SCRIPTS }, null, 4)}\n`)
  const run = await both(project, ['version', 'minor', '--message', 'chore: release %s'])
  assert.equal(run.pnpm.code, 0, run.pnpm.stderr + run.pnpm.stdout)
  assert.equal(run.lode.code, run.pnpm.code, run.lode.stderr)
  assert.equal(run.lode.stdout, run.pnpm.stdout)
  assert.deepEqual(state(run.lodeProject), state(run.pnpmProject))
  const scriptsLog = (p: Project): string => fs.readFileSync(path.join(p.dir, '..', 'scripts.log'), 'utf8')
  assert.equal(scriptsLog(run.pnpmProject), 'preversion 1.0.0\nversion 1.1.0\npostversion v1.1.0\n')
  assert.equal(scriptsLog(run.lodeProject), scriptsLog(run.pnpmProject))
})

test('exact and prerelease versions, a tab-indented file, settings, --no-git-tag-version, --tag-version-prefix, --json, --dry-run as pnpm 11', async () => {
  const cases: Array<{ manifest: string, args: string[], files?: Record<string, string> }> = [
    { manifest: '{\n\t"name": "app",\n\t"version": "1.2.3"\n}', args: ['version', '2.0.0-rc.1', '--no-git-tag-version'] },
    // The settings come from pnpm-workspace.yaml (pnpm 11 reads none of them from .npmrc).
    { manifest: '{"name":"app","version":"1.2.3"}\n', args: ['version', 'patch'], files: { 'pnpm-workspace.yaml': 'tagVersionPrefix: rel-\nmessage: "bump to %s"\n' } },
    { manifest: '{"name":"app","version":"1.2.3"}\n', args: ['version', 'prerelease', '--preid', 'beta', '--tag-version-prefix', 'release-'] },
    { manifest: '{"name":"app","version":"1.2.3"}\n', args: ['version', 'v3.0.0', '--json'] },
    { manifest: '{"name":"app","version":"1.2.3"}\n', args: ['version', 'major', '--dry-run'] },
    { manifest: '{"name":"app","version":"1.2.3"}\n', args: ['version', '1.2.3', '--allow-same-version'] },
  ]
  for (const { manifest, args, files } of cases) {
    const run = await both(repoProject(manifest, files), args)
    assert.equal(run.pnpm.code, 0, `${args.join(' ')}: ${run.pnpm.stdout}${run.pnpm.stderr}`)
    assert.equal(run.lode.code, 0, `${args.join(' ')}: ${run.lode.stderr}`)
    const normalize = (result: RunResult, p: Project): string => result.stdout.replaceAll(p.dir, '<dir>')
    assert.equal(normalize(run.lode, run.lodeProject), normalize(run.pnpm, run.pnpmProject), args.join(' '))
    assert.deepEqual(state(run.lodeProject), state(run.pnpmProject), args.join(' '))
  }
})

test('refusals as pnpm 11\'s, with nothing written: an unclean tree, a bad argument, the same version, a version that is not semver, no tag for from-git', async () => {
  const cases: Array<{ manifest: string, args: string[], dirty?: true }> = [
    { manifest: '{"name":"app","version":"1.0.0"}\n', args: ['version', 'patch'], dirty: true },
    { manifest: '{"name":"app","version":"1.0.0"}\n', args: ['version', 'mayor'] },
    { manifest: '{"name":"app","version":"1.0.0"}\n', args: ['version'] },
    { manifest: '{"name":"app","version":"1.0.0"}\n', args: ['version', '1.0.0'] },
    { manifest: '{"name":"app","version":"next"}\n', args: ['version', 'patch'] },
    { manifest: '{"name":"app","version":"1.0.0"}\n', args: ['version', 'from-git'] },
    { manifest: '{"private":true}\n', args: ['version', 'patch'] },
  ]
  for (const { manifest, args, dirty } of cases) {
    const project = repoProject(manifest)
    if (dirty === true) fs.writeFileSync(path.join(project.dir, 'notes.txt'), 'work in progress')
    const before = state(project)
    const run = await both(project, args)
    assert.notEqual(run.pnpm.code, 0, args.join(' '))
    assert.equal(run.lode.code, 1, args.join(' '))
    assert.equal(failure(run.lode).replaceAll(run.lodeProject.dir, '<dir>'), failure(run.pnpm).replaceAll(run.pnpmProject.dir, '<dir>'), args.join(' '))
    assert.deepEqual(state(run.lodeProject), before, args.join(' '))
  }
})

test('version -r and --filter in a workspace: the projects pnpm 11 bumps, in its order, and no commit', async () => {
  const files = {
    'pnpm-workspace.yaml': 'packages:\n  - packages/*\n',
    // a depends on b: pnpm bumps in the workspace's order (root, then by directory), not dependencies first.
    'packages/a/package.json': '{\n  "name": "a",\n  "version": "1.0.0",\n  "dependencies": {\n    "b": "workspace:^"\n  }\n}\n',
    'packages/b/package.json': '{\n  "name": "b",\n  "version": "2.1.0"\n}\n',
    'packages/c/package.json': '{\n  "name": "c",\n  "private": true\n}\n',
  }
  const manifests = ['package.json', 'packages/a/package.json', 'packages/b/package.json', 'packages/c/package.json']
  for (const args of [['version', '-r', 'patch'], ['version', 'minor', '--filter', 'b'], ['version', '-r', 'preminor', '--preid', 'rc', '--json'], ['version', '-r', 'major', '--dry-run']]) {
    const project = repoProject('{"name":"root","version":"0.1.0","private":true}\n', files)
    const run = await both(project, args)
    assert.equal(run.pnpm.code, 0, `${args.join(' ')}: ${run.pnpm.stdout}${run.pnpm.stderr}`)
    assert.equal(run.lode.code, 0, `${args.join(' ')}: ${run.lode.stderr}`)
    const normalize = (result: RunResult, p: Project): string => result.stdout.replaceAll(p.dir, '<dir>')
    assert.equal(normalize(run.lode, run.lodeProject), normalize(run.pnpm, run.pnpmProject), args.join(' '))
    assert.deepEqual(state(run.lodeProject, manifests), state(run.pnpmProject, manifests), args.join(' '))
    if (args[2] === 'patch') assert.match(run.lode.stdout, /^Version bumped successfully:\nroot: 0\.1\.0 → 0\.1\.1\na: 1\.0\.0 → 1\.0\.1\nb: 2\.1\.0 → 2\.1\.1\n$/)
  }
  // Without a version, pnpm 11 releases from its change intents (.changeset/): not in lode yet, refused with nothing written.
  const project = repoProject('{"name":"root","version":"0.1.0","private":true}\n', files)
  const before = state(project, manifests)
  const bare = await lodeExactly(project, ['version', '-r'], GIT_ENV)
  assert.equal(bare.code, 1)
  assert.match(bare.stderr, /^\[ERR_LODE_COMMAND_NOT_IMPLEMENTED\] lode version -r without a version/)
  assert.deepEqual(state(project, manifests), before)
})
