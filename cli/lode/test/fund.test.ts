import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'

import { TestRegistry } from '@lode/__utils__.test-fixtures'

import { lode, lodeExactly, makeProject } from './helpers.js'

// `lode fund`, pnpm 12's command (pnpm 11 has none): the outputs expected below are what pnpm 12.23.0
// printed for these packages, installed the same way (compared by hand: the test toolchain has pnpm 11 only).

let registry: TestRegistry
before(async () => {
  registry = await TestRegistry.start([
    { name: 'fund-b', version: '1.0.0', manifest: { funding: { type: 'github', url: 'https://github.com/sponsors/b' } } },
    { name: 'fund-a', version: '1.0.0', dependencies: { 'fund-b': '1.0.0' }, manifest: { funding: 'https://example.com/a' } },
    { name: 'fund-c', version: '2.0.0', manifest: { funding: ['https://example.com/c1', { type: 'patreon', url: 'https://patreon.com/c' }] } },
    { name: 'fund-d', version: '1.0.0', manifest: { funding: 'https://example.com/d' } },
    { name: 'fund-e', version: '1.0.0', manifest: { funding: 'https://example.com/a' } },
    { name: 'mid', version: '1.0.0', dependencies: { 'fund-d': '1.0.0' } },
    { name: 'no-fund', version: '1.0.0' },
  ])
})
after(async () => { await registry.close() })

test('fund: the funded packages as a tree from the project, a shared URL on one line, an unfunded package\'s funded dependencies in its place; JSON', async () => {
  const project = makeProject(registry, { name: 'app3', version: '1.0.0', dependencies: { mid: '1.0.0', 'fund-a': '1.0.0', 'fund-e': '1.0.0', 'no-fund': '1.0.0' } })
  assert.equal((await lode(project, ['install'])).code, 0)
  const tree = await lodeExactly(project, ['fund'])
  assert.equal(tree.code, 0, tree.stderr)
  assert.equal(tree.stdout, [
    'app3@1.0.0',
    '├─┬ https://example.com/a',
    '│ │ └── fund-a@1.0.0, fund-e@1.0.0',
    '│ └── https://github.com/sponsors/b',
    '│     └── fund-b@1.0.0',
    '└── https://example.com/d',
    '    └── fund-d@1.0.0',
    '',
  ].join('\n'))
  const json = JSON.parse((await lodeExactly(project, ['fund', '--json'])).stdout) as Record<string, unknown>
  assert.deepEqual(json, {
    length: 4,
    name: 'app3',
    version: '1.0.0',
    dependencies: {
      'fund-a': { version: '1.0.0', funding: { url: 'https://example.com/a' }, dependencies: { 'fund-b': { version: '1.0.0', funding: { type: 'github', url: 'https://github.com/sponsors/b' } } } },
      'fund-e': { version: '1.0.0', funding: { url: 'https://example.com/a' } },
      'fund-d': { version: '1.0.0', funding: { url: 'https://example.com/d' } },
    },
  })
  assert.deepEqual(Object.keys(json['dependencies'] as object), ['fund-a', 'fund-e', 'fund-d'])
})

test('fund <pkg>: one URL said, several listed to pick with --which; the project\'s own funding on top; a package without funding refused', async () => {
  const project = makeProject(registry, { name: 'app', version: '1.0.0', funding: 'https://example.com/app', devDependencies: { 'fund-c': '2.0.0' }, dependencies: { 'fund-a': '1.0.0' } })
  assert.equal((await lode(project, ['install'])).code, 0)
  assert.equal((await lodeExactly(project, ['fund'])).stdout, [
    'https://example.com/app',
    '│ └── app@1.0.0',
    '├─┬ https://example.com/a',
    '│ │ └── fund-a@1.0.0',
    '│ └── https://github.com/sponsors/b',
    '│     └── fund-b@1.0.0',
    '└── https://example.com/c1',
    '    └── fund-c@2.0.0',
    '',
  ].join('\n'))
  assert.equal((await lodeExactly(project, ['fund', 'fund-a'])).stdout, 'Funding available at the following URL:\nhttps://example.com/a\n')
  assert.equal((await lodeExactly(project, ['fund', 'fund-b'])).stdout, 'github funding available at the following URL:\nhttps://github.com/sponsors/b\n')
  const several = [
    '1: Funding available at the following URL: https://example.com/c1',
    '2: patreon funding available at the following URL: https://patreon.com/c',
    'Run `lode fund fund-c --which=1`, for example, to open the first funding URL listed in that package',
  ]
  assert.equal((await lodeExactly(project, ['fund', 'fund-c'])).stdout, `${several.join('\n')}\n`)
  assert.equal((await lodeExactly(project, ['fund', 'fund-c', '--which', '2'])).stdout, 'patreon funding available at the following URL:\nhttps://patreon.com/c\n')
  assert.equal((await lodeExactly(project, ['fund', 'fund-c', '--which=3'])).stdout, `--which=3 is not a valid index\n${several.join('\n')}\n`)
  for (const name of ['no-fund', 'absent']) {
    const refused = await lodeExactly(project, ['fund', name])
    assert.equal(refused.code, 1)
    assert.match(refused.stderr, new RegExp(`^\\[ERR_LODE_NO_FUNDING\\] No valid funding method available for: ${name}`))
  }
})
