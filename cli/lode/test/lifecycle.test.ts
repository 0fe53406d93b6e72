import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { after, before, test } from 'node:test'

import { TestRegistry, buildPackageTarball } from '@lode/__utils__.test-fixtures'
import type { PackageSpec } from '@lode/__utils__.test-fixtures'

import { cloneProject, lode, makeProject, pnpm } from './helpers.js'
import type { Project } from './helpers.js'

// Each script appends "<package>:<event>" to a log in the project (INIT_CWD), so order shows.
const logScript = (name: string, event: string): string => `node -e "require('fs').appendFileSync(require('path').join(process.env.INIT_CWD, 'build.log'), '${name}:${event}:' + process.env.npm_lifecycle_event + '\\\\n')"`
const PACKAGES: PackageSpec[] = [
  { name: 'base-build', version: '1.0.0', manifest: { scripts: { install: logScript('base-build', 'install') } } },
  {
    name: 'writes-file',
    version: '1.0.0',
    dependencies: { 'base-build': '1.0.0' },
    manifest: { scripts: { preinstall: logScript('writes-file', 'preinstall'), postinstall: 'node -e "require(\'fs\').writeFileSync(\'built.txt\', process.cwd())"' } },
  },
  { name: 'fails-build', version: '1.0.0', manifest: { scripts: { install: 'node -e "console.log(\'about to fail\'); process.exit(3)"' } } },
  { name: 'opt-fails', version: '1.0.0', manifest: { scripts: { install: 'node -e "process.exit(4)"' } } },
  { name: 'no-scripts', version: '1.0.0' },
  // As esbuild does: the postinstall puts a native executable (here a shell script) where the JS launcher was.
  {
    name: 'swaps-bin',
    version: '1.0.0',
    files: { 'bin/tool': { content: '#!/usr/bin/env node\nconsole.log("js launcher")\n', mode: 0o755 } },
    manifest: { bin: { 'swaps-bin': 'bin/tool' }, scripts: { postinstall: 'node -e "require(\'fs\').writeFileSync(\'bin/tool\', \'#!/bin/sh\\necho native\\n\', { mode: 0o755 })"' } },
  },
  // An install script that calls node-gyp by name (as drivelist's does): pnpm puts its own on PATH.
  { name: 'calls-gyp', version: '1.0.0', manifest: { scripts: { install: 'node-gyp --version > gyp-version.txt' } } },
  // A real native addon: binding.gyp and no install script, so `node-gyp rebuild` builds it.
  {
    name: 'tiny-addon',
    version: '1.0.0',
    files: {
      'binding.gyp': JSON.stringify({ targets: [{ target_name: 'addon', sources: ['addon.c'] }] }),
      'addon.c': [
        '#include <node_api.h>',
        'static napi_value Hello (napi_env env, napi_callback_info info) {',
        '  napi_value result;',
        '  napi_create_string_utf8(env, "world", NAPI_AUTO_LENGTH, &result);',
        '  return result;',
        '}',
        'NAPI_MODULE_INIT () {',
        '  napi_value fn;',
        '  napi_create_function(env, "hello", NAPI_AUTO_LENGTH, Hello, NULL, &fn);',
        '  napi_set_named_property(env, exports, "hello", fn);',
        '  return exports;',
        '}',
      ].join('\n'),
      'index.js': 'module.exports = require("./build/Release/addon.node")',
    },
  },
]

let registry: TestRegistry
before(async () => { registry = await TestRegistry.start(PACKAGES) })
after(async () => { await registry.close() })

function modulesYaml (project: Project): { ignoredBuilds?: string[], pendingBuilds: string[] } {
  return JSON.parse(fs.readFileSync(path.join(project.dir, 'node_modules', '.modules.yaml'), 'utf8')) as { ignoredBuilds?: string[], pendingBuilds: string[] }
}

function log (project: Project): string[] {
  const file = path.join(project.dir, 'build.log')
  return fs.existsSync(file) ? fs.readFileSync(file, 'utf8').trim().split('\n') : []
}

test('allowed dependencies build after the packages they depend on; the rest are reported as ignored, as pnpm 11 does', async () => {
  const manifest = { name: 'builds', version: '1.0.0', dependencies: { 'writes-file': '1.0.0', 'no-scripts': '1.0.0' } }
  const allowed = makeProject(registry, manifest, { 'pnpm-workspace.yaml': 'allowBuilds:\n  writes-file: true\n  base-build: true\n' })
  const allowedLode = cloneProject(allowed)
  await pnpm(allowed, ['install'])
  const result = await lode(allowedLode, ['install'])
  assert.equal(result.code, 0, result.stderr)
  assert.deepEqual(log(allowedLode), log(allowed))
  assert.deepEqual(log(allowedLode), ['base-build:install:install', 'writes-file:preinstall:preinstall'])
  const builtIn = (project: Project): string => fs.readFileSync(path.join(project.dir, 'node_modules', 'writes-file', 'built.txt'), 'utf8')
  assert.equal(builtIn(allowedLode), fs.realpathSync(path.join(allowedLode.dir, 'node_modules', 'writes-file')), 'the script ran in the package\'s directory in .pnpm')

  // Not mentioned in allowBuilds: both tools refuse, naming the same packages, and run nothing.
  const strict = makeProject(registry, manifest)
  const strictLode = cloneProject(strict)
  const pnpmFailure = await pnpm(strict, ['install'], true)
  const lodeFailure = await lode(strictLode, ['install'])
  assert.equal(lodeFailure.code, 1)
  const ignored = (text: string): string | undefined => /Ignored build scripts: (.*)/.exec(text)?.[1]
  assert.equal(ignored(lodeFailure.stderr), 'base-build@1.0.0, writes-file@1.0.0')
  assert.equal(ignored(lodeFailure.stderr), ignored(pnpmFailure.stdout + pnpmFailure.stderr))
  assert.match(lodeFailure.stderr, /^\[ERR_LODE_IGNORED_BUILDS\] /)
  assert.deepEqual(log(strictLode), [])
  assert.deepEqual(modulesYaml(strictLode).ignoredBuilds, ['base-build@1.0.0', 'writes-file@1.0.0'])

  // Allowing them later runs the builds an earlier install ignored.
  fs.writeFileSync(path.join(strictLode.dir, 'pnpm-workspace.yaml'), 'allowBuilds:\n  writes-file: true\n  base-build: true\n')
  const approved = await lode(strictLode, ['install'])
  assert.equal(approved.code, 0, approved.stderr)
  assert.deepEqual(log(strictLode), ['base-build:install:install', 'writes-file:preinstall:preinstall'])

  // false: skipped without complaint; strictDepBuilds: false: a warning.
  const skipped = makeProject(registry, manifest, { 'pnpm-workspace.yaml': 'allowBuilds:\n  writes-file: false\n  base-build: false\n' })
  assert.equal((await lode(skipped, ['install'])).code, 0)
  assert.deepEqual(log(skipped), [])
  const lenient = makeProject(registry, manifest, { 'pnpm-workspace.yaml': 'strictDepBuilds: false\n' })
  const warned = await lode(lenient, ['install'])
  assert.equal(warned.code, 0, warned.stderr)
  assert.match(warned.stdout, /Ignored build scripts: base-build@1\.0\.0, writes-file@1\.0\.0/)
})

test('a failing build fails the install with the package, the script and its output; an optional one warns; --ignore-scripts then lode rebuild', async () => {
  const project = makeProject(registry, { name: 'failing', version: '1.0.0', dependencies: { 'fails-build': '1.0.0' }, optionalDependencies: { 'opt-fails': '1.0.0' } }, {
    'pnpm-workspace.yaml': 'allowBuilds:\n  fails-build: true\n  opt-fails: true\n',
  })
  const pnpmProject = cloneProject(project)
  const pnpmResult = await pnpm(pnpmProject, ['install'], true)
  assert.match(pnpmResult.stdout + pnpmResult.stderr, /fails-build/, 'pnpm fails on the same package')
  const result = await lode(project, ['install'])
  assert.equal(result.code, 1)
  assert.match(result.stderr, /^\[ERR_LODE_LIFECYCLE_SCRIPT_FAILED\] fails-build@1\.0\.0 install: `node -e "console\.log\('about to fail'\); process\.exit\(3\)"` exited with code 3\.\nabout to fail/)
  assert.match(result.stdout, /opt-fails@1\.0\.0 install: `node -e "process\.exit\(4\)"` exited with code 4\.\nIt is an optional dependency/)

  const ignoring = makeProject(registry, { name: 'ignoring', version: '1.0.0', dependencies: { 'writes-file': '1.0.0' } }, { 'pnpm-workspace.yaml': 'allowBuilds:\n  writes-file: true\n  base-build: true\n' })
  assert.equal((await lode(ignoring, ['install', '--ignore-scripts'])).code, 0)
  assert.deepEqual(log(ignoring), [], '--ignore-scripts runs nothing')
  assert.deepEqual(modulesYaml(ignoring).pendingBuilds, ['base-build@1.0.0', 'writes-file@1.0.0'])
  // As with pnpm 11, --ignore-scripts does not fail on builds allowBuilds does not mention: they are pending too.
  const unlisted = makeProject(registry, { name: 'unlisted', version: '1.0.0', dependencies: { 'writes-file': '1.0.0' } })
  const unlistedResult = await lode(unlisted, ['install', '--ignore-scripts'])
  assert.equal(unlistedResult.code, 0, unlistedResult.stderr)
  assert.deepEqual(modulesYaml(unlisted).pendingBuilds, ['base-build@1.0.0', 'writes-file@1.0.0'])
  assert.equal(modulesYaml(unlisted).ignoredBuilds, undefined)
  // lode rebuild runs them later, in order, and nothing is pending after.
  const rebuilt = await lode(ignoring, ['rebuild'])
  assert.equal(rebuilt.code, 0, rebuilt.stderr)
  assert.match(rebuilt.stdout, /Rebuilt 2 packages/)
  // Each build's lines, as an install prints them.
  assert.match(rebuilt.stdout, /\/node_modules\/base-build install\$ .*\n.*\/node_modules\/base-build install: Done\n/)
  assert.deepEqual(log(ignoring), ['base-build:install:install', 'writes-file:preinstall:preinstall'])
  assert.deepEqual(modulesYaml(ignoring).pendingBuilds, [])
  assert.ok(fs.existsSync(path.join(ignoring.dir, 'node_modules', 'writes-file', 'built.txt')))
})

test('a package with binding.gyp and no install script is built with node-gyp against the Node running lode, as with pnpm', async () => {
  // node-gyp builds against these headers (scripts/env.sh points at the toolchain's Node); nothing is downloaded.
  const env: Record<string, string> = process.env['npm_config_nodedir'] === undefined ? {} : { npm_config_nodedir: process.env['npm_config_nodedir'] }
  const manifest = { name: 'addon', version: '1.0.0', dependencies: { 'tiny-addon': '1.0.0' } }
  const project = makeProject(registry, manifest, { 'pnpm-workspace.yaml': 'allowBuilds:\n  tiny-addon: true\n' })
  const lodeProject = cloneProject(project)
  await pnpm(project, ['install'], false, env)
  const result = await lode(lodeProject, ['install'], env)
  assert.equal(result.code, 0, result.stderr)
  for (const built of [project, lodeProject]) {
    assert.equal(execFileSync(process.execPath, ['-e', 'console.log(require("tiny-addon").hello())'], { cwd: built.dir, encoding: 'utf8' }).trim(), 'world')
  }
})

test('an install script finds node-gyp by name with no node-gyp on the PATH given, as pnpm 11 gives it', async () => {
  // Every directory with a node-gyp (npm's, this repository's node_modules/.bin) is taken off the PATH, as pnpm's test takes npm's off.
  const PATH = (process.env['PATH'] ?? '').split(path.delimiter)
    .filter((dir) => !dir.includes('node-gyp-bin') && !fs.existsSync(path.join(dir, 'node-gyp')))
    .join(path.delimiter)
  assert.throws(() => execFileSync('node-gyp', ['--version'], { env: { PATH }, stdio: 'ignore' }), 'no node-gyp on that PATH')
  const manifest = { name: 'gyp', version: '1.0.0', dependencies: { 'calls-gyp': '1.0.0' } }
  const project = makeProject(registry, manifest, { 'pnpm-workspace.yaml': 'allowBuilds:\n  calls-gyp: true\n' })
  const lodeProject = cloneProject(project)
  await pnpm(project, ['install'], false, { PATH })
  const result = await lode(lodeProject, ['install'], { PATH })
  assert.equal(result.code, 0, result.stderr)
  for (const built of [project, lodeProject]) {
    assert.match(fs.readFileSync(path.join(built.dir, 'node_modules', 'calls-gyp', 'gyp-version.txt'), 'utf8'), /^v\d+\.\d+\.\d+\n$/)
  }
})

test('a tarball-URL dependency built under allowBuilds by its URL: once that approval is gone, a frozen install reports it as an ignored build, as pnpm 11', async () => {
  // Served where no packument names it: a URL dependency, not the registry's package.
  const { tarball } = await buildPackageTarball({ name: 'tar-builds', version: '1.0.0', scripts: { postinstall: 'node -e "require(\'fs\').writeFileSync(\'generated.js\', \'\')"' } })
  registry.serveFile('/artifacts/tar-builds-1.0.0.tgz', tarball)
  const url = `${registry.url}artifacts/tar-builds-1.0.0.tgz`
  const approve = (approved: boolean): Record<string, string> => ({ 'pnpm-workspace.yaml': approved ? `allowBuilds:\n  "tar-builds@${url}": true\n` : 'allowBuilds: {}\n' })
  const project = makeProject(registry, { name: 'artifact', version: '1.0.0' }, approve(true))
  const lodeProject = cloneProject(project)
  await pnpm(project, ['add', url])
  const added = await lode(lodeProject, ['add', url])
  assert.equal(added.code, 0, added.stderr)
  for (const built of [project, lodeProject]) assert.ok(fs.existsSync(path.join(built.dir, 'node_modules', 'tar-builds', 'generated.js')))
  for (const built of [project, lodeProject]) fs.writeFileSync(path.join(built.dir, 'pnpm-workspace.yaml'), approve(false)['pnpm-workspace.yaml']!)
  const expected = await pnpm(project, ['install', '--frozen-lockfile'], true)
  const actual = await lode(lodeProject, ['install', '--frozen-lockfile'])
  assert.equal(actual.code, expected.code)
  const ignored = (text: string): string | undefined => /\[ERR_(?:PNPM|LODE)_IGNORED_BUILDS\] Ignored build scripts: (.*)/.exec(text)?.[1]
  assert.equal(ignored(actual.stdout + actual.stderr), ignored(expected.stdout + expected.stderr))
  assert.equal(ignored(actual.stdout + actual.stderr), `tar-builds@${url}`)
})

test('a bin replaced by its package\'s build is linked again afterwards, as pnpm does', async () => {
  const manifest = { name: 'swap', version: '1.0.0', dependencies: { 'swaps-bin': '1.0.0' } }
  const project = makeProject(registry, manifest, { 'pnpm-workspace.yaml': 'allowBuilds:\n  swaps-bin: true\n' })
  const lodeProject = cloneProject(project)
  await pnpm(project, ['install'])
  assert.equal((await lode(lodeProject, ['install'])).code, 0)
  for (const built of [project, lodeProject]) {
    assert.equal(execFileSync(path.join(built.dir, 'node_modules', '.bin', 'swaps-bin'), { encoding: 'utf8' }).trim(), 'native')
  }
})

test('an optional dependency whose build fails leaves the install successful, as with pnpm', async () => {
  const manifest = { name: 'opt-only', version: '1.0.0', dependencies: { 'no-scripts': '1.0.0' }, optionalDependencies: { 'opt-fails': '1.0.0' } }
  const project = makeProject(registry, manifest, { 'pnpm-workspace.yaml': 'allowBuilds:\n  opt-fails: true\n' })
  const lodeProject = cloneProject(project)
  await pnpm(project, ['install'])
  const result = await lode(lodeProject, ['install'])
  assert.equal(result.code, 0, result.stderr)
  assert.match(result.stdout, /opt-fails@1\.0\.0 install: .* exited with code 4/)
})
