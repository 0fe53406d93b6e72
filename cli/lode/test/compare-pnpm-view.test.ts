import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'

import { TestRegistry } from '@lode/__utils__.test-fixtures'

import { cloneProject, failure, lodeExactly, makeProject, pnpmExactly } from './helpers.js'
import type { Project, RunResult } from './helpers.js'

// `lode view` (`info`, `show`, `v`) beside pnpm 11's, against the test registry's full documents:
// the same text (pnpm prints no colors without a terminal), fields, JSON and refusals.

let registry: TestRegistry
before(async () => {
  registry = await TestRegistry.start([
    { name: 'dep', version: '1.0.0' },
    { name: 'tool', version: '1.0.0', publishedAt: '2023-03-01T00:00:00.000Z' },
    {
      name: 'tool',
      version: '1.4.2',
      dependencies: { dep: '^1.0.0' },
      bin: { tool: 'cli.js', 'tool-admin': 'admin.js' },
      publishedAt: '2024-06-01T00:00:00.000Z',
      npmUser: { name: 'alice', email: 'alice@example.test' },
      manifest: {
        description: 'A tool for tests', license: 'MIT', homepage: 'https://tool.example.test', keywords: ['cli', 'test'],
        author: { name: 'Alice', email: 'alice@example.test' }, maintainers: [{ name: 'alice', email: 'alice@example.test' }, { name: 'bob' }],
      },
    },
    { name: 'tool', version: '2.0.0-beta.1', publishedAt: '2024-07-01T00:00:00.000Z', manifest: { description: 'The next one' } },
    { name: '@scope/old', version: '0.1.0', deprecated: 'use tool instead', bin: { old: 'bin.js' }, manifest: { license: 'ISC' } },
  ])
  registry.setDistTag('tool', 'next', '2.0.0-beta.1')
})
after(async () => { await registry.close() })

async function both (project: Project, args: string[]): Promise<{ pnpm: RunResult, lode: RunResult }> {
  return { pnpm: await pnpmExactly(project, args), lode: await lodeExactly(cloneProject(project), args) }
}

test('view prints the summary, the fields asked for and JSON as pnpm 11 does', async () => {
  const project = makeProject(registry, { name: 'tool', version: '0.0.0' })
  const cases = [
    ['view', 'tool'], ['info', 'tool@^1.0.0'], ['show', 'tool@next'], ['v', 'tool@1.0.0'], ['view', '@scope/old'],
    ['view', 'tool', 'version'], ['view', 'tool', 'versions'], ['view', 'tool', 'dist-tags'], ['view', 'tool', 'dist.tarball', 'license', 'bin', 'nothing.here'],
    ['view', 'tool', '--json'], ['view', 'tool', 'version', '--json'], ['view', 'tool', 'version', 'dependencies', '--json'],
    ['view'], ['view', 'alias@npm:tool@1.0.0', 'version'],
  ]
  for (const args of cases) {
    const run = await both(project, args)
    assert.equal(run.pnpm.code, 0, `${args.join(' ')}: ${run.pnpm.stdout}${run.pnpm.stderr}`)
    assert.equal(run.lode.code, 0, `${args.join(' ')}: ${run.lode.stderr}`)
    assert.equal(run.lode.stdout, run.pnpm.stdout, args.join(' '))
  }
})

test('view refuses as pnpm 11 does: no such version, a name that is not a registry package\'s', async () => {
  const project = makeProject(registry, { name: 'tool', version: '0.0.0' })
  for (const args of [['view', 'tool@^3.0.0'], ['view', 'tool@nope'], ['view', 'Not A Name'], ['view', 'tool@file:../x']]) {
    const run = await both(project, args)
    assert.notEqual(run.pnpm.code, 0, args.join(' '))
    assert.equal(run.lode.code, 1, args.join(' '))
    assert.equal(failure(run.lode), failure(run.pnpm), args.join(' '))
  }
})
