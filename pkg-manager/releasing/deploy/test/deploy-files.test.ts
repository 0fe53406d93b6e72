import assert from 'node:assert/strict'
import path from 'node:path'
import { test } from 'node:test'

import type { Lockfile } from '@lode/pkg-manager.lockfile.format'

import { createDeployFiles } from '../src/index.js'
import type { DeployFilesInput } from '../src/index.js'

// The workspace's lockfile is the repository's: each importer becomes a directory the deploy
// copies, so one outside the workspace is refused before anything is written.

const WORKSPACE = path.resolve('/workspace')

function input (importers: Lockfile['importers']): DeployFilesInput {
  const app = { name: 'app', version: '1.0.0', dependencies: { lib: 'workspace:*' } }
  return {
    lockfile: { lockfileVersion: '9.0', importers },
    lockfileDir: WORKSPACE,
    projectId: 'packages/app',
    projects: [{ dir: path.join(WORKSPACE, 'packages', 'app'), manifest: app }, { dir: path.join(WORKSPACE, 'packages', 'lib'), manifest: { name: 'lib', version: '1.0.0' } }],
    deployDir: path.join(WORKSPACE, 'deployed'),
    include: { dependencies: true, devDependencies: true, optionalDependencies: true },
    manifest: app,
    patchedDependencies: {},
    allowBuilds: {},
  }
}

const APP = { dependencies: { lib: { specifier: 'workspace:*', version: 'link:../lib' } } }

test('a workspace project the deployed one links to becomes a directory package named from the deploy directory', () => {
  const files = createDeployFiles(input({ '.': {}, 'packages/app': APP, 'packages/lib': {} }))
  const lib = Object.entries(files.lockfile.packages ?? {}).find(([id]) => id.startsWith('lib@file:'))
  assert.deepEqual(lib?.[1].resolution, { directory: '../packages/lib', type: 'directory' })
})

test('an importer outside the workspace (climbing, absolute, or with an empty segment) is refused with a coded error naming it', () => {
  for (const importer of ['../outside', 'packages/../../outside', '/outside', path.resolve('/outside'), 'packages//lib', './packages/lib', 'a\0b']) {
    assert.throws(() => createDeployFiles(input({ '.': {}, 'packages/app': { dependencies: { lib: { specifier: 'workspace:*', version: `link:${path.relative(path.join(WORKSPACE, 'packages', 'app'), path.resolve(WORKSPACE, importer.replace('\0', '')))}` } } }, [importer]: {} })), (err: Error & { code?: string, hint?: string }) => {
      assert.equal(err.code, 'ERR_LODE_INVALID_LOCKFILE_IMPORTER')
      assert.ok(err.message.includes(JSON.stringify(importer)) && err.message.includes('pnpm-lock.yaml'), err.message)
      assert.ok(err.hint !== undefined)
      return true
    }, importer)
  }
})
