import assert from 'node:assert/strict'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { test } from 'node:test'

import { excludeFromReleaseAge, pruneReleaseAgeExcludes } from '@lode/pkg-manager.deps.manifest-edit'
import type { Lockfile } from '@lode/pkg-manager.lockfile.format'

const lockfile: Lockfile = {
  lockfileVersion: '9.0',
  importers: {},
  packages: { 'a@1.0.0': { resolution: { integrity: 'sha512-a' } }, '@s/b@2.0.0': { resolution: { integrity: 'sha512-b' } } },
}

function workspace (text: string): { dir: string, file: string } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lode-release-age-'))
  fs.writeFileSync(path.join(dir, 'pnpm-workspace.yaml'), text)
  return { dir, file: path.join(dir, 'pnpm-workspace.yaml') }
}

test('pruneReleaseAgeExcludes drops packages and versions the lockfile no longer has; globs and kept entries stay', async () => {
  const { dir, file } = workspace('minimumReleaseAgeExclude:\n  - a@1.0.0 || 1.1.0\n  - "@s/b"\n  - gone\n  - c*\n')
  assert.equal(await pruneReleaseAgeExcludes(dir, ['a@1.0.0 || 1.1.0', '@s/b', 'gone', 'c*'], lockfile), true)
  assert.equal(fs.readFileSync(file, 'utf8'), 'minimumReleaseAgeExclude:\n  - a@1.0.0\n  - "@s/b"\n  - c*\n')
  // Nothing to drop: the file is left alone.
  assert.equal(await pruneReleaseAgeExcludes(dir, ['a@1.0.0', '@s/b', 'c*'], lockfile), false)
  // Nothing left: the setting goes.
  const emptied = workspace('packages: []\nminimumReleaseAgeExclude:\n  - gone@1.0.0\n')
  assert.equal(await pruneReleaseAgeExcludes(emptied.dir, ['gone@1.0.0'], lockfile), true)
  assert.equal(fs.readFileSync(emptied.file, 'utf8'), 'packages: []\n')
})

test('excludeFromReleaseAge adds the versions picked too young, merged per package', async () => {
  const { dir, file } = workspace('minimumReleaseAgeExclude:\n  - a@1.0.0\n')
  assert.deepEqual(await excludeFromReleaseAge(dir, ['a@1.0.0'], [{ name: 'a', version: '0.9.0' }, { name: 'd', version: '1.0.0' }]), ['a@0.9.0', 'd@1.0.0'])
  assert.equal(fs.readFileSync(file, 'utf8'), 'minimumReleaseAgeExclude:\n  - a@0.9.0 || 1.0.0\n  - d@1.0.0\n')
})
