import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'
import { after, before, test } from 'node:test'

import { TestRegistry } from '@lode/__utils__.test-fixtures'

import { cloneProject, lode, makeProject, pnpm } from './helpers.js'
import type { Project } from './helpers.js'

// pnpm 11's record of an install, node_modules/.pnpm-workspace-state-v1.json: lode writes it as
// pnpm does, so that pnpm's repeat install and verifyDepsBeforeRun accept a tree lode installed.

let registry: TestRegistry
before(async () => {
  registry = await TestRegistry.start([
    { name: 'leaf', version: '1.0.0', bin: { leaf: 'index.js' } },
    { name: 'mid', version: '1.0.0', dependencies: { leaf: '^1.0.0' } },
    { name: 'builder', version: '1.0.0', scripts: { postinstall: 'node -e "require(\'fs\').writeFileSync(\'built.txt\', \'built\')"' } },
  ])
})
after(async () => { await registry.close() })

/**
 * A workspace whose settings pnpm records: some with a default, some only when given. pnpm's own
 * default registry for the `@jsr` scope is named in .npmrc (pointing at the test registry), as
 * lode records only the scoped registries it is given.
 */
function workspace (): Project {
  const project = makeProject(registry, { name: 'root', version: '1.0.0', scripts: { hello: 'echo hello from root' }, dependencies: { mid: '1.0.0', builder: '1.0.0' } }, {
    'packages/tool/package.json': JSON.stringify({ name: 'tool', version: '2.0.0', bin: { tool: 'cli.js' }, dependencies: { leaf: '1.0.0' } }),
    'packages/tool/cli.js': '#!/usr/bin/env node\n',
    'packages/empty/package.json': JSON.stringify({ name: 'empty' }),
    'pnpm-workspace.yaml': [
      'packages:', '  - packages/*', 'storeDir: ../store', 'verifyDepsBeforeRun: error', 'minimumReleaseAge: 60',
      'allowBuilds:', '  builder: true', 'overrides:', '  leaf: 1.0.0', '',
    ].join('\n'),
  })
  fs.appendFileSync(path.join(project.home, '.npmrc'), `@jsr:registry=${registry.url}\n`)
  return project
}

const STATE = path.join('node_modules', '.pnpm-workspace-state-v1.json')

/** The state file with the project's own paths and the times of this run taken out. */
function normalizedState (project: Project): unknown {
  const root = path.dirname(project.dir)
  const text = fs.readFileSync(path.join(project.dir, STATE), 'utf8').replaceAll(root, '<root>')
  return JSON.parse(text, (key, value: unknown) => ['lastValidatedTimestamp', 'recordedAtNs', 'mtimeNs', 'ctimeNs'].includes(key) ? '<time>' : value)
}

/** Every entry under the project's node_modules directories with its inode, mtime and ctime: any write shows. */
function stamps (project: Project): Map<string, string> {
  const out = new Map<string, string>()
  const walk = (dir: string): void => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name)
      const stat = fs.lstatSync(full, { bigint: true })
      out.set(path.relative(project.dir, full), `${stat.ino} ${stat.mtimeNs} ${stat.ctimeNs}`)
      if (entry.isDirectory()) walk(full)
    }
  }
  for (const dir of ['.', 'packages/tool', 'packages/empty']) {
    if (fs.existsSync(path.join(project.dir, dir, 'node_modules'))) walk(path.join(project.dir, dir, 'node_modules'))
  }
  return out
}

test('lode writes node_modules/.pnpm-workspace-state-v1.json as pnpm 11 writes it', async () => {
  for (const args of [['install'], ['install', '--prod'], ['install', '--ignore-scripts']]) {
    const lodeProject = workspace()
    const pnpmProject = cloneProject(lodeProject)
    const result = await lode(lodeProject, args)
    assert.equal(result.code, 0, result.stderr)
    await pnpm(pnpmProject, args)
    assert.equal(fs.readFileSync(path.join(lodeProject.dir, 'pnpm-lock.yaml'), 'utf8'), fs.readFileSync(path.join(pnpmProject.dir, 'pnpm-lock.yaml'), 'utf8'))
    assert.deepEqual(normalizedState(lodeProject), normalizedState(pnpmProject), args.join(' '))
  }
})

test('pnpm 11 finds a tree lode installed up to date: its install changes nothing, pnpm run with verifyDepsBeforeRun: error runs', async () => {
  for (const args of [['install'], ['install', '--ignore-scripts']]) {
    const project = workspace()
    const result = await lode(project, args)
    assert.equal(result.code, 0, result.stderr)
    const before = stamps(project)
    const repeat = await pnpm(project, ['install', '--frozen-lockfile'])
    assert.match(repeat.stdout, /^Already up to date$/m)
    assert.doesNotMatch(repeat.stdout, /Lockfile is up to date|Verifying lockfile/, 'pnpm did not install again')
    assert.deepEqual(stamps(project), before, 'pnpm wrote nothing in node_modules')
    const run = await pnpm(project, ['run', 'hello'])
    assert.match(run.stdout, /hello from root/)
    assert.deepEqual(stamps(project), before)
  }
})

test('pnpm 11 after lode: a changed package.json is still seen (verifyDepsBeforeRun fails, pnpm installs again)', async () => {
  const project = workspace()
  assert.equal((await lode(project, ['install'])).code, 0)
  const manifest = path.join(project.dir, 'packages', 'empty', 'package.json')
  fs.writeFileSync(manifest, JSON.stringify({ name: 'empty', dependencies: { leaf: '1.0.0' } }))
  const run = await pnpm(project, ['run', 'hello'], true)
  assert.match(run.stdout + run.stderr, /ERR_PNPM_VERIFY_DEPS_BEFORE_RUN/)
  await pnpm(project, ['install'])
  assert.match(fs.realpathSync(path.join(project.dir, 'packages', 'empty', 'node_modules', 'leaf')), /leaf@1\.0\.0/)
})

test('lode install over a tree pnpm 11 installed is up to date when pnpm\'s record vouches for it: nothing is linked again', async () => {
  const project = workspace()
  await pnpm(project, ['install'])
  const before = stamps(project)
  const first = await lode(project, ['install'])
  assert.equal(first.code, 0, first.stderr)
  assert.match(first.stdout, /^Already up to date$/m)
  const after = stamps(project)
  assert.ok(after.delete(path.join('node_modules', '.lode-state.json')), 'lode recorded the install as its own')
  assert.deepEqual(after, before, 'lode wrote nothing else')
  assert.match((await lode(project, ['install'])).stdout, /^Already up to date$/m)
  // A package.json changed since pnpm's install: lode installs.
  const changed = workspace()
  await pnpm(changed, ['install'])
  fs.writeFileSync(path.join(changed.dir, 'packages', 'empty', 'package.json'), JSON.stringify({ name: 'empty', dependencies: { leaf: '1.0.0' } }))
  const installed = await lode(changed, ['install'])
  assert.equal(installed.code, 0, installed.stderr)
  assert.doesNotMatch(installed.stdout, /Already up to date/)
  assert.match(fs.realpathSync(path.join(changed.dir, 'packages', 'empty', 'node_modules', 'leaf')), /leaf@1\.0\.0/)
})
