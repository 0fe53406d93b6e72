import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { test } from 'node:test'

import { packageJsonAtCommit, packagePathInRepository } from '@lode/resolving.git-resolver'

const GIT_ENV = {
  ...process.env,
  GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@example.invalid', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@example.invalid',
  GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null',
}

/** A repository with one commit of these files; returns its file: URL and the commit. */
function repository (files: Record<string, string>): { repo: string, commit: string } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lode-git-manifest-test-'))
  const git = (...args: string[]): string => execFileSync('git', args, { cwd: dir, env: GIT_ENV, encoding: 'utf8' })
  git('init', '-q', '-b', 'main')
  for (const [file, content] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true })
    fs.writeFileSync(path.join(dir, file), content)
  }
  git('add', '-A')
  git('commit', '-q', '-m', 'one')
  return { repo: `file://${dir}`, commit: git('rev-parse', 'HEAD').trim() }
}

test('packagePathInRepository: path: relative to the root, never outside it', () => {
  assert.equal(packagePathInRepository(undefined, 'x'), '')
  assert.equal(packagePathInRepository('/', 'x'), '')
  assert.equal(packagePathInRepository('/packages/a/', 'x'), 'packages/a')
  assert.equal(packagePathInRepository('packages/./a', 'x'), 'packages/a')
  assert.equal(packagePathInRepository('packages/b/../a', 'x'), 'packages/a')
  for (const outside of ['/../x', '..', 'packages/../../x', '\\..\\x']) {
    assert.throws(() => packagePathInRepository(outside, 'lib@git+file:///r.git'), { code: 'ERR_LODE_GIT_INVALID_PATH', message: /of lib@git\+file:\/\/\/r\.git is not inside the repository/ })
  }
})

test('packageJsonAtCommit reads package.json at the root or a path: directory, without a checkout; none, or no such directory', async () => {
  const { repo, commit } = repository({ 'package.json': '{"name":"root"}', 'packages/a/package.json': '{"name":"a"}', 'packages/b/index.js': '' })
  const opts = { subject: 'x' }
  assert.equal(await packageJsonAtCommit({ repo, commit }, opts), '{"name":"root"}')
  assert.equal(await packageJsonAtCommit({ repo, commit, path: '/packages/a' }, opts), '{"name":"a"}')
  assert.equal(await packageJsonAtCommit({ repo, commit, path: '/packages/b' }, opts), undefined)
  await assert.rejects(packageJsonAtCommit({ repo, commit, path: '/packages/c' }, opts), { code: 'ERR_LODE_GIT_INVALID_PATH', message: /is not a directory of the repository/ })
  await assert.rejects(packageJsonAtCommit({ repo, commit, path: '/packages/b/index.js' }, opts), { code: 'ERR_LODE_GIT_INVALID_PATH' })
  await assert.rejects(packageJsonAtCommit({ repo: `${repo}-gone`, commit, path: '' }, { subject: 'lib@git+file:///gone' }), { code: 'ERR_LODE_GIT_FETCH_FAILED', message: /Failed to fetch lib@git\+file:\/\/\/gone/ })
})
