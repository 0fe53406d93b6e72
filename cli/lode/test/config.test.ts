import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'
import { after, before, test } from 'node:test'

import { TestRegistry } from '@lode/__utils__.test-fixtures'

import { cloneProject, lode, lodeExactly, makeProject, pnpmExactly } from './helpers.js'
import type { Project } from './helpers.js'

// `lode config set|delete|get|list` beside pnpm 11's: the same files written (the machine's
// auth.ini and config.yaml, the project's .npmrc and pnpm-workspace.yaml), the same values read.

let registry: TestRegistry
before(async () => {
  registry = await TestRegistry.start([
    { name: 'dep', version: '1.0.0', dependencies: { leaf: '1.0.0' } },
    { name: 'leaf', version: '1.0.0' },
  ])
})
after(async () => { await registry.close() })

const FILES = ['home/.config/pnpm/config.yaml', 'home/.config/pnpm/auth.ini', 'project/.npmrc', 'project/pnpm-workspace.yaml']

function files (project: Project): Record<string, string | null> {
  const root = path.dirname(project.dir)
  return Object.fromEntries(FILES.map((file) => [file, fs.existsSync(path.join(root, file)) ? fs.readFileSync(path.join(root, file), 'utf8') : null]))
}

const normalize = (text: string): string => text.replaceAll('ERR_PNPM_', 'ERR_LODE_').replaceAll('`pnpm ', '`lode ')

test('lode config set/delete write the files pnpm 11 writes, get prints what pnpm prints, errors are pnpm\'s', async () => {
  const pnpmProject = makeProject(registry, { name: 'cfg', version: '1.0.0' }, {
    'pnpm-workspace.yaml': '# settings\npackages:\n  - packages/*\n\nsavePrefix: "~"\n',
  })
  const lodeProject = cloneProject(pnpmProject)
  const host = new URL(registry.url).host
  const steps: string[][] = [
    ['config', 'set', 'saveExact', 'true'],
    ['config', 'set', 'minimum-release-age', '1440'],
    ['config', 'set', `//${host}/:_authToken`, 'secret'],
    ['config', 'set', '@private:registry', `${registry.url}`],
    ['set', 'fetch-retries=3'],
    ['config', 'set', '--location', 'project', 'node-linker', 'hoisted'],
    ['config', 'set', '--location', 'project', 'dedupePeers', 'false'],
    ['config', 'set', '--location', 'project', '--json', 'overrides', '{"leaf":"1.0.0"}'],
    ['config', 'set', '--location', 'project', 'email', 'me@example.com'],
    ['config', 'get', 'saveExact'],
    ['config', 'get', 'minimumReleaseAge', '--json'],
    ['get', 'savePrefix'],
    ['get', 'savePrefix', '-g'],
    ['config', 'get', 'nodeLinker'],
    ['config', 'get', 'overrides'],
    ['config', 'get', 'nothing-here'],
    ['config', 'get', '--json', 'nothing-here'],
    ['config', 'get', `//${host}/:_authToken`],
    ['config', 'get', '@private:registry'],
    ['config', 'get', 'email'],
    ['config', 'delete', 'saveExact'],
    ['config', 'delete', '--location', 'project', 'node_linker'],
    ['config', 'delete', 'minimumReleaseAge'],
    ['config', 'delete', 'never-set'],
  ]
  for (const args of steps) {
    const expected = await pnpmExactly(pnpmProject, args)
    const actual = await lodeExactly(lodeProject, args)
    const label = `config ${args.join(' ')}`
    assert.equal(actual.code, expected.code, `${label}: exit code\n${actual.stderr}`)
    assert.equal(actual.stdout, expected.stdout, `${label}: stdout`)
    assert.deepEqual(files(lodeProject), files(pnpmProject), `${label}: files`)
  }
  assert.equal(files(lodeProject)['home/.config/pnpm/config.yaml'], 'fetchRetries: 3\n')
  // The file of tokens lode creates is its owner's alone.
  assert.equal(fs.statSync(path.join(lodeProject.home, '.config', 'pnpm', 'auth.ini')).mode & 0o777, 0o600)
  for (const args of [
    ['config', 'set', 'node-linker', 'hoisted'],
    ['config', 'set', '--location', 'project', 'foo-bar', 'x'],
    ['config', 'set', '--location', 'project', 'dir', 'x'],
    ['config', 'set', 'a.b', 'c'],
    ['config', 'set'],
    ['config', 'nope'],
  ]) {
    const expected = await pnpmExactly(pnpmProject, args)
    const actual = await lodeExactly(lodeProject, args)
    assert.equal(actual.code, 1, `config ${args.join(' ')}`)
    assert.equal(expected.code, 1)
    assert.equal(actual.stderr.split('\n')[0], normalize(expected.stderr.split('\n')[0]!), `config ${args.join(' ')}: the error`)
    assert.deepEqual(files(lodeProject), files(pnpmProject), `config ${args.join(' ')} writes nothing`)
  }
  const before = files(lodeProject)
  for (const [args, message] of [
    [['config', 'set', '--location', 'nowhere', 'saveExact', 'true'], /^\[ERR_LODE_BAD_ARGUMENTS\] --location is "nowhere"\./],
    [['config', 'set', '--json', 'overrides', 'not json'], /^\[ERR_LODE_BAD_ARGUMENTS\] --json: the value is not JSON/],
  ] as const) {
    const refused = await lodeExactly(lodeProject, [...args])
    assert.equal(refused.code, 1)
    assert.match(refused.stderr, message)
    assert.deepEqual(files(lodeProject), before, `${args.join(' ')} writes nothing`)
  }
})

test('lode config list prints the settings given, auth hidden; a registry set with lode config is the one an install uses', async () => {
  const pnpmProject = makeProject(registry, { name: 'cfg', version: '1.0.0', dependencies: { dep: '1.0.0' } })
  const lodeProject = cloneProject(pnpmProject)
  const host = new URL(registry.url).host
  for (const args of [['config', 'set', 'saveExact', 'true'], ['config', 'set', `//${host}/:_authToken`, 'secret'], ['config', 'set', '--location', 'project', 'nodeLinker', 'hoisted']]) {
    assert.equal((await pnpmExactly(pnpmProject, args)).code, 0)
    assert.equal((await lodeExactly(lodeProject, args)).code, 0)
  }
  // pnpm adds its named registries and its own user agent; the rest is the same record.
  const record = (stdout: string): Record<string, unknown> => {
    const { registries: _registries, '@jsr:registry': _jsr, userAgent: _agent, ...rest } = JSON.parse(stdout) as Record<string, unknown>
    return rest
  }
  const expected = record((await pnpmExactly(pnpmProject, ['config', 'list'])).stdout)
  const actual = await lodeExactly(lodeProject, ['config', 'list'])
  assert.deepEqual(record(actual.stdout), expected)
  assert.equal(expected[`//${host}/:_authToken`], '(protected)')
  assert.match((JSON.parse(actual.stdout) as { userAgent: string }).userAgent, /lode\//)

  // The registry for a scope set in the machine's auth.ini is read by an install.
  const scoped = makeProject(registry, { name: 'scoped', version: '1.0.0', dependencies: { dep: '1.0.0' } })
  fs.writeFileSync(path.join(scoped.home, '.npmrc'), 'registry=http://127.0.0.1:9/\n')
  assert.equal((await lodeExactly(scoped, ['config', 'set', 'registry', registry.url])).code, 0)
  assert.equal(fs.readFileSync(path.join(scoped.home, '.config', 'pnpm', 'auth.ini'), 'utf8'), `registry=${registry.url}\n`)
  const installed = await lode(scoped, ['install'])
  assert.equal(installed.code, 0, installed.stderr)
  assert.ok(fs.existsSync(path.join(scoped.dir, 'node_modules', 'dep', 'package.json')))
})
