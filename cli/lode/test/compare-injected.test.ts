import assert from 'node:assert/strict'
import fs from 'node:fs'
import { createRequire } from 'node:module'
import path from 'node:path'
import { after, before, describe, test } from 'node:test'

import { TestRegistry } from '@lode/__utils__.test-fixtures'
import type { PackageSpec } from '@lode/__utils__.test-fixtures'

import { changesOutside, cloneProject, listing, lode, makeProject, pnpm, readLockfileText, snapshot } from './helpers.js'
import type { Project, RunResult } from './helpers.js'

// Injected dependencies beside pnpm 11: workspace projects copied into the virtual store
// (injectWorkspacePackages, dependenciesMeta.<name>.injected) and file: directories, as pnpm locks,
// lays out, records (.modules.yaml's injectedDeps) and links the bins of.

const PACKAGES: PackageSpec[] = [
  { name: 'ms', version: '2.1.3' },
  { name: 'is-positive', version: '1.0.0' },
  { name: 'peer-host', version: '1.0.0' },
  { name: 'peer-host', version: '2.0.0' },
  { name: 'bin-dep', version: '1.0.0', bin: { 'bin-dep': 'cli.js' }, files: { 'cli.js': '#!/usr/bin/env node\nconsole.log("bin-dep")\n' } },
  { name: 'with-bin-dep', version: '1.0.0', dependencies: { 'bin-dep': '1.0.0' } },
]

let registry: TestRegistry
before(async () => { registry = await TestRegistry.start(PACKAGES) })
after(async () => { await registry.close() })

interface Pair { lodeProject: Project, pnpmProject: Project }

const output = (result: RunResult): string => `${result.stdout}${result.stderr}`

function twoProjects (manifest: Record<string, unknown>, files: Record<string, string>): Pair {
  const lodeProject = makeProject(registry, manifest, files)
  return { lodeProject, pnpmProject: cloneProject(lodeProject) }
}

const modulesYaml = (project: Project): Record<string, unknown> => JSON.parse(fs.readFileSync(path.join(project.dir, 'node_modules', '.modules.yaml'), 'utf8')) as Record<string, unknown>

/** Both run `args`: the same pnpm-lock.yaml and, unless `--lockfile-only`, the same files, links, shims and injectedDeps. */
async function bothInstall ({ lodeProject, pnpmProject }: Pair, args: string[]): Promise<void> {
  await pnpm(pnpmProject, args)
  const byLode = await lode(lodeProject, args)
  assert.equal(byLode.code, 0, output(byLode))
  assert.equal(readLockfileText(lodeProject), readLockfileText(pnpmProject))
  if (args.includes('--lockfile-only')) return
  const tree = (project: Project): string[] => listing(project.dir).filter((file) => !file.endsWith(`.pnpm${path.sep}lock.yaml`))
  assert.deepEqual(tree(lodeProject), tree(pnpmProject))
  const shims = (project: Project): Record<string, string> => Object.fromEntries(tree(project).filter((file) => file.split(path.sep).includes('.bin') && !file.includes(' -> '))
    .map((file) => [file, fs.readFileSync(path.join(project.dir, file), 'utf8').replaceAll(project.dir, '<project>')]))
  assert.deepEqual(shims(lodeProject), shims(pnpmProject))
  assert.deepEqual(modulesYaml(lodeProject)['injectedDeps'], modulesYaml(pnpmProject)['injectedDeps'])
}

/** Every node_modules of the workspace removed. */
function removeModules (project: Project): void {
  for (const dir of ['.', ...fs.readdirSync(path.join(project.dir, 'packages')).map((name) => path.join('packages', name))]) {
    fs.rmSync(path.join(project.dir, dir, 'node_modules'), { recursive: true, force: true })
  }
}

/** A fresh node_modules for both, installed from their lockfile (pnpm's headless install). */
async function bothInstallFrozen (projects: Pair): Promise<void> {
  removeModules(projects.lodeProject)
  removeModules(projects.pnpmProject)
  await bothInstall(projects, ['install', '--frozen-lockfile'])
}

function writeBoth ({ lodeProject, pnpmProject }: Pair, file: string, text: string): void {
  for (const project of [lodeProject, pnpmProject]) fs.writeFileSync(path.join(project.dir, file), text)
}

/** A workspace: `a` (with a bin, a peer, and a workspace dependency `d`), used by `b` and `c`. */
function workspace (settings: string, b: Record<string, unknown> = {}): Record<string, string> {
  return {
    'pnpm-workspace.yaml': `packages:\n  - packages/*\n${settings}`,
    'packages/a/package.json': JSON.stringify({
      name: 'a',
      version: '1.0.0',
      main: 'index.js',
      bin: { 'a-cli': 'cli.js' },
      files: ['index.js', 'cli.js'],
      dependencies: { ms: '2.1.3', 'with-bin-dep': '1.0.0', d: 'workspace:*' },
      peerDependencies: { 'peer-host': '*' },
      devDependencies: { 'is-positive': '1.0.0', 'peer-host': '1.0.0' },
    }),
    'packages/a/index.js': 'module.exports = "a, with " + require("peer-host/package.json").version\n',
    'packages/a/cli.js': '#!/usr/bin/env node\n',
    'packages/a/notes.md': 'not in files\n',
    'packages/d/package.json': JSON.stringify({ name: 'd', version: '1.0.0', dependencies: { 'bin-dep': '1.0.0' } }),
    // b's peer-host is not a's own: its copy of a differs from a. c's would be a's: it links a.
    'packages/b/package.json': JSON.stringify({ name: 'b', version: '1.0.0', dependencies: { a: 'workspace:*', 'peer-host': '2.0.0' }, ...b }),
    'packages/c/package.json': JSON.stringify({ name: 'c', version: '1.0.0', dependencies: { a: 'workspace:^', 'peer-host': '1.0.0' } }),
  }
}

const root = { name: 'root', version: '1.0.0', private: true }

describe('injected dependencies, beside pnpm 11', () => {
  test('injectWorkspacePackages: workspace dependencies are copies (file: packages, peers resolved where used), linked where the copy would be the project', async () => {
    const projects = twoProjects(root, workspace('injectWorkspacePackages: true\n'))
    await bothInstall(projects, ['install', '--lockfile-only'])
    const lockfile = readLockfileText(projects.lodeProject)
    assert.match(lockfile, /\nsettings:\n {2}autoInstallPeers: true\n {2}excludeLinksFromLockfile: false\n {2}injectWorkspacePackages: true\n/)
    assert.match(lockfile, /\n {2}packages\/b:\n {4}dependencies:\n {6}a:\n {8}specifier: workspace:\*\n {8}version: file:packages\/a\(peer-host@2\.0\.0\)\n/)
    assert.match(lockfile, /\n {2}packages\/c:\n {4}dependencies:\n {6}a:\n {8}specifier: workspace:\^\n {8}version: link:\.\.\/a\n/)
    assert.match(lockfile, /\n {2}a@file:packages\/a\(peer-host@2\.0\.0\):\n {4}dependencies:\n {6}d: file:packages\/d\n/)
    await bothInstall(projects, ['install'])
    // b requires its own copy, which sees b's peer-host; c requires the project itself.
    const requireFrom = (importer: string): unknown => createRequire(path.join(projects.lodeProject.dir, importer, 'index.js'))('a')
    assert.equal(requireFrom('packages/b'), 'a, with 2.0.0')
    assert.ok(fs.realpathSync(path.join(projects.lodeProject.dir, 'packages', 'b', 'node_modules', 'a')).includes(`${path.sep}.pnpm${path.sep}a@file+packages+a_peer-host@2.0.0${path.sep}`))
    assert.equal(fs.realpathSync(path.join(projects.lodeProject.dir, 'packages', 'c', 'node_modules', 'a')), path.join(projects.lodeProject.dir, 'packages', 'a'))
    assert.deepEqual(modulesYaml(projects.lodeProject)['injectedDeps'], {
      'packages/a': ['node_modules/.pnpm/a@file+packages+a_peer-host@2.0.0/node_modules/a'],
      'packages/d': ['node_modules/.pnpm/d@file+packages+d/node_modules/d'],
    })
    // What `files` leaves out is not copied.
    assert.ok(!fs.existsSync(path.join(projects.lodeProject.dir, 'node_modules', '.pnpm', 'a@file+packages+a_peer-host@2.0.0', 'node_modules', 'a', 'notes.md')))
    await bothInstallFrozen(projects)
  })

  test('dedupeInjectedDeps: false keeps every copy a copy, where pnpm would link the project', async () => {
    const projects = twoProjects(root, workspace('injectWorkspacePackages: true\ndedupeInjectedDeps: false\n'))
    await bothInstall(projects, ['install', '--lockfile-only'])
    const lockfile = readLockfileText(projects.lodeProject)
    assert.match(lockfile, /\n {2}packages\/c:\n {4}dependencies:\n {6}a:\n {8}specifier: workspace:\^\n {8}version: file:packages\/a\(peer-host@1\.0\.0\)\n/)
    await bothInstall(projects, ['install'])
    assert.notEqual(fs.realpathSync(path.join(projects.lodeProject.dir, 'packages', 'c', 'node_modules', 'a')), path.join(projects.lodeProject.dir, 'packages', 'a'))
  })

  test('dependenciesMeta.<name>.injected: that dependency alone is a copy; the lockfile records the meta, and a frozen install checks it and the setting', async () => {
    const projects = twoProjects(root, workspace('', { dependenciesMeta: { a: { injected: true } } }))
    await bothInstall(projects, ['install', '--lockfile-only'])
    assert.match(readLockfileText(projects.lodeProject), /\n {4}dependenciesMeta:\n {6}a:\n {8}injected: true\n/)
    // Inside the copy, a's own workspace dependency stays a link (from the lockfile's directory).
    assert.match(readLockfileText(projects.lodeProject), /\n {2}a@file:packages\/a\(peer-host@2\.0\.0\):\n {4}dependencies:\n {6}d: link:packages\/d\n/)
    await bothInstall(projects, ['install', '--frozen-lockfile'])
    await bothInstallFrozen(projects)

    // The setting turned on, or the meta taken away: the lockfile is out of date, and a frozen install fails, changing nothing.
    for (const change of ['setting', 'meta']) {
      const copy = { lodeProject: cloneProject(projects.lodeProject), pnpmProject: cloneProject(projects.pnpmProject) }
      removeModules(copy.lodeProject)
      removeModules(copy.pnpmProject)
      if (change === 'setting') writeBoth(copy, 'pnpm-workspace.yaml', 'packages:\n  - packages/*\ninjectWorkspacePackages: true\n')
      else writeBoth(copy, 'packages/b/package.json', JSON.stringify({ name: 'b', version: '1.0.0', dependencies: { a: 'workspace:*', 'peer-host': '2.0.0' } }))
      const byPnpm = await pnpm(copy.pnpmProject, ['install', '--frozen-lockfile'], true)
      // pnpm calls a setting's change ERR_PNPM_LOCKFILE_CONFIG_MISMATCH; lode, as for its other settings, ERR_LODE_OUTDATED_LOCKFILE.
      assert.match(output(byPnpm), change === 'setting' ? /ERR_PNPM_LOCKFILE_CONFIG_MISMATCH/ : /ERR_PNPM_OUTDATED_LOCKFILE/)
      const before = snapshot(path.dirname(copy.lodeProject.dir))
      const byLode = await lode(copy.lodeProject, ['install', '--frozen-lockfile'])
      assert.equal(byLode.code, 1, output(byLode))
      assert.match(byLode.stderr, change === 'setting' ? /^\[ERR_LODE_OUTDATED_LOCKFILE\] .*injectWorkspacePackages/ : /^\[ERR_LODE_OUTDATED_LOCKFILE\] .*dependenciesMeta/)
      assert.deepEqual(changesOutside(before, snapshot(path.dirname(copy.lodeProject.dir)), [path.join('home', '.cache')]), [])
      // Resolved again, both write the same lockfile.
      await bothInstall(copy, ['install'])
    }
  })

  test('file: directories are copied as npm pack would pack them; from the lockfile, the bins of their linked dependencies are linked too', async () => {
    const projects = twoProjects({ ...root, dependencies: { kit: 'workspace:*', dep: 'file:./dep' } }, {
      'pnpm-workspace.yaml': 'packages:\n  - packages/*\n',
      'packages/kit/package.json': JSON.stringify({ name: 'kit', version: '1.0.0', bin: { 'kit-cli': 'cli.js' } }),
      'packages/kit/cli.js': '#!/usr/bin/env node\nconsole.log("kit")\n',
      'dep/package.json': JSON.stringify({ name: 'dep', version: '1.0.0', files: ['lib'], peerDependencies: { kit: '*' }, dependencies: { 'bin-dep': '1.0.0' } }),
      'dep/lib/index.js': 'module.exports = "dep"\n',
      'dep/test/skipped.js': '\n',
      'dep/README.md': 'packed\n',
      'dep/.gitignore': 'x\n',
      'dep/node_modules/left/index.js': '\n',
    })
    await bothInstall(projects, ['install'])
    const copy = path.join(projects.lodeProject.dir, 'node_modules', '.pnpm', 'dep@file+dep_kit@packages+kit', 'node_modules', 'dep')
    assert.deepEqual(fs.readdirSync(copy).sort(), ['README.md', 'lib', 'node_modules', 'package.json'])
    assert.deepEqual(modulesYaml(projects.lodeProject)['injectedDeps'], { dep: ['node_modules/.pnpm/dep@file+dep_kit@packages+kit/node_modules/dep'] })
    // Installed from the lockfile, the copy's .bin also gets kit's bin, through its link beside it.
    await bothInstallFrozen(projects)
    assert.ok(fs.existsSync(path.join(copy, 'node_modules', '.bin', 'kit-cli')))
  })
})
