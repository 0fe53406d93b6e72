import assert from 'node:assert/strict'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { after, before, test } from 'node:test'

import { TestRegistry } from '@lode/__utils__.test-fixtures'
import { Verdaccio } from '@lode/__utils__.test-fixtures/verdaccio'

import { failure, inTerminal, lodeBin, lodeExactly, pnpmBin, pnpmExactly } from './helpers.js'
import type { Project, RunResult } from './helpers.js'

// `lode whoami`, `dist-tag`, `search`, `ping`, `owner` and a terminal's `login` beside pnpm 11's, against a real registry (verdaccio on 127.0.0.1)
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
})

test('dist-tag rm as pnpm 11: the tag and the version it named printed, the tag gone; latest, a missing tag and no token refused alike', async () => {
  await publishVersions('@demo/untagged', ['1.0.0', '1.1.0'])
  const p = project()
  for (const tag of ['old', 'older']) assert.equal((await lodeExactly(p, ['dist-tag', 'add', '@demo/untagged@1.0.0', tag])).code, 0)
  const byPnpm = await pnpmExactly(p, ['dist-tag', 'rm', '@demo/untagged', 'old'])
  const byLode = await lodeExactly(p, ['dist-tag', 'rm', '@demo/untagged', 'older'])
  assert.equal(byPnpm.code, 0, byPnpm.stdout + byPnpm.stderr)
  assert.equal(byLode.code, 0, byLode.stderr)
  assert.equal(byPnpm.stdout, '-old: @demo/untagged@1.0.0\n')
  assert.equal(byLode.stdout, '-older: @demo/untagged@1.0.0\n')
  const listed = await both(p, ['dist-tag', 'ls', '@demo/untagged'])
  assert.equal(listed.lode.stdout, listed.pnpm.stdout)
  assert.equal(listed.lode.stdout, 'latest: 1.1.0\n')
  for (const args of [['dist-tag', 'rm', '@demo/untagged', 'latest'], ['dist-tag', 'rm', '@demo/untagged', 'older'], ['dist-tag', 'rm', '@demo/untagged'], ['dist-tag', 'rm', '@demo/nothing', 'x']]) {
    const run = await both(p, args)
    assert.notEqual(run.pnpm.code, 0, args.join(' '))
    assert.equal(run.lode.code, 1, args.join(' '))
    assert.equal(failure(run.lode), failure(run.pnpm), args.join(' '))
  }
  assert.equal((await lodeExactly(p, ['dist-tag', 'add', '@demo/untagged@1.0.0', 'kept'])).code, 0)
  const anonymous = await both(project(false), ['dist-tag', 'rm', '@demo/untagged', 'kept'])
  assert.equal(anonymous.lode.code, 1)
  assert.match(failure(anonymous.lode), /^UNAUTHORIZED You must be logged in to remove dist-tag "kept" from packages\./)
  assert.match(failure(anonymous.pnpm), /^UNAUTHORIZED You must be logged in to remove dist-tag "kept" from packages\./)
  assert.match((await lodeExactly(p, ['dist-tag', 'ls', '@demo/untagged'])).stdout, /^kept: 1\.0\.0$/m)
})

test('search prints what pnpm 11 prints for the registry\'s results, as text and as JSON; no result and no query alike', async () => {
  const p = project()
  fs.writeFileSync(path.join(p.dir, 'package.json'), JSON.stringify({ name: 'searchable-widget', version: '2.1.0', description: 'A widget to find', keywords: ['widget', 'find-me'], author: 'Ann Author' }))
  fs.writeFileSync(path.join(p.dir, 'index.js'), 'module.exports = 1\n')
  assert.equal((await lodeExactly(p, ['publish', '--no-git-checks'])).code, 0)
  for (const args of [['search', 'searchable'], ['search', '--json', 'searchable', 'widget'], ['s', 'searchable', '--search-limit', '1'], ['find', 'no-such-thing-at-all']]) {
    const run = await both(p, args)
    assert.equal(run.pnpm.code, 0, run.pnpm.stdout + run.pnpm.stderr)
    assert.equal(run.lode.code, 0, run.lode.stderr)
    assert.equal(run.lode.stdout, run.pnpm.stdout, args.join(' '))
  }
  assert.match((await lodeExactly(p, ['search', 'searchable'])).stdout, /^searchable-widget\nA widget to find\n.*by Ann Author\n(?:.*\n)*Keywords: widget, find-me\nhttps:\/\/npmx\.dev\/package\/searchable-widget\n$/)
  assert.equal((await lodeExactly(p, ['se', 'no-such-thing-at-all'])).stdout, 'No packages found\n')
  const empty = await both(p, ['search'])
  assert.equal(empty.lode.code, 1)
  assert.equal(failure(empty.lode), failure(empty.pnpm))
})

test('ping: PING and PONG lines as pnpm 11\'s; a registry that does not answer is PING_ERROR for both', async () => {
  const run = await both(project(), ['ping'])
  assert.equal(run.lode.code, 0, run.lode.stderr)
  const shape = (out: string): string => out.replace(/^PONG \d+ms$/m, 'PONG <n>ms')
  assert.equal(shape(run.lode.stdout), shape(run.pnpm.stdout))
  assert.match(run.lode.stdout, /^PING http:\/\/127\.0\.0\.1:\d+\/\nPONG \d+ms\n$/)
  const closed = await TestRegistry.start()
  const url = closed.url
  await closed.close()
  const down = await both(project(), ['ping', '--registry', url])
  assert.notEqual(down.pnpm.code, 0)
  assert.equal(down.lode.code, 1)
  assert.match(failure(down.lode), /^PING_ERROR Failed to reach registry: /)
  assert.match(failure(down.pnpm), /^PING_ERROR Failed to reach registry: /)
})

test('owner ls, add and rm send what pnpm 11 sends and print what it prints; refusals alike', async () => {
  // verdaccio has no owners endpoint: a registry that answers as the npm registry does.
  const fake = await TestRegistry.start()
  try {
    const p = project()
    fs.writeFileSync(path.join(p.home, '.npmrc'), `registry=${fake.url}\n//${new URL(fake.url).host}/:_authToken=owner-token\n`)
    const maintainers = JSON.stringify({ name: '@demo/owned', maintainers: [{ name: 'ann', email: 'ann@example.com' }, { name: 'bob' }] })
    fake.injectFaults('/@demo/owned', [{ status: 200, body: maintainers }, { status: 200, body: maintainers }])
    const listed = await both(p, ['owner', 'ls', '@demo/owned'])
    assert.equal(listed.lode.code, 0, listed.lode.stderr)
    assert.equal(listed.lode.stdout, listed.pnpm.stdout)
    assert.equal(listed.lode.stdout, 'ann <ann@example.com>\nbob\n')
    for (const [args, method, url, printed] of [
      [['owner', 'add', '@demo/owned', 'carol', '--otp', '123456'], 'PUT', '/-/package/@demo/owned/owners', '+carol: @demo/owned\n'],
      [['owners', 'rm', '@demo/owned', 'bob'], 'DELETE', '/-/package/@demo/owned/owners/bob', '-bob: @demo/owned\n'],
    ] as const) {
      fake.injectFaults(url, [{ status: 200, body: '{}' }, { status: 200, body: '{}' }])
      const before = fake.recorded.length
      const run = await both(p, [...args])
      assert.equal(run.pnpm.code, 0, run.pnpm.stdout + run.pnpm.stderr)
      assert.equal(run.lode.code, 0, run.lode.stderr)
      assert.equal(run.lode.stdout, run.pnpm.stdout)
      assert.equal(run.lode.stdout, printed)
      const [byPnpm, byLode] = fake.recorded.slice(before)
      for (const sent of [byPnpm!, byLode!]) {
        assert.equal(sent.method, method)
        assert.equal(sent.url, url)
        assert.equal(sent.headers.authorization, 'Bearer owner-token')
      }
      assert.equal(byLode!.body, byPnpm!.body)
      assert.equal(byLode!.headers['npm-otp'], byPnpm!.headers['npm-otp'])
    }
    assert.equal(fake.recorded.at(-2)!.body, undefined, 'rm sends no body')
    for (const [status, args] of [[403, ['owner', 'add', '@demo/owned', 'eve']], [404, ['owner', 'rm', '@demo/owned', 'eve']], [400, ['owner', 'add', '@demo/owned', 'eve']]] as const) {
      const url = args[1] === 'add' ? '/-/package/@demo/owned/owners' : '/-/package/@demo/owned/owners/eve'
      fake.injectFaults(url, [{ status, body: '{"error":"no"}' }, { status, body: '{"error":"no"}' }])
      const run = await both(p, [...args])
      assert.equal(run.lode.code, 1, `${status}`)
      assert.equal(failure(run.lode).split(' ')[0], failure(run.pnpm).split(' ')[0], `${status}: ${failure(run.lode)} / ${failure(run.pnpm)}`)
    }
    // A registry without the search endpoint: SEARCH_FAILED for both; a limit that is no count is refused before asking.
    const noSearch = await both(p, ['search', 'anything'])
    assert.equal(noSearch.lode.code, 1)
    assert.match(failure(noSearch.lode), /^SEARCH_FAILED Search failed with status 404: Not Found/)
    assert.match(failure(noSearch.pnpm), /^SEARCH_FAILED Search failed with status 404: Not Found/)
    const limit = await lodeExactly(p, ['search', 'x', '--search-limit', 'zero'])
    assert.match(limit.stderr, /^\[ERR_LODE_INVALID_SEARCH_LIMIT\] /)
    const missing = await both(p, ['owner', 'ls', '@demo/absent'])
    assert.equal(failure(missing.lode), failure(missing.pnpm))
    for (const args of [['owner'], ['owner', 'add', '@demo/owned'], ['owner', 'rm', '@demo/owned']]) {
      const run = await both(p, args)
      assert.equal(run.lode.code, 1, args.join(' '))
      assert.equal(failure(run.lode), failure(run.pnpm), args.join(' '))
    }
  } finally {
    await fake.close()
  }
})

test('login on a terminal, where the registry has no web login: username, password and email asked, the token in auth.ini as pnpm 11 writes it, whoami answers', async () => {
  const logIn = async (bin: string, user: string): Promise<{ output: string, p: Project }> => {
    const p = project(false)
    const output = await inTerminal(bin, ['login'], p, [[/Username:/, `${user}\r`], [/Password:/, 'hunter22\r'], [/Email \(this IS public\):/, `${user}@example.com\r`]])
    return { output, p }
  }
  const byPnpm = await logIn(pnpmBin, 'dave')
  const byLode = await logIn(lodeBin, 'carol')
  for (const [{ output }, user] of [[byPnpm, 'dave'], [byLode, 'carol']] as const) {
    assert.match(output, new RegExp(`Logged in as ${user}\\r?\\n`))
    assert.match(output, new RegExp(`Logged in on ${registry.url.replaceAll('.', '\\.')}\\r?\\n`))
  }
  assert.doesNotMatch(byLode.output, /hunter22/, 'the password is not drawn')
  const ini = (p: Project): string => fs.readFileSync(path.join(p.home, '.config', 'pnpm', 'auth.ini'), 'utf8')
  const shape = (text: string): string => text.replace(/_authToken=.*/, '_authToken=<token>')
  assert.equal(shape(ini(byLode.p)), shape(ini(byPnpm.p)))
  const whoami = await lodeExactly(byLode.p, ['whoami'])
  assert.equal(whoami.stdout, 'carol\n', whoami.stderr)
})
