import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { after, before, test } from 'node:test'
import { promisify } from 'node:util'

import { TestRegistry } from '@lode/__utils__.test-fixtures'

import { cloneProject, lode, makeProject, pnpm } from './helpers.js'
import type { Project } from './helpers.js'

const run = promisify(execFile)
let registry: TestRegistry
before(async () => {
  registry = await TestRegistry.start([
    { name: 'leaf', version: '1.0.0', files: { 'index.js': 'module.exports = "leaf"' } },
    { name: 'leaf', version: '1.1.0' },
    { name: 'leaf', version: '2.0.0' },
    { name: 'other', version: '1.0.0' },
    { name: 'hello-bin', version: '1.0.0', bin: { 'hello-bin': 'cli.js' }, files: { 'cli.js': '#!/usr/bin/env node\nconsole.log("hello " + process.argv.slice(2).join(" "))\n' } },
  ])
})
after(async () => { await registry.close() })

// Each script appends "<event> <whether leaf is installed> <args>" to a log.
const logged = (event: string): string => `node -e "require('fs').appendFileSync('scripts.log', '${event} ' + require('fs').existsSync('node_modules/leaf') + ' ' + process.argv.slice(1).join(',') + '\\\\n')"`
const SCRIPTS = Object.fromEntries(['preinstall', 'install', 'postinstall', 'preprepare', 'prepare', 'postprepare', 'prebuild', 'build', 'postbuild'].map((event) => [event, logged(event)]))
const MANIFEST = { name: 'scripted', version: '1.0.0', dependencies: { leaf: '1.0.0', 'hello-bin': '1.0.0' }, scripts: { ...SCRIPTS, fail: 'exit 7', greet: 'hello-bin from-script' } }

const scriptsLog = (project: Project): string[] => fs.readFileSync(path.join(project.dir, 'scripts.log'), 'utf8').split('\n').slice(0, -1)

test('the project\'s own install scripts run in pnpm\'s order: preinstall before the dependencies, the rest after', async () => {
  const project = makeProject(registry, MANIFEST)
  const lodeProject = cloneProject(project)
  await pnpm(project, ['install'])
  assert.equal((await lode(lodeProject, ['install'])).code, 0)
  assert.deepEqual(scriptsLog(lodeProject), scriptsLog(project))
  assert.deepEqual(scriptsLog(lodeProject), ['preinstall false ', 'install true ', 'postinstall true ', 'preprepare true ', 'prepare true ', 'postprepare true '])
  const ignoring = makeProject(registry, MANIFEST)
  assert.equal((await lode(ignoring, ['install', '--ignore-scripts'])).code, 0)
  assert.equal(fs.existsSync(path.join(ignoring.dir, 'scripts.log')), false)
})

test('which projects\' install scripts add, update and remove run, alone and in a workspace, as pnpm 11 runs them', async () => {
  // Each project's postinstall and prepare leave a mark; after each step, both tools left the same marks.
  const marked = (name: string): Record<string, unknown> => ({
    name,
    version: '1.0.0',
    dependencies: { leaf: '^1.0.0' },
    scripts: Object.fromEntries(['preinstall', 'install', 'postinstall', 'prepare'].map((event) => [event, `node -e "require('fs').writeFileSync('${event}.ran', '')"`])),
  })
  const marks = (project: Project): string[] => ['.', 'packages/a', 'packages/b']
    .flatMap((dir) => ['preinstall', 'install', 'postinstall', 'prepare'].map((event) => path.join(dir, `${event}.ran`)))
    .filter((file) => fs.existsSync(path.join(project.dir, file)))
  const stepsBoth = async (project: Project, steps: Array<{ args: string[], cwd?: string }>): Promise<void> => {
    const lodeProject = cloneProject(project)
    for (const { args, cwd } of steps) {
      for (const of of [project, lodeProject]) {
        for (const file of marks(of)) fs.rmSync(path.join(of.dir, file))
      }
      const inDir = (of: Project): Project => ({ ...of, dir: path.join(of.dir, cwd ?? '.') })
      await pnpm(inDir(project), args)
      const result = await lode(inDir(lodeProject), args)
      assert.equal(result.code, 0, `lode ${args.join(' ')}:\n${result.stderr}`)
      assert.deepEqual(marks(lodeProject), marks(project), `marks after ${args.join(' ')} in ${cwd ?? '.'}`)
    }
  }
  await stepsBoth(makeProject(registry, marked('single')), [
    { args: ['install'] }, { args: ['add', 'other'] }, { args: ['install'] }, { args: ['update', 'leaf'] }, { args: ['update'] },
    { args: ['update', '--latest'] }, { args: ['remove', 'other'] }, { args: ['install', 'other'] },
  ])
  const workspace = (members: string[]): Project => makeProject(registry, marked('root'), {
    'pnpm-workspace.yaml': 'packages:\n  - packages/*\n',
    ...Object.fromEntries(members.map((member) => [`packages/${member}/package.json`, JSON.stringify(marked(member))])),
  })
  await stepsBoth(workspace(['a']), [{ args: ['install'] }, { args: ['update', 'leaf'], cwd: 'packages/a' }])
  await stepsBoth(workspace(['a', 'b']), [
    { args: ['install'] },
    { args: ['update', 'leaf'], cwd: 'packages/a' },
    { args: ['update'], cwd: 'packages/a' },
    { args: ['add', 'other'], cwd: 'packages/a' },
    { args: ['remove', 'other'], cwd: 'packages/a' },
    { args: ['update'] },
    { args: ['-r', 'update', 'leaf'] },
    { args: ['-r', 'update'] },
    { args: ['add', '-w', 'other'] },
    { args: ['update', 'leaf'] },
    { args: ['install', 'other'], cwd: 'packages/b' },
    { args: ['--filter', 'a', 'update', 'leaf'] },
    { args: ['--filter', 'a', 'update'] },
    { args: ['--filter', 'a', 'add', 'other'] },
    { args: ['install'], cwd: 'packages/a' },
  ])
})

test('lode run: pre and post scripts, arguments to the script, bins on PATH, the exit code kept, `lode <script>`; lode exec likewise', async () => {
  const project = makeProject(registry, MANIFEST)
  assert.equal((await lode(project, ['install', '--ignore-scripts'])).code, 0)
  const lodeBin = path.join(import.meta.dirname, '..', '..', 'bin', 'lode')
  const env = { PATH: process.env['PATH'] ?? '', HOME: project.home }
  await run(process.execPath, [lodeBin, 'run', 'build', 'a', '--flag'], { cwd: project.dir, env })
  assert.deepEqual(scriptsLog(project), ['prebuild true ', 'build true a,--flag', 'postbuild true '])
  assert.equal((await run(process.execPath, [lodeBin, 'run', 'greet', 'x'], { cwd: project.dir, env })).stdout, 'hello from-script x\n')
  // A script whose name is no command runs without `run`, as with pnpm; an unknown name is a clear error.
  assert.equal((await run(process.execPath, [lodeBin, 'greet', '--y'], { cwd: project.dir, env })).stdout, 'hello from-script --y\n')
  const noCommand = await run(process.execPath, [lodeBin, 'nonsense'], { cwd: project.dir, env }).catch((err: { code: number, stderr: string }) => err)
  assert.equal((noCommand as { code: number }).code, 1)
  assert.match((noCommand as { stderr: string }).stderr, /^\[ERR_LODE_UNKNOWN_COMMAND\] Unknown command "nonsense", and package.json has no script of that name \(nor node_modules\/\.bin a command\)\./)
  // Nor a command nor a script, but a dependency's executable: it runs, as `pnpm vitest run` does.
  assert.equal((await run(process.execPath, [lodeBin, 'hello-bin', 'there', '--z'], { cwd: project.dir, env })).stdout, 'hello there --z\n')

  const failing = await run(process.execPath, [lodeBin, 'run', 'fail'], { cwd: project.dir, env }).catch((err: { code: number, stderr: string }) => err)
  assert.equal((failing as { code: number }).code, 7)
  assert.match((failing as { stderr: string }).stderr, /\[ELIFECYCLE\] Command failed with exit code 7\./)
  const missing = await run(process.execPath, [lodeBin, 'run', 'nope'], { cwd: project.dir, env }).catch((err: { code: number, stderr: string }) => err)
  assert.equal((missing as { code: number }).code, 1)
  assert.match((missing as { stderr: string }).stderr, /^\[ERR_LODE_NO_SCRIPT\] Missing script: nope/)
  // --if-present (before the name, where pnpm reads it): a missing script is no error, and nothing runs.
  const ifPresent = await run(process.execPath, [lodeBin, 'run', '--if-present', 'nope'], { cwd: project.dir, env })
  assert.equal(ifPresent.stdout, '')
  assert.equal((await run(process.execPath, [lodeBin, 'run', '--if-present', 'greet', 'z'], { cwd: project.dir, env })).stdout, 'hello from-script z\n')

  assert.equal((await run(process.execPath, [lodeBin, 'exec', 'hello-bin', '--x', 'y'], { cwd: project.dir, env })).stdout, 'hello --x y\n')
  const exited = await run(process.execPath, [lodeBin, 'exec', 'sh', '-c', 'exit 5'], { cwd: project.dir, env }).catch((err: { code: number }) => err)
  assert.equal((exited as { code: number }).code, 5)
  const unknown = await run(process.execPath, [lodeBin, 'exec', 'no-such-command-here'], { cwd: project.dir, env }).catch((err: { code: number, stderr: string }) => err)
  assert.equal((unknown as { code: number }).code, 1)
  assert.match((unknown as { stderr: string }).stderr, /^\[ERR_LODE_EXEC_NOT_FOUND\] Command "no-such-command-here" not found/)
})

test('in a workspace, every project\'s scripts run, a project after those it depends on, as pnpm orders them', async () => {
  const logTo = (name: string): Record<string, string> => Object.fromEntries(['preinstall', 'install', 'postinstall', 'prepare'].map((event) => [event, `node -e "require('fs').appendFileSync(process.env.LOG_FILE, '${name}:${event}\\\\n')"`]))
  const files = {
    'pnpm-workspace.yaml': 'packages:\n  - packages/*\n',
    'packages/a/package.json': JSON.stringify({ name: 'a', version: '1.0.0', scripts: logTo('a'), dependencies: { b: 'workspace:*', leaf: '1.0.0' } }),
    'packages/b/package.json': JSON.stringify({ name: 'b', version: '1.0.0', scripts: logTo('b') }),
  }
  const project = makeProject(registry, { name: 'root', version: '1.0.0', scripts: logTo('root'), dependencies: { a: 'workspace:*' } }, files)
  const lodeProject = cloneProject(project)
  const order = (p: Project): string[] => fs.readFileSync(path.join(p.dir, 'order.log'), 'utf8').split('\n').slice(0, -1)
  await pnpm(project, ['install'], false, { LOG_FILE: path.join(project.dir, 'order.log') })
  assert.equal((await lode(lodeProject, ['install'], { LOG_FILE: path.join(lodeProject.dir, 'order.log') })).code, 0)
  assert.deepEqual(order(lodeProject), order(project))
  assert.deepEqual(order(lodeProject), ['root:preinstall', 'b:preinstall', 'b:install', 'b:postinstall', 'b:prepare', 'a:preinstall', 'a:install', 'a:postinstall', 'a:prepare', 'root:install', 'root:postinstall', 'root:prepare'])
})

test('-r and --filter run a script or a command in the selected projects, each after those it depends on, as pnpm does', async () => {
  const build = (name: string): Record<string, string> => ({ build: `node -e "require('fs').appendFileSync(process.env.LOG_FILE, '${name}:' + process.argv.slice(1).join(',') + '\\\\n')"` })
  const files = {
    'pnpm-workspace.yaml': 'packages:\n  - packages/*\n',
    'packages/a/package.json': JSON.stringify({ name: 'a', version: '1.0.0', scripts: build('a'), dependencies: { b: 'workspace:*' } }),
    'packages/b/package.json': JSON.stringify({ name: '@x/b', version: '1.0.0', scripts: build('b'), dependencies: { c: 'workspace:@x/c@*' } }),
    'packages/c/package.json': JSON.stringify({ name: '@x/c', version: '1.0.0', scripts: build('c') }),
    'packages/d/package.json': JSON.stringify({ name: 'd', version: '1.0.0' }),
  }
  const project = makeProject(registry, { name: 'root', version: '1.0.0', scripts: build('root') }, files)
  // a depends on @x/b by the alias `b`
  fs.writeFileSync(path.join(project.dir, 'packages/a/package.json'), JSON.stringify({ name: 'a', version: '1.0.0', scripts: build('a'), dependencies: { b: 'workspace:@x/b@*' } }))
  const lodeProject = cloneProject(project)
  await pnpm(project, ['install'])
  assert.equal((await lode(lodeProject, ['install'])).code, 0)

  const lodeBin = path.join(import.meta.dirname, '..', '..', 'bin', 'lode')
  const pnpmBin = path.join(import.meta.dirname, '..', '..', 'node_modules', 'pnpm', 'bin', 'pnpm.mjs')
  const logOf = async (bin: string, p: Project, args: string[], cwd = p.dir): Promise<string[]> => {
    const log = path.join(p.dir, 'run.log')
    fs.rmSync(log, { force: true })
    await run(process.execPath, [bin, ...args], { cwd, env: { PATH: process.env['PATH'] ?? '', HOME: p.home, LOG_FILE: log } })
    return fs.existsSync(log) ? fs.readFileSync(log, 'utf8').split('\n').slice(0, -1) : []
  }
  for (const args of [['-r', 'run', 'build'], ['--filter', 'a...', 'run', 'build', 'x'], ['--filter', 'a^...', 'run', 'build'], ['--filter', '...c', 'run', 'build'], ['-F', '{packages/b}', 'run', 'build'], ['run', '--filter', '!a', '-r', '--workspace-concurrency=1', 'build']]) {
    const expected = await logOf(pnpmBin, project, args)
    assert.deepEqual(await logOf(lodeBin, lodeProject, args), expected, args.join(' '))
    assert.notEqual(expected.length, 0)
  }
  assert.deepEqual(await logOf(lodeBin, lodeProject, ['-r', 'run', 'build']), ['c:', 'b:', 'a:'])
  assert.deepEqual(await logOf(lodeBin, lodeProject, ['--filter', './b', 'run', 'build'], path.join(lodeProject.dir, 'packages')), ['b:'])
  assert.deepEqual(await logOf(lodeBin, lodeProject, ['-w', 'run', 'build', 'y'], path.join(lodeProject.dir, 'packages', 'a')), ['root:y'])
  // exec in each selected project, in pnpm's order (dependencies first), with pnpm's variables.
  const logCwd = 'require("fs").appendFileSync(process.env.LOG_FILE, require("path").basename(process.cwd()) + " " + process.env.PNPM_PACKAGE_NAME + "\\n")'
  // pnpm runs a chunk's projects at once (their order varies); lode one at a time, in the chunk's directory order.
  for (const args of [['-r', 'exec', 'node', '-e', logCwd], ['--filter', '@x/*', 'exec', 'node', '-e', logCwd], ['--filter', 'a...', 'exec', 'node', '-e', logCwd]]) {
    const expected = await logOf(pnpmBin, project, args)
    assert.deepEqual((await logOf(lodeBin, lodeProject, args)).sort(), expected.sort(), args.join(' '))
    assert.notEqual(expected.length, 0)
  }
  assert.deepEqual(await logOf(lodeBin, lodeProject, ['-r', 'exec', 'node', '-e', logCwd]), ['c @x/c', 'd d', 'b @x/b', 'a a'])
  assert.deepEqual(await logOf(lodeBin, lodeProject, ['--filter', '@x/*', 'exec', 'node', '-e', logCwd]), ['c @x/c', 'b @x/b'])
  // A failing command: pnpm's account of it (the project's directory, the command, its exit code), exit code 1; --no-bail goes on and sums up.
  for (const args of [['-r', 'exec', 'sh', '-c', 'exit 3'], ['-r', '--no-bail', 'exec', 'sh', '-c', 'exit 3']]) {
    const lines = async (bin: string, p: Project): Promise<{ code: number, tail: string }> => {
      const result = await run(process.execPath, [bin, ...args], { cwd: p.dir, env: { PATH: process.env['PATH'] ?? '', HOME: p.home } })
        .then(() => ({ code: 0, stdout: '', stderr: '' }), (err: { code: number, stdout: string, stderr: string }) => err)
      // pnpm prints its errors on stdout (after a stray "undefined" line), lode on stderr.
      const text = (result.stdout + result.stderr).split(p.dir).join('<ws>').replace(/ERR_(?:PNPM|LODE)_/g, 'ERR_').split('\n').filter((line) => line !== 'undefined').join('\n')
      const tail = text.slice(text.indexOf(args.includes('--no-bail') ? '[ERR_RECURSIVE_FAIL]' : '<ws>/packages'))
      // pnpm runs c and d (the first chunk) at once: which fails first, and so the order of the failures, varies.
      return { code: result.code, tail: tail.replace(/<ws>\/packages\/[cd]:/g, '<ws>/packages/<c or d>:') }
    }
    const expected = await lines(pnpmBin, project)
    const actual = await lines(lodeBin, lodeProject)
    assert.deepEqual(actual, expected, args.join(' '))
    assert.equal(actual.code, 1)
  }

  const env = { PATH: process.env['PATH'] ?? '', HOME: lodeProject.home }
  const failing = (args: string[]): Promise<{ code: number, stdout: string, stderr: string }> =>
    run(process.execPath, [lodeBin, ...args], { cwd: lodeProject.dir, env })
      .then(({ stdout, stderr }) => ({ code: 0, stdout, stderr }), (err: { code: number, stdout: string, stderr: string }) => err)
  const noMatch = await failing(['--filter', 'nope', '--fail-if-no-match', 'run', 'build'])
  assert.equal(noMatch.code, 1)
  assert.match(noMatch.stderr, /^\[ERR_LODE_FILTER_NO_MATCH\] No projects matched the filters "nope"/)
  const quiet = await failing(['--filter', 'nope', 'run', 'build'])
  assert.equal(quiet.code, 0)
  assert.match(quiet.stdout, /No projects matched the filters/)
  const noScript = await failing(['--filter', 'd', 'run', 'build'])
  assert.equal(noScript.code, 1)
  assert.match(noScript.stderr, /^\[ERR_LODE_RECURSIVE_RUN_NO_SCRIPT\] None of the selected packages has a "build" script/)
  const ifPresent = await failing(['--filter', 'd', 'run', '--if-present', 'build'])
  assert.equal(ifPresent.code, 0, ifPresent.stderr)
  assert.equal(ifPresent.stderr, '')
  const badFilter = await failing(['--filter', '...', 'run', 'build'])
  assert.equal(badFilter.code, 1)
  assert.match(badFilter.stderr, /^\[ERR_LODE_INVALID_FILTER\] The filter "..." selects nothing/)

  // install: -r and -w install the whole workspace (here: already up to date); --filter is in workspace.test.ts.
  const recursive = await lode(lodeProject, ['install', '-r'])
  assert.equal(recursive.code, 0)
  assert.match(recursive.stdout, /Already up to date/)
})

test('scripts, lode exec and the project\'s install scripts run the user\'s node from PATH, not the one running lode, as pnpm 11 does', async () => {
  // A `node` earlier on PATH than the one running both tools: what the scripts call is what the user would.
  const bin = fs.mkdtempSync(path.join(os.tmpdir(), 'lode-bin-'))
  fs.writeFileSync(path.join(bin, 'node'), '#!/bin/sh\necho "the user\'s node $*"\n', { mode: 0o755 })
  const env = { PATH: `${bin}${path.delimiter}${process.env['PATH'] ?? ''}` }
  const manifest = { name: 'which-node', version: '1.0.0', scripts: { 'which-node': 'node --version', postinstall: 'node --version > postinstall.txt' } }
  const pnpmProject = makeProject(registry, manifest)
  const lodeProject = cloneProject(pnpmProject)
  await pnpm(pnpmProject, ['install'], false, env)
  assert.equal((await lode(lodeProject, ['install'], env)).code, 0)
  const read = (project: Project): string => fs.readFileSync(path.join(project.dir, 'postinstall.txt'), 'utf8')
  assert.equal(read(lodeProject), read(pnpmProject))
  assert.equal(read(lodeProject), 'the user\'s node --version\n')
  for (const args of [['run', 'which-node'], ['exec', 'node', '--version']]) {
    const expected = await pnpm(pnpmProject, args, false, env)
    const actual = await lode(lodeProject, args, env)
    assert.equal(actual.code, 0, actual.stderr)
    assert.equal(actual.stdout, expected.stdout, args.join(' '))
    assert.match(actual.stdout, /the user's node --version/)
  }
})
