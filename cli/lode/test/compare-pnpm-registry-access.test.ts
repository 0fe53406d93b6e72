import assert from 'node:assert/strict'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { after, before, test } from 'node:test'

import { Verdaccio } from '@lode/__utils__.test-fixtures/verdaccio'

import { lodeExactly, pnpmExactly } from './helpers.js'
import type { Project, RunResult } from './helpers.js'

// `lode whoami` and `lode dist-tag` beside pnpm 11's, against a real registry (verdaccio on 127.0.0.1)
// that takes the changes: the same output, exit codes and tags left on the registry.

let registry: Verdaccio
before(async () => { registry = await Verdaccio.start() })
after(async () => { await registry.close() })

/** An empty project whose home's .npmrc points at the registry, with its token or without. */
function project (withToken = true): Project {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'lode-registry-access-'))
  const dir = path.join(root, 'project')
  const home = path.join(root, 'home')
  fs.mkdirSync(dir, { recursive: true })
  fs.mkdirSync(home, { recursive: true })
  fs.writeFileSync(path.join(dir, 'package.json'), '{"name":"consumer","version":"1.0.0"}\n')
  fs.writeFileSync(path.join(home, '.npmrc'), withToken ? registry.npmrc() : `registry=${registry.url}\n`)
  return { dir, home }
}

async function both (p: Project, args: string[]): Promise<{ pnpm: RunResult, lode: RunResult }> {
  return { pnpm: await pnpmExactly(p, args), lode: await lodeExactly(p, args) }
}

function failure (result: RunResult): string {
  const match = /ERR_(?:PNPM|LODE)_([A-Z_]+)\]?\s+(.*)/.exec(`${result.stdout}\n${result.stderr}`)
  return match === null ? `no error in: ${result.stdout}${result.stderr}` : `${match[1]!} ${match[2]!.trim()}`
}

async function publishVersions (name: string, versions: string[]): Promise<void> {
  for (const version of versions) {
    const p = project()
    fs.writeFileSync(path.join(p.dir, 'package.json'), JSON.stringify({ name, version }))
    fs.writeFileSync(path.join(p.dir, 'index.js'), 'module.exports = 1\n')
    const published = await lodeExactly(p, ['publish', '--no-git-checks', ...version.includes('-') ? ['--tag', 'next'] : []])
    assert.equal(published.code, 0, published.stderr)
  }
}

test('whoami prints the registry\'s name for the token, as pnpm 11; without a token both refuse', async () => {
  const run = await both(project(), ['whoami'])
  assert.equal(run.pnpm.code, 0, run.pnpm.stdout + run.pnpm.stderr)
  assert.equal(run.lode.code, 0, run.lode.stderr)
  assert.equal(run.lode.stdout, run.pnpm.stdout)
  assert.equal(run.lode.stdout, 'lode\n')
  const anonymous = await both(project(false), ['whoami'])
  assert.notEqual(anonymous.pnpm.code, 0)
  assert.equal(anonymous.lode.code, 1)
  assert.equal(failure(anonymous.lode), failure(anonymous.pnpm))
})

test('dist-tag add and ls as pnpm 11: the same lines, the same tags on the registry; refusals alike', async () => {
  await publishVersions('@demo/tagged', ['1.0.0', '1.1.0', '2.0.0-rc.0'])
  const p = project()
  const listed = await both(p, ['dist-tag', 'ls', '@demo/tagged'])
  assert.equal(listed.lode.code, 0, listed.lode.stderr)
  assert.equal(listed.lode.stdout, listed.pnpm.stdout)
  assert.equal(listed.lode.stdout, 'latest: 1.1.0\nnext: 2.0.0-rc.0\n')
  const byPnpm = await pnpmExactly(p, ['dist-tag', 'add', '@demo/tagged@1.0.0', 'stable'])
  const byLode = await lodeExactly(p, ['dist-tags', 'add', '@demo/tagged@1.0.0', 'legacy'])
  assert.equal(byPnpm.code, 0, byPnpm.stdout + byPnpm.stderr)
  assert.equal(byLode.code, 0, byLode.stderr)
  assert.equal(byPnpm.stdout, '+stable: @demo/tagged@1.0.0\n')
  assert.equal(byLode.stdout, '+legacy: @demo/tagged@1.0.0\n')
  const after = await both(p, ['dist-tag', '@demo/tagged'])
  assert.equal(after.lode.stdout, after.pnpm.stdout)
  assert.equal(after.lode.stdout, 'latest: 1.1.0\nlegacy: 1.0.0\nnext: 2.0.0-rc.0\nstable: 1.0.0\n')
  for (const args of [['dist-tag', 'ls', '@demo/missing'], ['dist-tag', 'add', '@demo/tagged@^1.0.0'], ['dist-tag', 'add', '@demo/tagged'], ['dist-tag', 'ls']]) {
    const run = await both(p, args)
    assert.notEqual(run.pnpm.code, 0, args.join(' '))
    assert.equal(run.lode.code, 1, args.join(' '))
    assert.equal(failure(run.lode), failure(run.pnpm), args.join(' '))
  }
  // Without a token the registry refuses the change: both say to log in, and the tag is not set.
  const anonymous = await both(project(false), ['dist-tag', 'add', '@demo/tagged@1.1.0', 'anon'])
  assert.equal(anonymous.lode.code, 1)
  assert.match(failure(anonymous.lode), /^UNAUTHORIZED You must be logged in to set dist-tag "anon" on packages\./)
  assert.match(failure(anonymous.pnpm), /^UNAUTHORIZED You must be logged in to set dist-tag "anon" on packages\./)
  assert.doesNotMatch((await lodeExactly(p, ['dist-tag', 'ls', '@demo/tagged'])).stdout, /anon/)
  const rm = await lodeExactly(p, ['dist-tag', 'rm', '@demo/tagged', 'legacy'])
  assert.equal(rm.code, 1)
  assert.match(rm.stderr, /^\[ERR_LODE_COMMAND_NOT_IMPLEMENTED\] lode dist-tag rm is not implemented yet\./)
})
