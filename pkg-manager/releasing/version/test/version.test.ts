import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { test } from 'node:test'

import { isLodeError } from '@lode/core.error'

import { parseBump, renderVersionChanges, versionProjects } from '../src/index.js'
import type { VersionOptions, VersionScript } from '../src/index.js'

// Real git repositories in temp directories: the commit, the tag and the working tree as git sees them.

const SETTINGS = { allowSameVersion: false, commitHooks: true, gitChecks: true, gitTagVersion: true, message: '%s', signGitTag: false, tagVersionPrefix: 'v' }

function git (dir: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd: dir, encoding: 'utf8' }).trim()
}

function repo (projects: Record<string, string>): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lode-version-'))
  for (const [rel, text] of Object.entries(projects)) {
    fs.mkdirSync(path.join(dir, rel), { recursive: true })
    fs.writeFileSync(path.join(dir, rel, 'package.json'), text)
  }
  git(dir, 'init', '-q')
  git(dir, 'config', 'user.email', 'dev@example.test')
  git(dir, 'config', 'user.name', 'dev')
  git(dir, 'add', '.')
  git(dir, 'commit', '-qm', 'init')
  return dir
}

function versionIn (dir: string): unknown {
  return (JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8')) as Record<string, unknown>)['version']
}

function options (dir: string, over: Partial<VersionOptions>): VersionOptions {
  return { projectDirs: [dir], recursive: false, gitDir: dir, bump: parseBump('minor'), preid: undefined, dryRun: false, settings: SETTINGS, runScript: undefined, ...over }
}

test('one project: the scripts in order, package.json written with its indentation, then a commit and an annotated tag before postversion', async () => {
  const dir = repo({ '.': '{\n    "name": "app",\n    "version": "1.0.0",\n    "private": true\n}\n' })
  const ran: string[] = []
  const runScript: VersionScript = async (stage) => {
    ran.push(`${stage}:${String(versionIn(dir))}:${git(dir, 'log', '-1', '--format=%s')}`)
    await Promise.resolve()
  }
  const changes = await versionProjects(options(dir, { runScript, settings: { ...SETTINGS, message: 'release %s (%s)' } }))
  assert.deepEqual(ran, ['preversion:1.0.0:init', 'version:1.1.0:init', 'postversion:1.1.0:release 1.1.0 (1.1.0)'])
  assert.equal(fs.readFileSync(path.join(dir, 'package.json'), 'utf8'), '{\n    "name": "app",\n    "version": "1.1.0",\n    "private": true\n}\n')
  assert.equal(git(dir, 'cat-file', '-t', 'v1.1.0'), 'tag')
  assert.equal(git(dir, 'tag', '-l', '--format=%(contents:subject)', 'v1.1.0'), 'release 1.1.0 (1.1.0)')
  assert.equal(git(dir, 'status', '--porcelain'), '')
  assert.equal(renderVersionChanges(changes, { json: false, dryRun: false }), 'Version bumped successfully:\napp: 1.0.0 → 1.1.0\n')
  assert.deepEqual(JSON.parse(renderVersionChanges(changes, { json: true, dryRun: false })), [{ name: 'app', currentVersion: '1.0.0', newVersion: '1.1.0', path: dir }])
})

test('an unclean working tree is refused with nothing written, unless gitChecks is off; gitTagVersion off commits nothing', async () => {
  const dir = repo({ '.': '{"name":"app","version":"1.0.0"}' })
  fs.writeFileSync(path.join(dir, 'notes.txt'), 'wip')
  await assert.rejects(versionProjects(options(dir, {})), (err) => isLodeError(err, 'ERR_LODE_UNCLEAN_WORKING_TREE'))
  assert.equal(fs.readFileSync(path.join(dir, 'package.json'), 'utf8'), '{"name":"app","version":"1.0.0"}')
  await versionProjects(options(dir, { settings: { ...SETTINGS, gitChecks: false, gitTagVersion: false } }))
  assert.equal(fs.readFileSync(path.join(dir, 'package.json'), 'utf8'), '{"name":"app","version":"1.1.0"}')
  assert.equal(git(dir, 'log', '-1', '--format=%s'), 'init')
  assert.equal(git(dir, 'tag', '-l'), '')
})

test('several projects: one version that is not semver stops all before anything runs; a failing script puts back the manifests written', async () => {
  const dir = repo({ a: '{"name":"a","version":"1.0.0"}\n', b: '{"name":"b","version":"next"}\n', c: '{"name":"c","version":"2.0.0"}\n', d: '{"private":true}\n' })
  const dirs = ['a', 'b', 'c', 'd'].map((rel) => path.join(dir, rel))
  const ran: string[] = []
  await assert.rejects(versionProjects(options(dir, { projectDirs: dirs, recursive: true, runScript: async (stage, at) => { ran.push(`${stage}:${at}`); await Promise.resolve() } })),
    (err) => isLodeError(err, 'ERR_LODE_INVALID_VERSION') && err.message.includes(path.join(dir, 'b')))
  assert.deepEqual(ran, [])
  fs.writeFileSync(path.join(dir, 'b', 'package.json'), '{"name":"b","version":"1.5.0"}\n')
  git(dir, 'commit', '-qam', 'b')
  const failing: VersionScript = async (stage, at) => {
    await Promise.resolve()
    if (stage === 'version' && at === dirs[2]) throw new Error('version script failed')
  }
  await assert.rejects(versionProjects(options(dir, { projectDirs: dirs, recursive: true, runScript: failing })), /version script failed/)
  assert.equal(git(dir, 'status', '--porcelain'), '')
  const changes = await versionProjects(options(dir, { projectDirs: dirs, recursive: true, bump: parseBump('prerelease'), preid: 'rc' }))
  assert.deepEqual(changes.map((change) => `${change.name}@${change.newVersion}`), ['a@1.0.1-rc.0', 'b@1.5.1-rc.0', 'c@2.0.1-rc.0'])
  // -r: nothing committed or tagged (the projects may move to different versions).
  assert.equal(git(dir, 'log', '-1', '--format=%s'), 'b')
  assert.equal(git(dir, 'tag', '-l'), '')
})

test('from-git takes the latest release tag and commits nothing; a dry run writes nothing; no tag or no project to bump are coded errors', async () => {
  const dir = repo({ '.': '{"name":"app","version":"1.0.0"}\n' })
  await assert.rejects(versionProjects(options(dir, { bump: parseBump('from-git') })), (err) => isLodeError(err, 'ERR_LODE_INVALID_VERSION_FROM_GIT'))
  git(dir, 'tag', 'v2.3.4')
  git(dir, 'tag', 'other')
  const plan = await versionProjects(options(dir, { bump: parseBump('from-git'), dryRun: true }))
  assert.equal(renderVersionChanges(plan, { json: false, dryRun: true }), 'Version bump plan:\napp: 1.0.0 → 2.3.4\n')
  assert.equal(fs.readFileSync(path.join(dir, 'package.json'), 'utf8'), '{"name":"app","version":"1.0.0"}\n')
  await versionProjects(options(dir, { bump: parseBump('from-git') }))
  assert.equal(versionIn(dir), '2.3.4')
  // The tag is where the version came from: nothing committed or tagged (npm's rule).
  assert.equal(git(dir, 'log', '-1', '--format=%s'), 'init')
  assert.equal(git(dir, 'status', '--porcelain'), 'M package.json')
  // The tag exists already: refused before package.json is written.
  const again = repo({ '.': '{"name":"app","version":"1.0.0"}\n' })
  git(again, 'tag', 'v1.0.1')
  await assert.rejects(versionProjects(options(again, { bump: parseBump('patch') })), (err) => isLodeError(err, 'ERR_LODE_GIT_TAG_EXISTS'))
  assert.equal(git(again, 'status', '--porcelain'), '')
  const unnamed = repo({ '.': '{"private":true}\n' })
  await assert.rejects(versionProjects(options(unnamed, {})), (err) => isLodeError(err, 'ERR_LODE_NO_PACKAGES_TO_VERSION'))
})

test('a commit refused by a hook leaves package.json and the index as they were; commitHooks off (--no-verify) commits', async () => {
  const dir = repo({ '.': '{"name":"app","version":"1.0.0"}\n' })
  fs.writeFileSync(path.join(dir, '.git', 'hooks', 'pre-commit'), '#!/bin/sh\necho "not today" >&2\nexit 1\n', { mode: 0o755 })
  await assert.rejects(versionProjects(options(dir, {})), (err) => isLodeError(err, 'ERR_LODE_GIT_FAILED') && /not today/.test(err.message))
  assert.equal(git(dir, 'status', '--porcelain'), '')
  assert.equal(git(dir, 'tag', '-l'), '')
  await versionProjects(options(dir, { settings: { ...SETTINGS, commitHooks: false } }))
  assert.equal(git(dir, 'log', '-1', '--format=%s'), '1.1.0')
  assert.equal(git(dir, 'describe', '--tags'), 'v1.1.0')
})
