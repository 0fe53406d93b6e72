import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'
import { after, before, test } from 'node:test'

import { TestRegistry } from '@lode/__utils__.test-fixtures'

import { cloneProject, inTerminal, lodeBin, lodeExactly, makeProject, pnpm, pnpmBin, pnpmExactly, readLockfileText, snapshot } from './helpers.js'
import type { Project, RunResult } from './helpers.js'
import { firstLine, output, read, tree } from './patch-helpers.js'

// pnpm 11's patch scenarios past the first commit (patching/commands/test/patch.test.ts and
// patchRemove.test.ts, installing/commands/test/patchedDependencies.ts, pnpm/test/patch/commit.ts),
// each run on both tools: an edit directory committed again and again, edit directories of every
// kind, files a patch leaves out, files without a final newline, patches for several versions of a
// package, a workspace, and patch-remove's checks before it deletes anything.

/** console-log@N's index.js: one line per ordinal up to N+1 (1.0.0 has two). */
function consoleLogLines (major: number): string {
  return ['first', 'second', 'third', 'fourth'].slice(0, major + 1).map((ordinal) => `console.log('${ordinal} line')\n`).join('')
}

/** A patch as pnpm's fixtures write it: one line of index.js replaced, its hunk header naming line 1 wherever the line is. */
function replaceLine (ordinal: string): string {
  return 'diff --git a/index.js b/index.js\nindex 54b6705..6c0033d 100644\n--- a/index.js\n+++ b/index.js\n' +
    `@@ -1,1 +1,1 @@\n-console.log('${ordinal} line')\n+console.log('${ordinal.toUpperCase()} LINE')\n`
}

let registry: TestRegistry
before(async () => {
  registry = await TestRegistry.start([
    {
      name: 'is-positive',
      version: '1.0.0',
      files: { 'index.js': 'module.exports = (n) => n > 0\n', license: 'The MIT License (MIT)\n' },
      manifest: { files: ['index.js'] },
    },
    { name: 'noeol', version: '1.0.0', files: { 'lib/index.js': '\'use strict\'\nmodule.exports = 1\n//# sourceMappingURL=index.js.map' }, manifest: { main: 'lib/index.js' } },
    ...[1, 2, 3].map((major) => ({ name: 'console-log', version: `${major}.0.0`, files: { 'index.js': consoleLogLines(major) } })),
    {
      name: 'depends-on-console-log',
      version: '1.0.0',
      dependencies: { 'console-log-1': 'npm:console-log@1.0.0', 'console-log-2': 'npm:console-log@2.0.0', 'console-log-3': 'npm:console-log@3.0.0' },
    },
  ])
})
after(async () => { await registry.close() })

interface Pair { pnpmProject: Project, lodeProject: Project }

/** A project installed by pnpm 11, and its copy installed by lode. */
async function installedPair (manifest: Record<string, unknown>, files: Record<string, string> = {}): Promise<Pair> {
  const pnpmProject = makeProject(registry, manifest, files)
  await pnpm(pnpmProject, ['install'])
  const lodeProject = cloneProject(pnpmProject)
  const installed = await lodeExactly(lodeProject, ['install'])
  assert.equal(installed.code, 0, installed.stderr)
  return { pnpmProject, lodeProject }
}

type Args = string[] | ((project: Project) => string[])

/** One command on both (the reporter option right after the command's name, before any `--`): the same exit code. */
async function both (pair: Pair, args: Args): Promise<{ expected: RunResult, actual: RunResult }> {
  const argsOf = (project: Project): string[] => {
    const [command, ...rest] = typeof args === 'function' ? args(project) : args
    return [command!, '--reporter=append-only', ...rest]
  }
  const expected = await pnpmExactly(pair.pnpmProject, argsOf(pair.pnpmProject))
  const actual = await lodeExactly(pair.lodeProject, argsOf(pair.lodeProject))
  assert.equal(actual.code, expected.code, `${argsOf(pair.lodeProject).join(' ')}:\n${actual.stdout}${actual.stderr}\npnpm:\n${expected.stdout}${expected.stderr}`)
  return { expected, actual }
}

/** The same change to both projects' copies. */
function onBoth (pair: Pair, change: (project: Project) => void): void {
  change(pair.pnpmProject)
  change(pair.lodeProject)
}

/** These files, pnpm-lock.yaml and each installed package (by its path under the project) are alike on both. */
function assertAlike (pair: Pair, files: string[], packages: string[]): void {
  for (const file of files) assert.equal(read(pair.lodeProject, file), read(pair.pnpmProject, file), file)
  assert.equal(readLockfileText(pair.lodeProject), readLockfileText(pair.pnpmProject))
  const installed = (project: Project, pkg: string): Record<string, string> => tree(fs.realpathSync(path.join(project.dir, pkg)))
  for (const pkg of packages) assert.deepEqual(installed(pair.lodeProject, pkg), installed(pair.pnpmProject, pkg), pkg)
}

const IS_POSITIVE_PATCH = 'patches/is-positive@1.0.0.patch'

test('one edit directory committed again and again, by a relative and an absolute path: the patch holds every edit and leaves out unpublished files and .DS_Store, as pnpm 11', async () => {
  const pair = await installedPair({ name: 'p', version: '1.0.0', dependencies: { 'is-positive': '1.0.0' } })
  const editDir = 'node_modules/.pnpm_patches/is-positive@1.0.0'
  const patched = await both(pair, ['patch', 'is-positive@1.0.0'])
  assert.equal(output(patched.actual, pair.lodeProject.dir), output(patched.expected, pair.pnpmProject.dir))

  // Nothing changed: pnpm's message, and no patches directory made.
  const unchanged = await both(pair, ['patch-commit', editDir])
  assert.equal(output(unchanged.actual, pair.lodeProject.dir), output(unchanged.expected, pair.pnpmProject.dir))
  assert.equal(fs.existsSync(path.join(pair.pnpmProject.dir, 'patches')), false)
  assert.equal(fs.existsSync(path.join(pair.lodeProject.dir, 'patches')), false)

  // A line added, the license deleted, a file the package's `files` leaves out, and macOS's .DS_Store files.
  onBoth(pair, (project) => {
    const dir = path.join(project.dir, editDir)
    fs.appendFileSync(path.join(dir, 'index.js'), '// first edit\n')
    fs.rmSync(path.join(dir, 'license'))
    fs.writeFileSync(path.join(dir, 'ignore.txt'), '')
    fs.writeFileSync(path.join(dir, '.DS_Store'), '// dummy content')
    fs.mkdirSync(path.join(dir, 'subdir'))
    fs.writeFileSync(path.join(dir, 'subdir/.DS_Store'), '// dummy content')
  })
  await both(pair, ['patch-commit', editDir])
  assertAlike(pair, [IS_POSITIVE_PATCH, 'pnpm-workspace.yaml'], ['node_modules/is-positive'])
  const first = read(pair.lodeProject, IS_POSITIVE_PATCH)!
  assert.match(first, /^\+\/\/ first edit$/m)
  assert.doesNotMatch(first, /ignore\.txt|DS_Store|dummy/)
  assert.equal(fs.existsSync(path.join(pair.lodeProject.dir, 'node_modules/is-positive/license')), false)

  // More edits in the same directory, committed by its absolute path: the patch has both.
  onBoth(pair, (project) => { fs.appendFileSync(path.join(project.dir, editDir, 'index.js'), '// second edit\n') })
  await both(pair, (project) => ['patch-commit', path.join(project.dir, editDir)])
  assertAlike(pair, [IS_POSITIVE_PATCH, 'pnpm-workspace.yaml'], ['node_modules/is-positive'])
  assert.match(read(pair.lodeProject, 'node_modules/is-positive/index.js')!, /first edit\n\/\/ second edit\n$/)
})

test('edit directories outside the project, non-ASCII, with a trailing slash, relative and dash-prefixed are committed; a non-empty one is refused, as pnpm 11', async () => {
  const pair = await installedPair({ name: 'p', version: '1.0.0', dependencies: { 'is-positive': '1.0.0' } })
  const editAndCommit = async (editDir: (project: Project) => string, commitArgs: Args, line: string): Promise<void> => {
    onBoth(pair, (project) => { fs.appendFileSync(path.resolve(project.dir, editDir(project), 'index.js'), `${line}\n`) })
    await both(pair, commitArgs)
    assertAlike(pair, [IS_POSITIVE_PATCH, 'pnpm-workspace.yaml'], ['node_modules/is-positive'])
    assert.match(read(pair.lodeProject, IS_POSITIVE_PATCH)!, /^diff --git a\/index\.js b\/index\.js$/m)
    assert.match(read(pair.lodeProject, 'node_modules/is-positive/index.js')!, new RegExp(`${line}\n$`))
  }

  // Outside the project, non-ASCII and named with a trailing slash.
  const outside = (project: Project): string => `${path.join(path.dirname(project.dir), 'outside', '한글')}/`
  const copied = await both(pair, (project) => ['patch', 'is-positive@1.0.0', '--edit-dir', outside(project)])
  assert.equal(output(copied.actual, pair.lodeProject.dir), output(copied.expected, pair.pnpmProject.dir))
  await editAndCommit(outside, (project) => ['patch-commit', outside(project)], '// outside')

  // Relative, committed by its absolute path; the copy starts from the patch committed before.
  await both(pair, ['patch', 'is-positive@1.0.0', '--edit-dir', 'custom-edit-dir'])
  assert.match(read(pair.lodeProject, 'custom-edit-dir/index.js')!, /\/\/ outside\n$/)
  await editAndCommit(() => 'custom-edit-dir', (project) => ['patch-commit', path.join(project.dir, 'custom-edit-dir')], '// custom')

  // A name that starts with a dash, after `--`.
  await both(pair, ['patch', 'is-positive@1.0.0', '--edit-dir=./-dash-edit-dir'])
  await editAndCommit(() => '-dash-edit-dir', ['patch-commit', '--', '-dash-edit-dir'], '// dash')

  // A directory with files in it is not overwritten.
  onBoth(pair, (project) => { fs.mkdirSync(path.join(project.dir, 'taken')); fs.writeFileSync(path.join(project.dir, 'taken/test.txt'), '') })
  const before = snapshot(pair.lodeProject.dir)
  const refused = await both(pair, ['patch', 'is-positive@1.0.0', '--edit-dir', 'taken'])
  assert.equal(refused.actual.code, 1)
  assert.equal(firstLine(refused.actual, pair.lodeProject.dir), firstLine(refused.expected, pair.pnpmProject.dir))
  assert.deepEqual([...snapshot(pair.lodeProject.dir)], [...before])
})

test('a file without a final newline: a line added below it, or text appended to it, into a --patches-dir with `..` in it, as pnpm 11', async () => {
  const pair = await installedPair({ name: 'p', version: '1.0.0', dependencies: { noeol: '1.0.0' } })
  const editDir = 'node_modules/.pnpm_patches/noeol@1.0.0'
  const patchFile = 'ts/custom-patches/noeol@1.0.0.patch'
  const commit = ['patch-commit', '--patches-dir', 'ts/src/../custom-patches', editDir]

  await both(pair, ['patch', 'noeol@1.0.0'])
  onBoth(pair, (project) => { fs.appendFileSync(path.join(project.dir, editDir, 'lib/index.js'), '\n// test patching') })
  await both(pair, commit)
  assertAlike(pair, [patchFile, 'pnpm-workspace.yaml'], ['node_modules/noeol'])
  assert.match(read(pair.lodeProject, 'pnpm-workspace.yaml')!, /noeol@1\.0\.0: ts\/custom-patches\/noeol@1\.0\.0\.patch/)
  assert.doesNotMatch(read(pair.lodeProject, patchFile)!, /No newline at end of file/)

  // Made anew from the package as published, text appended to its last line.
  onBoth(pair, (project) => { fs.rmSync(path.join(project.dir, editDir), { recursive: true }) })
  await both(pair, ['patch', 'noeol@1.0.0', '--ignore-existing'])
  onBoth(pair, (project) => { fs.appendFileSync(path.join(project.dir, editDir, 'lib/index.js'), '// patch without newline') })
  await both(pair, commit)
  assertAlike(pair, [patchFile, 'pnpm-workspace.yaml'], ['node_modules/noeol'])
  assert.match(read(pair.lodeProject, patchFile)!, /^\\ No newline at end of file$/m)
  assert.match(read(pair.lodeProject, 'node_modules/noeol/lib/index.js')!, /index\.js\.map\/\/ patch without newline\n$/)
})

test('bare-name patchedDependencies keys: applied to every version they fit, a name@version key first; a version one does not fit fails the install naming the patch, as pnpm 11', async () => {
  const manifest = { name: 'p', version: '1.0.0', dependencies: { 'depends-on-console-log': '1.0.0' } }
  const installed = (version: number): string => `node_modules/.pnpm/depends-on-console-log@1.0.0/node_modules/console-log-${version}`
  const withPatches = async (patches: Record<string, string>): Promise<{ pair: Pair }> => {
    const files: Record<string, string> = { 'pnpm-workspace.yaml': 'patchedDependencies:\n' }
    for (const [key, ordinal] of Object.entries(patches)) {
      files[`patches/${key}.patch`] = replaceLine(ordinal)
      files['pnpm-workspace.yaml'] += `  ${key}: patches/${key}.patch\n`
    }
    const pnpmProject = makeProject(registry, manifest, files)
    const pair = { pnpmProject, lodeProject: cloneProject(pnpmProject) }
    await both(pair, ['install'])
    return { pair }
  }

  // Every version has a first line.
  const everyVersion = await withPatches({ 'console-log': 'first' })
  assertAlike(everyVersion.pair, ['pnpm-workspace.yaml'], [1, 2, 3].map(installed))
  for (const version of [1, 2, 3]) {
    assert.equal(read(everyVersion.pair.lodeProject, `${installed(version)}/index.js`), consoleLogLines(version).replace('first line', 'FIRST LINE'))
  }

  // 2.0.0's own patch wins over the bare name's.
  const specific = await withPatches({ 'console-log': 'first', 'console-log@2.0.0': 'second' })
  assertAlike(specific.pair, ['pnpm-workspace.yaml'], [1, 2, 3].map(installed))
  assert.equal(read(specific.pair.lodeProject, `${installed(2)}/index.js`), consoleLogLines(2).replace('second line', 'SECOND LINE'))
  assert.equal(read(specific.pair.lodeProject, `${installed(3)}/index.js`), consoleLogLines(3).replace('first line', 'FIRST LINE'))

  // 1.0.0 has no third line: both fail naming the patch file. pnpm leaves 2.0.0 and 3.0.0 patched
  // in node_modules; lode's failed install leaves the project as it was.
  const before = (pair: Pair): Map<string, string> => snapshot(pair.lodeProject.dir)
  const files: Record<string, string> = { 'pnpm-workspace.yaml': 'patchedDependencies:\n  console-log: patches/console-log.patch\n', 'patches/console-log.patch': replaceLine('third') }
  const pnpmProject = makeProject(registry, manifest, files)
  const pair = { pnpmProject, lodeProject: cloneProject(pnpmProject) }
  const untouched = before(pair)
  const failed = await both(pair, ['install'])
  assert.equal(failed.actual.code, 1)
  const patchPath = (project: Project): string => path.join(project.dir, 'patches/console-log.patch')
  assert.ok(output(failed.expected, pnpmProject.dir).includes(`Could not apply patch ${patchPath(pnpmProject)}`.split(pnpmProject.dir).join('<dir>')))
  assert.match(failed.actual.stderr, /ERR_LODE_PATCH_FAILED/)
  assert.ok(failed.actual.stderr.includes(patchPath(pair.lodeProject)), failed.actual.stderr)
  assert.deepEqual([...snapshot(pair.lodeProject.dir)], [...untouched])
  // Over an install without the patch: node_modules stays as that install left it, links and all.
  fs.rmSync(path.join(pair.lodeProject.dir, 'pnpm-workspace.yaml'))
  assert.equal((await lodeExactly(pair.lodeProject, ['install'])).code, 0)
  fs.writeFileSync(path.join(pair.lodeProject.dir, 'pnpm-workspace.yaml'), files['pnpm-workspace.yaml']!)
  const installedBefore = snapshot(pair.lodeProject.dir)
  assert.equal((await lodeExactly(pair.lodeProject, ['install'])).code, 1)
  assert.deepEqual([...snapshot(pair.lodeProject.dir)], [...installedBefore])
})

test('patch of a package with several versions, "apply to all" answered yes: a bare-name key, every version patched, as pnpm 11', async () => {
  const pair = await installedPair({ name: 'p', version: '1.0.0', dependencies: { 'depends-on-console-log': '1.0.0' } })
  // The first version is chosen: its patch's context fits every version (one made from 2.0.0 does not fit 1.0.0, pnpm's install fails too).
  const steps: Array<[RegExp, string]> = [[/Choose which version to patch/, '\r'], [/Apply this patch to all versions\?/, 'y\r']]
  await inTerminal(pnpmBin, ['patch', 'console-log'], pair.pnpmProject, steps)
  await inTerminal(lodeBin, ['patch', 'console-log'], pair.lodeProject, steps)
  const editDir = 'node_modules/.pnpm_patches/console-log@1.0.0'
  assert.deepEqual(tree(path.join(pair.lodeProject.dir, editDir)), tree(path.join(pair.pnpmProject.dir, editDir)))
  const state = (project: Project): string => read(project, 'node_modules/.pnpm_patches/state.json')!.split(project.dir).join('<dir>')
  assert.equal(state(pair.lodeProject), state(pair.pnpmProject))
  onBoth(pair, (project) => {
    const file = path.join(project.dir, editDir, 'index.js')
    fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace('first line', 'FIRST LINE'))
  })
  await both(pair, ['patch-commit', editDir])
  const versions = [1, 2, 3].map((version) => `node_modules/.pnpm/depends-on-console-log@1.0.0/node_modules/console-log-${version}`)
  assertAlike(pair, ['patches/console-log.patch', 'pnpm-workspace.yaml'], versions)
  assert.equal(read(pair.lodeProject, 'pnpm-workspace.yaml'), 'patchedDependencies:\n  console-log: patches/console-log.patch\n')
  for (const [index, dir] of versions.entries()) {
    assert.equal(read(pair.lodeProject, `${dir}/index.js`), consoleLogLines(index + 1).replace('first line', 'FIRST LINE'))
  }
})

test('patch and patch-commit at a workspace\'s root: every project that has the package gets the patch, as pnpm 11', async () => {
  const project = (name: string): string => JSON.stringify({ name, version: '1.0.0', dependencies: { 'is-positive': '1.0.0' } })
  const pair = await installedPair({ name: 'patch-commit-workspaces' }, {
    'pnpm-workspace.yaml': 'packages:\n  - project-1\n  - project-2\n',
    'project-1/package.json': project('project-1'),
    'project-2/package.json': project('project-2'),
  })
  const editDir = 'node_modules/.pnpm_patches/is-positive@1.0.0'
  await both(pair, ['patch', 'is-positive@1.0.0'])
  onBoth(pair, (project) => {
    fs.appendFileSync(path.join(project.dir, editDir, 'index.js'), '// test patching')
    fs.rmSync(path.join(project.dir, editDir, 'license'))
  })
  await both(pair, ['patch-commit', editDir])
  assertAlike(pair, [IS_POSITIVE_PATCH, 'pnpm-workspace.yaml', 'package.json'], ['project-1/node_modules/is-positive', 'project-2/node_modules/is-positive'])
  assert.match(read(pair.lodeProject, 'project-2/node_modules/is-positive/index.js')!, /\/\/ test patching$/)
})

test('patch fails when patchedDependencies names a patch file that is missing, as pnpm 11', async () => {
  const pair = await installedPair({ name: 'p', version: '1.0.0', dependencies: { 'is-positive': '1.0.0' } })
  onBoth(pair, (project) => { fs.writeFileSync(path.join(project.dir, 'pnpm-workspace.yaml'), 'patchedDependencies:\n  is-positive@1.0.0: patches/not-found.patch\n') })
  const before = snapshot(pair.lodeProject.dir)
  const failed = await both(pair, ['patch', 'is-positive@1.0.0'])
  assert.equal(failed.actual.code, 1)
  assert.equal(firstLine(failed.actual, pair.lodeProject.dir), firstLine(failed.expected, pair.pnpmProject.dir))
  assert.deepEqual([...snapshot(pair.lodeProject.dir)], [...before])
})

test('patch-remove checks every patch named before it deletes one, unlinks a symlinked patch but not its target, follows a patches directory linked inside the project, and drops entries whose file is gone, as pnpm 11', async () => {
  const manifest = { name: 'p', version: '1.0.0', dependencies: { 'is-positive': '1.0.0', noeol: '1.0.0' } }
  const good = 'diff --git a/index.js b/index.js\n--- a/index.js\n+++ b/index.js\n@@ -1 +1,2 @@\n module.exports = (n) => n > 0\n+// patched\n'
  /** Both projects with these patchedDependencies, installed without them; `setUp` lays out the patch files. */
  const withEntries = async (entries: Record<string, string>, setUp: (project: Project) => void): Promise<Pair> => {
    const pair = await installedPair(manifest)
    onBoth(pair, (project) => {
      fs.writeFileSync(path.join(project.dir, 'pnpm-workspace.yaml'), `patchedDependencies:\n${Object.entries(entries).map(([key, file]) => `  ${key}: ${file}\n`).join('')}`)
      setUp(project)
    })
    return pair
  }
  const outside = (project: Project, name: string): string => path.join(path.dirname(project.dir), name)
  const refused = async (pair: Pair, names: string[]): Promise<void> => {
    const before = snapshot(path.dirname(pair.lodeProject.dir))
    const result = await both(pair, ['patch-remove', ...names])
    assert.equal(result.actual.code, 1)
    assert.equal(firstLine(result.actual, pair.lodeProject.dir), firstLine(result.expected, pair.pnpmProject.dir))
    assert.deepEqual([...snapshot(path.dirname(pair.lodeProject.dir))], [...before])
  }
  const writePatch = (project: Project, file: string): void => {
    fs.mkdirSync(path.dirname(path.join(project.dir, file)), { recursive: true })
    fs.writeFileSync(path.join(project.dir, file), good)
  }

  // A good patch named with one outside the patches directory, or with a directory: nothing deleted.
  await refused(await withEntries({ 'is-positive@1.0.0': 'patches/good.patch', 'noeol@1.0.0': '../outside.patch' }, (project) => {
    writePatch(project, 'patches/good.patch')
    fs.writeFileSync(outside(project, 'outside.patch'), 'outside patch')
  }), ['is-positive@1.0.0', 'noeol@1.0.0'])
  await refused(await withEntries({ 'is-positive@1.0.0': 'patches/good.patch', 'noeol@1.0.0': 'patches/not-a-file.patch' }, (project) => {
    writePatch(project, 'patches/good.patch')
    fs.mkdirSync(path.join(project.dir, 'patches/not-a-file.patch'))
  }), ['is-positive@1.0.0', 'noeol@1.0.0'])
  // Through a subdirectory of patches/ linked outside: the dangling link there is left alone.
  const danglingOutside = await withEntries({ 'noeol@1.0.0': 'patches/linked-dir/dangling.patch' }, (project) => {
    fs.mkdirSync(outside(project, 'outside'))
    fs.mkdirSync(path.join(project.dir, 'patches'))
    fs.symlinkSync(outside(project, 'outside'), path.join(project.dir, 'patches/linked-dir'))
    fs.symlinkSync(outside(project, 'missing-target.patch'), outside(project, 'outside/dangling.patch'))
  })
  await refused(danglingOutside, ['noeol@1.0.0'])
  assert.ok(fs.lstatSync(outside(danglingOutside.lodeProject, 'outside/dangling.patch')).isSymbolicLink())

  // Removed: a link inside patches/ (its target outside kept), a patch in a patches/ linked inside the project, a missing file.
  const removedPair = await withEntries({
    'is-positive@1.0.0': 'patches/linked.patch',
    noeol: 'patches/missing.patch',
  }, (project) => {
    fs.mkdirSync(path.join(project.dir, 'real-patches'))
    fs.symlinkSync(path.join(project.dir, 'real-patches'), path.join(project.dir, 'patches'))
    fs.writeFileSync(outside(project, 'outside-target.patch'), good)
    fs.symlinkSync(outside(project, 'outside-target.patch'), path.join(project.dir, 'real-patches/linked.patch'))
  })
  await both(removedPair, ['patch-remove', 'is-positive@1.0.0', 'noeol'])
  assertAlike(removedPair, ['pnpm-workspace.yaml'], ['node_modules/is-positive', 'node_modules/noeol'])
  for (const project of [removedPair.pnpmProject, removedPair.lodeProject]) {
    assert.equal(fs.existsSync(path.join(project.dir, 'real-patches/linked.patch')), false)
    assert.equal(fs.readFileSync(outside(project, 'outside-target.patch'), 'utf8'), good)
  }
  assert.deepEqual(listPatches(removedPair.lodeProject), listPatches(removedPair.pnpmProject))
})

function listPatches (project: Project): string[] {
  return fs.existsSync(path.join(project.dir, 'real-patches')) ? fs.readdirSync(path.join(project.dir, 'real-patches')) : ['(gone)']
}
