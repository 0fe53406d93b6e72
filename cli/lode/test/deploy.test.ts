import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { after, before, test } from 'node:test'

import { TestRegistry } from '@lode/__utils__.test-fixtures'

import { cloneProject, defaultStoreDir, lode, makeProject, pnpm } from './helpers.js'
import type { Project } from './helpers.js'

// `lode deploy` beside pnpm 11's: one project of a workspace, with its dependencies, into a
// directory of its own: the same package.json, pnpm-lock.yaml and pnpm-workspace.yaml there (the
// workspace's paths aside), the same node_modules, its workspace dependency a copy.

let registry: TestRegistry
before(async () => {
  registry = await TestRegistry.start([
    { name: 'is-positive', version: '1.0.0' },
    { name: 'is-positive', version: '2.0.0', files: { 'index.js': 'module.exports = 2\n' } },
    { name: 'a', version: '1.0.0', dependencies: { 'is-positive': '^1.0.0' } },
    { name: 'dev-only', version: '1.0.0' },
  ])
})
after(async () => { await registry.close() })

const FILES = {
  'pnpm-workspace.yaml': 'packages:\n  - packages/*\n',
  'packages/app/package.json': JSON.stringify({
    name: 'app',
    version: '1.0.0',
    main: 'index.js',
    files: ['index.js', 'lib'],
    dependencies: { lib: 'workspace:^', a: '1.0.0' },
    devDependencies: { 'dev-only': '1.0.0' },
  }),
  'packages/app/index.js': 'module.exports = require(\'lib\') + require(\'a/package.json\').version\n',
  'packages/app/lib/util.js': 'module.exports = 1\n',
  'packages/app/test/not-packed.js': '',
  'packages/lib/package.json': JSON.stringify({ name: 'lib', version: '2.0.0', main: 'index.js', dependencies: { 'is-positive': '2.0.0' } }),
  'packages/lib/index.js': 'module.exports = \'lib\' + require(\'is-positive\')\n',
}

/** A file of the deploy directory, with the workspace's absolute path as `<workspace>`. */
function deployed (project: Project, file: string): string {
  return fs.readFileSync(path.join(project.dir, 'out', file), 'utf8').split(project.dir).join('<workspace>')
}

/** The deploy directory's files and links (the install records aside), with the workspace's path as `<workspace>`. */
function tree (project: Project): string[] {
  const root = path.join(project.dir, 'out')
  const out: string[] = []
  const walk = (dir: string): void => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name)
      if (['.modules.yaml', '.pnpm-workspace-state-v1.json', '.lode-state.json', 'lock.yaml'].includes(entry.name)) continue
      // The copy's directory is named after the workspace's path (cut and hashed when long): the same name for both tools at the same path.
      const named = (text: string): string => text.replace(/lib@file\+{3,4}[^/]*packages\+lib(?:_[0-9a-f]{32})?/g, 'lib@file<workspace>/packages/lib')
      const rel = named(path.relative(root, full))
      if (entry.isSymbolicLink()) out.push(`${rel} -> ${named(fs.readlinkSync(full))}`)
      else if (entry.isDirectory()) walk(full)
      else out.push(`${rel} ${(fs.statSync(full).mode & 0o777).toString(8)}`)
    }
  }
  walk(root)
  return out.sort()
}

test('lode deploy writes what pnpm 11 deploy writes, and the deployed project runs from its own node_modules', async () => {
  const pnpmProject = makeProject(registry, { name: 'root', version: '0.0.0', private: true }, FILES)
  await pnpm(pnpmProject, ['install'])
  const lodeProject = cloneProject(pnpmProject)
  for (const args of [['--filter', 'app', 'deploy', 'out'], ['--filter', 'app', 'deploy', '--prod', 'out', '--force']]) {
    await pnpm(pnpmProject, args)
    const result = await lode(lodeProject, args)
    assert.equal(result.code, 0, result.stderr)
    for (const file of ['package.json', 'pnpm-lock.yaml', 'pnpm-workspace.yaml']) {
      assert.equal(deployed(lodeProject, file), deployed(pnpmProject, file), `${args.join(' ')}: ${file}`)
    }
    assert.deepEqual(tree(lodeProject), tree(pnpmProject), args.join(' '))
  }
  assert.match(deployed(lodeProject, 'pnpm-lock.yaml'), /lib@file:\/\/<workspace>\/packages\/lib:\n {4}resolution: \{directory: \.\.\/packages\/lib, type: directory\}/)
  assert.ok(!fs.existsSync(path.join(lodeProject.dir, 'out/test')), 'only the packed files')
  assert.ok(!fs.existsSync(path.join(lodeProject.dir, 'out/node_modules/dev-only')), '--prod')
  // A copy: the workspace can go, the deployed project still runs.
  const lib = fs.realpathSync(path.join(lodeProject.dir, 'out/node_modules/lib'))
  assert.ok(lib.startsWith(path.join(lodeProject.dir, 'out')), lib)
  fs.renameSync(path.join(lodeProject.dir, 'out'), path.join(path.dirname(lodeProject.dir), 'moved'))
  assert.equal(execFileSync(process.execPath, ['-p', 'require(".")'], { cwd: path.join(path.dirname(lodeProject.dir), 'moved'), encoding: 'utf8' }), 'lib21.0.0\n')
})

test('lode deploy refuses what pnpm 11 refuses, and a failed deploy leaves no target', async () => {
  const pnpmProject = makeProject(registry, { name: 'root', version: '0.0.0', private: true }, FILES)
  await pnpm(pnpmProject, ['install'])
  const lodeProject = cloneProject(pnpmProject)
  fs.mkdirSync(path.join(pnpmProject.dir, 'full'))
  fs.writeFileSync(path.join(pnpmProject.dir, 'full/file'), '')
  fs.cpSync(path.join(pnpmProject.dir, 'full'), path.join(lodeProject.dir, 'full'), { recursive: true })
  for (const args of [
    ['deploy', 'out'],
    ['--filter', 'app', 'deploy'],
    ['--filter', '*', 'deploy', 'out'],
    ['--filter', 'app', 'deploy', 'full'],
    ['--filter', 'app', 'deploy', '.'],
    ['--filter', 'app', 'deploy', 'packages'],
  ]) {
    const expected = await pnpm(pnpmProject, args, true)
    const actual = await lode(lodeProject, args)
    assert.equal(actual.code, 1, args.join(' '))
    assert.equal(actual.stderr.split('\n')[0], expected.stdout.split('\n')[0]!.replace('ERR_PNPM_', 'ERR_LODE_').split(pnpmProject.dir).join(lodeProject.dir), args.join(' '))
  }
  // The frozen install in the target fails (the store cannot get a tarball): the target goes.
  fs.rmSync(defaultStoreDir(lodeProject), { recursive: true, force: true })
  registry.injectFaults('/is-positive/-/is-positive-2.0.0.tgz', Array.from({ length: 10 }, () => ({ status: 404 })))
  const failed = await lode(lodeProject, ['--filter', 'app', 'deploy', 'out'])
  assert.equal(failed.code, 1)
  assert.equal(fs.existsSync(path.join(lodeProject.dir, 'out')), false)

  // No pnpm-lock.yaml to take the dependencies from (pnpm would resolve anew): refused before a target is made.
  fs.rmSync(path.join(lodeProject.dir, 'pnpm-lock.yaml'))
  const noLockfile = await lode(lodeProject, ['--filter', 'app', 'deploy', 'out'])
  assert.equal(noLockfile.code, 1)
  assert.match(noLockfile.stderr, /^\[ERR_LODE_DEPLOY_NO_LOCKFILE\] There is no pnpm-lock\.yaml in .*: lode deploy takes the deployed dependencies from it\./)
  assert.equal(fs.existsSync(path.join(lodeProject.dir, 'out')), false)
})

test('lode deploy takes the command line\'s settings as install does: --store-dir is the store it fills, --ignore-scripts runs no build', async () => {
  const own = await TestRegistry.start([
    { name: 'builds', version: '1.0.0', manifest: { scripts: { postinstall: 'node -e "require(\'fs\').writeFileSync(\'built.txt\', \'\')"' } } },
  ])
  try {
    const project = makeProject(own, { name: 'root', version: '0.0.0', private: true }, {
      'pnpm-workspace.yaml': 'packages:\n  - packages/*\nallowBuilds:\n  builds: true\n',
      'packages/app/package.json': JSON.stringify({ name: 'app', version: '1.0.0', dependencies: { builds: '1.0.0' } }),
    })
    const installed = await lode(project, ['install'])
    assert.equal(installed.code, 0, installed.stderr)
    const storeDir = path.join(project.home, 'deploy-store')
    const quiet = await lode(project, ['--filter', 'app', 'deploy', 'quiet', '--ignore-scripts', '--store-dir', storeDir])
    assert.equal(quiet.code, 0, quiet.stderr)
    const pkg = path.join(project.dir, 'quiet', 'node_modules', 'builds')
    assert.ok(fs.existsSync(path.join(pkg, 'package.json')))
    assert.equal(fs.existsSync(path.join(pkg, 'built.txt')), false, '--ignore-scripts: the postinstall did not run')
    assert.ok(fs.existsSync(path.join(storeDir, 'v11', 'index.db')), 'the packages went through the store --store-dir names')
    const built = await lode(project, ['--filter', 'app', 'deploy', 'built'])
    assert.equal(built.code, 0, built.stderr)
    assert.ok(fs.existsSync(path.join(project.dir, 'built', 'node_modules', 'builds', 'built.txt')), 'without the flag the build runs')
  } finally {
    await own.close()
  }
})
