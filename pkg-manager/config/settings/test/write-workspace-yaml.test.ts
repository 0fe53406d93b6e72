import assert from 'node:assert/strict'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { test } from 'node:test'

import { mergeReleaseAgeExcludes, updateWorkspaceYaml } from '@lode/pkg-manager.config.settings'

const ADDED = ['alpha@1.0.0', 'fresh@1.0.0', 'zeta@2.0.0']

/** Writes `before` (unless undefined), adds ADDED to minimumReleaseAgeExclude, returns the file. */
async function addExcludes (before: string | undefined): Promise<string> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lode-ws-yaml-'))
  const file = path.join(dir, 'pnpm-workspace.yaml')
  if (before !== undefined) fs.writeFileSync(file, before)
  const existing = (before?.includes('minimumReleaseAgeExclude') ?? false) ? ['zzz', 'fresh@0.9.0'] : []
  assert.equal(await updateWorkspaceYaml(dir, { minimumReleaseAgeExclude: mergeReleaseAgeExcludes([...existing, ...ADDED]) }), true)
  assert.equal(await updateWorkspaceYaml(dir, { minimumReleaseAgeExclude: mergeReleaseAgeExcludes([...existing, ...ADDED]) }), false, 'a second identical update changes nothing')
  return fs.readFileSync(file, 'utf8')
}

// Each expected text is what pnpm 11.28.11 wrote for the same file and entries.
test('a missing pnpm-workspace.yaml is created', async () => {
  assert.equal(await addExcludes(undefined), 'minimumReleaseAgeExclude:\n  - alpha@1.0.0\n  - fresh@1.0.0\n  - zeta@2.0.0\n')
})

test('an existing list keeps its comments, order and items; versions of one package merge', async () => {
  const before = '# settings\nautoInstallPeers: true   # keep\n\nminimumReleaseAgeExclude:\n  - zzz\n  - fresh@0.9.0\n\nlinkWorkspacePackages: false\n'
  assert.equal(await addExcludes(before),
    '# settings\nautoInstallPeers: true # keep\n\nminimumReleaseAgeExclude:\n  - zzz\n  - fresh@0.9.0 || 1.0.0\n  - alpha@1.0.0\n  - zeta@2.0.0\n\nlinkWorkspacePackages: false\n')
})

test('a new key goes to its sorted place (after a leading packages) with the blank lines of its neighbours', async () => {
  assert.equal(await addExcludes('packages:\n  - "."\n\nautoInstallPeers: true\n\noverrides:\n  foo: 1.0.0\n'),
    'packages:\n  - "."\n\nautoInstallPeers: true\n\nminimumReleaseAgeExclude:\n  - alpha@1.0.0\n  - fresh@1.0.0\n  - zeta@2.0.0\n\noverrides:\n  foo: 1.0.0\n')
  assert.equal(await addExcludes('autoInstallPeers: true\nlinkWorkspacePackages: false\n\nsaveExact: true\n'),
    'autoInstallPeers: true\nlinkWorkspacePackages: false\n\nminimumReleaseAgeExclude:\n  - alpha@1.0.0\n  - fresh@1.0.0\n  - zeta@2.0.0\n\nsaveExact: true\n')
})

test('unsorted keys get the new key at the end', async () => {
  assert.equal(await addExcludes('linkWorkspacePackages: false\nautoInstallPeers: true\n'),
    'linkWorkspacePackages: false\nautoInstallPeers: true\nminimumReleaseAgeExclude:\n  - alpha@1.0.0\n  - fresh@1.0.0\n  - zeta@2.0.0\n')
})

test('mergeReleaseAgeExcludes: one entry per package, versions in semver order, a bare name wins', () => {
  assert.deepEqual(mergeReleaseAgeExcludes(['b@1.10.0', 'a', '@s/c@2.0.0', 'b@1.9.0 || 1.0.0', 'a@1.0.0', '@s/c@1.0.0']),
    ['b@1.0.0 || 1.9.0 || 1.10.0', 'a', '@s/c@1.0.0 || 2.0.0'])
})

test('a broken pnpm-workspace.yaml is an error naming the file, and is left as it was', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lode-ws-yaml-'))
  const file = path.join(dir, 'pnpm-workspace.yaml')
  fs.writeFileSync(file, 'a: [\n')
  await assert.rejects(updateWorkspaceYaml(dir, { minimumReleaseAgeExclude: ['x'] }), (err: Error & { code?: string }) => {
    assert.equal(err.code, 'ERR_LODE_INVALID_WORKSPACE_YAML')
    assert.ok(err.message.includes(file))
    return true
  })
  assert.equal(fs.readFileSync(file, 'utf8'), 'a: [\n')
})
