import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'
import { after, before, test } from 'node:test'

import { TestRegistry } from '@lode/__utils__.test-fixtures'

import { cloneProject, lode, lodeExactly, makeProject, pnpm, pnpmExactly } from './helpers.js'
import type { Project, RunResult } from './helpers.js'

// `lode clean`, `ci` and `install-test` beside pnpm 11's, and the commands a script of the same
// name replaces: the same lines printed, exit codes, and what is left on disk.

let registry: TestRegistry
before(async () => { registry = await TestRegistry.start([{ name: 'dep', version: '1.0.0' }, { name: 'other', version: '1.0.0' }]) })
after(async () => { await registry.close() })

const marker = (name: string): string => `node -e "require('fs').writeFileSync('${name}', process.argv.slice(1).join(' '))"`

function workspace (rootScripts: Record<string, string> = {}, appScripts: Record<string, string> = {}): Project {
  return makeProject(registry, { name: 'root', private: true, scripts: rootScripts, dependencies: { dep: '1.0.0' } }, {
    'pnpm-workspace.yaml': 'packages:\n  - packages/*\n',
    'packages/app/package.json': JSON.stringify({ name: 'app', version: '1.0.0', scripts: appScripts, dependencies: { other: '1.0.0' } }),
    'packages/lib/package.json': JSON.stringify({ name: 'lib', version: '1.0.0' }),
  })
}

/** Every path under the project but lode's install lock (pnpm has none), sorted. */
function files (project: Project): string[] {
  return (fs.readdirSync(project.dir, { recursive: true }) as string[])
    .map((entry) => entry.split(path.sep).join('/'))
    .filter((entry) => !entry.endsWith('.lode-install.lock'))
    .sort()
}

/** The project installed by each tool (its own copy), with a tool's cache directory in node_modules that clean leaves. */
async function installedPair (project: Project): Promise<{ pnpmProject: Project, lodeProject: Project }> {
  const lodeProject = cloneProject(project)
  await pnpm(project, ['install'])
  const installed = await lode(lodeProject, ['install'])
  assert.equal(installed.code, 0, installed.stderr)
  for (const p of [project, lodeProject]) fs.mkdirSync(path.join(p.dir, 'node_modules', '.cache', 'tool'), { recursive: true })
  return { pnpmProject: project, lodeProject }
}

type Runner = (p: Project, args: string[]) => Promise<RunResult>

async function inDir (p: Project, sub: string, run: Runner, args: string[]): Promise<RunResult> {
  return await run({ ...p, dir: path.join(p.dir, sub) }, args)
}

test('clean from a project of the workspace: the same "Removing" lines and the same files left as pnpm 11; --lockfile takes pnpm-lock.yaml', async () => {
  const { pnpmProject, lodeProject } = await installedPair(workspace())
  const byPnpm = await inDir(pnpmProject, 'packages/app', pnpmExactly, ['clean'])
  const byLode = await inDir(lodeProject, 'packages/app', lodeExactly, ['clean'])
  assert.equal(byPnpm.code, 0, byPnpm.stdout + byPnpm.stderr)
  assert.equal(byLode.code, 0, byLode.stderr)
  assert.equal(byLode.stdout, byPnpm.stdout)
  assert.equal(byLode.stdout, 'Removing ../../node_modules\nRemoving node_modules\n')
  assert.deepEqual(files(lodeProject), files(pnpmProject))
  assert.ok(files(lodeProject).includes('node_modules/.cache/tool'), 'a tool\'s own dot directory stays')
  const [pnpmLockfile, lodeLockfile] = [await pnpmExactly(pnpmProject, ['purge', '--lockfile']), await lodeExactly(lodeProject, ['purge', '--lockfile'])]
  assert.equal(lodeLockfile.stdout, pnpmLockfile.stdout)
  assert.equal(lodeLockfile.stdout, 'Removing pnpm-lock.yaml\n')
  assert.deepEqual(files(lodeProject), files(pnpmProject))
})

test('ci cleans, then installs the lockfile as it is; a lockfile out of date fails it as pnpm 11\'s', async () => {
  const { pnpmProject, lodeProject } = await installedPair(workspace())
  for (const p of [pnpmProject, lodeProject]) fs.writeFileSync(path.join(p.dir, 'node_modules', 'stray.txt'), 'not installed')
  const [byPnpm, byLode] = [await pnpm(pnpmProject, ['ci']), await lode(lodeProject, ['ci'])]
  assert.equal(byLode.code, 0, byLode.stderr)
  assert.match(byPnpm.stdout, /^Removing node_modules$/m)
  assert.match(byLode.stdout, /^Removing node_modules$/m)
  assert.deepEqual(files(lodeProject).filter((file) => !file.includes('.pnpm/') && !file.includes('.lode-state')),
    files(pnpmProject).filter((file) => !file.includes('.pnpm/')))
  assert.ok(fs.existsSync(path.join(lodeProject.dir, 'packages', 'app', 'node_modules', 'other', 'package.json')))
  assert.equal(fs.existsSync(path.join(lodeProject.dir, 'node_modules', 'stray.txt')), false)
  // A dependency added without updating the lockfile: both refuse it (after cleaning, as pnpm does).
  for (const p of [pnpmProject, lodeProject]) {
    const manifest = path.join(p.dir, 'packages', 'lib', 'package.json')
    fs.writeFileSync(manifest, JSON.stringify({ name: 'lib', version: '1.0.0', dependencies: { dep: '1.0.0' } }))
  }
  const [stalePnpm, staleLode] = [await pnpm(pnpmProject, ['ci'], true), await lode(lodeProject, ['ci'])]
  assert.match(stalePnpm.stdout + stalePnpm.stderr, /ERR_PNPM_OUTDATED_LOCKFILE/)
  assert.equal(staleLode.code, 1)
  assert.match(staleLode.stderr, /ERR_LODE_OUTDATED_LOCKFILE/)
})

test('install-test installs, then runs the test script with the arguments given; a failing test is its exit code', async () => {
  const project = makeProject(registry, { name: 'app', version: '1.0.0', scripts: { test: marker('tested') }, dependencies: { dep: '1.0.0' } })
  const lodeProject = cloneProject(project)
  const [byPnpm, byLode] = [await pnpm(project, ['it', 'one', 'two']), await lode(lodeProject, ['it', 'one', 'two'])]
  assert.equal(byLode.code, 0, byLode.stderr)
  for (const p of [project, lodeProject]) {
    assert.ok(fs.existsSync(path.join(p.dir, 'node_modules', 'dep', 'package.json')))
    assert.equal(fs.readFileSync(path.join(p.dir, 'tested'), 'utf8'), 'one two')
  }
  assert.match(byPnpm.stderr + byPnpm.stdout, /\$ node -e/)
  assert.match(byLode.stderr + byLode.stdout, /\$ node -e/)
  const failing = makeProject(registry, { name: 'app', version: '1.0.0', scripts: { test: 'node -e "process.exit(3)"' } })
  const [failPnpm, failLode] = [await pnpmExactly(failing, ['install-test']), await lodeExactly(cloneProject(failing), ['install-test'])]
  assert.notEqual(failPnpm.code, 0)
  assert.equal(failLode.code, failPnpm.code)
})

test('a script named clean, purge, rebuild or deploy runs instead of the command, as with pnpm 11; lode pm <command> runs the command', async () => {
  const project = workspace({ clean: marker('root-clean'), rebuild: marker('root-rebuild') }, { purge: marker('app-purge') })
  const { pnpmProject, lodeProject } = await installedPair(project)
  for (const [run, p] of [[pnpmExactly, pnpmProject], [lodeExactly, lodeProject]] as const) {
    assert.equal((await run(p, ['clean', 'x'])).code, 0)
    assert.equal(fs.readFileSync(path.join(p.dir, 'root-clean'), 'utf8'), 'x')
    assert.equal((await run(p, ['rebuild'])).code, 0)
    assert.ok(fs.existsSync(path.join(p.dir, 'root-rebuild')))
    assert.ok(fs.existsSync(path.join(p.dir, 'node_modules', 'dep')), 'the built-in clean did not run')
    assert.equal((await inDir(p, 'packages/app', run, ['purge'])).code, 0)
    assert.ok(fs.existsSync(path.join(p.dir, 'packages', 'app', 'app-purge')))
  }
  // From a project without the script, the root's script stops the built-in command.
  const [overPnpm, overLode] = [await inDir(pnpmProject, 'packages/lib', pnpmExactly, ['clean']), await inDir(lodeProject, 'packages/lib', lodeExactly, ['clean'])]
  assert.match(overPnpm.stdout + overPnpm.stderr, /ERR_PNPM_SCRIPT_OVERRIDE_IN_WORKSPACE_ROOT/)
  assert.equal(overLode.code, 1)
  assert.match(overLode.stderr, /^\[ERR_LODE_SCRIPT_OVERRIDE_IN_WORKSPACE_ROOT\] The workspace root has a "clean" script, so the built-in "lode clean" command cannot run from a subdirectory/)
  assert.ok(fs.existsSync(path.join(lodeProject.dir, 'node_modules', 'dep')))
  const [pmPnpm, pmLode] = [await pnpmExactly(pnpmProject, ['pm', 'clean']), await lodeExactly(lodeProject, ['pm', 'clean'])]
  assert.equal(pmLode.code, 0, pmLode.stderr)
  assert.equal(pmLode.stdout, pmPnpm.stdout)
  assert.deepEqual(files(lodeProject), files(pnpmProject))
})
