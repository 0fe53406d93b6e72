import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'
import { after, before, test } from 'node:test'

import { TestRegistry } from '@lode/__utils__.test-fixtures'

import { cloneProject, lode, lodeExactly, makeProject, pnpm, pnpmExactly, snapshot } from './helpers.js'
import type { Project, RunResult } from './helpers.js'

// `lode -r run` beside `pnpm -r run`: the order, the concurrency, what is printed (the terminal
// shared, or lines prefixed with the project), and a failure's account, for each of pnpm's flags.

let registry: TestRegistry
before(async () => { registry = await TestRegistry.start([]) })
after(async () => { await registry.close() })

const print = (...lines: string[]): string => `node -e "${lines.map((line) => `console.log('${line}')`).join(';')}"`

/** A chain (core ← app ← cli, each through workspace:), a project without the script, and the root's own. */
function workspace (scripts: Record<string, Record<string, string>> = {}): Project {
  const project = (name: string, dependencies: Record<string, string>, own: Record<string, string>): string => JSON.stringify({
    name, version: '1.0.0', dependencies, scripts: { ...own, ...scripts[name] },
  })
  return makeProject(registry, { name: 'root', version: '1.0.0', scripts: { greet: 'echo root-greet' } }, {
    'pnpm-workspace.yaml': 'packages:\n  - packages/*\n',
    'packages/core/package.json': project('core', {}, { prebuild: print('core pre'), build: print('core one', 'core two'), greet: 'echo core-greet' }),
    'packages/app/package.json': project('app', { core: 'workspace:*' }, { build: `${print('app out')} && node -e "console.error('app err')"` }),
    'packages/cli/package.json': project('cli', { app: 'workspace:*' }, { build: print('cli out'), postbuild: print('cli post') }),
    'packages/docs/package.json': project('docs', {}, { lint: 'echo lint' }),
  })
}

/** Both tools installed (so that pnpm's check of the dependencies before running stays quiet). */
async function installedPair (scripts?: Record<string, Record<string, string>>): Promise<{ pnpmProject: Project, lodeProject: Project }> {
  const pnpmProject = workspace(scripts)
  const lodeProject = cloneProject(pnpmProject)
  await pnpm(pnpmProject, ['install'])
  assert.equal((await lode(lodeProject, ['install'])).code, 0)
  return { pnpmProject, lodeProject }
}

/** pnpm prints a failure's account on stdout, lode on stderr: what is printed apart from it must match, and the account too. */
function splitFailure (result: RunResult): { output: string, failure: string } {
  const at = result.stdout.search(/^(\/.*:\n)?\[ERR_PNPM_/m)
  return at === -1 ? { output: result.stdout, failure: '' } : { output: result.stdout.slice(0, at), failure: result.stdout.slice(at) }
}

async function compareRun (pair: { pnpmProject: Project, lodeProject: Project }, args: string[], label: string): Promise<RunResult> {
  const expected = await pnpmExactly(pair.pnpmProject, args)
  const actual = await lodeExactly(pair.lodeProject, args)
  const normalize = (text: string, project: Project): string => text.replaceAll(project.dir, '<ws>').replaceAll('ERR_PNPM_', 'ERR_LODE_')
  const { output, failure } = splitFailure(expected)
  assert.equal(actual.code, expected.code, `${label}: exit code\n${actual.stdout}\n${actual.stderr}`)
  assert.equal(normalize(actual.stdout, pair.lodeProject), normalize(output, pair.pnpmProject), `${label}: stdout`)
  // pnpm's stderr is the scripts' own (and its `$ <command>` lines); lode's has the failure's account after them.
  assert.equal(normalize(actual.stderr, pair.lodeProject), normalize(`${expected.stderr}${failure}`, pair.pnpmProject), `${label}: stderr`)
  return actual
}

test('lode -r run in a chain of projects: one at a time they share the terminal (`$ command` on stderr); --stream, --reverse, --resume-from, as pnpm 11', async () => {
  const pair = await installedPair()
  const serial = await compareRun(pair, ['-r', 'run', 'build'], '-r run build')
  assert.match(serial.stdout, /core one\ncore two\napp out\ncli out\ncli post\n$/)
  await compareRun(pair, ['-r', 'run', 'build', 'x', 'y z'], 'arguments go to the script, quoted in its echo')
  await compareRun(pair, ['--stream', '-r', 'run', 'build'], '--stream')
  await compareRun(pair, ['-r', '--reverse', '--stream', 'run', 'build'], '--reverse')
  await compareRun(pair, ['-r', '--resume-from=app', 'run', 'build'], '--resume-from')
  await compareRun(pair, ['--filter', 'root', '--filter', 'core', '--workspace-concurrency=1', 'run', 'greet'], 'the root selected by --filter')
  await compareRun(pair, ['-r', 'run', 'lint'], 'one project has it')
  await compareRun(pair, ['run', 'greet', 'a', 'b c'], 'lode run in one project echoes the command')
  await compareRun(pair, ['-r', '--resume-from=nope', 'run', 'build'], '--resume-from an unknown project')
  await compareRun(pair, ['-r', 'run', 'nothing'], 'no project has the script')
  await compareRun(pair, ['-r', '--if-present', 'run', 'nothing'], '--if-present')
  // `recursive <command>` (`multi`, `m`) is `-r <command>`; alone, its help and a failure.
  await compareRun(pair, ['recursive', 'run', 'build'], 'recursive run build')
  await compareRun(pair, ['--stream', 'm', 'run', 'build'], 'm run build')
  await compareRun(pair, ['multi', '--filter', 'app...', 'run', 'build'], 'multi --filter run build')
  const alone = { pnpm: await pnpmExactly(pair.pnpmProject, ['recursive']), lode: await lodeExactly(pair.lodeProject, ['recursive']) }
  assert.equal(alone.pnpm.code, 1)
  assert.equal(alone.lode.code, 1)
  assert.match(alone.lode.stdout, /^Usage: lode recursive <command>/)
})

test('lode -r run with projects that can run together: output prefixed per project; --aggregate-output keeps a script\'s lines together; --parallel', async () => {
  // core and docs depend on nothing: they run side by side (docs finishes first, core after 600 ms).
  const pair = await installedPair({
    docs: { build: print('docs done') },
    core: { prebuild: 'true', build: `node -e "console.log('core start'); setTimeout(() => console.log('core end'), 600)"` },
    app: { build: 'true' },
    cli: { build: 'true', postbuild: 'true' },
  })
  const together = await compareRun(pair, ['-r', '--workspace-concurrency=2', '--aggregate-output', 'run', 'build'], '--aggregate-output')
  assert.match(together.stdout, /packages\/core build: core start\npackages\/core build: core end\npackages\/core build: Done\n/)
  const sequential = await compareRun(pair, ['-r', '--workspace-concurrency=1', 'run', 'build'], 'one at a time: the terminal shared')
  assert.doesNotMatch(sequential.stdout, /packages\/core build/)
  const parallel = await lodeExactly(pair.lodeProject, ['-r', '--parallel', 'run', 'build'])
  assert.equal(parallel.code, 0, parallel.stderr)
  for (const line of ['packages/core build: core end', 'packages/docs build: docs done', 'packages/cli postbuild: Done']) assert.ok(parallel.stdout.includes(`${line}\n`), line)
  // Started together: docs ended while core was still running.
  assert.ok(parallel.stdout.indexOf('docs build: Done') < parallel.stdout.indexOf('core build: core end'), parallel.stdout)
})

test('a failing script: the first failure stops the run with its exit code; --no-bail runs the rest and sums up, as pnpm 11', async () => {
  const pair = await installedPair({ app: { build: 'node -e "console.log(\'app out\'); process.exit(3)"' } })
  const failed = await compareRun(pair, ['-r', 'run', 'build'], 'bail')
  assert.equal(failed.code, 3)
  assert.doesNotMatch(failed.stdout, /cli out/, 'nothing after the failure ran')
  await compareRun(pair, ['--stream', '-r', 'run', 'build'], 'bail, streamed')
  const summed = await compareRun(pair, ['-r', '--no-bail', 'run', 'build'], '--no-bail')
  assert.match(summed.stderr, /Summary: 1 fails, 1 passes/, "cli, after app, is skipped")
  // A failure stops the scripts still running, and what they started: a watcher does not keep lode waiting.
  const watching = await installedPair({
    docs: { build: 'node -e "setTimeout(() => {}, 60000)" && echo finished' },
    core: { prebuild: 'true', build: 'node -e "setTimeout(() => process.exit(2), 500)"' },
  })
  const started = Date.now()
  const stopped = await lodeExactly(watching.lodeProject, ['-r', '--parallel', 'run', 'build'])
  assert.equal(stopped.code, 2, stopped.stdout)
  assert.ok(Date.now() - started < 30_000, 'the watcher was stopped with its group')
  assert.doesNotMatch(stopped.stdout, /docs build: finished/)
  // --resume-from a project without the script resumes at its turn.
  const resumed = await lodeExactly(pair.lodeProject, ['-r', '--resume-from=docs', '--workspace-concurrency=1', 'run', 'build'])
  assert.match(resumed.stderr, /^\$ node -e "console\.log\('core pre'\)"/, 'docs depends on nothing: from the first turn')
  const noValue = await lodeExactly(pair.lodeProject, ['-r', 'run', '--resume-from'])
  assert.equal(noValue.code, 1)
  assert.match(noValue.stderr, /^\[ERR_LODE_BAD_ARGUMENTS\] --resume-from needs a value\./)
  const bad = await lodeExactly(pair.lodeProject, ['-r', '--workspace-concurrency=two', 'run', 'build'])
  assert.equal(bad.code, 1)
  assert.match(bad.stderr, /ERR_LODE_BAD_ARGUMENTS.*--workspace-concurrency takes a whole number, not "two"/)
})

test('-r outside a workspace takes every project under the directory, the root too; the Scope line as pnpm 11 prints it', async () => {
  // pnpm's "Scope:" line: none for one project, "all N" when every project is selected.
  const pair = await installedPair()
  await compareRun(pair, ['--filter', 'core', 'run', 'greet'], 'one project selected: no Scope line')
  await compareRun(pair, ['--filter', '*', '--workspace-concurrency=1', 'run', 'greet'], 'every project selected: "Scope: all"')

  // No pnpm-workspace.yaml: the directory's projects (node_modules left out), the root among them, as pnpm's default patterns `.` and `**`.
  const script = (name: string): string => JSON.stringify({ name, version: '1.0.0', scripts: { where: `echo ${name}` } })
  const pnpmProject = makeProject(registry, { name: 'top', version: '1.0.0', scripts: { where: 'echo top' } }, {
    'sub/package.json': script('sub'),
    'sub/deep/package.json': script('deep'),
    'node_modules/hidden/package.json': script('hidden'),
  })
  const lone = { pnpmProject, lodeProject: cloneProject(pnpmProject) }
  await compareRun(lone, ['-r', '--workspace-concurrency=1', 'run', 'where'], '-r run outside a workspace')
  // pnpm's -r exec runs a chunk's projects at once: the same lines, in any order.
  const execArgs = ['-r', 'exec', 'node', '-e', 'console.log(require("./package.json").name)']
  const execLines = (result: RunResult): string[] => result.stdout.split('\n').filter((line) => line !== '').sort()
  const execed = await lodeExactly(lone.lodeProject, execArgs)
  assert.equal(execed.code, 0, execed.stderr)
  assert.deepEqual(execLines(execed), execLines(await pnpmExactly(lone.pnpmProject, execArgs)))
  assert.deepEqual(execLines(execed), ['deep', 'sub', 'top'])
  await compareRun(lone, ['--filter', 'sub...', 'exec', 'pwd'], '--filter outside a workspace')
  // So does -r publish (dry run): the same lines, in any order.
  const publishArgs = ['-r', 'publish', '--dry-run', '--no-git-checks']
  const published = await lodeExactly(lone.lodeProject, publishArgs)
  assert.equal(published.code, 0, published.stderr)
  assert.deepEqual(execLines(published), execLines(await pnpmExactly(lone.pnpmProject, publishArgs)))
  assert.equal(execLines(published).filter((line) => line.startsWith('📦')).length, 3)

  // No project at all under the directory.
  const none = makeProject(registry, { name: 'unused' })
  fs.rmSync(path.join(none.dir, 'package.json'))
  const empty = { pnpmProject: none, lodeProject: cloneProject(none) }
  await compareRun(empty, ['-r', 'run', 'where'], 'no project under the directory')
  await compareRun(empty, ['-r', '--fail-if-no-match', 'run', 'where'], 'no project, --fail-if-no-match')

  // add/remove/update with -r would need a lockfile per project there (pnpm installs each on its own): refused, nothing written.
  const before = snapshot(lone.lodeProject.dir)
  const refused = await lode(lone.lodeProject, ['add', '-r', 'anything'])
  assert.equal(refused.code, 1)
  assert.match(refused.stderr, /^\[ERR_LODE_NOT_A_WORKSPACE\] lode add with -r or --filter needs a workspace, and there is no pnpm-workspace\.yaml in /)
  assert.deepEqual([...snapshot(lone.lodeProject.dir)], [...before])
})
