import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'
import { after, before, test } from 'node:test'

import { TestRegistry } from '@lode/__utils__.test-fixtures'

import { cloneProject, lode, makeProject, pnpm } from './helpers.js'

// The lines a dependency's build prints in the install's output, as pnpm 11's append-only reporter prints them.

let registry: TestRegistry
before(async () => {
  registry = await TestRegistry.start([
    { name: 'base-build', version: '1.0.0', manifest: { scripts: { postinstall: 'node -e "console.log(\'base built\')"' } } },
    { name: 'builder', version: '1.0.0', manifest: { scripts: { postinstall: 'node -e "console.log(\'built\')"' } } },
    { name: 'other-builder', version: '1.0.0', manifest: { scripts: { install: 'node -e 1' } } },
    { name: 'plain', version: '1.0.0' },
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

test('lode approve-builds <names> and --all allow the builds left out and run them, as pnpm 11 does', async () => {
  const manifest = { name: 'ab', version: '1.0.0', dependencies: { builder: '1.0.0', 'other-builder': '1.0.0', plain: '1.0.0' } }
  const pnpmProject = makeProject(registry, manifest, { 'pnpm-workspace.yaml': 'strictDepBuilds: false\n' })
  const lodeProject = cloneProject(pnpmProject)
  await pnpm(pnpmProject, ['install'])
  assert.equal((await lode(lodeProject, ['install'])).code, 0)
  const workspaceYaml = (project: typeof lodeProject): string => fs.readFileSync(path.join(project.dir, 'pnpm-workspace.yaml'), 'utf8')
  for (const args of [['approve-builds', 'builder'], ['ignored-builds'], ['approve-builds', 'plain'], ['approve-builds', '--all'], ['ignored-builds'], ['approve-builds', '--all']]) {
    const expected = await pnpm(pnpmProject, args)
    const actual = await lode(lodeProject, args)
    assert.equal(actual.code, 0, actual.stderr)
    assert.equal(actual.stdout.replace('"lode rebuild"', '"pnpm rebuild"'), expected.stdout, `lode ${args.join(' ')}`)
    assert.equal(workspaceYaml(lodeProject), workspaceYaml(pnpmProject), `pnpm-workspace.yaml after ${args.join(' ')}`)
  }
  assert.equal(workspaceYaml(lodeProject), 'allowBuilds:\n  builder: true\n  other-builder: true\n  plain: true\nstrictDepBuilds: false\n')
  const noNames = await lode(lodeProject, ['approve-builds'])
  assert.equal(noNames.code, 1)
  assert.match(noNames.stderr, /^\[ERR_LODE_APPROVE_BUILDS_NEEDS_NAMES\] /)
})
