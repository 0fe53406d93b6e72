import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { after, before, test } from 'node:test'

import { TestRegistry } from '@lode/__utils__.test-fixtures'

import { cloneProject, inTerminal, lode, lodeBin, makeProject, pnpm, pnpmBin, projectFile, readLockfileText, snapshot, stepsBesidePnpm, virtualStore } from './helpers.js'
import type { Project } from './helpers.js'

// What teams do every day, each beside pnpm 11 on the same registry: merging branches, a lockfile from
// an older pnpm.

let registry: TestRegistry

before(async () => {
  registry = await TestRegistry.start([
    { name: 'base', version: '1.0.0' },
    { name: 'base', version: '1.1.0' },
    { name: 'left', version: '1.0.0', dependencies: { shared: '^1.0.0' } },
    { name: 'right', version: '1.0.0', dependencies: { shared: '^1.0.0' } },
    { name: 'shared', version: '1.0.0' },
    { name: 'shared', version: '1.1.0' },
    { name: 'both', version: '1.0.0' },
    { name: 'both', version: '1.1.0' },
    { name: 'both', version: '1.2.0' },
    { name: 'aged', version: '1.0.0', dependencies: { 'aged-dep': '^1.0.0' } },
    { name: 'aged-dep', version: '1.0.0' },
    { name: 'builder', version: '1.0.0', manifest: { scripts: { postinstall: 'node -e "require(\'fs\').writeFileSync(\'built.txt\', \'\')"' } } },
  ])
})

after(async () => { await registry.close() })

function git (project: Project, args: string[]): string {
  return execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', '-c', 'init.defaultBranch=main', ...args], { cwd: project.dir, encoding: 'utf8' })
}

function writeManifest (project: Project, dependencies: Record<string, string>): void {
  fs.writeFileSync(path.join(project.dir, 'package.json'), JSON.stringify({ name: 'app', version: '1.0.0', dependencies }, null, 2))
}

/**
 * Two branches that each add dependencies with pnpm, merged by git: pnpm-lock.yaml is left with
 * conflict markers, and package.json is resolved by hand as a team would (both sides' dependencies).
 */
async function mergedBranches (
  left: Record<string, string>,
  right: Record<string, string>,
  resolved: Record<string, string>
): Promise<Project> {
  const project = makeProject(registry, { name: 'app', version: '1.0.0', dependencies: { base: '^1.0.0' } })
  fs.writeFileSync(path.join(project.dir, '.gitignore'), 'node_modules\n')
  git(project, ['init', '-q'])
  await pnpm(project, ['install', '--lockfile-only'])
  git(project, ['add', '-A'])
  git(project, ['commit', '-qm', 'base'])
  for (const [branch, dependencies] of [['left', left], ['right', right]] as const) {
    git(project, ['checkout', '-qb', branch, 'main'])
    writeManifest(project, { base: '^1.0.0', ...dependencies })
    await pnpm(project, ['install', '--lockfile-only'])
    git(project, ['commit', '-qam', branch])
  }
  try {
    git(project, ['merge', '-q', 'left'])
    assert.fail('the merge was expected to conflict')
  } catch (err) {
    assert.match(String((err as { stdout?: string }).stdout), /CONFLICT \(content\): Merge conflict in pnpm-lock\.yaml/)
  }
  writeManifest(project, resolved)
  assert.match(readLockfileText(project), /^<<<<<<< HEAD$[\s\S]*^=======$[\s\S]*^>>>>>>> left$/m)
  return project
}

test('a pnpm-lock.yaml with conflict markers from merging two branches is merged and installed as pnpm 11 does: the same lockfile, the same node_modules', async () => {
  // Each branch adds a package; both change `both`, to different versions.
  const merged = await mergedBranches({ left: '1.0.0', both: '1.1.0' }, { right: '1.0.0', both: '1.2.0' }, { base: '^1.0.0', left: '1.0.0', right: '1.0.0', both: '1.2.0' })
  const pnpmProject = cloneProject(merged)
  const lodeProject = cloneProject(merged)
  const pnpmRun = await pnpm(pnpmProject, ['install'])
  assert.match(pnpmRun.stdout, /Merge conflict detected in pnpm-lock\.yaml and successfully merged/)
  const lodeRun = await lode(lodeProject, ['install'])
  assert.equal(lodeRun.code, 0, lodeRun.stdout + lodeRun.stderr)
  assert.match(lodeRun.stdout, /Merge conflict detected in pnpm-lock\.yaml and successfully merged/)
  assert.equal(readLockfileText(lodeProject), readLockfileText(pnpmProject))
  assert.doesNotMatch(readLockfileText(lodeProject), /<<<<<<<|>>>>>>>/)
  assert.deepEqual(virtualStore(lodeProject), virtualStore(pnpmProject))
  assert.equal(fs.readFileSync(path.join(lodeProject.dir, 'node_modules', 'both', 'package.json'), 'utf8').includes('"1.2.0"'), true)
  // The next install has nothing left to merge.
  const again = await lode(lodeProject, ['install', '--frozen-lockfile'])
  assert.equal(again.code, 0, again.stdout + again.stderr)
  assert.doesNotMatch(again.stdout, /Merge conflict/)
})

test('--frozen-lockfile with conflict markers: merged and installed when the merge fits package.json, refused (nothing written) when it does not, as pnpm 11', async () => {
  // Disjoint additions: the merge has everything package.json asks for.
  const fits = await mergedBranches({ left: '1.0.0' }, { right: '1.0.0' }, { base: '^1.0.0', left: '1.0.0', right: '1.0.0' })
  const pnpmFits = cloneProject(fits)
  const lodeFits = cloneProject(fits)
  await pnpm(pnpmFits, ['install', '--frozen-lockfile'])
  const lodeRun = await lode(lodeFits, ['install', '--frozen-lockfile'])
  assert.equal(lodeRun.code, 0, lodeRun.stdout + lodeRun.stderr)
  // Frozen: pnpm-lock.yaml is left as it is, markers and all; node_modules is the merge.
  assert.equal(readLockfileText(lodeFits), readLockfileText(fits))
  assert.equal(readLockfileText(pnpmFits), readLockfileText(fits))
  assert.deepEqual(virtualStore(lodeFits), virtualStore(pnpmFits))

  // Both branches set `both`: the merge takes one side's specifier and the other's version.
  const conflicting = await mergedBranches({ both: '1.1.0' }, { both: '1.2.0' }, { base: '^1.0.0', both: '1.2.0' })
  const pnpmRefuses = cloneProject(conflicting)
  const lodeRefuses = cloneProject(conflicting)
  const pnpmRun = await pnpm(pnpmRefuses, ['install', '--frozen-lockfile'], true)
  assert.match(pnpmRun.stdout, /ERR_PNPM_OUTDATED_LOCKFILE/)
  const before = snapshot(lodeRefuses.dir)
  const refused = await lode(lodeRefuses, ['install', '--frozen-lockfile'])
  assert.equal(refused.code, 1)
  assert.match(refused.stderr, /ERR_LODE_OUTDATED_LOCKFILE/)
  assert.match(refused.stderr, /both/)
  assert.deepEqual(snapshot(lodeRefuses.dir), before)
})

test('conflict markers that are not a lockfile on one side, or only half of a conflict, are ERR_LODE_BROKEN_LOCKFILE / ERR_LODE_LOCKFILE_MERGE_CONFLICT; nothing is written', async () => {
  for (const [text, code] of [
    ["lockfileVersion: '9.0'\n<<<<<<< HEAD\nimporters: {}\n=======\nimporters: [\n>>>>>>> other\n", 'ERR_LODE_BROKEN_LOCKFILE'],
    ["lockfileVersion: '9.0'\n<<<<<<< HEAD\nimporters: {}\n", 'ERR_LODE_LOCKFILE_MERGE_CONFLICT'],
    ["<<<<<<< HEAD\nlockfileVersion: '9.0'\n=======\nlockfileVersion: '6.0'\n>>>>>>> other\nimporters: {}\n", 'ERR_LODE_LOCKFILE_BREAKING_CHANGE'],
  ] as const) {
    const project = makeProject(registry, { name: 'app', version: '1.0.0', dependencies: { base: '^1.0.0' } }, { 'pnpm-lock.yaml': text })
    const before = snapshot(project.dir)
    const run = await lode(project, ['install', '--frozen-lockfile'])
    assert.equal(run.code, 1, run.stdout)
    assert.match(run.stderr, new RegExp(code), text)
    assert.match(run.stderr, /pnpm-lock\.yaml/)
    assert.deepEqual(snapshot(project.dir), before)
  }
})

// pnpm 8 wrote lockfileVersion 6.0: importers at the top level, `/name@version` keys, `dev` flags.
const V6_LOCKFILE = `lockfileVersion: '6.0'

settings:
  autoInstallPeers: true
  excludeLinksFromLockfile: false

dependencies:
  base:
    specifier: ^1.0.0
    version: 1.0.0

packages:

  /base@1.0.0:
    resolution: {integrity: sha512-AAAA}
    dev: false
`

test('a lockfile from pnpm 8 (6.0): install warns as pnpm 11 does, resolves afresh and writes the same v9 lockfile; frozen refuses and writes nothing', async () => {
  const pnpmProject = makeProject(registry, { name: 'app', version: '1.0.0', dependencies: { base: '^1.0.0' } }, { 'pnpm-lock.yaml': V6_LOCKFILE })
  const lodeProject = cloneProject(pnpmProject)

  const pnpmFrozen = await pnpm(pnpmProject, ['install', '--frozen-lockfile'], true)
  assert.match(pnpmFrozen.stdout, /ERR_PNPM_LOCKFILE_BREAKING_CHANGE.*not compatible with current pnpm: it was generated with lockfileVersion 6\.0, but the current pnpm version supports lockfileVersion 9\.x/)
  const before = snapshot(lodeProject.dir)
  const lodeFrozen = await lode(lodeProject, ['install', '--frozen-lockfile'])
  assert.equal(lodeFrozen.code, 1)
  assert.match(lodeFrozen.stderr, /ERR_LODE_LOCKFILE_BREAKING_CHANGE.*Lockfile .*pnpm-lock\.yaml not compatible with current lode: it was generated with lockfileVersion 6\.0, but lode supports lockfileVersion 9\.x/)
  assert.match(lodeFrozen.stderr, /without --frozen-lockfile/)
  assert.deepEqual(snapshot(lodeProject.dir), before)

  const pnpmRun = await pnpm(pnpmProject, ['install'])
  assert.match(pnpmRun.stdout, /WARN.*Ignoring broken lockfile at .*: Lockfile .*pnpm-lock\.yaml not compatible with current pnpm/)
  const lodeRun = await lode(lodeProject, ['install'])
  assert.equal(lodeRun.code, 0, lodeRun.stdout + lodeRun.stderr)
  assert.match(lodeRun.stdout + lodeRun.stderr, /WARN.*Ignoring broken lockfile at .*: Lockfile .*pnpm-lock\.yaml not compatible with current lode: it was generated with lockfileVersion 6\.0/)
  assert.equal(readLockfileText(lodeProject), readLockfileText(pnpmProject))
  assert.match(readLockfileText(lodeProject), /^lockfileVersion: '9\.0'$[\s\S]*version: 1\.1\.0/m)
  assert.deepEqual(virtualStore(lodeProject), virtualStore(pnpmProject))
})

test('add --save-catalog, --save-catalog-name and catalogMode (strict, prefer) write package.json, pnpm-workspace.yaml and the lockfile as pnpm 11', async () => {
  const project = makeProject(registry, { name: 'app', version: '1.0.0' })
  await stepsBesidePnpm(project, [
    { args: ['add', 'base', '--save-catalog'] },
    { args: ['add', 'shared@1.0.0', '--save-catalog-name=legacy'] },
    { args: ['add', 'both@~1.1.0', 'right', '--save-catalog'] },
    // The default catalog has base already, as another range: saved as asked, with pnpm's warning.
    { args: ['add', 'base@1.0.0', '--save-catalog'], warns: /Skip adding base to the default catalog because it already exists as \^1\.1\.0/ },
  ])
  const strict = makeProject(registry, { name: 'app', version: '1.0.0' }, { 'pnpm-workspace.yaml': 'catalog:\n  both: ~1.1.0\ncatalogMode: strict\n' })
  await stepsBesidePnpm(strict, [
    // Not in the catalog: saved to it.
    { args: ['add', 'left'] },
    { args: ['add', 'both@1.2.0'], fails: /ERR_LODE_CATALOG_VERSION_MISMATCH/ },
    // A version the catalog's range covers: catalog:.
    { args: ['add', 'both@1.1.0'] },
  ])
  const prefer = makeProject(registry, { name: 'app', version: '1.0.0' }, { 'pnpm-workspace.yaml': 'catalog:\n  both: ~1.1.0\ncatalogMode: prefer\n' })
  await stepsBesidePnpm(prefer, [
    { args: ['add', 'both@1.2.0'], warns: /Catalog version mismatch for "both": using direct version "1\.2\.0" instead of catalog version "~1\.1\.0"/ },
    { args: ['add', 'base'] },
  ])
})

/** A workspace: the root, and packages/app and packages/lib, each with its package.json. */
function workspace (files: Record<string, string> = {}, root: Record<string, unknown> = {}): Project {
  return makeProject(registry, { name: 'root', version: '1.0.0', private: true, ...root }, {
    'pnpm-workspace.yaml': 'packages:\n  - packages/*\n',
    'packages/app/package.json': JSON.stringify({ name: 'app', version: '1.0.0', dependencies: { base: '^1.0.0' } }),
    'packages/lib/package.json': JSON.stringify({ name: 'lib', version: '1.0.0', dependencies: { shared: '1.0.0' } }),
    ...files,
  })
}

const WORKSPACE_FILES = ['package.json', 'packages/app/package.json', 'packages/lib/package.json', 'pnpm-workspace.yaml', 'pnpm-lock.yaml']

test('in a workspace: --filter <root> add, update -r --latest, a frozen install after a catalog changed, update --latest of a catalog entry, as pnpm 11', async () => {
  // (Not yet compared: update -r --latest where another project's package depends on a name it moves; pnpm keeps that locked version.)
  await stepsBesidePnpm(workspace(), [['install'], ['update', '-r', '--latest'], ['add', 'left', '--filter', 'root']], WORKSPACE_FILES)
  const catalogued = workspace({
    'pnpm-workspace.yaml': 'packages:\n  - packages/*\ncatalog:\n  both: 1.0.0\n',
    'packages/app/package.json': JSON.stringify({ name: 'app', version: '1.0.0', dependencies: { both: 'catalog:' } }),
  })
  const { lodeProject, pnpmProject } = await stepsBesidePnpm(catalogued, [['install']], WORKSPACE_FILES)
  for (const of of [lodeProject, pnpmProject]) fs.writeFileSync(path.join(of.dir, 'pnpm-workspace.yaml'), 'packages:\n  - packages/*\ncatalog:\n  both: 1.1.0\n')
  await stepsBesidePnpm(pnpmProject, [{ args: ['install', '--frozen-lockfile'], fails: /ERR_LODE_OUTDATED_LOCKFILE/ }, ['update', '--latest', '-r']], WORKSPACE_FILES, lodeProject)
})


test('update rolls workspace: ranges as pnpm 11 does, to the workspace\'s version even outside the range (rolling, and saveWorkspaceProtocol: true)', async () => {
  const specs = ['workspace:1.0.0', 'workspace:~1.0.0', 'workspace:^1.0.0', 'workspace:1', 'workspace:1.0', 'workspace:*', 'workspace:^', 'workspace:~']
  const dependencies = Object.fromEntries(specs.map((spec, i) => [`dep${i + 1}`, spec]))
  const projects = (version: string): Record<string, string> => Object.fromEntries(specs.map((_, i) =>
    [`packages/dep${i + 1}/package.json`, JSON.stringify({ name: `dep${i + 1}`, version })]))
  const files = ['packages/p1/package.json', 'packages/p2/package.json', 'pnpm-lock.yaml']
  for (const settings of ['', 'saveWorkspaceProtocol: true\n']) {
    const project = workspace({
      'pnpm-workspace.yaml': `packages:\n  - packages/*\n${settings}`,
      'packages/app/package.json': JSON.stringify({ name: 'app', version: '1.0.0' }),
      'packages/lib/package.json': JSON.stringify({ name: 'lib', version: '1.0.0' }),
      'packages/p1/package.json': JSON.stringify({ name: 'p1', version: '1.0.0', dependencies }),
      'packages/p2/package.json': JSON.stringify({ name: 'p2', version: '1.0.0', dependencies }),
      ...projects('1.0.0'),
    })
    const { lodeProject, pnpmProject } = await stepsBesidePnpm(project, [['install']], files)
    // The projects move to 2.0.0, out of the pinned ranges: update takes them all the same.
    for (const of of [lodeProject, pnpmProject]) {
      for (const [file, text] of Object.entries(projects('2.0.0'))) fs.writeFileSync(path.join(of.dir, file), text)
    }
    await stepsBesidePnpm(pnpmProject, [['--filter', 'p1', 'update', 'dep1', 'dep4', 'dep8'], ['update', '-r']], files, lodeProject)
  }
})

test('a lockfile relabelled as an older major version over an intact node_modules: pnpm 11 and lode keep the versions installed, not newer ones', async () => {
  const pnpmProject = makeProject(registry, { name: 'app', version: '1.0.0', dependencies: { aged: '^1.0.0' } })
  const lodeProject = cloneProject(pnpmProject)
  await pnpm(pnpmProject, ['install'])
  const first = await lode(lodeProject, ['install'])
  assert.equal(first.code, 0, first.stderr)
  assert.equal(readLockfileText(lodeProject), readLockfileText(pnpmProject))
  // A newer version of the dependency's dependency appears; the lockfile is said to be pnpm 8's.
  await registry.publish({ name: 'aged-dep', version: '1.1.0' })
  for (const of of [lodeProject, pnpmProject]) {
    fs.writeFileSync(path.join(of.dir, 'pnpm-lock.yaml'), readLockfileText(of).replace("lockfileVersion: '9.0'", "lockfileVersion: '6.0'"))
  }
  const pnpmRun = await pnpm(pnpmProject, ['install'])
  assert.match(pnpmRun.stdout, /Ignoring broken lockfile/)
  const lodeRun = await lode(lodeProject, ['install'])
  assert.equal(lodeRun.code, 0, lodeRun.stderr)
  assert.match(lodeRun.stdout + lodeRun.stderr, /Ignoring broken lockfile/)
  assert.equal(readLockfileText(lodeProject), readLockfileText(pnpmProject))
  assert.match(readLockfileText(lodeProject), /^lockfileVersion: '9\.0'$[\s\S]*aged-dep@1\.0\.0:/m)
  assert.doesNotMatch(readLockfileText(lodeProject), /aged-dep@1\.1\.0/)
  assert.deepEqual(virtualStore(lodeProject), virtualStore(pnpmProject))
})

test('on a terminal, the builds an install leaves out are added to allowBuilds as undecided, as pnpm 11; an undecided build stays left out, and approve-builds decides it', async () => {
  const pnpmProject = makeProject(registry, { name: 'app', version: '1.0.0', dependencies: { builder: '1.0.0', base: '1.0.0' } }, {
    'pnpm-workspace.yaml': 'allowBuilds:\n  zzz-other: false\n',
  })
  const lodeProject = cloneProject(pnpmProject)
  await inTerminal(pnpmBin, ['install'], pnpmProject, [])
  await inTerminal(lodeBin, ['install'], lodeProject, [])
  assert.equal(projectFile(lodeProject, 'pnpm-workspace.yaml'), projectFile(pnpmProject, 'pnpm-workspace.yaml'))
  assert.equal(projectFile(lodeProject, 'pnpm-workspace.yaml'), 'allowBuilds:\n  builder: set this to true or false\n  zzz-other: false\n')
  // Without a terminal (as in CI) nothing is added; the placeholder reads as undecided: left out, which strictDepBuilds (the default) fails on.
  const again = await lode(lodeProject, ['install'])
  assert.equal(again.code, 1, again.stdout + again.stderr)
  assert.match(again.stderr, /ERR_LODE_IGNORED_BUILDS.*builder@1\.0\.0/)
  assert.equal(projectFile(lodeProject, 'pnpm-workspace.yaml'), 'allowBuilds:\n  builder: set this to true or false\n  zzz-other: false\n')
  assert.equal(fs.existsSync(path.join(lodeProject.dir, 'node_modules', 'builder', 'built.txt')), false)
  const approved = await lode(lodeProject, ['approve-builds', 'builder'])
  assert.equal(approved.code, 0, approved.stdout + approved.stderr)
  assert.equal(projectFile(lodeProject, 'pnpm-workspace.yaml'), 'allowBuilds:\n  builder: true\n  zzz-other: false\n')
  assert.equal(fs.existsSync(path.join(lodeProject.dir, 'node_modules', 'builder', 'built.txt')), true)
})
