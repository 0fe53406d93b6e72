import assert from 'node:assert/strict'
import { createHash } from 'node:crypto'
import { after, before, test } from 'node:test'

import { TestRegistry } from '@lode/__utils__.test-fixtures'

import { failure, lode, lodeExactly, makeProject, pnpmExactly } from './helpers.js'
import type { Project, RunResult } from './helpers.js'

// `lode cat-file`, `lode cat-index` and `lode find-hash` beside pnpm 11's, over one store both read
// (lode installed into it): the same output and the same refusals.

let registry: TestRegistry
let project: Project
const text = 'no newline at the end'
const script = '#!/usr/bin/env node\nconsole.log("hi")\n'

before(async () => {
  registry = await TestRegistry.start([
    { name: 'inspected', version: '1.2.3', bin: { inspected: 'cli.js' }, files: { 'cli.js': { content: script, mode: 0o755 }, 'note.txt': text } },
    { name: 'inspected', version: '2.0.0' },
    { name: '@scope/other', version: '0.1.0', files: { 'note.txt': text } },
  ])
  project = makeProject(registry, { name: 'app', version: '1.0.0', dependencies: { inspected: '1.2.3', '@scope/other': '0.1.0' } })
  const installed = await lode(project, ['install'])
  assert.equal(installed.code, 0, installed.stderr)
})
after(async () => { await registry.close() })

async function both (args: string[]): Promise<{ pnpm: RunResult, lode: RunResult }> {
  return { pnpm: await pnpmExactly(project, args), lode: await lodeExactly(project, args) }
}

const sha512 = (content: string): Buffer => createHash('sha512').update(content).digest()

test('cat-index prints the package\'s index row as pnpm 11 prints it; an unknown version and no name refused alike', async () => {
  const run = await both(['cat-index', 'inspected@1.2.3'])
  assert.equal(run.pnpm.code, 0, run.pnpm.stdout + run.pnpm.stderr)
  assert.equal(run.lode.code, 0, run.lode.stderr)
  assert.equal(run.lode.stdout, run.pnpm.stdout)
  const row = JSON.parse(run.lode.stdout) as { files: Record<string, { digest: string, mode: number }>, manifest: { bin: unknown } }
  assert.deepEqual(Object.keys(row.files), ['cli.js', 'index.js', 'note.txt', 'package.json'])
  assert.equal(row.files['note.txt']!.digest, sha512(text).toString('hex'))
  assert.equal(row.files['cli.js']!.mode, 0o755)
  assert.deepEqual(row.manifest.bin, { inspected: 'cli.js' })
  const scoped = await both(['cat-index', '@scope/other@0.1.0'])
  assert.equal(scoped.lode.stdout, scoped.pnpm.stdout)
  for (const args of [['cat-index', 'inspected@2.0.0'], ['cat-index']]) {
    const refused = await both(args)
    assert.notEqual(refused.pnpm.code, 0, args.join(' '))
    assert.equal(refused.lode.code, 1, args.join(' '))
    assert.equal(failure(refused.lode), failure(refused.pnpm), args.join(' '))
  }
  // lode reads the store alone: a version the registry lacks is not in the store either (pnpm asks the registry first).
  const unpublished = await lodeExactly(project, ['cat-index', 'inspected@9.9.9'])
  assert.match(unpublished.stderr, /^\[ERR_LODE_INVALID_PACKAGE\] /)
})

test('cat-file prints a store file by its integrity as pnpm 11 does; by its hex digest, and an executable\'s, as pnpm does not', async () => {
  const integrity = `sha512-${sha512(text).toString('base64')}`
  const run = await both(['cat-file', integrity])
  assert.equal(run.pnpm.code, 0, run.pnpm.stdout + run.pnpm.stderr)
  assert.equal(run.lode.code, 0, run.lode.stderr)
  // pnpm ends the text with a newline of its own; lode prints the file's bytes.
  assert.equal(run.pnpm.stdout, `${text}\n`)
  assert.equal(run.lode.stdout, text)
  assert.equal((await lodeExactly(project, ['cat-file', sha512(text).toString('hex')])).stdout, text)
  assert.equal((await lodeExactly(project, ['cat-file', `sha512-${sha512(script).toString('base64')}`])).stdout, script)
  const unknown = await both(['cat-file', `sha512-${sha512('not in the store').toString('base64')}`])
  assert.equal(unknown.lode.code, 1)
  assert.equal(failure(unknown.lode), failure(unknown.pnpm))
  const missing = await both(['cat-file'])
  assert.equal(missing.lode.code, 1)
  assert.equal(failure(missing.lode), failure(missing.pnpm))
  assert.equal((await lodeExactly(project, ['find-hash'])).stderr.split('\n')[0], '[ERR_LODE_MISSING_HASH] `lode find-hash` requires the hash')
  // A hash that is none (pnpm throws a TypeError) is a coded error, and names no path.
  for (const bad of ['../../etc/passwd', 'sha512-', 'abc']) {
    const refused = await lodeExactly(project, ['cat-file', bad])
    assert.equal(refused.code, 1, bad)
    assert.match(refused.stderr, /^\[ERR_LODE_INVALID_HASH\] /, bad)
  }
})

test('find-hash lists every package with the file as pnpm 11 does; a hash no package has refused alike', async () => {
  const shared = sha512(text)
  for (const hash of [`sha512-${shared.toString('base64')}`, shared.toString('hex')]) {
    const run = await both(['find-hash', hash])
    assert.equal(run.pnpm.code, 0, run.pnpm.stdout + run.pnpm.stderr)
    assert.equal(run.lode.code, 0, run.lode.stderr)
    assert.equal(run.lode.stdout, run.pnpm.stdout)
    assert.deepEqual(run.lode.stdout.trimEnd().split('\n').map((line) => line.split('  ')[0]).sort(), ['@scope/other@0.1.0', 'inspected@1.2.3'])
  }
  const none = await both(['find-hash', sha512('nowhere').toString('hex')])
  assert.equal(none.lode.code, 1)
  assert.equal(failure(none.lode), failure(none.pnpm))
})
