import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { after, before, test } from 'node:test'

import { TestRegistry } from '@lode/__utils__.test-fixtures'

import { cloneProject, inTerminal, lode, lodeBin, makeProject, pnpm, pnpmBin, readLockfileText, snapshot } from './helpers.js'
import type { Project, RunResult } from './helpers.js'
import { firstLine, output, read, tree } from './patch-helpers.js'

// `lode patch`, `patch-commit` and `patch-remove` beside pnpm 11's: the same edit directory and
// state file, the same patch file (git's diff: a deleted file, a mode change, new files, one of
// them executable), the same pnpm-workspace.yaml and pnpm-lock.yaml, and the patch applied in
// node_modules as pnpm applies it.

let registry: TestRegistry
before(async () => {
  registry = await TestRegistry.start([
    {
      name: 'is-positive',
      version: '1.0.0',
      files: { 'index.js': 'module.exports = (n) => n > 0\n', 'README.md': '# is-positive\n', 'bin.sh': { content: '#!/bin/sh\necho hi\n', mode: 0o755 } },
    },
    { name: 'is-positive', version: '2.0.0', files: { 'index.js': 'module.exports = (n) => n > 0 // v2\n' } },
    { name: '@scope/lib', version: '1.0.0', files: { 'index.js': 'module.exports = \'lib\'\n' } },
    { name: 'a', version: '1.0.0', dependencies: { 'is-positive': '^1.0.0' } },
    { name: 'b', version: '1.0.0', dependencies: { 'is-positive': '2.0.0' } },
  ])
})
after(async () => { await registry.close() })

const MANIFEST = { name: 'p', version: '1.0.0', dependencies: { 'is-positive': '1.0.0', a: '1.0.0', b: '1.0.0', '@scope/lib': '1.0.0' } }

/** The same edit on both tools' copies: a line added and the file made executable, a file deleted, two new files (one executable). */
function edit (editDir: string): void {
  fs.appendFileSync(path.join(editDir, 'index.js'), 'module.exports.patched = true\n')
  fs.chmodSync(path.join(editDir, 'index.js'), 0o755)
  fs.rmSync(path.join(editDir, 'README.md'))
  fs.writeFileSync(path.join(editDir, 'new.txt'), 'new\n')
  fs.writeFileSync(path.join(editDir, 'run.sh'), '#!/bin/sh\necho run\n', { mode: 0o755 })
}

/** `is-positive`'s `patched` export, as Node loads it from the project (or from the package in `from`, under node_modules). */
function requirePatched (project: Project, from?: string): unknown {
  const cwd = from === undefined ? project.dir : fs.realpathSync(path.join(project.dir, 'node_modules', from))
  return JSON.parse(execFileSync(process.execPath, ['-p', 'JSON.stringify(require("is-positive").patched ?? null)'], { cwd, encoding: 'utf8' }))
}

test('lode patch and patch-commit write what pnpm 11 writes, and the install applies the patch as pnpm does', async () => {
  const pnpmProject = makeProject(registry, MANIFEST)
  await pnpm(pnpmProject, ['install'])
  const lodeProject = cloneProject(pnpmProject)
  assert.equal((await lode(lodeProject, ['install'])).code, 0)

  // Two versions are installed: the one asked for is copied out (pnpm would ask on a terminal without a version).
  const expected = await pnpm(pnpmProject, ['patch', 'is-positive@1'])
  const actual = await lode(lodeProject, ['patch', 'is-positive@1'])
  assert.equal(actual.code, 0, actual.stderr)
  assert.equal(output(actual, lodeProject.dir), output(expected, pnpmProject.dir))
  const editDir = (project: Project): string => path.join(project.dir, 'node_modules/.pnpm_patches/is-positive@1.0.0')
  assert.deepEqual(tree(editDir(lodeProject)), tree(editDir(pnpmProject)))
  const state = (project: Project): string => read(project, 'node_modules/.pnpm_patches/state.json')!.split(project.dir).join('<dir>')
  assert.equal(state(lodeProject), state(pnpmProject))
  // A copy, not a link into the store: editing it changes no installed package.
  assert.equal(fs.statSync(path.join(editDir(lodeProject), 'index.js')).nlink, 1)

  edit(editDir(pnpmProject))
  edit(editDir(lodeProject))
  await pnpm(pnpmProject, ['patch-commit', editDir(pnpmProject)])
  const committed = await lode(lodeProject, ['patch-commit', editDir(lodeProject)])
  assert.equal(committed.code, 0, committed.stderr)
  const patchFile = 'patches/is-positive@1.0.0.patch'
  assert.equal(read(lodeProject, patchFile), read(pnpmProject, patchFile))
  assert.match(read(lodeProject, patchFile)!, /^new file mode 100755$/m)
  assert.equal(read(lodeProject, 'pnpm-workspace.yaml'), read(pnpmProject, 'pnpm-workspace.yaml'))
  assert.equal(read(lodeProject, 'pnpm-workspace.yaml'), 'patchedDependencies:\n  is-positive@1.0.0: patches/is-positive@1.0.0.patch\n')
  assert.equal(readLockfileText(lodeProject), readLockfileText(pnpmProject))
  const installed = (project: Project): Record<string, string> => tree(fs.realpathSync(path.join(project.dir, 'node_modules/is-positive')))
  assert.deepEqual(installed(lodeProject), installed(pnpmProject))
  assert.equal(installed(lodeProject)['run.sh']?.split(' ')[1], '755')
  assert.equal(installed(lodeProject)['README.md'], undefined)
  assert.equal(requirePatched(lodeProject), true)
  // The store's copy is untouched: `b`'s version and a fresh copy are as published.
  assert.doesNotMatch(fs.readFileSync(path.join(editDir(lodeProject), '../../.pnpm/is-positive@2.0.0/node_modules/is-positive/index.js'), 'utf8'), /patched/)

  // The edit directory is kept, and `patch` refuses to overwrite it.
  const again = await lode(lodeProject, ['patch', 'is-positive@1.0.0'])
  assert.equal(again.code, 1)
  assert.equal(firstLine(again, lodeProject.dir), firstLine(await pnpm(pnpmProject, ['patch', 'is-positive@1.0.0'], true), pnpmProject.dir))
  // Made anew, it has the committed patch applied (the new executable file included)…
  fs.rmSync(editDir(pnpmProject), { recursive: true })
  fs.rmSync(editDir(lodeProject), { recursive: true })
  await pnpm(pnpmProject, ['patch', 'is-positive@1.0.0'])
  assert.equal((await lode(lodeProject, ['patch', 'is-positive@1.0.0'])).code, 0)
  assert.deepEqual(tree(editDir(lodeProject)), tree(editDir(pnpmProject)))
  assert.equal(tree(editDir(lodeProject))['run.sh']?.split(' ')[1], '755')
  // …and committing it unchanged writes the same patch again, found by the package's name and version.
  const patchText = read(lodeProject, patchFile)
  await pnpm(pnpmProject, ['patch-commit', 'is-positive@1.0.0'])
  const recommitted = await lode(lodeProject, ['patch-commit', 'is-positive@1.0.0'])
  assert.equal(recommitted.code, 0, recommitted.stderr)
  assert.match(recommitted.stdout, /^Already up to date$/m)
  assert.equal(read(lodeProject, patchFile), patchText)
  assert.equal(read(pnpmProject, patchFile), patchText)
  // An edit directory holding the package as published has nothing to commit.
  const publishedDir = (project: Project): string => path.join(project.dir, 'published')
  for (const project of [pnpmProject, lodeProject]) fs.mkdirSync(publishedDir(project))
  await pnpm(pnpmProject, ['patch', 'is-positive@1.0.0', '--edit-dir', 'published', '--ignore-existing'])
  assert.equal((await lode(lodeProject, ['patch', 'is-positive@1.0.0', '--edit-dir', 'published', '--ignore-existing'])).code, 0)
  assert.deepEqual(tree(publishedDir(lodeProject)), tree(publishedDir(pnpmProject)))
  assert.ok(fs.existsSync(path.join(publishedDir(lodeProject), 'README.md')), '--ignore-existing: the package as published')
  const nothing = await lode(lodeProject, ['patch-commit', 'published'])
  assert.equal(output(nothing, lodeProject.dir), output(await pnpm(pnpmProject, ['patch-commit', 'published']), pnpmProject.dir))
  assert.match(nothing.stdout, /^No changes were found to the following directory: /)

  // patch-remove: the file, its emptied directory and the entry go; the package is as published again.
  await pnpm(pnpmProject, ['patch-remove', 'is-positive@1.0.0'])
  const removed = await lode(lodeProject, ['patch-remove', 'is-positive@1.0.0'])
  assert.equal(removed.code, 0, removed.stderr)
  assert.equal(fs.existsSync(path.join(lodeProject.dir, 'patches')), fs.existsSync(path.join(pnpmProject.dir, 'patches')))
  assert.equal(fs.existsSync(path.join(lodeProject.dir, 'patches')), false)
  assert.equal(read(lodeProject, 'pnpm-workspace.yaml'), read(pnpmProject, 'pnpm-workspace.yaml'))
  assert.equal(readLockfileText(lodeProject), readLockfileText(pnpmProject))
  assert.deepEqual(installed(lodeProject), installed(pnpmProject))
  assert.equal(requirePatched(lodeProject), null)
})

test('lode patch for every version, and a scoped package, as pnpm 11 names their patches', async () => {
  const pnpmProject = makeProject(registry, { name: 'p', version: '1.0.0', dependencies: { '@scope/lib': '1.0.0', a: '1.0.0' } })
  await pnpm(pnpmProject, ['install'])
  const lodeProject = cloneProject(pnpmProject)
  assert.equal((await lode(lodeProject, ['install'])).code, 0)
  for (const name of ['@scope/lib', 'is-positive']) {
    const expected = await pnpm(pnpmProject, ['patch', name])
    const actual = await lode(lodeProject, ['patch', name])
    assert.equal(output(actual, lodeProject.dir), output(expected, pnpmProject.dir))
    const dir = (project: Project): string => path.join(project.dir, 'node_modules/.pnpm_patches', name === 'is-positive' ? 'is-positive@1.0.0' : '@scope/lib@1.0.0')
    fs.appendFileSync(path.join(dir(pnpmProject), 'index.js'), 'module.exports.patched = true\n')
    fs.appendFileSync(path.join(dir(lodeProject), 'index.js'), 'module.exports.patched = true\n')
    // By name: the one directory `patch` recorded for it.
    await pnpm(pnpmProject, ['patch-commit', name])
    const committed = await lode(lodeProject, ['patch-commit', name])
    assert.equal(committed.code, 0, committed.stderr)
  }
  assert.deepEqual(fs.readdirSync(path.join(lodeProject.dir, 'patches')).sort(), ['@scope__lib.patch', 'is-positive.patch'])
  for (const file of ['patches/@scope__lib.patch', 'patches/is-positive.patch', 'pnpm-workspace.yaml']) {
    assert.equal(read(lodeProject, file), read(pnpmProject, file), file)
  }
  assert.equal(readLockfileText(lodeProject), readLockfileText(pnpmProject))
  assert.equal(requirePatched(lodeProject, 'a'), true)
})

test('lode patch, patch-commit and patch-remove refuse bad input as pnpm 11 does, and a failed commit writes nothing', async () => {
  const pnpmProject = makeProject(registry, MANIFEST)
  await pnpm(pnpmProject, ['install'])
  const lodeProject = cloneProject(pnpmProject)
  assert.equal((await lode(lodeProject, ['install'])).code, 0)
  const cases = [
    ['patch', 'missing'],
    ['patch', 'is-positive@3'],
    ['patch'],
    ['patch-commit'],
    ['patch-commit', 'nowhere'],
    ['patch-remove', 'is-positive'],
  ]
  for (const args of cases) {
    const expected = await pnpm(pnpmProject, args, true)
    const actual = await lode(lodeProject, args)
    assert.equal(actual.code, 1, args.join(' '))
    assert.equal(firstLine(actual, lodeProject.dir), firstLine(expected, pnpmProject.dir), args.join(' '))
  }
  // Several versions: without a terminal lode names them; on one, it asks as pnpm does (the version, then whether for every version).
  const ambiguous = await lode(lodeProject, ['patch', 'is-positive'])
  assert.match(ambiguous.stderr, /ERR_LODE_PATCH_VERSION_AMBIGUOUS.*1\.0\.0, 2\.0\.0/)
  const steps: Array<[RegExp, string]> = [[/Choose which version to patch/, '\x1b[B'], [/❯ 2\.0\.0/, '\r'], [/Apply this patch to all versions\?/, 'n\r']]
  await inTerminal(pnpmBin, ['patch', 'is-positive'], pnpmProject, steps)
  await inTerminal(lodeBin, ['patch', 'is-positive'], lodeProject, steps)
  const chosenDir = (project: Project): string => path.join(project.dir, 'node_modules/.pnpm_patches/is-positive@2.0.0')
  assert.deepEqual(tree(chosenDir(lodeProject)), tree(chosenDir(pnpmProject)))
  const stateOf = (project: Project): unknown => JSON.parse(read(project, 'node_modules/.pnpm_patches/state.json')!.split(project.dir).join('<dir>'))
  assert.deepEqual(stateOf(lodeProject), stateOf(pnpmProject))
  assert.deepEqual(stateOf(lodeProject), { '<dir>/node_modules/.pnpm_patches/is-positive@2.0.0': { patchedPkg: 'is-positive', applyToAll: false } })
  for (const project of [lodeProject, pnpmProject]) fs.rmSync(path.join(project.dir, 'node_modules/.pnpm_patches'), { recursive: true })
  const unnamed = await lode(lodeProject, ['patch-remove'])
  assert.match(unnamed.stderr, /ERR_LODE_NO_PATCHES_TO_REMOVE/)

  // The install after the commit fails (a dependency the registry does not have): no patch file, pnpm-workspace.yaml as it was.
  assert.equal((await lode(lodeProject, ['patch', 'is-positive@1'])).code, 0)
  edit(path.join(lodeProject.dir, 'node_modules/.pnpm_patches/is-positive@1.0.0'))
  fs.writeFileSync(path.join(lodeProject.dir, 'pnpm-workspace.yaml'), '# settings\nminimumReleaseAge: 0\n')
  fs.writeFileSync(path.join(lodeProject.dir, 'package.json'), JSON.stringify({ ...MANIFEST, dependencies: { ...MANIFEST.dependencies, 'not-published': '1.0.0' } }))
  const before = snapshot(lodeProject.dir)
  const failed = await lode(lodeProject, ['patch-commit', 'is-positive@1.0.0'])
  assert.equal(failed.code, 1)
  assert.match(failed.stderr, /not-published/)
  assert.deepEqual([...snapshot(lodeProject.dir)].filter(([file, what]) => before.get(file) !== what), [])
  assert.deepEqual([...before].filter(([file]) => !fs.existsSync(path.join(lodeProject.dir, file))), [])
})

test('patch-commit and patch-remove refuse two edit directories for one version and patch files outside the patches directory, as pnpm 11; git missing or failing is a coded error; nothing is written', async () => {
  const pnpmProject = makeProject(registry, { name: 'p', version: '1.0.0', dependencies: { 'is-positive': '1.0.0' } })
  await pnpm(pnpmProject, ['install'])
  const lodeProject = cloneProject(pnpmProject)
  assert.equal((await lode(lodeProject, ['install'])).code, 0)
  const workspaceYaml = (text: string): void => {
    for (const project of [pnpmProject, lodeProject]) fs.writeFileSync(path.join(project.dir, 'pnpm-workspace.yaml'), text)
  }
  const compare = async (args: string[], label: string): Promise<void> => {
    const before = snapshot(lodeProject.dir)
    const expected = await pnpm(pnpmProject, args, true)
    const actual = await lode(lodeProject, args)
    assert.equal(actual.code, 1, label)
    // The whole message: pnpm's names the paths (absolute) and the directories found.
    const message = (result: RunResult, dir: string): string => output(result, dir).replace(/\n\n.*$/s, '')
    assert.equal(message(actual, lodeProject.dir), message(expected, pnpmProject.dir), label)
    assert.deepEqual([...snapshot(lodeProject.dir)], [...before], `${label}: nothing written`)
  }
  fs.mkdirSync(path.join(pnpmProject.dir, 'patches/dir.patch'), { recursive: true })
  fs.mkdirSync(path.join(lodeProject.dir, 'patches/dir.patch'), { recursive: true })
  workspaceYaml('patchedDependencies:\n  is-positive@1.0.0: ../outside.patch\n')
  await compare(['patch-remove', 'is-positive@1.0.0'], 'a patch file outside the patches directory')
  workspaceYaml('patchedDependencies:\n  is-positive@1.0.0: patches/dir.patch\n')
  await compare(['patch-remove', 'is-positive@1.0.0'], 'a directory as the patch file')
  workspaceYaml('patchesDir: ../elsewhere\npatchedDependencies:\n  is-positive@1.0.0: ../elsewhere/x.patch\n')
  await compare(['patch-remove', 'is-positive@1.0.0'], 'a patches directory outside the project')
  for (const project of [pnpmProject, lodeProject]) {
    fs.rmSync(path.join(project.dir, 'pnpm-workspace.yaml'))
    fs.rmSync(path.join(project.dir, 'patches'), { recursive: true })
  }
  for (const editDir of ['e1', 'e2']) {
    await pnpm(pnpmProject, ['patch', 'is-positive@1', '--edit-dir', editDir])
    assert.equal((await lode(lodeProject, ['patch', 'is-positive@1', '--edit-dir', editDir])).code, 0)
  }
  await compare(['patch-commit', 'is-positive@1.0.0'], 'two edit directories for one version')

  // git is how the patch is made: missing from the PATH, or failing (pnpm's error for both is uncoded, with a stack trace).
  fs.appendFileSync(path.join(lodeProject.dir, 'e1/index.js'), 'module.exports.patched = true\n')
  const bin = fs.mkdtempSync(path.join(path.dirname(lodeProject.dir), 'bin-'))
  const before = snapshot(lodeProject.dir)
  const noGit = await lode(lodeProject, ['patch-commit', 'e1'], { PATH: bin })
  assert.equal(noGit.code, 1)
  assert.match(noGit.stderr, /^\[ERR_LODE_PATCH_GIT_NOT_FOUND\] lode patch-commit makes the patch with git, which is not on the PATH\./)
  fs.writeFileSync(path.join(bin, 'git'), '#!/bin/sh\necho "fatal: broken git" >&2\nexit 128\n', { mode: 0o755 })
  const badGit = await lode(lodeProject, ['patch-commit', 'e1'], { PATH: bin })
  assert.equal(badGit.code, 1)
  assert.match(badGit.stderr, /^\[ERR_LODE_PATCH_DIFF_FAILED\] git could not diff .* and .*\/e1: fatal: broken git\n/)
  assert.deepEqual([...snapshot(lodeProject.dir)], [...before])
})
