import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'

import { TestRegistry } from '@lode/__utils__.test-fixtures'

import { cloneProject, lode, lodeExactly, makeProject, pnpm } from './helpers.js'

// Without a terminal (CI, a pipe) the install's progress is appended, a line about once a second,
// as pnpm's append-only reporter does: a CI log shows the install moving, not 13 silent seconds.

const CHAIN = 10
let registry: TestRegistry
before(async () => {
  // A chain: each package is resolved after the one before it, so resolving takes CHAIN × the delay.
  registry = await TestRegistry.start(Array.from({ length: CHAIN }, (_, i) => ({
    name: `link-${i}`,
    version: '1.0.0',
    dependencies: i + 1 < CHAIN ? { [`link-${i + 1}`]: '1.0.0' } : {},
  })))
})
after(async () => { await registry.close() })

const progressLines = (stdout: string): string[] => stdout.split('\n').filter((line) => line.startsWith('Progress: '))

test('without a TTY, progress is appended about once a second while resolving, as pnpm 11 appends it', async () => {
  registry.responseDelay = (url) => url.includes('/-/') ? 0 : 300
  try {
    const pnpmProject = makeProject(registry, { name: 'slow', version: '1.0.0', dependencies: { 'link-0': '1.0.0' } })
    const lodeProject = cloneProject(pnpmProject)
    const expected = progressLines((await pnpm(pnpmProject, ['install'])).stdout)
    const result = await lode(lodeProject, ['install'])
    assert.equal(result.code, 0, result.stderr)
    const actual = progressLines(result.stdout)
    for (const [tool, lines] of [['pnpm', expected], ['lode', actual]] as const) {
      // ~3 s of resolving: the first line at once, then one a second, then the final one; never a line per package.
      assert.ok(lines.length >= 3 && lines.length < CHAIN, `${tool} printed ${lines.length} progress lines:\n${lines.join('\n')}`)
      assert.equal(lines.at(-1), `Progress: resolved ${CHAIN}, reused 0, downloaded ${CHAIN}, added ${CHAIN}, done`, tool)
      for (const line of lines.slice(0, -1)) assert.match(line, /^Progress: resolved \d+, reused \d+, downloaded \d+, added \d+$/, tool)
    }
    const resolvedCounts = actual.map((line) => Number(/resolved (\d+)/.exec(line)![1]))
    assert.deepEqual(resolvedCounts, [...resolvedCounts].sort((a, b) => a - b), 'lode counts up')
    assert.ok(resolvedCounts[0]! < CHAIN, 'lode printed a line before resolving ended')
  } finally {
    registry.responseDelay = undefined
  }
})

test('--reporter silent prints no progress; the default reporter without a TTY appends a fast install\'s first and final lines only', async () => {
  const project = makeProject(registry, { name: 'fast', version: '1.0.0', dependencies: { 'link-8': '1.0.0' } })
  const silent = await lodeExactly(project, ['install', '--reporter', 'silent'])
  assert.equal(silent.code, 0, silent.stderr)
  assert.equal(silent.stdout, '')
  const again = makeProject(registry, { name: 'fast', version: '1.0.0', dependencies: { 'link-8': '1.0.0' } })
  const lines = progressLines((await lodeExactly(again, ['install'])).stdout)
  assert.ok(lines.length <= 3, lines.join('\n'))
  assert.equal(lines.at(-1), 'Progress: resolved 2, reused 0, downloaded 2, added 2, done')
})

test('--reporter ndjson prints every event of the install as one JSON object per line, for tools', async () => {
  const project = makeProject(registry, { name: 'tool-reads', version: '1.0.0', dependencies: { 'link-8': '1.0.0' } })
  const result = await lodeExactly(project, ['install', '--reporter', 'ndjson'])
  assert.equal(result.code, 0, result.stderr)
  const records = result.stdout.trimEnd().split('\n').map((line) => JSON.parse(line) as { type: string, time: number, [key: string]: unknown })
  assert.ok(records.every((record) => typeof record.type === 'string' && typeof record.time === 'number'))
  assert.deepEqual(records.find((record) => record.type === 'progress' && record['done'] === true), {
    type: 'progress', resolved: 2, reused: 0, downloaded: 2, added: 2, done: true, time: records.find((record) => record['done'] === true)!.time,
  })
  assert.ok(records.some((record) => record.type === 'packages' && record['added'] === 2))
  assert.ok(records.some((record) => record.type === 'summary'))
  assert.match(String(records.at(-1)!['message']), /^Done in /)
  const bad = await lodeExactly(project, ['install', '--reporter', 'json'])
  assert.equal(bad.code, 1)
  assert.match(bad.stderr, /Unknown reporter "json"[\s\S]*ndjson/)
})
