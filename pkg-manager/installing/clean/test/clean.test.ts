import assert from 'node:assert/strict'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { test } from 'node:test'

import { isLodeError } from '@lode/core.error'

import { cleanProjects } from '../src/index.js'

function tree (files: Record<string, string>): string {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'lode-clean-'))
  for (const [rel, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true })
    fs.writeFileSync(path.join(root, rel), text)
  }
  return root
}

function listing (root: string): string[] {
  return (fs.readdirSync(root, { recursive: true }) as string[]).map((entry) => entry.split(path.sep).join('/')).sort()
}

test('clean empties what installs wrote into each node_modules, keeps other dot entries, and takes the lockfiles only when asked', async () => {
  const root = tree({
    'package.json': '{}',
    'pnpm-lock.yaml': 'lockfileVersion: \'9.0\'\n',
    'node_modules/.pnpm/lock.yaml': '',
    'node_modules/.modules.yaml': '',
    'node_modules/.lode-state.json': '{}',
    'node_modules/.cache/tool/data': 'kept',
    'node_modules/.lode-install.lock': '',
    'node_modules/dep/index.js': '',
    'node_modules/@scope/dep/index.js': '',
    'packages/a/node_modules/.bin/tool': '',
    'packages/a/node_modules/.cache/x': 'kept',
    'packages/b/node_modules/.cache/only': 'kept',
  })
  const outside = tree({ 'precious.txt': 'kept' })
  fs.symlinkSync(outside, path.join(root, 'node_modules', 'linked'))
  const removed: string[] = []
  const projectDirs = [root, path.join(root, 'packages', 'a'), path.join(root, 'packages', 'b')]
  const opts = { projectDirs, rootDir: root, virtualStoreDir: path.join(root, 'node_modules', '.pnpm'), onRemove: (target: string) => { removed.push(path.relative(root, target)) } }
  await cleanProjects({ ...opts, removeLockfile: false })
  assert.deepEqual(removed, ['node_modules', 'packages/a/node_modules'], 'a node_modules with only other dot entries is not named')
  assert.deepEqual(listing(root), [
    'node_modules', 'node_modules/.cache', 'node_modules/.cache/tool', 'node_modules/.cache/tool/data', 'node_modules/.lode-install.lock',
    'package.json', 'packages', 'packages/a', 'packages/a/node_modules', 'packages/a/node_modules/.cache', 'packages/a/node_modules/.cache/x',
    'packages/b', 'packages/b/node_modules', 'packages/b/node_modules/.cache', 'packages/b/node_modules/.cache/only', 'pnpm-lock.yaml',
  ])
  assert.equal(fs.readFileSync(path.join(outside, 'precious.txt'), 'utf8'), 'kept', 'a link is removed, not followed')
  removed.length = 0
  await cleanProjects({ ...opts, removeLockfile: true })
  assert.deepEqual(removed, ['pnpm-lock.yaml'])
})

test('a virtual store set apart goes when it is inside the workspace, not through a link nor the root itself', async () => {
  const root = tree({ 'package.json': '{}', 'vstore/pkg/index.js': '', 'node_modules/dep/index.js': '' })
  const outside = tree({ 'store/pkg/index.js': 'kept' })
  fs.symlinkSync(outside, path.join(root, 'linked'))
  const removed: string[] = []
  const onRemove = (target: string): void => { removed.push(target) }
  const base = { projectDirs: [root], rootDir: root, removeLockfile: false, onRemove }
  await cleanProjects({ ...base, virtualStoreDir: path.join(root, 'linked', 'store') })
  await cleanProjects({ ...base, virtualStoreDir: root })
  await cleanProjects({ ...base, virtualStoreDir: path.dirname(root) })
  assert.equal(fs.readFileSync(path.join(outside, 'store', 'pkg', 'index.js'), 'utf8'), 'kept')
  assert.ok(fs.existsSync(path.join(root, 'package.json')))
  await cleanProjects({ ...base, virtualStoreDir: path.join(root, 'vstore') })
  assert.deepEqual(removed, [path.join(root, 'node_modules'), path.join(root, 'vstore')])
  assert.equal(fs.existsSync(path.join(root, 'vstore')), false)
})

test('a node_modules that is a link or a file is refused before anything is removed', async () => {
  const root = tree({ 'package.json': '{}', 'node_modules/dep/index.js': '', 'packages/a/package.json': '{}' })
  const outside = tree({ 'important/file': 'kept' })
  fs.symlinkSync(outside, path.join(root, 'packages', 'a', 'node_modules'))
  const projectDirs = [root, path.join(root, 'packages', 'a')]
  await assert.rejects(cleanProjects({ projectDirs, rootDir: root, virtualStoreDir: path.join(root, 'node_modules', '.pnpm'), removeLockfile: false, onRemove: () => {} }),
    (err) => isLodeError(err, 'ERR_LODE_CLEAN_NOT_A_DIRECTORY') && err.message.includes(path.join(root, 'packages', 'a', 'node_modules')))
  assert.ok(fs.existsSync(path.join(root, 'node_modules', 'dep', 'index.js')), 'nothing removed')
  assert.deepEqual(listing(outside), ['important', 'important/file'])
})
