import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'
import { after, before, test } from 'node:test'

import { TestRegistry } from '@lode/__utils__.test-fixtures'

import { cloneProject, lode, makeProject, pnpm, pnpmExactly, projectFile, snapshot, stepsBesidePnpm } from './helpers.js'
import type { Project } from './helpers.js'

// pnpm 11's install tests that concern what a project starts from (no package.json, CI, settings
// written in other forms), each beside pnpm 11 on the same registry.

let registry: TestRegistry

before(async () => {
  registry = await TestRegistry.start([
    { name: 'dep', version: '1.0.0' },
    { name: 'dep', version: '1.1.0' },
    { name: 'other', version: '1.0.0' },
  ])
})

after(async () => { await registry.close() })

function withoutManifest (): Project {
  const project = makeProject(registry, {})
  fs.rmSync(path.join(project.dir, 'package.json'))
  return project
}

test('without a package.json: add (and install <name>) writes one as pnpm 11 does; a plain install fails, writing nothing', async () => {
  await stepsBesidePnpm(withoutManifest(), [['add', 'dep@1.0.0']])
  await stepsBesidePnpm(withoutManifest(), [['install', 'other']])
  const empty = withoutManifest()
  const byPnpm = await pnpm(cloneProject(empty), ['install'], true)
  assert.match(byPnpm.stdout, /No package\.json/)
  const before = snapshot(empty.dir)
  const byLode = await lode(empty, ['install'])
  assert.equal(byLode.code, 1)
  assert.match(byLode.stderr, /ERR_LODE_NO_PACKAGE_JSON/)
  assert.deepEqual(snapshot(empty.dir), before)
  // An add that fails leaves the directory without package.json.
  const failing = await lode(empty, ['add', 'no-such-package'])
  assert.equal(failing.code, 1)
  assert.deepEqual(snapshot(empty.dir), before)
})

test('in CI, pnpm_config_frozen_lockfile=false lets an install update the lockfile, as pnpm 11', async () => {
  const project = makeProject(registry, { name: 'app', version: '1.0.0', dependencies: { dep: '1.0.0' } })
  const lodeProject = cloneProject(project)
  const run = async (of: Project, env: Record<string, string>): Promise<number> =>
    of === project ? (await pnpmExactly(of, ['install'], env)).code : (await lode(of, ['install'], env)).code
  for (const of of [project, lodeProject]) {
    assert.equal(await run(of, { CI: 'true' }), 0, `first install in CI by ${of === project ? 'pnpm' : 'lode'}`)
    fs.writeFileSync(path.join(of.dir, 'package.json'), JSON.stringify({ name: 'app', version: '1.0.0', dependencies: { dep: '^1.0.0' } }))
    assert.equal(await run(of, { CI: 'true' }), 1, 'frozen in CI')
    assert.equal(await run(of, { CI: 'true', pnpm_config_frozen_lockfile: 'false' }), 0, 'frozen lifted')
  }
  assert.equal(projectFile(lodeProject, 'pnpm-lock.yaml'), projectFile(project, 'pnpm-lock.yaml'))
})

test('trustPolicyExclude written as a single name, not a list, is read as pnpm 11 reads it', async () => {
  const project = makeProject(registry, { name: 'app', version: '1.0.0', dependencies: { dep: '1.0.0' } }, {
    'pnpm-workspace.yaml': 'trustPolicy: no-downgrade\ntrustPolicyExclude: dep@1.0.0\n',
  })
  await stepsBesidePnpm(project, [['install', '--lockfile-only'], ['install']])
})
