import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { after, before, test } from 'node:test'

import { TestRegistry } from '@lode/__utils__.test-fixtures'
import type { PackageSpec } from '@lode/__utils__.test-fixtures'

import { cloneProject, defaultStoreDir, listing, lode, makeProject, pnpm, readLockfileText, virtualStore } from './helpers.js'
import type { Project, RunResult } from './helpers.js'

const PACKAGES: PackageSpec[] = [
  { name: 'leaf', version: '1.0.0', files: { 'index.js': 'module.exports = "leaf@1"' } },
  { name: 'leaf', version: '2.0.0', files: { 'index.js': 'module.exports = "leaf@2"' } },
  { name: '@scope/mid', version: '1.0.0', dependencies: { leaf: '^1.0.0' }, files: { 'index.js': 'module.exports = "mid:" + require("leaf")' } },
  { name: 'host', version: '1.0.0', files: { 'index.js': 'module.exports = "host"' } },
  { name: 'plugin', version: '1.0.0', manifest: { peerDependencies: { host: '^1.0.0' } }, files: { 'index.js': 'module.exports = "plugin+" + require("host")' } },
  { name: 'aliased', version: '3.0.0', files: { 'index.js': 'module.exports = "aliased"' } },
  { name: 'win-helper', version: '1.0.0' },
  { name: 'win-only', version: '1.0.0', dependencies: { 'win-helper': '1.0.0' }, manifest: { os: ['win32'], cpu: ['x64', 'arm64'] } },
  { name: 'not-windows', version: '1.0.0', manifest: { os: ['!win32'] }, files: { 'index.js': 'module.exports = "not-windows"' } },
  { name: 'pat', version: '1.0.0', files: { 'index.js': 'module.exports = "original"\n', 'lib/gone.js': 'x\n' } },
  { name: 'uses-pat', version: '1.0.0', dependencies: { pat: '1.0.0' }, files: { 'index.js': 'module.exports = "uses " + require("pat")\n' } },
  { name: 'peer-tool', version: '1.0.0', manifest: { bin: { 'peer-tool': 'cli.js' } }, files: { 'cli.js': '#!/usr/bin/env node\nconsole.log("peer-tool")\n' } },
  { name: 'needs-peer-tool', version: '1.0.0', manifest: { peerDependencies: { 'peer-tool': '^1.0.0' } } },
  { name: 'helper-cli', version: '1.0.0', manifest: { bin: 'run.js' }, files: { 'run.js': '#!/usr/bin/env node\nconsole.log("helper")\n' } },
  { name: 'tool', version: '1.0.0', bin: { tool: 'cli.js', 'tool-extra': 'extra.js' }, dependencies: { 'helper-cli': '1.0.0', leaf: '^1.0.0' }, files: { 'cli.js': '#!/usr/bin/env node\nconsole.log("tool uses " + require("leaf"))\n', 'extra.js': 'console.log("extra")\n' } },
]

let registry: TestRegistry
before(async () => { registry = await TestRegistry.start(PACKAGES) })
after(async () => { await registry.close() })

const MANIFEST = {
  name: 'app',
  version: '1.0.0',
  dependencies: { '@scope/mid': '^1.0.0', leaf: '2.0.0', plugin: '1.0.0', host: '1.0.0', 'my-alias': 'npm:aliased@^3.0.0', tool: '1.0.0', 'needs-peer-tool': '1.0.0' },
}

/** `node_modules/.pnpm/node_modules` (private hoisting): alias -> link target, and its `.bin`. */
function hoisted (project: Project): string[] {
  const dir = path.join(project.dir, 'node_modules', '.pnpm', 'node_modules')
  const entries = fs.readdirSync(dir).flatMap((e) => e.startsWith('@') ? fs.readdirSync(path.join(dir, e)).map((s) => `${e}/${s}`) : [e])
  return entries.sort().map((alias) => alias === '.bin' ? `.bin: ${fs.readdirSync(path.join(dir, '.bin')).sort().join(' ')}` : `${alias} -> ${fs.readlinkSync(path.join(dir, alias))}`)
}

/** `.modules.yaml` without what differs by tool and time; the store (pnpm's default, in the project's home) as `<home>/…`. */
function modulesYaml (project: Project): Record<string, unknown> {
  const { packageManager, prunedAt, storeDir, ...rest } = JSON.parse(fs.readFileSync(path.join(project.dir, 'node_modules', '.modules.yaml'), 'utf8')) as Record<string, unknown>
  assert.equal(typeof packageManager, 'string')
  assert.equal(typeof prunedAt, 'string')
  return { ...rest, storeDir: String(storeDir).replace(project.home, '<home>') }
}

/** Every `.bin` directory under node_modules (hoisting aside) and the commands in it. */
function binDirs (project: Project): Record<string, string[]> {
  const out: Record<string, string[]> = {}
  const walk = (dir: string): void => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name)
      if (entry.name === '.bin') out[path.relative(project.dir, full)] = fs.readdirSync(full).sort()
      else if (entry.isDirectory() && !entry.isSymbolicLink() && full !== path.join(project.dir, 'node_modules', '.pnpm', 'node_modules')) walk(full)
    }
  }
  walk(path.join(project.dir, 'node_modules'))
  return out
}

/** pnpm's summary of direct dependencies added and removed: the groups between the progress line and "Done". */
function summary (stdout: string): string {
  const start = stdout.search(/^(dependencies|optionalDependencies|devDependencies):$/m)
  return start === -1 ? '' : stdout.slice(start, stdout.indexOf('Done in', start)).trim()
}

/** Installs copies of one project with pnpm and lode, requiring lode to succeed with pnpm's lockfile and `.pnpm` layout. */
async function installBoth (manifest: Record<string, unknown>, files: Record<string, string> = {}, args: string[] = ['install']): Promise<{ pnpmProject: Project, lodeProject: Project, pnpmResult: RunResult, result: RunResult }> {
  const pnpmProject = makeProject(registry, manifest, files)
  const lodeProject = cloneProject(pnpmProject)
  const pnpmResult = await pnpm(pnpmProject, args)
  const result = await lode(lodeProject, args)
  assert.equal(result.code, 0, result.stderr)
  assert.equal(readLockfileText(lodeProject), readLockfileText(pnpmProject))
  assert.deepEqual(virtualStore(lodeProject), virtualStore(pnpmProject))
  return { pnpmProject, lodeProject, pnpmResult, result }
}

function requireFrom (project: Project, specifier: string): string {
  return execFileSync(process.execPath, ['-e', `console.log(require(${JSON.stringify(specifier)}))`], { cwd: project.dir, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim()
}

test('lode install lays out node_modules as pnpm 11 does, and Node can require every direct dependency', async () => {
  const { pnpmProject, lodeProject, pnpmResult, result } = await installBoth(MANIFEST)
  assert.match(result.stdout, /Progress: resolved 10, reused 0, downloaded 10, added 10, done/)
  assert.match(result.stdout, /^Packages: \+10\n\+{10}\n/m)
  assert.equal(summary(result.stdout), summary(pnpmResult.stdout))
  assert.match(summary(result.stdout), /\+ my-alias <- aliased 3\.0\.0/)
  for (const alias of Object.keys(MANIFEST.dependencies)) {
    assert.equal(fs.readlinkSync(path.join(lodeProject.dir, 'node_modules', alias)), fs.readlinkSync(path.join(pnpmProject.dir, 'node_modules', alias)), `node_modules/${alias}`)
  }
  assert.equal(requireFrom(lodeProject, '@scope/mid'), 'mid:leaf@1')
  assert.equal(requireFrom(lodeProject, 'leaf'), 'leaf@2')
  assert.equal(requireFrom(lodeProject, 'plugin'), 'plugin+host')
  assert.equal(requireFrom(lodeProject, 'my-alias'), 'aliased')
  assert.deepEqual(binDirs(lodeProject), binDirs(pnpmProject))
  assert.ok(fs.existsSync(path.join(lodeProject.dir, 'node_modules', '.bin', 'peer-tool')), 'an auto-installed peer\'s bin is linked for the project, as pnpm does')
  assert.deepEqual(hoisted(lodeProject), hoisted(pnpmProject))
  assert.deepEqual(modulesYaml(lodeProject), modulesYaml(pnpmProject))
  assert.equal(fs.readFileSync(path.join(lodeProject.dir, 'node_modules', '.pnpm', 'lock.yaml'), 'utf8'), fs.readFileSync(path.join(pnpmProject.dir, 'node_modules', '.pnpm', 'lock.yaml'), 'utf8'))
  assert.throws(() => requireFrom(lodeProject, 'helper-cli'), /Cannot find module 'helper-cli'/, 'a dependency of a dependency is not reachable from the project')
  assert.equal(execFileSync(path.join(lodeProject.dir, 'node_modules', '.bin', 'tool'), { encoding: 'utf8' }), 'tool uses leaf@1\n', 'the bin runs, requiring its own dependencies')
  const toolDir = fs.realpathSync(path.join(lodeProject.dir, 'node_modules', 'tool'))
  assert.equal(execFileSync(path.join(toolDir, 'node_modules', '.bin', 'helper-cli'), { encoding: 'utf8' }), 'helper\n', 'a dependency\'s bin beside the package')

  // The store index was checkpointed (by a store thread) and closed: index.db holds every row, no log is left.
  const storeDir = defaultStoreDir(lodeProject)
  assert.deepEqual(fs.readdirSync(path.join(storeDir, 'v11')).filter((name) => name.startsWith('index.db')), ['index.db'])

  // A second install finds nothing changed: it reads no metadata, store or pool (the store may even be gone).
  fs.renameSync(storeDir, `${storeDir}.away`)
  const requestsBefore = registry.requests.length
  const again = await lode(lodeProject, ['install'])
  assert.equal(again.code, 0, again.stderr)
  assert.match(again.stdout, /^Already up to date$/m)
  assert.equal(registry.requests.length, requestsBefore)
  fs.renameSync(`${storeDir}.away`, storeDir)
  // An install that was cut short (its marker left behind) is never taken for up to date.
  fs.writeFileSync(path.join(lodeProject.dir, 'node_modules', '.lode-installing'), '')
  const afterCrash = await lode(lodeProject, ['install'])
  assert.doesNotMatch(afterCrash.stdout, /Already up to date/)
  assert.equal(fs.existsSync(path.join(lodeProject.dir, 'node_modules', '.lode-installing')), false)
  assert.match((await lode(lodeProject, ['install'])).stdout, /^Already up to date$/m)
  // Without node_modules, the store alone serves it.
  fs.rmSync(path.join(lodeProject.dir, 'node_modules'), { recursive: true })
  const tarballsBefore = registry.tarballRequests.length
  const fromStore = await lode(lodeProject, ['install', '--offline'])
  assert.equal(fromStore.code, 0, fromStore.stderr)
  assert.match(fromStore.stdout, /reused 10, downloaded 0, added 10, done/)
  assert.equal(registry.tarballRequests.length, tarballsBefore)
  assert.equal(requireFrom(lodeProject, '@scope/mid'), 'mid:leaf@1')
})

test('a dependency removed from package.json disappears from node_modules, as with pnpm', async () => {
  const pnpmProject = makeProject(registry, MANIFEST)
  const lodeProject = cloneProject(pnpmProject)
  await pnpm(pnpmProject, ['install'])
  assert.equal((await lode(lodeProject, ['install'])).code, 0)
  const { tool: _tool, '@scope/mid': _mid, ...kept } = MANIFEST.dependencies
  for (const project of [pnpmProject, lodeProject]) {
    fs.writeFileSync(path.join(project.dir, 'package.json'), JSON.stringify({ ...MANIFEST, dependencies: kept }))
  }
  const pnpmResult = await pnpm(pnpmProject, ['install'])
  const result = await lode(lodeProject, ['install'])
  assert.equal(result.code, 0, result.stderr)
  assert.equal(readLockfileText(lodeProject), readLockfileText(pnpmProject))
  assert.equal(summary(result.stdout), summary(pnpmResult.stdout))
  assert.match(summary(result.stdout), /^dependencies:\n- @scope\/mid 1\.0\.0\n- tool 1\.0\.0$/)
  // Each tool's own state file for its repeat-install shortcut aside.
  const entries = (project: Project): string[] => fs.readdirSync(path.join(project.dir, 'node_modules')).filter((e) => e !== '.pnpm-workspace-state-v1.json' && e !== '.lode-state.json').sort()
  assert.deepEqual(entries(lodeProject), entries(pnpmProject))
  assert.deepEqual(virtualStore(lodeProject), virtualStore(pnpmProject))
  assert.deepEqual(hoisted(lodeProject), hoisted(pnpmProject))
  assert.deepEqual(binDirs(lodeProject), binDirs(pnpmProject))
  assert.deepEqual(modulesYaml(lodeProject), modulesYaml(pnpmProject))
  assert.equal(fs.existsSync(path.join(lodeProject.dir, 'node_modules', 'tool')), false)
  assert.equal(fs.existsSync(path.join(lodeProject.dir, 'node_modules', '@scope')), false, 'an emptied scope directory goes too')
  assert.ok(fs.existsSync(path.join(lodeProject.dir, 'node_modules', '.pnpm', 'tool@1.0.0')), 'orphans stay in .pnpm for modulesCacheMaxAge, as in pnpm')

  // Once modulesCacheMaxAge has passed, the orphans go.
  for (const project of [pnpmProject, lodeProject]) fs.writeFileSync(path.join(project.dir, 'pnpm-workspace.yaml'), 'modulesCacheMaxAge: 0\n')
  await new Promise((resolve) => setTimeout(resolve, 10))
  await pnpm(pnpmProject, ['install'])
  assert.equal((await lode(lodeProject, ['install'])).code, 0)
  assert.deepEqual(virtualStore(lodeProject), virtualStore(pnpmProject))
  assert.equal(fs.existsSync(path.join(lodeProject.dir, 'node_modules', '.pnpm', 'tool@1.0.0')), false)
})

test('--frozen-lockfile installs the lockfile without asking for metadata, refuses an outdated one touching nothing, and a missing one as pnpm does', async () => {
  const project = makeProject(registry, { name: 'frozen', version: '1.0.0', dependencies: { leaf: '2.0.0' }, devDependencies: { tool: '1.0.0' } })
  assert.equal((await lode(project, ['install', '--lockfile-only'])).code, 0)
  const metadataBefore = registry.metadataRequests.length
  const frozen = await lode(project, ['install', '--frozen-lockfile'])
  assert.equal(frozen.code, 0, frozen.stderr)
  assert.equal(registry.metadataRequests.length, metadataBefore, 'an up-to-date lockfile is installed as it is')
  assert.equal(requireFrom(project, 'leaf'), 'leaf@2')

  const lockfile = readLockfileText(project)
  const modulesYamlBefore = fs.readFileSync(path.join(project.dir, 'node_modules', '.modules.yaml'), 'utf8')
  fs.writeFileSync(path.join(project.dir, 'package.json'), JSON.stringify({ name: 'frozen', version: '1.0.0', dependencies: { leaf: '^1.0.0' }, devDependencies: { tool: '1.0.0' } }))
  const refused = await lode(project, ['install', '--frozen-lockfile'])
  assert.equal(refused.code, 1)
  assert.ok(refused.stderr.startsWith('[ERR_LODE_OUTDATED_LOCKFILE] '), refused.stderr)
  assert.match(refused.stderr, /dependencies\.leaf is "\^1\.0\.0" in package\.json but "2\.0\.0" in pnpm-lock\.yaml/)
  assert.equal(readLockfileText(project), lockfile)
  assert.equal(fs.readFileSync(path.join(project.dir, 'node_modules', '.modules.yaml'), 'utf8'), modulesYamlBefore)
  assert.equal(requireFrom(project, 'leaf'), 'leaf@2')

  // Without pnpm-lock.yaml, as pnpm: ERR_LODE_NO_LOCKFILE, nothing written; a project without dependencies installs.
  fs.rmSync(path.join(project.dir, 'pnpm-lock.yaml'))
  const absent = await lode(project, ['install', '--frozen-lockfile'])
  assert.equal(absent.code, 1)
  assert.ok(absent.stderr.startsWith('[ERR_LODE_NO_LOCKFILE] Cannot install with "frozen-lockfile" because pnpm-lock.yaml is absent.'), absent.stderr)
  assert.match(absent.stderr, /--no-frozen-lockfile/)
  assert.equal(fs.existsSync(path.join(project.dir, 'pnpm-lock.yaml')), false)
  assert.equal(fs.readFileSync(path.join(project.dir, 'node_modules', '.modules.yaml'), 'utf8'), modulesYamlBefore)
  const empty = makeProject(registry, { name: 'empty', version: '1.0.0' })
  const emptyInstall = await lode(empty, ['install', '--frozen-lockfile'])
  assert.equal(emptyInstall.code, 0, emptyInstall.stderr)
  assert.ok(fs.existsSync(path.join(empty.dir, 'pnpm-lock.yaml')), 'written, as pnpm writes it')
})

test('--prod leaves devDependencies out of node_modules, as pnpm does', async () => {
  const manifest = { name: 'prod', version: '1.0.0', dependencies: { leaf: '2.0.0' }, devDependencies: { tool: '1.0.0' } }
  const { pnpmProject, lodeProject } = await installBoth(manifest, {}, ['install', '--prod'])
  assert.equal(fs.existsSync(path.join(lodeProject.dir, 'node_modules', 'tool')), false)
  assert.deepEqual(modulesYaml(lodeProject), modulesYaml(pnpmProject))
})

test('optional packages that do not fit the platform are skipped, with what only they need, as pnpm skips them', async () => {
  const manifest = { name: 'platforms', version: '1.0.0', dependencies: { leaf: '2.0.0' }, optionalDependencies: { 'win-only': '1.0.0', 'not-windows': '1.0.0' } }
  const { pnpmProject, lodeProject } = await installBoth(manifest)
  assert.deepEqual(modulesYaml(lodeProject), modulesYaml(pnpmProject))
  const { skipped } = JSON.parse(fs.readFileSync(path.join(lodeProject.dir, 'node_modules', '.modules.yaml'), 'utf8')) as { skipped: string[] }
  assert.deepEqual(skipped, ['win-helper@1.0.0', 'win-only@1.0.0'])
  assert.equal(fs.existsSync(path.join(lodeProject.dir, 'node_modules', '.pnpm', 'win-helper@1.0.0')), false)
  assert.equal(requireFrom(lodeProject, 'not-windows'), 'not-windows')
})

test('pnpm 11 accepts a node_modules lode installed, in the store both use by default: it purges nothing and downloads nothing', async () => {
  const project = makeProject(registry, MANIFEST)
  assert.equal((await lode(project, ['install'])).code, 0)
  const file = path.join(project.dir, 'node_modules', '.pnpm', 'leaf@2.0.0', 'node_modules', 'leaf', 'index.js')
  const inode = fs.statSync(file).ino
  const tarballsBefore = registry.tarballRequests.length
  // No TTY (stdin is a pipe) and not CI: a node_modules pnpm found incompatible would end in ERR_PNPM_ABORTED_REMOVE_MODULES_DIR_NO_TTY.
  const result = await pnpm(project, ['install'])
  assert.equal(registry.tarballRequests.length, tarballsBefore, 'pnpm found every package in the store lode filled')
  assert.equal(fs.statSync(file).ino, inode, 'pnpm kept the files lode linked')
  assert.doesNotMatch(result.stdout, /Recreating|removed and reinstalled/)
  assert.match(result.stdout, /Already up to date|Lockfile is up to date/)
  assert.equal(requireFrom(project, '@scope/mid'), 'mid:leaf@1')
  assert.deepEqual(fs.readdirSync(path.join(project.home, '.local', 'share')), ['pnpm'], 'one store, no other')
})

test('lode installs from a lockfile pnpm 11 wrote, as it is, and lays it out as pnpm does', async () => {
  const pnpmProject = makeProject(registry, MANIFEST)
  await pnpm(pnpmProject, ['install', '--lockfile-only'])
  const lodeProject = cloneProject(pnpmProject)
  const lockfile = readLockfileText(pnpmProject)
  await pnpm(pnpmProject, ['install', '--frozen-lockfile'])
  const metadataBefore = registry.metadataRequests.length
  const result = await lode(lodeProject, ['install', '--frozen-lockfile'])
  assert.equal(result.code, 0, result.stderr)
  // Nothing is resolved: the only documents asked for are the supply-chain check's, one per package (pnpm 11 checks so too).
  const packages = [...new Set([...lockfile.matchAll(/^ {2}'?(@?[^@\s']+)@[^:\s]+'?:$/gm)].map((match) => `/${match[1]!}`))].sort()
  assert.deepEqual(registry.metadataRequests.slice(metadataBefore).sort(), packages, 'nothing is resolved')
  assert.equal(readLockfileText(lodeProject), lockfile)
  assert.deepEqual(virtualStore(lodeProject), virtualStore(pnpmProject))
  assert.deepEqual(hoisted(lodeProject), hoisted(pnpmProject))
  assert.deepEqual(binDirs(lodeProject), binDirs(pnpmProject))
})

test('a store on another file system: files are copied, with one warning; packageImportMethod: copy copies', async (t) => {
  const otherFs = '/dev/shm'
  if (!fs.existsSync(otherFs) || fs.statSync(otherFs).dev === fs.statSync(os.tmpdir()).dev) {
    t.skip('no second file system to put the store on')
    return
  }
  const storeDir = fs.mkdtempSync(path.join(otherFs, 'lode-store-'))
  try {
    const project = makeProject(registry, { name: 'xdev', version: '1.0.0', dependencies: { leaf: '2.0.0', '@scope/mid': '^1.0.0' } })
    const result = await lode(project, ['install', '--store-dir', storeDir])
    assert.equal(result.code, 0, result.stderr)
    assert.equal(result.stdout.match(/is on another file system/g)?.length, 1, result.stdout)
    const file = path.join(project.dir, 'node_modules', 'leaf', 'index.js')
    assert.equal(fs.statSync(file).nlink, 1, 'a copy, not a hardlink')
    assert.equal(requireFrom(project, '@scope/mid'), 'mid:leaf@1')

    const copied = makeProject(registry, { name: 'copied', version: '1.0.0', dependencies: { leaf: '2.0.0' } }, { 'pnpm-workspace.yaml': 'packageImportMethod: copy\n' })
    assert.equal((await lode(copied, ['install'])).code, 0)
    assert.equal(fs.statSync(path.join(copied.dir, 'node_modules', 'leaf', 'index.js')).nlink, 1)
  } finally {
    fs.rmSync(storeDir, { recursive: true, force: true })
  }
})

test('--offline with a package missing from the store is ERR_LODE_NO_OFFLINE_TARBALL naming it', async () => {
  const project = makeProject(registry, { name: 'offline', version: '1.0.0', dependencies: { leaf: '2.0.0' } })
  assert.equal((await lode(project, ['install', '--lockfile-only'])).code, 0)
  const tarballsBefore = registry.tarballRequests.length
  const result = await lode(project, ['install', '--offline'])
  assert.equal(result.code, 1)
  assert.ok(result.stderr.startsWith('[ERR_LODE_NO_OFFLINE_TARBALL] leaf@2.0.0 is not in the store'), result.stderr)
  assert.equal(registry.tarballRequests.length, tarballsBefore)
})

test('a file: directory dependency is copied into .pnpm without its node_modules, as pnpm does', async () => {
  const files = {
    'local-pkg/package.json': JSON.stringify({ name: 'local-pkg', version: '0.1.0', dependencies: { leaf: '1.0.0' } }),
    'local-pkg/lib/index.js': 'module.exports = "local:" + require("leaf")',
    'local-pkg/README.md': 'readme',
    'local-pkg/node_modules/junk/a.js': 'junk',
  }
  const { pnpmProject, lodeProject } = await installBoth({ name: 'file-dep', version: '1.0.0', dependencies: { 'local-pkg': 'file:./local-pkg' } }, files)
  const inside = (project: Project): string[] => fs.readdirSync(path.join(project.dir, 'node_modules', '.pnpm', 'local-pkg@file+local-pkg', 'node_modules', 'local-pkg'), { recursive: true }).map(String).sort()
  assert.deepEqual(inside(lodeProject), inside(pnpmProject))
  assert.equal(execFileSync(process.execPath, ['-e', 'console.log(require("local-pkg/lib/index.js"))'], { cwd: lodeProject.dir, encoding: 'utf8' }).trim(), 'local:leaf@1')
})

test('install errors: a bad tarball, a failing download, a required package for another platform; a store file gone is fetched again', async () => {
  const storeDirOf = defaultStoreDir

  // The lockfile's integrity does not match the tarball: the package is named, nothing is linked for it.
  const corrupt = makeProject(registry, { name: 'corrupt', version: '1.0.0', dependencies: { leaf: '2.0.0', '@scope/mid': '^1.0.0' } })
  assert.equal((await lode(corrupt, ['install', '--lockfile-only'])).code, 0)
  const lockfilePath = path.join(corrupt.dir, 'pnpm-lock.yaml')
  const text = fs.readFileSync(lockfilePath, 'utf8')
  fs.writeFileSync(lockfilePath, text.replace(/(leaf@2\.0\.0:\n {4}resolution: \{integrity: sha512-)./, (_, head: string) => `${head}${text.includes(`${head}A`) ? 'B' : 'A'}`))
  const badTarball = await lode(corrupt, ['install', '--frozen-lockfile'])
  assert.equal(badTarball.code, 1, badTarball.stdout)
  assert.ok(badTarball.stderr.startsWith('[ERR_LODE_TARBALL_INTEGRITY] '), badTarball.stderr)
  assert.match(badTarball.stderr, /leaf@2\.0\.0/)
  assert.equal(fs.existsSync(path.join(corrupt.dir, 'node_modules', '.pnpm', 'leaf@2.0.0')), false)

  // The registry fails the tarball: the URL is named, after the retries the settings allow.
  const failing = makeProject(registry, { name: 'failing', version: '1.0.0', dependencies: { host: '1.0.0' } }, { 'pnpm-workspace.yaml': 'fetchRetries: 0\n' })
  assert.equal((await lode(failing, ['install', '--lockfile-only'])).code, 0)
  registry.injectFaults('/host/-/host-1.0.0.tgz', [{ status: 503 }])
  const failed = await lode(failing, ['install'])
  assert.equal(failed.code, 1)
  assert.match(failed.stderr, /^\[ERR_LODE_FETCH_503\] GET \S+\/host\/-\/host-1\.0\.0\.tgz failed with HTTP 503 while fetching host@1\.0\.0/)

  // A store file deleted under lode: the package is fetched again (as pnpm does), the file written back.
  const missing = makeProject(registry, { name: 'missing', version: '1.0.0', dependencies: { leaf: '2.0.0' } })
  assert.equal((await lode(missing, ['install'])).code, 0)
  const casFile = fs.readdirSync(path.join(storeDirOf(missing), 'v11', 'files'), { recursive: true }).map(String)
    .map((rel) => path.join(storeDirOf(missing), 'v11', 'files', rel)).find((file) => fs.statSync(file).isFile() && fs.readFileSync(file, 'utf8') === 'module.exports = "leaf@2"')!
  fs.rmSync(casFile)
  fs.rmSync(path.join(missing.dir, 'node_modules'), { recursive: true })
  const refetched = await lode(missing, ['install'])
  assert.equal(refetched.code, 0, refetched.stderr)
  assert.equal(fs.readFileSync(casFile, 'utf8'), 'module.exports = "leaf@2"')
  assert.equal(fs.readFileSync(path.join(missing.dir, 'node_modules', 'leaf', 'index.js'), 'utf8'), 'module.exports = "leaf@2"')

  // A required (not optional) package whose os excludes this platform, with engineStrict (without it, pnpm and lode install it).
  const windowsOnly = makeProject(registry, { name: 'win', version: '1.0.0', dependencies: { 'win-only': '1.0.0' } }, { 'pnpm-workspace.yaml': 'engineStrict: true\n' })
  const refused = await lode(windowsOnly, ['install'])
  assert.equal(refused.code, 1)
  assert.ok(refused.stderr.startsWith('[ERR_LODE_UNSUPPORTED_PLATFORM] win-only@1.0.0 does not support this platform'), refused.stderr)
})

const PATCH = [
  'diff --git a/index.js b/index.js',
  'index 1111111..2222222 100644',
  '--- a/index.js',
  '+++ b/index.js',
  '@@ -1 +1 @@',
  '-module.exports = "original"',
  '+module.exports = "patched"',
  'diff --git a/lib/gone.js b/lib/gone.js',
  'deleted file mode 100644',
  '--- a/lib/gone.js',
  '+++ /dev/null',
  '@@ -1 +0,0 @@',
  '-x',
  'diff --git a/added.txt b/added.txt',
  'new file mode 100644',
  '--- /dev/null',
  '+++ b/added.txt',
  '@@ -0,0 +1 @@',
  '+new',
  '',
].join('\n')

test('patchedDependencies: the patch is applied in .pnpm, never to the store, with pnpm\'s lockfile and directories', async () => {
  const manifest = { name: 'patched', version: '1.0.0', dependencies: { pat: '1.0.0', 'uses-pat': '1.0.0' } }
  const files = { 'patches/pat@1.0.0.patch': PATCH, 'pnpm-workspace.yaml': 'patchedDependencies:\n  pat@1.0.0: patches/pat@1.0.0.patch\n' }
  const { lodeProject } = await installBoth(manifest, files)
  assert.match(readLockfileText(lodeProject), /pat: 1\.0\.0\(patch_hash=[0-9a-f]{64}\)/)
  assert.equal(requireFrom(lodeProject, 'uses-pat'), 'uses patched')
  const patchedDir = fs.realpathSync(path.join(lodeProject.dir, 'node_modules', 'pat'))
  assert.deepEqual(fs.readdirSync(patchedDir, { recursive: true }).map(String).sort(), ['added.txt', 'index.js', 'lib', 'package.json'])
  // The store still holds the original file.
  const storeFiles = path.join(defaultStoreDir(lodeProject), 'v11', 'files')
  const contents = fs.readdirSync(storeFiles, { recursive: true }).map(String).map((rel) => path.join(storeFiles, rel)).filter((file) => fs.statSync(file).isFile()).map((file) => fs.readFileSync(file, 'utf8'))
  assert.ok(contents.includes('module.exports = "original"\n'))
  assert.ok(!contents.includes('module.exports = "patched"\n'))

  // A patch that does not fit is an error naming it, and leaves no half-patched package.
  const broken = makeProject(registry, { name: 'broken-patch', version: '1.0.0', dependencies: { pat: '1.0.0' } }, {
    'patches/pat.patch': PATCH.replace('-module.exports = "original"', '-module.exports = "something else"'),
    'pnpm-workspace.yaml': 'patchedDependencies:\n  pat: patches/pat.patch\n',
  })
  const failed = await lode(broken, ['install'])
  assert.equal(failed.code, 1)
  assert.ok(failed.stderr.startsWith('[ERR_LODE_PATCH_FAILED] The patch '), failed.stderr)
  assert.ok(failed.stderr.includes(path.join(broken.dir, 'patches', 'pat.patch')))
  const virtualStoreDir = path.join(broken.dir, 'node_modules', '.pnpm')
  assert.equal(fs.existsSync(virtualStoreDir) && fs.readdirSync(virtualStoreDir).some((entry) => entry.startsWith('pat@')), false)
})

/** Every file and link under `dir`, link targets shown (each tool's own state files aside). */

test('a workspace installs as with pnpm: one virtual store, each project\'s node_modules, hoisted projects and dependencies', async () => {
  const files = {
    'pnpm-workspace.yaml': 'packages:\n  - packages/*\n',
    'packages/a/package.json': JSON.stringify({ name: 'a', version: '1.0.0', dependencies: { b: 'workspace:*', '@scope/mid': '^1.0.0' }, devDependencies: { tool: '1.0.0' } }),
    'packages/a/index.js': 'module.exports = "a with " + require("b") + " and " + require("@scope/mid")',
    'packages/b/package.json': JSON.stringify({ name: 'b', version: '2.0.0', dependencies: { leaf: '2.0.0' } }),
    'packages/b/index.js': 'module.exports = "b with " + require("leaf")',
  }
  const { pnpmProject, lodeProject, pnpmResult, result } = await installBoth({ name: 'root', version: '1.0.0', private: true, dependencies: { a: 'workspace:*' } }, files)
  for (const modules of ['node_modules', 'packages/a/node_modules', 'packages/b/node_modules']) {
    assert.deepEqual(listing(path.join(lodeProject.dir, modules)), listing(path.join(pnpmProject.dir, modules)), modules)
  }
  assert.deepEqual(modulesYaml(lodeProject), modulesYaml(pnpmProject))
  assert.equal(summary(result.stdout), summary(pnpmResult.stdout))
  assert.equal(requireFrom(lodeProject, 'a'), 'a with b with leaf@2 and mid:leaf@1')
  assert.equal(execFileSync(path.join(lodeProject.dir, 'packages', 'a', 'node_modules', '.bin', 'tool'), { encoding: 'utf8' }), 'tool uses leaf@1\n')
  // From inside a project, the whole workspace is installed from its root, as with pnpm.
  const fromProject = await lode(lodeProject, ['install', '--dir', 'packages/b'])
  assert.equal(fromProject.code, 0, fromProject.stderr)
  assert.match(fromProject.stdout, /Already up to date/)
  assert.equal(fs.existsSync(path.join(lodeProject.dir, 'packages', 'b', 'pnpm-lock.yaml')), false)
})

test('a deleted pnpm-lock.yaml comes back from node_modules with the versions installed, as with pnpm, and nothing is fetched', async () => {
  const own = await TestRegistry.start([
    { name: 'leaf', version: '1.0.0' },
    { name: 'mid', version: '1.0.0', manifest: { dependencies: { leaf: '^1.0.0' } } },
  ])
  try {
    const pnpmProject = makeProject(own, { name: 'app', version: '1.0.0', dependencies: { mid: '^1.0.0' } })
    const lodeProject = cloneProject(pnpmProject)
    await pnpm(pnpmProject, ['install'])
    assert.equal((await lode(lodeProject, ['install'])).code, 0)
    // Newer versions in range appear; the lockfiles go.
    await own.publish({ name: 'leaf', version: '1.1.0' })
    await own.publish({ name: 'mid', version: '1.1.0', manifest: { dependencies: { leaf: '^1.0.0' } } })
    for (const project of [pnpmProject, lodeProject]) fs.rmSync(path.join(project.dir, 'pnpm-lock.yaml'))
    await pnpm(pnpmProject, ['install'])
    const requests = own.requests.length
    const result = await lode(lodeProject, ['install'])
    assert.equal(result.code, 0, result.stderr)
    assert.equal(own.requests.length, requests, 'no metadata and no tarball is asked for')
    assert.match(readLockfileText(lodeProject), /mid@1\.0\.0:/)
    assert.equal(readLockfileText(lodeProject), readLockfileText(pnpmProject))
    // With --frozen-lockfile node_modules does not stand in: pnpm's ERR_PNPM_NO_LOCKFILE.
    fs.rmSync(path.join(lodeProject.dir, 'pnpm-lock.yaml'))
    const frozen = await lode(lodeProject, ['install', '--frozen-lockfile'])
    assert.equal(frozen.code, 1)
    assert.match(frozen.stderr, /^\[ERR_LODE_NO_LOCKFILE\]/)
  } finally {
    await own.close()
  }
})
