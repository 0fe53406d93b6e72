import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'
import { after, before, test } from 'node:test'

import { TestRegistry } from '@lode/__utils__.test-fixtures'

import { cloneProject, lodeExactly, makeProject, pnpmExactly } from './helpers.js'

// `lode dlx` and `lode create` beside pnpm 11's: the command's output and exit code, the cache
// reused, pnpm's choice of a command among a package's bins, and its errors.

const say = (what: string): string => `#!/usr/bin/env node\nconsole.log(${what})\n`
let registry: TestRegistry
before(async () => {
  registry = await TestRegistry.start([
    { name: 'words', version: '1.0.0', files: { 'index.js': 'module.exports = (s) => s.toUpperCase()' } },
    { name: 'shout', version: '1.0.0', dependencies: { words: '^1.0.0' }, bin: { shout: 'cli.js' }, files: { 'cli.js': say('require("words")(process.argv.slice(2).join(" ")) + " from " + require("path").basename(process.cwd())') } },
    { name: 'shout', version: '2.0.0', dependencies: { words: '^1.0.0' }, bin: { shout: 'cli.js' }, files: { 'cli.js': say('"v2 " + process.argv.slice(2).join(" ")') } },
    { name: 'two-bins', version: '1.0.0', bin: { first: 'a.js', second: 'b.js' }, files: { 'a.js': say('"first"'), 'b.js': say('"second"') } },
    { name: 'named-bin', version: '1.0.0', bin: { other: 'a.js', 'named-bin': 'b.js' }, files: { 'a.js': say('"other"'), 'b.js': say('"named"') } },
    { name: 'no-bin', version: '1.0.0', files: { 'index.js': '' } },
    { name: 'exits', version: '1.0.0', bin: { exits: 'cli.js' }, files: { 'cli.js': '#!/usr/bin/env node\nprocess.exit(7)\n' } },
    { name: 'create-thing', version: '1.0.0', bin: { 'create-thing': 'index.js' }, files: { 'index.js': say('"creating " + process.argv.slice(2).join(" ")') } },
    { name: '@kit/create', version: '1.0.0', bin: { create: 'index.js' }, files: { 'index.js': say('"kit " + process.argv.slice(2).join(" ")') } },
  ])
})
after(async () => { await registry.close() })

test('lode dlx runs a package\'s command where lode runs, its exit code kept, as pnpm 11 does; create runs create-<name>', async () => {
  const pnpmProject = makeProject(registry, { name: 'here', version: '1.0.0' })
  const lodeProject = cloneProject(pnpmProject)
  for (const args of [
    ['dlx', 'shout', 'hello', '--loud'],
    ['dlx', 'shout@1', 'again'],
    ['dlx', 'shout@2.0.0', 'x'],
    ['--package=shout@1.0.0', 'dlx', 'shout', 'given'],
    ['dlx', '--package', 'shout@1.0.0', '--package=two-bins', 'second'],
    ['--package=shout@1.0.0', 'dlx', '-c', 'shout piped | tr a-z A-Z; exit 3'],
    ['dlx', 'named-bin'],
    ['dlx', 'exits'],
    ['create', 'thing', 'my-app'],
    ['create', '@kit', 'x'],
  ]) {
    const expected = await pnpmExactly(pnpmProject, args)
    const actual = await lodeExactly(lodeProject, args)
    const label = args.join(' ')
    assert.equal(actual.code, expected.code, `${label}: exit code\n${actual.stderr}`)
    assert.equal(actual.stdout.replaceAll('lode-cli-', ''), expected.stdout.replaceAll('lode-cli-', ''), `${label}: stdout`)
  }
  assert.deepEqual(fs.readdirSync(lodeProject.dir), ['package.json'], 'nothing is written where lode runs')
})

test('lode dlx caches an install by what was asked for: the second run downloads nothing and prints no install', async () => {
  const project = makeProject(registry, { name: 'here', version: '1.0.0' })
  const first = await lodeExactly(project, ['dlx', 'shout@1.0.0', 'one'])
  assert.equal(first.code, 0, first.stderr)
  assert.match(first.stderr, /Packages: \+2\n\+\+\n/)
  assert.equal(first.stdout, 'ONE from project\n')
  const requests = registry.requests.length
  const second = await lodeExactly(project, ['dlx', 'shout@1.0.0', 'two'])
  assert.equal(second.stdout, 'TWO from project\n')
  assert.equal(second.stderr, '')
  assert.equal(registry.requests.length, requests, 'no request')
  const dlxDir = path.join(project.home, '.cache', 'lode', 'dlx')
  const [key] = fs.readdirSync(dlxDir)
  assert.ok(fs.lstatSync(path.join(dlxDir, key!, 'pkg')).isSymbolicLink())
  // An old entry is installed again (dlxCacheMaxAge: a day).
  const old = new Date(Date.now() - 2 * 86_400_000)
  fs.lutimesSync(path.join(dlxDir, key!, 'pkg'), old, old)
  const third = await lodeExactly(project, ['dlx', 'shout@1.0.0', 'three'])
  assert.match(third.stderr, /Packages: \+2/)
  assert.equal(third.stdout, 'THREE from project\n')
})

test('lode dlx refuses what pnpm refuses: no bin, several bins, no package; a failed install leaves no cache entry', async () => {
  const pnpmProject = makeProject(registry, { name: 'here', version: '1.0.0' })
  const lodeProject = cloneProject(pnpmProject)
  for (const args of [['dlx', 'no-bin'], ['dlx', 'two-bins'], ['create']]) {
    const expected = await pnpmExactly(pnpmProject, args)
    const actual = await lodeExactly(lodeProject, args)
    assert.equal(actual.code, 1, args.join(' '))
    assert.equal(expected.code, 1)
    const errorLine = (text: string): string | undefined => text.split('\n').find((line) => line.startsWith('[ERR_'))
    assert.equal(errorLine(actual.stderr), errorLine(expected.stderr)!.replace('ERR_PNPM_', 'ERR_LODE_'), args.join(' '))
  }
  for (const [args, message] of [
    [['--package=shout@1.0.0', 'dlx'], /^\[ERR_LODE_DLX_MISSING_COMMAND\] 'lode dlx' requires a command to run/],
    [['dlx', '-c', 'shout hi'], /^\[ERR_LODE_BAD_ARGUMENTS\] lode dlx -c needs --package/],
    [['dlx', '--package'], /^\[ERR_LODE_BAD_ARGUMENTS\] --package needs a value\./],
  ] as const) {
    const refused = await lodeExactly(lodeProject, [...args])
    assert.equal(refused.code, 1, args.join(' '))
    assert.match(refused.stderr, message)
  }
  const missing = await lodeExactly(lodeProject, ['dlx', 'not-in-the-registry'])
  assert.equal(missing.code, 1)
  const dlxDir = path.join(lodeProject.home, '.cache', 'lode', 'dlx')
  for (const key of fs.readdirSync(dlxDir)) {
    for (const entry of fs.readdirSync(path.join(dlxDir, key))) assert.ok(fs.lstatSync(path.join(dlxDir, key, entry)).isSymbolicLink() || fs.existsSync(path.join(dlxDir, key, 'pkg')), `${key}/${entry} is a complete install`)
  }
})
