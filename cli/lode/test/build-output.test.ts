import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'
import { after, before, test } from 'node:test'

import { TestRegistry } from '@lode/__utils__.test-fixtures'

import { cloneProject, inTerminal, lode, lodeBin, lodeExactly, makeProject, pnpm, pnpmBin } from './helpers.js'
import type { Project } from './helpers.js'

// The lines a dependency's build prints in the install's output, as pnpm 11's append-only reporter prints them.

let registry: TestRegistry
before(async () => {
  registry = await TestRegistry.start([
    { name: 'base-build', version: '1.0.0', manifest: { scripts: { postinstall: 'node -e "console.log(\'base built\')"' } } },
    { name: 'builder', version: '1.0.0', manifest: { scripts: { postinstall: 'node -e "console.log(\'built\')"' } } },
    { name: 'other-builder', version: '1.0.0', manifest: { scripts: { install: 'node -e 1' } } },
    { name: 'plain', version: '1.0.0' },
    {
      name: 'slow-builder',
      version: '1.0.0',
      manifest: { scripts: { postinstall: 'node -e "console.log(\'first\'); console.error(\'warned\'); setTimeout(() => console.log(\'second\'), 1500)"' } },
    },
    // A build that reads its input: it ends, as the input is closed (as run-script closes it).
    { name: 'reads-stdin', version: '1.0.0', manifest: { scripts: { postinstall: 'cat' } } },
    {
      name: 'a-package-with-a-rather-long-name-to-shorten',
      version: '1.0.0',
      dependencies: { 'base-build': '1.0.0' },
      manifest: { scripts: { install: 'node -e "console.log(1); console.log(2)"', postinstall: 'node -e "process.exit(0)"' } },
    },
  ])
})
after(async () => { await registry.close() })

/** The build lines of an install's output: `<dir> <stage>$ <script>`, `<dir> <stage>: <line>`. */
/** A project with these dependencies and `strictDepBuilds: false`, installed by pnpm 11 and (a copy) by lode. */
async function installedPair (dependencies: Record<string, string>): Promise<{ pnpmProject: Project, lodeProject: Project }> {
  const pnpmProject = makeProject(registry, { name: 'ab', version: '1.0.0', dependencies }, { 'pnpm-workspace.yaml': 'strictDepBuilds: false\n' })
  const lodeProject = cloneProject(pnpmProject)
  await pnpm(pnpmProject, ['install'])
  assert.equal((await lode(lodeProject, ['install'])).code, 0)
  return { pnpmProject, lodeProject }
}

function workspaceYaml (project: Project): string {
  return fs.readFileSync(path.join(project.dir, 'pnpm-workspace.yaml'), 'utf8')
}

function buildLines (output: string): string[] {
  return output.split('\n').filter((line) => /^\S+ (preinstall|install|postinstall)(\$ |: )/.test(line))
}

test('an install prints each build script, its output and its end as pnpm 11 does (append-only)', async () => {
  const manifest = { name: 'b', version: '1.0.0', dependencies: { 'a-package-with-a-rather-long-name-to-shorten': '1.0.0' } }
  const files = { 'pnpm-workspace.yaml': 'allowBuilds:\n  base-build: true\n  a-package-with-a-rather-long-name-to-shorten: true\n' }
  const pnpmProject = makeProject(registry, manifest, files)
  const lodeProject = cloneProject(pnpmProject)
  const expected = buildLines((await pnpm(pnpmProject, ['install'])).stdout)
  const installed = await lode(lodeProject, ['install'])
  assert.equal(installed.code, 0, installed.stderr)
  assert.deepEqual(buildLines(installed.stdout), expected)
  assert.deepEqual(expected, [
    '.../node_modules/base-build postinstall$ node -e "console.log(\'base built\')"',
    '.../node_modules/base-build postinstall: base built',
    '.../node_modules/base-build postinstall: Done',
    '...ge-with-a-rather-long-name-to-shorten install$ node -e "console.log(1); console.log(2)"',
    '...ge-with-a-rather-long-name-to-shorten install: 1',
    '...ge-with-a-rather-long-name-to-shorten install: 2',
    '...ge-with-a-rather-long-name-to-shorten install: Done',
    '...ge-with-a-rather-long-name-to-shorten postinstall$ node -e "process.exit(0)"',
    '...ge-with-a-rather-long-name-to-shorten postinstall: Done',
  ])
})

test('a build\'s output lines come as the script prints them, not once it has ended', async () => {
  const project = makeProject(registry, { name: 's', version: '1.0.0', dependencies: { 'slow-builder': '1.0.0', 'reads-stdin': '1.0.0' } }, {
    'pnpm-workspace.yaml': 'allowBuilds:\n  slow-builder: true\n  reads-stdin: true\n',
  })
  const result = await lodeExactly(project, ['install', '--reporter', 'ndjson'])
  assert.equal(result.code, 0, result.stderr)
  const records = result.stdout.trimEnd().split('\n').map((line) => JSON.parse(line) as { type: string, time: number, line?: string, exitCode?: number, [key: string]: unknown })
  const lifecycle = records.filter((record) => record.type === 'lifecycle' && String(record['dir']).includes('slow-builder'))
  const at = (predicate: (record: typeof lifecycle[number]) => boolean): number => lifecycle.find(predicate)!.time
  assert.deepEqual(lifecycle.flatMap((record) => record.line === undefined ? [] : [record.line]), ['first', 'warned', 'second'])
  // The first lines were told a second and more before the script ended.
  assert.ok(at((record) => record.exitCode === 0) - at((record) => record.line === 'first') >= 1000, JSON.stringify(lifecycle))
  assert.ok(at((record) => record.line === 'second') - at((record) => record.line === 'warned') >= 1000, JSON.stringify(lifecycle))
})

test('lode approve-builds <names> and --all allow the builds left out and run them, as pnpm 11 does', async () => {
  const { pnpmProject, lodeProject } = await installedPair({ builder: '1.0.0', 'other-builder': '1.0.0', plain: '1.0.0' })
  for (const args of [['approve-builds', 'builder'], ['ignored-builds'], ['approve-builds', 'plain'], ['approve-builds', '--all'], ['ignored-builds'], ['approve-builds', '--all']]) {
    const expected = await pnpm(pnpmProject, args)
    const actual = await lode(lodeProject, args)
    assert.equal(actual.code, 0, actual.stderr)
    assert.equal(actual.stdout.replace('"lode rebuild"', '"pnpm rebuild"'), expected.stdout, `lode ${args.join(' ')}`)
    assert.equal(workspaceYaml(lodeProject), workspaceYaml(pnpmProject), `pnpm-workspace.yaml after ${args.join(' ')}`)
  }
  assert.equal(workspaceYaml(lodeProject), 'allowBuilds:\n  builder: true\n  other-builder: true\n  plain: true\nstrictDepBuilds: false\n')
  // Nothing awaits approval: said so, without asking.
  const nothing = await lode(lodeProject, ['approve-builds'])
  assert.equal(nothing.code, 0)
  assert.equal(nothing.stdout, (await pnpm(pnpmProject, ['approve-builds'])).stdout)
})

test('lode approve-builds !<name> denies, and refuses what pnpm 11 refuses', async () => {
  const { pnpmProject, lodeProject } = await installedPair({ builder: '1.0.0', 'other-builder': '1.0.0' })
  for (const args of [['approve-builds', '--all', 'builder'], ['approve-builds', '!'], ['approve-builds', 'builder', '!builder']]) {
    const expected = await pnpm(pnpmProject, args, true)
    const actual = await lode(lodeProject, args)
    assert.equal(actual.code, 1, args.join(' '))
    assert.equal(actual.stderr.split('\n')[0], expected.stdout.split('\n').find((line) => line.startsWith('[ERR_'))!.replace('ERR_PNPM_', 'ERR_LODE_'), args.join(' '))
    assert.equal(workspaceYaml(lodeProject), 'strictDepBuilds: false\n', 'nothing written')
  }
  for (const args of [['approve-builds', '!other-builder', 'builder'], ['ignored-builds'], ['approve-builds']]) {
    const expected = await pnpm(pnpmProject, args)
    const actual = await lode(lodeProject, args)
    assert.equal(actual.code, 0, actual.stderr)
    assert.equal(actual.stdout.replace('"lode rebuild"', '"pnpm rebuild"'), expected.stdout, args.join(' '))
    assert.equal(workspaceYaml(lodeProject), workspaceYaml(pnpmProject), args.join(' '))
  }
  assert.equal(workspaceYaml(lodeProject), 'allowBuilds:\n  builder: true\n  other-builder: false\nstrictDepBuilds: false\n')
})

test('lode approve-builds on a terminal asks as pnpm 11 does: the checked builds allowed and run, the others denied', async () => {
  const { pnpmProject, lodeProject } = await installedPair({ builder: '1.0.0', 'other-builder': '1.0.0' })
  // Check the first (builder), move down, enter; then approve.
  const steps: Array<[RegExp, string]> = [
    [/Choose which packages to build/, ' '], [/● builder/, '\x1b[B'], [/❯○ other-builder|❯ ○ other-builder/, '\r'], [/Do you approve\?/, 'y\r'],
  ]
  await inTerminal(pnpmBin, ['approve-builds'], pnpmProject, steps)
  const output = await inTerminal(lodeBin, ['approve-builds'], lodeProject, steps)
  assert.equal(workspaceYaml(lodeProject), workspaceYaml(pnpmProject))
  assert.equal(workspaceYaml(lodeProject), 'allowBuilds:\n  builder: true\n  other-builder: false\nstrictDepBuilds: false\n')
  assert.match(output, /builder postinstall: built/)
  // Decided: nothing awaits approval any more.
  assert.equal((await lode(lodeProject, ['approve-builds'])).stdout, (await pnpm(pnpmProject, ['approve-builds'])).stdout)
  // Without a terminal, lode names the builds to approve instead of asking.
  const undecided = cloneProject(pnpmProject)
  fs.writeFileSync(path.join(undecided.dir, 'pnpm-workspace.yaml'), 'strictDepBuilds: false\n')
  fs.rmSync(path.join(undecided.dir, 'node_modules'), { recursive: true, force: true })
  assert.equal((await lode(undecided, ['install'])).code, 0)
  const noTerminalIgnored = (await lode(undecided, ['ignored-builds'])).stdout
  const noTerminal = await lode(undecided, ['approve-builds'])
  assert.equal(noTerminal.code, 1)
  assert.match(noTerminal.stderr, /^\[ERR_LODE_APPROVE_BUILDS_NEEDS_NAMES\] .*Awaiting approval: builder, other-builder\./)
  // Ctrl-C at either question: nothing decided, nothing built.
  for (const steps of [[[/Choose which packages to build/, '\x03']], [[/Choose which packages to build/, ' '], [/● builder/, '\r'], [/Do you approve\?/, '\x03']]] as Array<Array<[RegExp, string]>>) {
    const interrupted = await inTerminal(lodeBin, ['approve-builds'], undecided, steps)
    assert.doesNotMatch(interrupted, /postinstall|ERR_|\n\s+at /, 'no build, no error, no stack')
    assert.equal(fs.readFileSync(path.join(undecided.dir, 'pnpm-workspace.yaml'), 'utf8'), 'strictDepBuilds: false\n')
    assert.equal((await lode(undecided, ['ignored-builds'])).stdout, noTerminalIgnored)
  }
})
