import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'
import { test } from 'node:test'

import { buildPackageTarball } from '@lode/__utils__.test-fixtures'

import { json, makeProject, projectFile, stepsBesidePnpm, withRegistry } from './helpers.js'
import type { Project, ProjectPair as Pair, Step } from './helpers.js'

// Local dependencies (`file:` directories and tarballs) that change between installs, as pnpm 11's
// tests change them: each step run by pnpm 11 and by lode on copies of one project (stepsBesidePnpm:
// the same exit code, package.json, lockfile and node_modules after each step, a failing lode
// changing nothing). The local packages live inside the project, so the copies have their own.

const REGISTRY = [
  { name: 'dep', version: '1.0.0' },
  { name: 'sub', version: '1.0.0' },
  { name: 'sub', version: '2.0.0' },
  { name: 'peer-host', version: '1.0.0' },
]

const OUTDATED = /ERR_LODE_OUTDATED_LOCKFILE/

/** Each step on both projects; a function between steps edits both projects alike. */
async function flow (project: Project, steps: ReadonlyArray<Step | string[] | ((project: Project) => void)>): Promise<Pair> {
  let pair: Pair | undefined
  for (const step of steps) {
    if (typeof step === 'function') {
      for (const each of pair === undefined ? [project] : [pair.pnpmProject, pair.lodeProject]) step(each)
      continue
    }
    pair = await stepsBesidePnpm(pair?.pnpmProject ?? project, [step], undefined, pair?.lodeProject)
  }
  return pair!
}

const write = (file: string, content: string | Buffer) => (project: Project): void => {
  fs.mkdirSync(path.dirname(path.join(project.dir, file)), { recursive: true })
  fs.writeFileSync(path.join(project.dir, file), content)
}

test('a file: directory dependency given, changed or stripped of a dependency: the lockfile is out of date, as pnpm 11', async () => {
  await withRegistry(REGISTRY, async (registry) => {
    const localDir = (dependencies: Record<string, string>): ((project: Project) => void) =>
      write('local-dir/package.json', json({ name: 'local', version: '1.0.0', dependencies }))
    const frozenFails = { args: ['install', '--frozen-lockfile'], fails: OUTDATED }
    const pair = await flow(makeProject(registry, { name: 'p', version: '1.0.0', dependencies: { local: 'file:./local-dir' } }), [
      localDir({ dep: '1.0.0' }), ['install'],
      localDir({ dep: '1.0.0', sub: '^1.0.0' }), frozenFails, ['install'],
      localDir({ dep: '1.0.0', sub: '2.0.0' }), frozenFails, ['install'],
      localDir({ sub: '2.0.0' }), frozenFails, ['install'],
    ])
    assert.match(projectFile(pair.lodeProject, 'pnpm-lock.yaml')!, /local@file:local-dir:\n {4}dependencies:\n {6}sub: 2\.0\.0\n\n/)
  })
})

test('a file: directory whose files changed is copied again by the next install (a file added, removed, a dependency added), as pnpm 11', async () => {
  await withRegistry(REGISTRY, async (registry) => {
    const manifest = { name: 'local-pkg', version: '1.0.0' }
    const pair = await flow(makeProject(registry, { name: 'p', version: '1.0.0', dependencies: { 'local-pkg': 'file:./local-pkg' } }, {
      'local-pkg/package.json': json(manifest),
      'local-pkg/index.js': 'v1',
    }), [
      ['install'],
      write('local-pkg/index.js', 'v2'), ['install'],
      write('local-pkg/added.js', ''), ['install'],
      (project) => { fs.rmSync(path.join(project.dir, 'local-pkg', 'added.js')) }, ['install'],
      write('local-pkg/package.json', json({ ...manifest, dependencies: { dep: '1.0.0' } })), ['install'],
    ])
    for (const project of [pair.pnpmProject, pair.lodeProject]) assert.equal(projectFile(project, 'node_modules/local-pkg/index.js'), 'v2')
  })
})

test('a file: tarball repacked or deleted: frozen fails, install takes the new one or fails, as pnpm 11', async () => {
  await withRegistry(REGISTRY, async (registry) => {
    const pack = async (version: string, files: Record<string, string> = {}, dependencies: Record<string, string> = {}): Promise<Buffer> =>
      (await buildPackageTarball({ name: 'local', version, files, dependencies, manifest: { peerDependencies: { 'peer-host': '1.0.0' } } })).tarball
    const [packed, repacked, withSub, packed2] = await Promise.all([pack('1.0.0'), pack('1.0.0', { 'added.js': '' }), pack('1.0.0', {}, { sub: '^2.0.0' }), pack('2.0.0')])
    const checksum = /ERR_LODE_TARBALL_INTEGRITY/
    const unreadable = /ERR_LODE_TARBALL_READ_LOCAL/
    const pair = await flow(makeProject(registry, { name: 'p', version: '1.0.0', dependencies: { local: 'file:./local.tgz', 'peer-host': '1.0.0' } }), [
      write('local.tgz', packed), ['install'],
      write('local.tgz', repacked), { args: ['install', '--frozen-lockfile'], fails: checksum }, ['install'],
      write('local.tgz', withSub), ['install'],
      write('local.tgz', packed2), { args: ['install', '--frozen-lockfile'], fails: checksum }, ['install'],
      (project) => { fs.rmSync(path.join(project.dir, 'local.tgz')) },
      { args: ['install', '--frozen-lockfile'], fails: unreadable },
      { args: ['install'], fails: unreadable },
      (project) => { fs.rmSync(path.join(project.dir, 'node_modules'), { recursive: true }) },
      { args: ['install', '--frozen-lockfile'], fails: unreadable },
    ])
    assert.match(projectFile(pair.lodeProject, 'pnpm-lock.yaml')!, /local@file:local\.tgz:\n {4}resolution: \{integrity: /)
  })
})

test('a local tarball replaced by another is read again by a filtered install too, and a frozen install without node_modules refuses its checksum, as pnpm 11', async () => {
  const [first, second] = await Promise.all(['^1.0.0', '^2.0.0'].map(async (range) =>
    (await buildPackageTarball({ name: 'tar-dep', version: '1.0.0', dependencies: { sub: range } })).tarball))
  await withRegistry(REGISTRY, async (registry) => {
    await Promise.all([
      flow(makeProject(registry, { name: 'root', version: '1.0.0' }, {
        'pnpm-workspace.yaml': 'packages:\n  - project1\n  - project2\n',
        'project1/package.json': json({ name: 'project1', dependencies: { 'tar-dep': 'file:../tar.tgz' } }),
        'project2/package.json': json({ name: 'project2' }),
        'tar.tgz': first!,
      }), [['install'], write('tar.tgz', second!), ['install', '--filter', 'project1']]),
      flow(makeProject(registry, { name: 'p', version: '1.0.0', dependencies: { 'tar-dep': 'file:./tar.tgz' } }, { 'tar.tgz': first! }), [
        ['install'],
        (project) => { fs.rmSync(path.join(project.dir, 'node_modules'), { recursive: true }) },
        write('tar.tgz', second!),
        { args: ['install', '--frozen-lockfile'], fails: /ERR_LODE_TARBALL_INTEGRITY/ },
      ]),
    ])
  })
})
