import assert from 'node:assert/strict'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { after, before, test } from 'node:test'

import { TestRegistry } from '@lode/__utils__.test-fixtures'

import { failure, inTerminal, lodeBin, lodeExactly, pnpmBin, pnpmExactly } from './helpers.js'
import type { Project } from './helpers.js'

// `lode login` and `lode logout` beside pnpm 11's, against a registry on 127.0.0.1 that answers
// as the npm registry does (its web login and token endpoints): the same output, exit codes,
// requests, and the same auth.ini in pnpm's config directory.

let registry: TestRegistry
before(async () => { registry = await TestRegistry.start() })
after(async () => { await registry.close() })

function project (npmrc = `registry=${registry.url}\n`): Project {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'lode-login-'))
  const dir = path.join(root, 'project')
  const home = path.join(root, 'home')
  fs.mkdirSync(dir, { recursive: true })
  fs.mkdirSync(home, { recursive: true })
  fs.writeFileSync(path.join(dir, 'package.json'), '{"name":"consumer","version":"1.0.0"}\n')
  fs.writeFileSync(path.join(home, '.npmrc'), npmrc)
  return { dir, home }
}

function authIni (p: Project): string | undefined {
  const file = path.join(p.home, '.config', 'pnpm', 'auth.ini')
  return fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : undefined
}

/** The registry's web login for one run: the login URL, then "not yet" once, then the token. */
function webLogin (token: string): void {
  const done = `/-/v1/done/${token}`
  registry.injectFaults('/-/v1/login', [{ status: 200, body: JSON.stringify({ loginUrl: `${registry.url}login/${token}`, doneUrl: `${registry.url}${done.slice(1)}` }) }])
  registry.injectFaults(done, [{ status: 202, body: '{}' }, { status: 200, body: JSON.stringify({ token }) }])
}

test('login by the registry\'s web login: the URL printed, the token polled for and written into auth.ini as pnpm 11 writes it', async () => {
  const byPnpm = project()
  const byLode = project()
  webLogin('pnpm-token')
  const pnpm = await pnpmExactly(byPnpm, ['login'])
  webLogin('lode-token')
  const lode = await lodeExactly(byLode, ['adduser'])
  assert.equal(pnpm.code, 0, pnpm.stdout + pnpm.stderr)
  assert.equal(lode.code, 0, lode.stderr)
  assert.equal(lode.stdout.replaceAll('lode-token', 'T'), pnpm.stdout.replaceAll('pnpm-token', 'T'))
  assert.equal(lode.stdout, `Authenticate your account at:\n${registry.url}login/lode-token\nLogged in on ${registry.url}\n`)
  assert.equal(authIni(byLode)!.replace('lode-token', 'T'), authIni(byPnpm)!.replace('pnpm-token', 'T'))
  assert.equal(authIni(byLode), `//${new URL(registry.url).host}/:_authToken=lode-token\n`)
  assert.equal(fs.statSync(path.join(byLode.home, '.config', 'pnpm', 'auth.ini')).mode & 0o777, 0o600, 'a token is for its owner alone')
  // The token written is the one lode sends from then on.
  registry.injectFaults('/-/whoami', [{ status: 200, body: '{"username":"ann"}' }])
  const whoami = await lodeExactly(byLode, ['whoami'])
  assert.equal(whoami.stdout, 'ann\n', whoami.stderr)
  assert.equal(registry.recorded.at(-1)!.headers.authorization, 'Bearer lode-token')
  const sent = registry.recorded.filter((r) => r.url === '/-/v1/login')
  assert.equal(sent.length, 2)
  for (const request of sent) {
    assert.equal(request.method, 'POST')
    assert.equal(request.headers['npm-auth-type'], 'web')
  }

  // --scope: the token is the scope's and the scope maps to the registry; the other keys stay.
  webLogin('pnpm-scoped')
  assert.equal((await pnpmExactly(byPnpm, ['login', '--scope', 'acme'])).code, 0)
  webLogin('lode-scoped')
  const scoped = await lodeExactly(byLode, ['login', '--scope', 'acme'])
  assert.equal(scoped.code, 0, scoped.stderr)
  const normalize = (text: string, who: string): string => text.replaceAll(`${who}-token`, 'T').replaceAll(`${who}-scoped`, 'S')
  assert.equal(normalize(authIni(byLode)!, 'lode'), normalize(authIni(byPnpm)!, 'pnpm'))
  assert.match(authIni(byLode)!, /^\/\/127\.0\.0\.1:\d+\/:@acme:_authToken=lode-scoped$/m)
  assert.match(authIni(byLode)!, /^@acme:registry=http:\/\/127\.0\.0\.1:\d+\/$/m)
})

test('login refusals as pnpm 11\'s: no web login and no terminal, a bad answer, a URL with control characters; auth.ini untouched', async () => {
  const cases: Array<[string, () => void]> = [
    ['no web login, no terminal', () => { registry.injectFaults('/-/v1/login', [{ status: 404, body: '{}' }]) }],
    ['no URLs in the answer', () => { registry.injectFaults('/-/v1/login', [{ status: 200, body: '{"loginUrl":""}' }]) }],
    ['a spoofing URL', () => { registry.injectFaults('/-/v1/login', [{ status: 200, body: JSON.stringify({ loginUrl: `${registry.url}x\u001b[2K`, doneUrl: `${registry.url}done` }) }]) }],
    ['a refusal', () => { registry.injectFaults('/-/v1/login', [{ status: 400, body: '{"error":"nope"}' }]) }],
  ]
  for (const [name, arrange] of cases) {
    const p = project()
    arrange()
    const pnpm = await pnpmExactly(p, ['login'])
    arrange()
    const lode = await lodeExactly(p, ['login'])
    assert.notEqual(pnpm.code, 0, name)
    assert.equal(lode.code, 1, name)
    assert.equal(failure(lode), failure(pnpm), name)
    assert.equal(authIni(p), undefined, name)
  }
})

test('logout revokes the token and takes it out of auth.ini, as pnpm 11; a token in .npmrc is revoked and left, with a warning; none is NOT_LOGGED_IN', async () => {
  const host = new URL(registry.url).host
  const loggedIn = (): Project => {
    const p = project()
    fs.mkdirSync(path.join(p.home, '.config', 'pnpm'), { recursive: true })
    fs.writeFileSync(path.join(p.home, '.config', 'pnpm', 'auth.ini'), `//${host}/:_authToken=secret-token\n@acme:registry=${registry.url}\n`)
    return p
  }
  const byPnpm = loggedIn()
  const byLode = loggedIn()
  registry.injectFaults('/-/user/token/secret-token', [{ status: 200, body: '{}' }, { status: 200, body: '{}' }])
  const before = registry.recorded.length
  const pnpm = await pnpmExactly(byPnpm, ['logout'])
  const lode = await lodeExactly(byLode, ['logout'])
  assert.equal(pnpm.code, 0, pnpm.stdout + pnpm.stderr)
  assert.equal(lode.code, 0, lode.stderr)
  assert.equal(lode.stdout, pnpm.stdout)
  assert.equal(lode.stdout, `Logged out of ${registry.url}\n`)
  assert.equal(authIni(byLode), authIni(byPnpm))
  assert.equal(authIni(byLode), `@acme:registry=${registry.url}\n`)
  const revoked = registry.recorded.slice(before)
  assert.deepEqual(revoked.map((r) => [r.method, r.url, r.headers.authorization]), [
    ['DELETE', '/-/user/token/secret-token', 'Bearer secret-token'],
    ['DELETE', '/-/user/token/secret-token', 'Bearer secret-token'],
  ])

  // In the home's .npmrc: revoked on the registry, left in its file, with pnpm's warning.
  const inNpmrc = project(`registry=${registry.url}\n//${host}/:_authToken=npmrc-token\n`)
  registry.injectFaults('/-/user/token/npmrc-token', [{ status: 200, body: '{}' }])
  const warned = await lodeExactly(inNpmrc, ['logout'])
  assert.equal(warned.code, 0, warned.stderr)
  assert.match(warned.stdout + warned.stderr, /The auth token for .* was not found in .*auth\.ini\. It may be configured in \.npmrc/)
  assert.match(fs.readFileSync(path.join(inNpmrc.home, '.npmrc'), 'utf8'), /npmrc-token/)

  // Refused by the registry and not in auth.ini: LOGOUT_FAILED for both.
  registry.injectFaults('/-/user/token/npmrc-token', [{ status: 403, body: '{}' }, { status: 403, body: '{}' }])
  const failed = { pnpm: await pnpmExactly(inNpmrc, ['logout']), lode: await lodeExactly(inNpmrc, ['logout']) }
  assert.equal(failed.lode.code, 1)
  assert.equal(failure(failed.lode).split(' ')[0], 'LOGOUT_FAILED')
  assert.equal(failure(failed.pnpm).split(' ')[0], 'LOGOUT_FAILED')

  const anonymous = project()
  const none = { pnpm: await pnpmExactly(anonymous, ['logout']), lode: await lodeExactly(anonymous, ['logout']) }
  assert.equal(none.lode.code, 1)
  assert.equal(failure(none.lode), failure(none.pnpm))
})

test('classic login on a terminal: an OTP challenge asks for the one-time password and sends it; a refusal is LOGIN_FAILED with the registry\'s words, as pnpm 11', async () => {
  const user = '/-/user/org.couchdb.user:erin'
  interface Run { output: string, p: Project, puts: Array<{ otp: unknown, body: unknown }> }
  const logIn = async (bin: string, answers: Array<[RegExp, string]>): Promise<Run> => {
    const p = project()
    const start = registry.recorded.length
    const output = await inTerminal(bin, ['login'], p, answers)
    const puts = registry.recorded.slice(start).filter((request) => request.method === 'PUT' && request.url === user)
      .map((request) => ({ otp: request.headers['npm-otp'], body: JSON.parse(request.body!) as unknown }))
    return { output, p, puts }
  }
  const credentials: Array<[RegExp, string]> = [[/Username:/, 'erin\r'], [/Password:/, 'pw-erin\r'], [/Email \(this IS public\):/, 'erin@example.com\r']]
  const runs = new Map<string, Run>()
  for (const [tool, bin] of [['pnpm', pnpmBin], ['lode', lodeBin]] as const) {
    registry.injectFaults('/-/v1/login', [{ status: 404, body: '{}' }])
    registry.injectFaults(user, [
      { status: 401, body: '{"error":"one-time pass required"}', headers: { 'www-authenticate': 'otp' } },
      { status: 201, body: JSON.stringify({ ok: true, token: `token-of-${tool}` }) },
    ])
    runs.set(tool, await logIn(bin, [...credentials, [/Enter OTP:/, '123456\r']]))
  }
  for (const [tool, run] of runs) {
    assert.match(run.output, /Logged in as erin\r?\n/, tool)
    assert.deepEqual(run.puts.map((put) => put.otp), [undefined, '123456'], tool)
    assert.match(authIni(run.p)!, new RegExp(`_authToken=token-of-${tool}`))
  }
  assert.deepEqual(runs.get('lode')!.puts, runs.get('pnpm')!.puts)

  // A 401 without the challenge (a wrong password): no OTP asked, the registry's answer in the error; auth.ini untouched.
  const refusals = new Map<string, Run>()
  for (const [tool, bin] of [['pnpm', pnpmBin], ['lode', lodeBin]] as const) {
    registry.injectFaults('/-/v1/login', [{ status: 404, body: '{}' }])
    registry.injectFaults(user, [{ status: 401, body: '{"error":"bad password"}' }])
    refusals.set(tool, await logIn(bin, credentials))
  }
  for (const [tool, run] of refusals) {
    // eslint-disable-next-line no-control-regex -- the terminal's colours taken out
    const text = run.output.replace(/\x1B\[[0-9;?]*[A-Za-z]/g, '')
    assert.match(text, /ERR_(?:PNPM|LODE)_LOGIN_FAILED\]? +Login failed \(HTTP 401\): \{"error":"bad password"\}/, tool)
    assert.doesNotMatch(run.output, /OTP/, tool)
    assert.equal(run.puts.length, 1, tool)
    assert.equal(authIni(run.p), undefined, tool)
  }
})
