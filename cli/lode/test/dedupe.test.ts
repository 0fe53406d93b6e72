import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'
import { after, before, test } from 'node:test'

import { snapshot, TestRegistry } from '@lode/__utils__.test-fixtures'

import { cloneProject, lode, makeProject, pnpm, readLockfileText } from './helpers.js'

// `lode dedupe` beside pnpm 11's: a package the graph has at two versions collapses to the one a
// range can share; `--check` lists the changes and writes nothing.

let registry: TestRegistry
before(async () => {
  registry = await TestRegistry.start([
    { name: 'shared', version: '1.0.0' },
    { name: 'a', version: '1.0.0', dependencies: { shared: '^1.0.0' } },
  ])
})
after(async () => { await registry.close() })

test('lode dedupe collapses what pnpm dedupe collapses; --check lists the changes and writes nothing', async () => {
  const pnpmProject = makeProject(registry, { name: 'd', version: '1.0.0', dependencies: { a: '1.0.0', shared: '^1.0.0' } })
  await pnpm(pnpmProject, ['install'])
  await registry.publish({ name: 'shared', version: '1.1.0' })
  await registry.publish({ name: 'b', version: '1.0.0', dependencies: { shared: '^1.1.0' } })
  fs.writeFileSync(path.join(pnpmProject.dir, 'package.json'), JSON.stringify({ name: 'd', version: '1.0.0', dependencies: { a: '1.0.0', b: '1.0.0', shared: '^1.0.0' } }))
  await pnpm(pnpmProject, ['install'])
  const lodeProject = cloneProject(pnpmProject)
  const lockfileBefore = readLockfileText(lodeProject)
  assert.match(lockfileBefore, /shared@1\.0\.0/)
  const expected = await pnpm(pnpmProject, ['dedupe', '--check'], true)
  const actual = await lode(lodeProject, ['dedupe', '--check'])
  assert.equal(actual.code, 1)
  const report = expected.stdout.slice(expected.stdout.indexOf('[ERR_PNPM_')).replace('ERR_PNPM_', 'ERR_LODE_').replace('Run pnpm dedupe', 'Run lode dedupe')
  assert.equal(actual.stderr, report)
  assert.match(report, /^Importers\n\.\n└── shared 1\.0\.0 → 1\.1\.0\n/m)
  assert.equal(readLockfileText(lodeProject), lockfileBefore)
  await pnpm(pnpmProject, ['dedupe'])
  const deduped = await lode(lodeProject, ['dedupe'])
  assert.equal(deduped.code, 0, deduped.stderr)
  assert.equal(readLockfileText(lodeProject), readLockfileText(pnpmProject))
  assert.doesNotMatch(readLockfileText(lodeProject), /shared@1\.0\.0/)
  assert.equal(fs.readlinkSync(path.join(lodeProject.dir, 'node_modules/.pnpm/a@1.0.0/node_modules/shared')), '../../shared@1.1.0/node_modules/shared')
  const clean = await lode(lodeProject, ['dedupe', '--check'])
  assert.equal(clean.code, 0, clean.stderr)
  assert.equal((await pnpm(pnpmProject, ['dedupe', '--check'])).code, 0)
})

test('an optional dependency the lockfile has a version of is not dropped when the registry lacks it: the resolution fails and changes nothing (pnpm 11\'s rule)', async () => {
  const withOpt = [{ name: 'has-opt', version: '1.0.0', manifest: { optionalDependencies: { 'opt-a': '^1.0.0' } } }]
  const first = await TestRegistry.start([...withOpt, { name: 'opt-a', version: '1.0.0' }])
  // A mirror that has not synced opt-a@1.0.0 (its packument lists 2.0.0 only).
  const mirror = await TestRegistry.start([...withOpt, { name: 'opt-a', version: '2.0.0' }])
  try {
    // No release-age check of the locked entries (it would refuse them first, as pnpm 11's would).
    const project = makeProject(first, { name: 'o', version: '1.0.0', dependencies: { 'has-opt': '1.0.0' } }, { 'pnpm-workspace.yaml': 'minimumReleaseAge: 0\n' })
    assert.equal((await lode(project, ['install'])).code, 0)
    assert.match(readLockfileText(project), /opt-a@1\.0\.0/)
    fs.writeFileSync(path.join(project.home, '.npmrc'), `registry=${mirror.url}\n`)
    const before = snapshot(project.dir)
    const result = await lode(project, ['dedupe'])
    assert.equal(result.code, 1, result.stdout)
    assert.match(result.stderr, /ERR_LODE_NO_MATCHING_VERSION/)
    assert.match(result.stderr, /the lockfile contains a resolution for it/)
    assert.deepEqual(snapshot(project.dir), before, 'nothing written')
    // Without a locked version, the optional dependency is left out as before.
    const fresh = makeProject(mirror, { name: 'o', version: '1.0.0', dependencies: { 'has-opt': '1.0.0' } })
    const installed = await lode(fresh, ['install'])
    assert.equal(installed.code, 0, installed.stderr)
    assert.doesNotMatch(readLockfileText(fresh), /opt-a@/)
  } finally {
    await Promise.all([first.close(), mirror.close()])
  }
})
