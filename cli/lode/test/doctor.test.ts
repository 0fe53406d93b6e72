import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'
import { after, before, test } from 'node:test'

import { TestRegistry } from '@lode/__utils__.test-fixtures'

import { lodeExactly, makeProject, pnpmExactly } from './helpers.js'

// `lode doctor` beside pnpm 11's: the checks both have, with the same verdicts, and the same exit code.

let registry: TestRegistry
before(async () => { registry = await TestRegistry.start([]) })
after(async () => { await registry.close() })

const verdicts = (output: string): Map<string, string> =>
  new Map([...output.matchAll(/^(✓|‼|✗) ([^:\n]+)/gm)].map((match) => [match[2]!, match[1]!]))

test('doctor: the checks pnpm 11 makes too pass alike, a real offline install among them; an unreachable registry fails both', async () => {
  const project = makeProject(registry, { name: 'app', version: '1.0.0' })
  // pnpm fails a cache directory that does not exist yet (lode makes it, as it would when it first needs it).
  fs.mkdirSync(path.join(project.home, '.cache', 'pnpm'), { recursive: true })
  registry.injectFaults('/-/ping', [{ status: 200, body: '{}' }, { status: 200, body: '{}' }])
  const pnpm = await pnpmExactly(project, ['doctor'])
  const lode = await lodeExactly(project, ['doctor'])
  assert.equal(lode.code, 0, lode.stdout + lode.stderr)
  assert.equal(lode.code, pnpm.code, pnpm.stdout)
  const ours = verdicts(lode.stdout)
  const theirs = verdicts(pnpm.stdout)
  for (const title of ['Versions', 'Cache directory', 'Filesystem', 'Registry connectivity', 'Install smoke test']) {
    assert.equal(ours.get(title), theirs.get(title), title)
    assert.equal(ours.get(title), '✓', title)
  }
  assert.match(lode.stdout, /^✓ Install smoke test: offline "file:" install linked its dependency$/m)
  assert.match(lode.stdout, /\n\nAll checks passed\n$/)

  const closed = await TestRegistry.start()
  const url = closed.url
  await closed.close()
  const down = { pnpm: await pnpmExactly(project, ['doctor', `--config.registry=${url}`]), lode: await lodeExactly(project, ['doctor', '--registry', url, '--json']) }
  assert.equal(down.pnpm.code, 1)
  assert.equal(down.lode.code, 1)
  assert.equal(verdicts(down.pnpm.stdout).get('Registry connectivity'), '✗')
  const checks = (JSON.parse(down.lode.stdout) as { checks: Array<{ title: string, status: string, detail: string }> }).checks
  const connectivity = checks.find((check) => check.title === 'Registry connectivity')!
  assert.equal(connectivity.status, 'fail')
  assert.match(connectivity.detail, /^could not reach http:\/\/127\.0\.0\.1:\d+\/: /)
  const offline = await lodeExactly(project, ['doctor', '--offline', '--registry', url])
  assert.equal(offline.code, 0, offline.stdout)
  assert.match(offline.stdout, /^✓ Registry connectivity: skipped \(--offline\)$/m)
})
