import assert from 'node:assert/strict'
import { execFile, execFileSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { after, before, test } from 'node:test'
import { promisify } from 'node:util'

import { buildPackageTarball, TestRegistry } from '@lode/__utils__.test-fixtures'
import type { PackageSpec } from '@lode/__utils__.test-fixtures'

import { isolatedEnv, listing, lodeExactly, makeProject, pnpmExactly, projectFile, snapshot } from './helpers.js'
import type { Project, RunResult } from './helpers.js'

// pnpm 11's everyday install scenarios (bins found by scripts, links, workspaces, builds left out,
// peers, old node_modules, hoisted layouts), each run by pnpm 11 and by lode on copies of one project.

const executable = (content: string): { content: string, mode: number } => ({ content: `#!/usr/bin/env node\n${content}\n`, mode: 0o755 })
const writes = (file: string): string => `node -e "require('fs').writeFileSync('${file}', '')"`

/** A package whose tarball holds hello-bin in its node_modules, declared bundled by `bundle`. */
function bundling (name: string, bundle: Record<string, unknown>): PackageSpec[] {
  return [{
    name,
    version: '1.0.0',
    dependencies: { 'hello-bin': '1.0.0' },
    manifest: bundle,
    files: {
      'node_modules/hello-bin/package.json': JSON.stringify({ name: 'hello-bin', version: '1.0.0', bin: { 'hello-bin': 'cli.js' } }),
      'node_modules/hello-bin/cli.js': executable('console.log("bundled hello")'),
    },
  }]
}

const PROVENANCE = { url: 'https://attestations.test/tp', provenance: { predicateType: 'https://slsa.dev/provenance/v1' } }
const TRUSTED_PUBLISHER = { name: 'GitHub Actions', email: 'npm-oidc-no-reply@github.com', trustedPublisher: { id: 'github', oidcConfigId: 'oidc:1' } }

const PACKAGES: PackageSpec[] = [
  { name: 'leaf', version: '1.0.0' },
  { name: 'dep', version: '1.0.0' },
  { name: 'dep', version: '1.1.0' },
  { name: 'hello-bin', version: '1.0.0', bin: { 'hello-bin': 'cli.js' }, files: { 'cli.js': executable('console.log("Hello world!")') } },
  { name: 'uses-plugins', version: '1.0.0', bin: { 'uses-plugins': 'cli.js' }, files: { 'cli.js': executable('console.log("My plugin is " + require("plugin-example").name)') } },
  { name: 'plugin-example', version: '1.0.0' },
  { name: 'runner', version: '1.0.0', dependencies: { core: '1.0.0' }, bin: { runner: 'cli.js' }, files: { 'cli.js': executable('console.log("runner found " + require("plugin-x").name)') } },
  { name: 'core', version: '1.0.0', dependencies: { 'plugin-x': '1.0.0' } },
  { name: 'plugin-x', version: '1.0.0' },
  { name: 'two-cases', version: '1.0.0', files: { 'Foo.js': 'upper', 'foo.js': 'lower', LICENSE: 'MIT' } },
  { name: 'breaks', version: '1.0.0', scripts: { postinstall: 'exit 1' } },
  { name: 'b1', version: '1.0.0', scripts: { postinstall: writes('b1-built.txt') } },
  { name: 'b2', version: '1.0.0', scripts: { postinstall: writes('b2-built.txt') } },
  { name: 'dep-of-one', version: '1.0.0' },
  { name: 'one-dep', version: '1.0.0', dependencies: { 'dep-of-one': '1.0.0' } },
  { name: 'foo', version: '1.0.0' },
  { name: 'bar', version: '1.0.0' },
  { name: 'foobar', version: '1.0.0', dependencies: { foo: '1.0.0', bar: '1.0.0' } },
  { name: 'pos', version: '1.0.0' },
  { name: 'neg', version: '1.0.0' },
  { name: 'opt-leaf', version: '1.0.0' },
  { name: 'good-opt', version: '1.0.0', dependencies: { leaf: '1.0.0' }, manifest: { optionalDependencies: { 'opt-leaf': '1.0.0' } } },
  // pnpm's peer fixtures (@pnpm.e2e/… and @pnpm/…), without their scopes.
  ...['peer-a@1.0.0', 'peer-b@1.0.0', 'peer-c@1.0.0', 'peer-c@2.0.0', 'peer-c@1.0.1', 'y@1.0.0', 'y@2.0.0', 'z@1.0.0', 'is-pos@3.0.0', 'is-pos@3.1.0',
    'closure-peer-x@1.0.0', 'closure-peer-x@2.0.0', 'final-peer-c@1.0.0'].map((spec) => ({ name: spec.split('@')[0]!, version: spec.split('@')[1]! })),
  { name: 'abc', version: '1.0.0', dependencies: { leaf: '1.0.0' }, manifest: { peerDependencies: { 'peer-a': '^1.0.0', 'peer-b': '^1.0.0', 'peer-c': '^1.0.0' } } },
  { name: 'abc-parent-with-ab', version: '1.0.0', dependencies: { abc: '^1.0.0', 'peer-a': '^1.0.0', 'peer-b': '^1.0.0' } },
  { name: 'abc-grand-parent-with-c', version: '1.0.0', dependencies: { 'abc-parent-with-ab': '^1.0.0', 'peer-c': '^1.0.0' } },
  { name: 'abc-optional-peers', version: '1.0.0', manifest: {
    peerDependencies: { 'peer-a': '^1.0.0', 'peer-b': '^1.0.0', 'peer-c': '^1.0.0' }, peerDependenciesMeta: { 'peer-b': { optional: true }, 'peer-c': { optional: true } },
  } },
  { name: 'abc-meta-only', version: '1.0.0', manifest: { peerDependencies: { 'peer-a': '^1.0.0' }, peerDependenciesMeta: { 'peer-b': { optional: true }, 'peer-c': { optional: true } } } },
  { name: 'has-peer-c-in-deps', version: '1.0.0', dependencies: { 'peer-c': '2.0.0' } },
  ...['1', '1.0.0', '2'].map((range) => ({ name: `wants-peer-c-${range}`, version: '1.0.0', manifest: { peerDependencies: { 'peer-c': range } } })),
  { name: 'has-y-peer', version: '1.0.0', manifest: { peerDependencies: { y: '>=1.0.0' } } },
  { name: 'has-has-y-peer-peer', version: '1.0.0', manifest: { peerDependencies: { 'has-y-peer': '^1.0.0', y: '^1.0.0' } } },
  { name: 'has-optional-peer-with-peer', version: '1.0.0', manifest: { peerDependencies: { 'has-y-peer': '*' }, peerDependenciesMeta: { 'has-y-peer': { optional: true } } } },
  { name: 'closure-lib-a', version: '1.0.0', manifest: { peerDependencies: { 'closure-lib-b': '^1.0.0', 'closure-peer-x': '^1.0.0' } } },
  { name: 'closure-lib-b', version: '1.0.0', manifest: { peerDependencies: { 'closure-lib-a': '^1.0.0', 'closure-peer-x': '^1.0.0' } } },
  { name: 'closure-plugins', version: '1.0.0', dependencies: { 'closure-lib-a': '1.0.0', 'closure-lib-b': '1.0.0', 'closure-peer-x': '1.0.0' } },
  { name: 'final-peer-a', version: '1.0.0', dependencies: { 'final-peer-b': '1.0.0', 'final-peer-x': '1.0.0' }, manifest: { peerDependencies: { 'final-peer-c': '*' } } },
  { name: 'final-peer-b', version: '1.0.0', manifest: { peerDependencies: { 'final-peer-a': '*' } } },
  { name: 'final-peer-x', version: '1.0.0', manifest: { peerDependencies: { 'final-peer-b': '*' } } },
  { name: 'x', version: '1.0.0' },
  { name: 'xyz', version: '1.0.0', manifest: { peerDependencies: { x: '^1.0.0', y: '^1.0.0', z: '^1.0.0' } } },
  { name: 'xyz-parent', version: '1.0.0', dependencies: { xyz: '1.0.0' } },
  { name: 'xyz-parent-parent', version: '1.0.0', dependencies: { 'xyz-parent': '1.0.0' } },
  { name: 'xyz-parent-parent-parent', version: '1.0.0', dependencies: { 'xyz-parent-parent': '1.0.0' } },
  { name: 'xyz-parent-parent-parent-parent', version: '1.0.0', dependencies: { 'xyz-parent-parent-parent': '1.0.0' } },
  { name: 'xyz-parent-parent-with-xyz', version: '1.0.0', dependencies: { 'xyz-parent': '1.0.0', x: '1.0.0', y: '1.0.0', z: '1.0.0' } },
  { name: 'kw', version: '1.5.0', manifest: { peerDependencies: { host: '>=4.7.0' } } },
  { name: 'kw', version: '1.5.1', manifest: { peerDependencies: { host: '>=4.7.0' } } },
  { name: 'host', version: '4.10.4' },
  ...bundling('with-bundle', { bundleDependencies: ['hello-bin'] }),
  ...bundling('bundle-true', { bundleDependencies: true }),
  { name: 'bundle-false', version: '1.0.0', dependencies: { leaf: '1.0.0' }, manifest: { bundleDependencies: false } },
  { name: 'ms', version: '1.0.0' },
  { name: 'ms', version: '2.0.0' },
  { name: 'send', version: '1.0.0', dependencies: { ms: '2.0.0' } },
  { name: 'target', version: '1.0.0' },
  { name: 'target', version: '1.1.0' },
  { name: 'aliasing', version: '1.0.0', dependencies: { dep: 'npm:target@^1.0.0' } },
  { name: 'hostlib', version: '1.0.0' },
  { name: 'dom', version: '1.0.0', manifest: { peerDependencies: { hostlib: '^1.0.0' } } },
  { name: 'self-peer', version: '1.0.0', manifest: { peerDependencies: { 'self-peer': '*' } } },
  { name: 'self-req', version: '1.0.0', dependencies: { 'self-req': '1.0.0', pos: '^1.0.0' } },
  { name: 'isneg', version: '1.0.0' },
  { name: 'isneg', version: '2.0.0' },
  { name: 'builder', version: '1.0.0', scripts: { preinstall: writes('built.txt') } },
  { name: 'tp', version: '1.0.0', publishedAt: '2025-01-01T00:00:00.000Z', npmUser: TRUSTED_PUBLISHER, attestations: PROVENANCE },
  { name: 'tp', version: '1.1.0', publishedAt: '2025-02-01T00:00:00.000Z' },
  { name: 'has-opt-tp', version: '1.0.0', manifest: { optionalDependencies: { tp: '1.1.0' } } },
  { name: 'young', version: '1.0.0', publishedAt: new Date(Date.now() - 3600_000).toISOString() },
  { name: 'old', version: '1.0.0', dependencies: { young: '^1.0.0' } },
  { name: 'native', version: '1.0.0', manifest: { optionalDependencies: { 'native-linux': '1.0.0', 'native-darwin': '1.0.0', 'native-win': '1.0.0', 'native-musl': '1.0.0' } } },
  { name: 'native-linux', version: '1.0.0', manifest: { os: ['linux'], cpu: ['x64', 'arm64'] } },
  { name: 'native-darwin', version: '1.0.0', manifest: { os: ['darwin'], cpu: ['arm64'] } },
  { name: 'native-win', version: '1.0.0', manifest: { os: ['win32'], cpu: ['x64'] } },
  { name: 'native-musl', version: '1.0.0', manifest: { os: ['linux'], libc: ['musl'] } },
]

let registry: TestRegistry
before(async () => { registry = await TestRegistry.start(PACKAGES) })
after(async () => { await registry.close() })

/** Two copies of a project and of what lies beside it, one for pnpm 11, one for lode. */
interface Pair { pnpm: Project, lode: Project }

type Files = Record<string, string>

/**
 * A project with `files` in it and `beside` next to it (paths relative to the directory holding it),
 * and its copy for lode; `manifest` undefined writes no package.json.
 */
function pairOf (manifest: Record<string, unknown> | undefined, files: Files = {}, beside: Files = {}): Pair {
  const project = makeProject(registry, manifest ?? {}, files)
  if (manifest === undefined) fs.rmSync(path.join(project.dir, 'package.json'))
  for (const [file, content] of Object.entries(beside)) {
    fs.mkdirSync(path.dirname(path.join(project.dir, '..', file)), { recursive: true })
    fs.writeFileSync(path.join(project.dir, '..', file), content)
  }
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'lode-cli-'))
  fs.cpSync(path.dirname(project.dir), root, { recursive: true })
  return { pnpm: project, lode: { dir: path.join(root, 'project'), home: path.join(root, 'home') } }
}

interface StepOptions {
  /** A directory of the project to run in. */
  cwd?: string
  env?: Record<string, string>
  /** Both must fail; lode with this in its stderr, changing nothing (unless `writes`). */
  fails?: RegExp
  /** A failure that writes what the tool got done (a strict build check fails after the install). */
  writes?: boolean
}

/** One command by pnpm and by lode, each in its copy: the same exit code. Returns both results. */
async function onBoth (
  pair: Pair,
  args: string[] | ((project: Project) => string[]),
  options: StepOptions = {}
): Promise<{ byPnpm: RunResult, byLode: RunResult }> {
  const argsOf = (project: Project): string[] => [...typeof args === 'function' ? args(project) : args, '--reporter=append-only']
  const inDir = (project: Project): Project => ({ ...project, dir: path.join(project.dir, options.cwd ?? '.') })
  const byPnpm = await pnpmExactly(inDir(pair.pnpm), argsOf(pair.pnpm), options.env)
  const before = snapshot(pair.lode.dir)
  const byLode = await lodeExactly(inDir(pair.lode), argsOf(pair.lode), options.env)
  const shown = argsOf(pair.lode).join(' ')
  if (options.fails === undefined) {
    assert.equal(byPnpm.code, 0, `pnpm ${shown}:\n${byPnpm.stdout}\n${byPnpm.stderr}`)
    assert.equal(byLode.code, 0, `lode ${shown}:\n${byLode.stdout}\n${byLode.stderr}`)
  } else {
    assert.notEqual(byPnpm.code, 0, `pnpm ${shown} was expected to fail:\n${byPnpm.stdout}`)
    assert.equal(byLode.code, 1, `lode ${shown} was expected to fail:\n${byLode.stdout}\n${byLode.stderr}`)
    assert.match(byLode.stderr, options.fails)
    if (options.writes !== true) assert.deepEqual(snapshot(pair.lode.dir), before, `lode ${shown} changed nothing`)
  }
  return { byPnpm, byLode }
}

const PROJECT_FILES = ['package.json', 'pnpm-workspace.yaml', 'pnpm-lock.yaml']

/** Both copies hold the same `files` and the same tree (node_modules included, state files aside). */
function sameFiles (pair: Pair, files: readonly string[] = PROJECT_FILES, what = ''): void {
  for (const file of files) assert.equal(projectFile(pair.lode, file), projectFile(pair.pnpm, file), `${file} ${what}`)
  const tree = (project: Project): string[] => listing(project.dir).filter((file) => !file.endsWith(`.pnpm${path.sep}lock.yaml`))
  assert.deepEqual(tree(pair.lode), tree(pair.pnpm), `the files ${what}`)
}

type Steps = Array<string[] | { args: string[], options?: StepOptions }>

/** Steps run by both, each followed by the same files. */
async function stepsOnBoth (pair: Pair, steps: Steps, files: readonly string[] = PROJECT_FILES): Promise<void> {
  for (const step of steps) {
    const { args, options } = Array.isArray(step) ? { args: step, options: {} } : step
    await onBoth(pair, args, options)
    sameFiles(pair, files, `after ${args.join(' ')} in ${options?.cwd ?? '.'}`)
  }
}

/** The lines of an output that match `pattern`. */
const linesOf = (output: string, pattern: RegExp): string[] => output.split('\n').filter((line) => pattern.test(line))

test('a dependency\'s bin runs from a project script and finds the plugins installed beside it; a package\'s Foo.js and foo.js both installed, as pnpm 11', async () => {
  const pair = pairOf({ name: 'app', version: '1.0.0', dependencies: { 'hello-bin': '*' }, scripts: { postinstall: 'hello-bin', test: 'uses-plugins && runner' } })
  const installed = await onBoth(pair, ['install'])
  assert.match(installed.byPnpm.stdout, /Hello world!/)
  assert.match(installed.byLode.stdout + installed.byLode.stderr, /Hello world!/)
  sameFiles(pair)
  await stepsOnBoth(pair, [['add', 'uses-plugins', 'plugin-example', 'runner', 'two-cases']])
  assert.deepEqual(fs.readdirSync(path.join(pair.lode.dir, 'node_modules', 'two-cases')).sort(), ['Foo.js', 'LICENSE', 'foo.js', 'index.js', 'package.json'])
  const tested = await onBoth(pair, ['test'])
  const said = /^(My plugin is|runner found) /
  assert.deepEqual(linesOf(tested.byLode.stdout, said), ['My plugin is plugin-example', 'runner found plugin-x'])
  assert.deepEqual(linesOf(tested.byLode.stdout, said), linesOf(tested.byPnpm.stdout, said))
  // The shims give the bins the same NODE_PATH.
  for (const bin of ['uses-plugins', 'runner']) {
    const nodePath = (project: Project): string[] =>
      linesOf(fs.readFileSync(path.join(project.dir, 'node_modules', '.bin', bin), 'utf8').replaceAll(project.dir, '<project>'), /NODE_PATH=/)
    assert.deepEqual(nodePath(pair.lode), nodePath(pair.pnpm), `the ${bin} shim's NODE_PATH`)
  }
})

test('lode link takes an absolute path and needs a directory; link: under an alias; a hand-made link in node_modules, as pnpm 11', async () => {
  const hello = JSON.stringify({ name: 'hello-bin', version: '1.0.0', bin: { 'hello-bin': 'cli.js' } })
  const beside = {
    'hello-bin/package.json': hello,
    'hello-bin/cli.js': '#!/usr/bin/env node\nconsole.log("local hello")\n',
    'peerless/package.json': JSON.stringify({ name: 'peerless', version: '1.0.0', peerDependencies: {} }),
  }
  const linking = pairOf({ name: 'app', version: '1.0.0', dependencies: { 'hello-bin': '*' } }, {}, beside)
  // Without a directory: pnpm links the project globally, and fails without a global bin directory on PATH.
  await stepsOnBoth(linking, [{ args: ['link'], options: { fails: /^\[ERR_LODE_LINK_BAD_PARAMS\] You must provide a parameter/ } }])
  await onBoth(linking, (project) => ['link', path.join(project.dir, '..', 'hello-bin')])
  sameFiles(linking, PROJECT_FILES, 'after link <absolute path>')
  const peerWarning = /has the following peerDependencies specified in its package\.json/
  const emptyPeers = await onBoth(linking, ['link', '../peerless'])
  assert.doesNotMatch(emptyPeers.byPnpm.stdout, peerWarning)
  assert.doesNotMatch(emptyPeers.byLode.stdout + emptyPeers.byLode.stderr, /peerDependencies/)
  sameFiles(linking)

  await stepsOnBoth(pairOf({ name: 'app', version: '1.0.0', dependencies: { hello: 'link:../hello-bin' } }, {}, beside), [['install']])
  const handMade = pairOf({}, {}, beside)
  for (const project of [handMade.pnpm, handMade.lode]) {
    fs.mkdirSync(path.join(project.dir, 'node_modules'))
    fs.symlinkSync('../../hello-bin', path.join(project.dir, 'node_modules', 'hello-bin'))
  }
  // The link someone made is left alone (pnpm also links its bin into node_modules/.bin; lode does not).
  await onBoth(handMade, ['install'])
  for (const project of [handMade.pnpm, handMade.lode]) assert.equal(fs.readlinkSync(path.join(project.dir, 'node_modules', 'hello-bin')), '../../hello-bin')
  await stepsOnBoth(handMade, [['add', 'hello-bin']])
})

test('lode -r add without a name fails as pnpm 11 does, writing nothing; link from a workspace project writes the root\'s override', async () => {
  const workspace = pairOf({ name: 'root', version: '1.0.0', private: true }, {
    'pnpm-workspace.yaml': 'packages:\n  - packages/*\n',
    'packages/project/package.json': JSON.stringify({ name: 'project', version: '1.0.0', dependencies: { 'hello-bin': '*' } }, null, 2),
  }, {
    'hello-bin/package.json': JSON.stringify({ name: 'hello-bin', version: '1.0.0', bin: { 'hello-bin': 'cli.js' } }),
    'hello-bin/cli.js': '#!/usr/bin/env node\nconsole.log("local hello")\n',
  })
  const noName = await onBoth(workspace, ['-r', 'add'], { fails: /./ })
  assert.match(noName.byPnpm.stdout, /`pnpm add` requires the package name/)
  await stepsOnBoth(workspace, [['install'], { args: ['link', '../../../hello-bin'], options: { cwd: 'packages/project' } }], [...PROJECT_FILES, 'packages/project/package.json'])
})

/** The workspace projects of pnpm's workspace-with-circular-peers, their registry dependencies left out: `name: [dependencies, devDependencies, peerDependencies]`. */
const CIRCULAR: Record<string, [string, string, string]> = {
  'addons/addon1/package': ['addon2 addon3 addon6', 'module6', 'addon3'],
  'addons/addon1/test-app': ['', 'addon1 module6', ''],
  'addons/addon2/package': ['addon6', 'module6', ''],
  'addons/addon3/package': ['addon2 module4 addon6 addon7', 'module6 addon12', ''],
  'addons/addon6/package': ['', 'module6', ''],
  'addons/addon7/package': ['', 'module6', ''],
  'addons/addon9/package': ['addon2 addon3 module3 addon6 addon7 addon13', 'module5 module6', 'addon3 addon13'],
  'addons/addon9/test-app': ['', 'addon2 addon3 module3 module5 addon6 addon7 addon9 addon13 module6', ''],
  'addons/addon11/package': ['', 'module6', ''],
  'addons/addon12/package': ['', 'module6', ''],
  'addons/addon13/package': ['addon2 addon3 module3 addon6 addon7 addon11 addon12', 'module5 module6', 'addon3 addon11 addon12'],
  'addons/addon13/test-app': ['', 'addon2 module3 module5 addon6 module6 module7 addon7 addon13', ''],
  'addons/addon15/package': ['addon2 addon3 module3 addon6 addon7 addon11 addon12 addon13', 'module5 module6', 'addon3 addon11 addon12 addon13'],
  'addons/addon15/test-app': ['', 'addon2 addon3 module3 module5 addon6 module6 module7 module9 addon7 addon11 addon12 addon13 addon15', ''],
  ...Object.fromEntries([3, 4, 5, 6, 7, 9].map((n) => [`modules/module${n}`, ['', '', '']])),
}

test('in a workspace: shamefullyHoist hoists every project\'s dependencies to the root; projects peering on each other resolve, as pnpm 11', async () => {
  const workspaceYaml = 'packages:\n  - packages/*\n'
  const hoisting = pairOf({ name: 'root', version: '1.0.0', dependencies: { 'one-dep': '1.0.0' } }, {
    'pnpm-workspace.yaml': `${workspaceYaml}shamefullyHoist: true\n`,
    'packages/project/package.json': JSON.stringify({ name: 'project', version: '1.0.0', dependencies: { foobar: '1.0.0' } }, null, 2),
  })
  await stepsOnBoth(hoisting, [['install']])
  assert.deepEqual(['dep-of-one', 'foo', 'foobar'].map((name) => fs.existsSync(path.join(hoisting.lode.dir, 'node_modules', name))), [true, true, true])
  assert.equal(fs.existsSync(path.join(hoisting.lode.dir, 'packages', 'project', 'node_modules', 'foo')), false)

  const group = (names: string): Record<string, string> => Object.fromEntries(names.split(' ').filter(Boolean).map((name) => [name, 'workspace:*']))
  const circular = pairOf({ name: 'circular', version: '1.0.0', private: true }, {
    'pnpm-workspace.yaml': 'packages:\n  - addons/*/*\n  - modules/*\n',
    ...Object.fromEntries(Object.entries(CIRCULAR).map(([dir, [dependencies, devDependencies, peerDependencies]]) => {
      const name = dir.startsWith('modules/') ? path.basename(dir) : dir.endsWith('/test-app') ? `test-${dir.split('/')[1]!}` : dir.split('/')[1]!
      const manifest = { name, version: '1.0.0', dependencies: group(dependencies), devDependencies: group(devDependencies), peerDependencies: group(peerDependencies) }
      return [`${dir}/package.json`, JSON.stringify(manifest, null, 2)]
    })),
  })
  await stepsOnBoth(circular, [['install', '--lockfile-only']])
})

test('a project preinstall during an install from the lockfile sees pnpm 11\'s user agent; an add whose allowed build fails writes nothing; node-gyp is on a script\'s PATH, as pnpm 11', async () => {
  const agent = pairOf({ name: 'app', version: '1.0.0', dependencies: { leaf: '1.0.0' }, scripts: { preinstall: 'node -e "console.log(\'agent \' + process.env.npm_config_user_agent)"' } })
  await stepsOnBoth(agent, [['install', '--lockfile-only']])
  const headless = await onBoth(agent, ['install'])
  sameFiles(agent)
  const agentOf = (result: RunResult): string | undefined => /agent (\S+)/.exec(result.stdout + result.stderr)?.[1]
  assert.match(agentOf(headless.byPnpm) ?? '', /^pnpm\/11\./)
  assert.equal(agentOf(headless.byLode), agentOf(headless.byPnpm))

  const breaking = pairOf({ name: 'foo', version: '1.0.0' }, { 'pnpm-workspace.yaml': 'allowBuilds:\n  breaks: true\n' })
  await onBoth(breaking, ['add', 'breaks@1.0.0'], { fails: /./ })
  // pnpm leaves the package in node_modules; lode takes it out again.
  for (const file of [...PROJECT_FILES, 'node_modules/.pnpm/lock.yaml']) assert.equal(projectFile(breaking.lode, file), projectFile(breaking.pnpm, file), file)
  assert.equal(projectFile(breaking.pnpm, 'pnpm-lock.yaml'), undefined)

  const gyp = pairOf({ name: 'app', version: '1.0.0', scripts: { test: 'node-gyp --help' } })
  const PATH = (process.env['PATH'] ?? '').split(path.delimiter).filter((dir) => !dir.includes('node-gyp-bin')).join(path.delimiter)
  await onBoth(gyp, ['test'], { env: { PATH } })
})

test('--dev installs the devDependencies alone, NODE_ENV=production aside; --no-optional leaves optional dependencies out, as pnpm 11', async () => {
  const included = (project: Project): unknown => (JSON.parse(fs.readFileSync(path.join(project.dir, 'node_modules', '.modules.yaml'), 'utf8')) as { included: unknown }).included
  const devOnly = pairOf({ name: 'app', version: '1.0.0', dependencies: { pos: '^1.0.0' }, devDependencies: { neg: '^1.0.0' } })
  await stepsOnBoth(devOnly, [{ args: ['install', '--dev'], options: { env: { NODE_ENV: 'production' } } }])
  assert.deepEqual(fs.readdirSync(path.join(devOnly.lode.dir, 'node_modules')).filter((name) => !name.startsWith('.')), ['neg'])
  const noOptional = pairOf({ name: 'app', version: '1.0.0', dependencies: { 'good-opt': '*' }, optionalDependencies: { 'opt-leaf': '1.0.0' } })
  await stepsOnBoth(noOptional, [['install', '--no-optional']])
  assert.equal(fs.existsSync(path.join(noOptional.lode.dir, 'node_modules', '.pnpm', 'opt-leaf@1.0.0')), false)
  assert.deepEqual(included(noOptional.lode), included(noOptional.pnpm))
})

test('builds left out: allowBuilds false ends a strict failure; the list is kept by a repeat install and a selective rebuild, as pnpm 11', async () => {
  const modules = (project: Project): { allowBuilds?: unknown, ignoredBuilds?: unknown } =>
    JSON.parse(fs.readFileSync(path.join(project.dir, 'node_modules', '.modules.yaml'), 'utf8')) as { allowBuilds?: unknown, ignoredBuilds?: unknown }
  const sameBuilds = (pair: Pair): void => {
    assert.deepEqual(modules(pair.lode).ignoredBuilds, modules(pair.pnpm).ignoredBuilds)
    assert.deepEqual(modules(pair.lode).allowBuilds, modules(pair.pnpm).allowBuilds)
  }
  const strict = pairOf({ name: 'app', version: '1.0.0' }, { 'pnpm-workspace.yaml': 'strictDepBuilds: true\n' })
  await stepsOnBoth(strict, [{ args: ['add', 'b1@1.0.0'], options: { fails: /./, writes: true } }])
  for (const project of [strict.pnpm, strict.lode]) fs.writeFileSync(path.join(project.dir, 'pnpm-workspace.yaml'), 'allowBuilds:\n  b1: false\nstrictDepBuilds: true\n')
  const allowedFalse = await onBoth(strict, ['install'])
  sameFiles(strict)
  sameBuilds(strict)
  assert.doesNotMatch(allowedFalse.byPnpm.stdout, /Ignored build scripts/)
  assert.doesNotMatch(allowedFalse.byLode.stdout + allowedFalse.byLode.stderr, /Ignored build scripts/)

  const repeat = pairOf({ name: 'app', version: '1.0.0' }, { 'pnpm-workspace.yaml': 'strictDepBuilds: false\noptimisticRepeatInstall: false\n' })
  await stepsOnBoth(repeat, [['add', 'b1', 'b2'], ['install']])
  sameBuilds(repeat)
  assert.deepEqual(modules(repeat.lode).ignoredBuilds, ['b1@1.0.0', 'b2@1.0.0'])

  const selective = pairOf({ name: 'app', version: '1.0.0' }, { 'pnpm-workspace.yaml': 'allowBuilds:\n  b1: true\nstrictDepBuilds: false\n' })
  await stepsOnBoth(selective, [['add', 'b1', 'b2']])
  sameBuilds(selective)
  await stepsOnBoth(selective, [['rebuild', 'b1']])
  sameBuilds(selective)
})

/** Resolves `manifest` (and `files`) with both tools (`install --lockfile-only`): the same pnpm-lock.yaml. */
async function sameLockfile (manifest: Record<string, unknown>, files: Files = {}, beside: Files = {}): Promise<Pair> {
  const pair = pairOf(manifest, files, beside)
  await onBoth(pair, ['install', '--lockfile-only'])
  assert.equal(projectFile(pair.lode, 'pnpm-lock.yaml'), projectFile(pair.pnpm, 'pnpm-lock.yaml'), `pnpm-lock.yaml of ${JSON.stringify(manifest)}`)
  return pair
}

/** A workspace of `projects` (dir: manifest) with `settings` in pnpm-workspace.yaml. */
function workspaceFiles (projects: Record<string, Record<string, unknown>>, settings = ''): Record<string, string> {
  return {
    'pnpm-workspace.yaml': `packages:\n${Object.keys(projects).map((dir) => `  - ${dir}\n`).join('')}${settings}`,
    ...Object.fromEntries(Object.entries(projects).map(([dir, manifest]) => [`${dir}/package.json`, JSON.stringify(manifest, null, 2)])),
  }
}

test('auto-installed peers: a common range, none without one, one copy for two wanters, the root\'s own, a provider\'s final suffix, a self-contained subtree, as pnpm 11 resolves them', async () => {
  registry.setDistTag('peer-c', 'latest', '1.0.1')
  const app = (dependencies: Record<string, string>): Record<string, unknown> => ({ name: 'app', version: '1.0.0', dependencies })
  await Promise.all([
    sameLockfile(app({ 'wants-peer-c-1': '1.0.0', 'wants-peer-c-1.0.0': '1.0.0' })),
    sameLockfile(app({ 'wants-peer-c-1': '1.0.0', 'wants-peer-c-2': '1.0.0' })),
    sameLockfile(app({ 'has-has-y-peer-peer': '1.0.0' })),
    sameLockfile({ name: 'app', version: '1.0.0', peerDependencies: { 'has-y-peer': '1.0.0', y: '^1.0.0' } }),
    sameLockfile({ name: 'root', version: '0.0.0', private: true, peerDependencies: { 'is-pos': 'npm:is-pos@^3.0.0' } }),
    sameLockfile(app({ 'final-peer-a': '1.0.0', 'final-peer-c': '1.0.0' })),
    sameLockfile(app({ 'closure-plugins': '1.0.0', 'closure-peer-x': '2.0.0' })),
    sameLockfile(app({ 'abc-meta-only': '1.0.0', 'has-peer-c-in-deps': '1.0.0' })),
    sameLockfile(app({ 'has-peer-c-in-deps': '1.0.0', abc: '1.0.0' })),
  ])
})

test('a root dependency named like a missing peer provides it (an npm: alias, a tarball URL); the root\'s own peers; a link: dependency with a peer beside an add, as pnpm 11', async () => {
  const y2 = `${registry.url}y/-/y-2.0.0.tgz`
  const chain = { 'xyz-parent-parent-parent-parent': '1.0.0', x: 'npm:peer-a@1.0.0', y: y2 }
  await Promise.all([
    sameLockfile({ name: 'app', version: '1.0.0', dependencies: { ...chain, 'xyz-parent-parent-with-xyz': '1.0.0' } }),
    sameLockfile({ name: 'app', version: '1.0.0', dependencies: chain }),
  ])
  const linked = pairOf({ name: 'pkg', version: '1.0.0', dependencies: { linked: 'link:../linked' } }, {}, {
    'linked/package.json': JSON.stringify({ name: 'linked', peerDependencies: { 'peer-c': '1.0.0' } }),
  })
  await stepsOnBoth(linked, [['add', 'peer-b']])
  assert.deepEqual(Object.keys((JSON.parse(projectFile(linked.lode, 'package.json')!) as { dependencies: object }).dependencies), ['linked', 'peer-b'])
})

test('peers across workspace projects: a peer that is another project\'s devDependency, peers of an optional peer, a sibling\'s lower version, as pnpm 11', async () => {
  registry.setDistTag('peer-c', 'latest', '1.0.0')
  const [, , , , siblings] = await Promise.all([
    sameLockfile({ name: 'root', version: '1.0.0' }, workspaceFiles({
      'project-1': { name: 'project-1', devDependencies: { pos: '1.0.0' } },
      'project-2': { name: 'project-2', peerDependencies: { pos: '1.0.0' } },
    })),
    sameLockfile({ name: 'root', version: '1.0.0' }, workspaceFiles({
      project1: { name: 'root-project', devDependencies: { 'abc-parent-with-ab': '1.0.0' } },
      project2: { name: 'project', peerDependencies: { 'abc-parent-with-ab': '1.0.0' } },
    }, 'dedupePeerDependents: false\n')),
    sameLockfile({ name: 'root-project', version: '1.0.0', devDependencies: { 'abc-parent-with-ab': '1.0.0', 'peer-c': '1.0.0' } }, workspaceFiles({
      project: { name: 'project', peerDependencies: { 'abc-parent-with-ab': '1.0.0' } },
    })),
    sameLockfile({ name: 'root', version: '1.0.0' }, workspaceFiles({
      'project-1': { name: 'project-1', dependencies: { 'has-optional-peer-with-peer': '1.0.0' } },
      'project-2': { name: 'project-2', dependencies: { 'has-y-peer': '1.0.0' } },
    })),
    sameLockfile({ name: 'root', version: '1.0.0' }, workspaceFiles({
      project1: { name: 'project1', dependencies: { 'abc-optional-peers': '1.0.0' } },
      project2: { name: 'project2', dependencies: { 'peer-c': '1.0.1' } },
    })),
  ])
  for (const project of [siblings.pnpm, siblings.lode]) {
    fs.writeFileSync(path.join(project.dir, 'project2', 'package.json'), JSON.stringify({ name: 'project2', dependencies: { 'peer-c': '1.0.0' } }, null, 2))
  }
  await stepsOnBoth(siblings, [['install', '--lockfile-only']])
})

test('lockfiles rewritten as pnpm 11 rewrites them: a root dependency with a peer moving version, peer contexts kept over later adds', async () => {
  const moved = pairOf({ name: 'app', version: '1.0.0', dependencies: { host: '4.10.4', kw: '1.5.0' } })
  await stepsOnBoth(moved, [['install', '--lockfile-only']])
  for (const project of [moved.pnpm, moved.lode]) {
    fs.writeFileSync(path.join(project.dir, 'package.json'), JSON.stringify({ name: 'app', version: '1.0.0', dependencies: { host: '4.10.4', kw: '1.5.1' } }, null, 2))
  }
  await stepsOnBoth(moved, [['install', '--lockfile-only']])
  assert.match(projectFile(moved.lode, 'pnpm-lock.yaml')!, /version: 1\.5\.1\(host@4\.10\.4\)/)

  registry.setDistTag('peer-c', 'latest', '1.0.0')
  const contexts = pairOf({ name: 'app', version: '1.0.0' }, { 'pnpm-workspace.yaml': 'strictPeerDependencies: false\n' })
  // (pnpm keeps node_modules/.pnpm/node_modules/abc-parent-with-ab, hoisted before it became a direct dependency; lode drops it.)
  for (const args of [['add', 'abc-grand-parent-with-c@1.0.0', 'peer-c@2.0.0'], ['add', 'abc-parent-with-ab'], ['add', 'pos@1.0.0']]) {
    await onBoth(contexts, args)
    for (const file of PROJECT_FILES) assert.equal(projectFile(contexts.lode, file), projectFile(contexts.pnpm, file), `${file} after ${args.join(' ')}`)
  }
  assert.match(projectFile(contexts.lode, 'pnpm-lock.yaml')!, /abc-parent-with-ab@1\.0\.0\(peer-c@1\.0\.0\)[^]*abc-parent-with-ab@1\.0\.0\(peer-c@2\.0\.0\)/)
})

test('bundled dependencies, from the registry and from local tarballs, in both spellings and as true or false, are locked as pnpm 11 locks them', async () => {
  const pair = pairOf({ name: 'app', version: '1.0.0', dependencies: { 'local-bundled': 'file:pkg.tgz', 'local-true': 'file:pkg-true.tgz' } })
  for (const [file, name, bundle] of [['pkg.tgz', 'local-bundled', { bundledDependencies: ['hello-bin'] }], ['pkg-true.tgz', 'local-true', { bundleDependencies: true }]] as const) {
    const { tarball } = await buildPackageTarball(bundling(name, bundle)[0]!)
    for (const project of [pair.pnpm, pair.lode]) fs.writeFileSync(path.join(project.dir, file), tarball)
  }
  for (const args of [['install'], ['add', 'with-bundle@1.0.0', 'bundle-true@1.0.0', 'bundle-false']]) {
    await onBoth(pair, args)
    for (const file of PROJECT_FILES) assert.equal(projectFile(pair.lode, file), projectFile(pair.pnpm, file), `${file} after ${args.join(' ')}`)
  }
  const lockfile = projectFile(pair.lode, 'pnpm-lock.yaml')!
  assert.doesNotMatch(lockfile, /^ {2}hello-bin@1\.0\.0:/m)
  assert.match(lockfile, /bundledDependencies: true/)
  assert.ok(fs.existsSync(path.join(pair.lode.dir, 'node_modules', 'with-bundle', 'node_modules', 'hello-bin', 'cli.js')))
  // The bundled package's bin, in the bundling package's node_modules/.bin, as pnpm links it.
  const shims = (project: Project): Record<string, string> => Object.fromEntries(listing(path.join(project.dir, 'node_modules', '.pnpm'))
    .filter((file) => /node_modules[/\\]\.bin[/\\]/.test(file) && !file.includes(' -> '))
    .map((file) => [file, fs.readFileSync(path.join(project.dir, 'node_modules', '.pnpm', file), 'utf8').replaceAll(project.dir, '<project>')]))
  assert.deepEqual(shims(pair.lode), shims(pair.pnpm))
  assert.ok(fs.existsSync(path.join(pair.lode.dir, 'node_modules', 'with-bundle', 'node_modules', '.bin', 'hello-bin')))
})

test('nodeLinker: hoisted: no lockfile, an alias beside its target, a peer installed at the top, a package that is its own peer; packageImportMethod: copy, as pnpm 11', async () => {
  const hoisted = 'nodeLinker: hoisted\n'
  const noLockfile = pairOf({ name: 'app', version: '1.0.0', dependencies: { send: '1.0.0', ms: '1.0.0' } }, { 'pnpm-workspace.yaml': `${hoisted}lockfile: false\n` })
  await stepsOnBoth(noLockfile, [['install']])
  assert.ok(fs.existsSync(path.join(noLockfile.lode.dir, 'node_modules', 'send', 'node_modules', 'ms', 'package.json')))
  assert.equal(projectFile(noLockfile.lode, 'pnpm-lock.yaml'), undefined)
  const hoistedAdds = pairOf({ name: 'app', version: '1.0.0' }, { 'pnpm-workspace.yaml': hoisted })
  await stepsOnBoth(hoistedAdds, [['add', 'aliasing@1.0.0', 'target@^1.0.0', 'dom@1.0.0', 'self-peer@1.0.0']])
  assert.doesNotMatch(projectFile(hoistedAdds.lode, 'pnpm-lock.yaml')!, /self-peer@1\.0\.0:\n(?: {4}.*\n)*? {4}peerDependencies/)
  assert.ok(fs.existsSync(path.join(hoistedAdds.lode.dir, 'node_modules', 'hostlib', 'package.json')))

  await stepsOnBoth(pairOf({ name: 'app', version: '1.0.0' }, { 'pnpm-workspace.yaml': 'packageImportMethod: copy\n' }), [['add', 'self-req']])
  const copied = pairOf({ name: 'app', version: '1.0.0' }, { 'pnpm-workspace.yaml': `${hoisted}packageImportMethod: copy\n` })
  await stepsOnBoth(copied, [['add', 'isneg@1.0.0']])
  const state = ['node_modules/.modules.yaml', 'node_modules/.pnpm/lock.yaml']
  const saved = [copied.pnpm, copied.lode].map((project) => state.map((file) => projectFile(project, file)))
  await stepsOnBoth(copied, [['add', 'isneg@2.0.0']])
  for (const [i, project] of [copied.pnpm, copied.lode].entries()) {
    for (const [j, file] of state.entries()) fs.writeFileSync(path.join(project.dir, file), saved[i]![j]!)
  }
  await stepsOnBoth(copied, [['add', 'isneg@1.0.0']])
  assert.equal((JSON.parse(projectFile(copied.lode, 'node_modules/isneg/package.json')!) as { version: string }).version, '1.0.0')
})

test('lode fetch --dev fetches only the devDependencies, and fetch skips a file: dependency that is gone, as pnpm 11', async () => {
  /** The tarballs each tool asked the registry for during `args`. */
  const tarballsFetched = async (pair: Pair, args: string[]): Promise<string[][]> => {
    const fetched: string[][] = []
    for (const [run, project] of [[pnpmExactly, pair.pnpm], [lodeExactly, pair.lode]] as const) {
      const from = registry.requests.length
      const result = await run(project, [...args, '--reporter=append-only'])
      assert.equal(result.code, 0, `${args.join(' ')}:\n${result.stdout}\n${result.stderr}`)
      fetched.push(registry.requests.slice(from).filter((url) => url.endsWith('.tgz')).sort())
    }
    return fetched
  }
  const devOnly = pairOf({ name: 'app', version: '1.0.0', dependencies: { pos: '1.0.0' }, devDependencies: { neg: '1.0.0' } })
  const gone = pairOf({ name: 'app', version: '1.0.0', dependencies: { leaf: '1.0.0', '@local/pkg': 'file:./local-pkg' } }, {
    'local-pkg/package.json': JSON.stringify({ name: '@local/pkg', version: '1.0.0' }),
  })
  for (const pair of [devOnly, gone]) {
    await stepsOnBoth(pair, [['install', '--lockfile-only']])
    for (const project of [pair.pnpm, pair.lode]) {
      fs.rmSync(path.join(project.dir, 'package.json'))
      fs.rmSync(path.join(project.dir, 'local-pkg'), { recursive: true, force: true })
    }
  }
  const [byPnpm, byLode] = await tarballsFetched(devOnly, ['fetch', '--dev'])
  assert.deepEqual(byLode, byPnpm)
  assert.deepEqual(byLode, ['/neg/-/neg-1.0.0.tgz'])
  const [goneByPnpm, goneByLode] = await tarballsFetched(gone, ['fetch'])
  assert.deepEqual(goneByLode, goneByPnpm)
  assert.deepEqual(goneByLode, ['/leaf/-/leaf-1.0.0.tgz'])
})

test('aliases: a dependency\'s npm: alias, one package by alias and by name; an empty pnpm-lock.yaml under --frozen-lockfile; an optional dependency\'s trust downgrade, as pnpm 11', async () => {
  registry.setDistTag('target', 'latest', '1.1.0')
  const aliased = pairOf({ name: 'app', version: '1.0.0' })
  await stepsOnBoth(aliased, [['add', 'aliasing'], ['add', 'negative@npm:neg@^1.0.0', 'neg@^1.0.0']])
  assert.match(projectFile(aliased.lode, 'pnpm-lock.yaml')!, /dep: target@1\.1\.0/)

  const empty = pairOf({ name: 'app', version: '1.0.0', dependencies: { neg: '1.0.0' } }, { 'pnpm-lock.yaml': '' })
  const broken = await onBoth(empty, ['install', '--frozen-lockfile'], { fails: /^\[ERR_LODE_BROKEN_LOCKFILE\]/ })
  assert.match(broken.byPnpm.stdout, /ERR_PNPM_BROKEN_LOCKFILE/)

  const downgraded = pairOf({ name: 'app', version: '1.0.0' }, { 'pnpm-workspace.yaml': 'trustPolicy: no-downgrade\n' })
  const refused = await onBoth(downgraded, ['add', 'has-opt-tp@1.0.0'], { fails: /^\[ERR_LODE_TRUST_DOWNGRADE\][^]*tp@1\.1\.0/ })
  assert.match(refused.byPnpm.stdout, /ERR_PNPM_TRUST_DOWNGRADE/)
  sameFiles(downgraded)
})

test('supportedArchitectures in pnpm-workspace.yaml picks the optional packages an add installs; a verdict cached under a longer minimumReleaseAgeExclude is not reused, as pnpm 11', async () => {
  const modules = (project: Project): { skipped: string[], hoistedDependencies: Record<string, unknown> } =>
    JSON.parse(projectFile(project, 'node_modules/.modules.yaml')!) as { skipped: string[], hoistedDependencies: Record<string, unknown> }
  for (const architectures of ['os: [win32]\n  cpu: [x64]', 'os: [current, darwin]\n  cpu: [current, arm64]']) {
    const pair = pairOf({ name: 'app', version: '1.0.0' }, { 'pnpm-workspace.yaml': `supportedArchitectures:\n  ${architectures}\n` })
    await stepsOnBoth(pair, [['add', 'native']])
    assert.deepEqual(modules(pair.lode).skipped.sort(), modules(pair.pnpm).skipped.sort())
    assert.deepEqual(Object.keys(modules(pair.lode).hoistedDependencies).sort(), Object.keys(modules(pair.pnpm).hoistedDependencies).sort())
  }

  const aged = pairOf({ name: 'app', version: '1.0.0', dependencies: { old: '1.0.0' } }, { 'pnpm-workspace.yaml': 'minimumReleaseAge: 0\n' })
  await stepsOnBoth(aged, [['install', '--lockfile-only']])
  const policy = (exclude: string): string => `minimumReleaseAge: 600\nminimumReleaseAgeStrict: true\nminimumReleaseAgeExclude: [${exclude}]\n`
  for (const project of [aged.pnpm, aged.lode]) fs.writeFileSync(path.join(project.dir, 'pnpm-workspace.yaml'), policy('young, old'))
  await stepsOnBoth(aged, [['install', '--frozen-lockfile', '--lockfile-only']])
  for (const project of [aged.pnpm, aged.lode]) fs.writeFileSync(path.join(project.dir, 'pnpm-workspace.yaml'), policy('old'))
  const refused = await onBoth(aged, ['install', '--frozen-lockfile', '--lockfile-only'], { fails: /young@1\.0\.0/ })
  assert.match(refused.byPnpm.stdout + refused.byPnpm.stderr, /young@1\.0\.0/)
})

test('a workspace project\'s deleted node_modules comes back with the next install, as pnpm 11', async () => {
  const restoring = pairOf({ name: 'root', version: '0.0.0', private: true }, {
    'pnpm-workspace.yaml': 'packages:\n  - packages/*\n',
    'packages/foo/package.json': JSON.stringify({ name: 'foo', version: '0.0.0', private: true, dependencies: { leaf: '1.0.0' } }, null, 2),
    'packages/bare/package.json': JSON.stringify({ name: 'bare', version: '0.0.0', private: true }, null, 2),
  })
  await stepsOnBoth(restoring, [['install']])
  for (const project of [restoring.pnpm, restoring.lode]) fs.rmSync(path.join(project.dir, 'packages', 'foo', 'node_modules'), { recursive: true })
  await stepsOnBoth(restoring, [['install']])
  assert.ok(fs.existsSync(path.join(restoring.lode.dir, 'packages', 'foo', 'node_modules', 'leaf', 'package.json')))
  // Up to date again: the next install is the quick one.
  const again = await lodeExactly(restoring.lode, ['install'])
  assert.match(again.stdout, /Already up to date/)
})

test('optimisticRepeatInstall: false: a deleted package is put back and the ignored builds reported again, as pnpm 11', async () => {
  const removed = pairOf({ name: 'app', version: '1.0.0', dependencies: { send: '1.0.0', ms: '1.0.0' } }, {
    'pnpm-workspace.yaml': 'nodeLinker: hoisted\noptimisticRepeatInstall: false\n',
  })
  await stepsOnBoth(removed, [['install']])
  for (const project of [removed.pnpm, removed.lode]) fs.rmSync(path.join(project.dir, 'node_modules', 'send'), { recursive: true })
  await stepsOnBoth(removed, [['install']])
  assert.ok(fs.existsSync(path.join(removed.lode.dir, 'node_modules', 'send', 'node_modules', 'ms', 'package.json')))

  // Isolated: a package deleted from the virtual store, a direct dependency's link deleted.
  const isolated = pairOf({ name: 'app', version: '1.0.0', dependencies: { send: '1.0.0' } }, { 'pnpm-workspace.yaml': 'optimisticRepeatInstall: false\n' })
  await stepsOnBoth(isolated, [['install']])
  for (const project of [isolated.pnpm, isolated.lode]) {
    fs.rmSync(path.join(project.dir, 'node_modules', '.pnpm', 'ms@2.0.0'), { recursive: true })
    fs.rmSync(path.join(project.dir, 'node_modules', 'send'))
  }
  await stepsOnBoth(isolated, [['install']])

  const repeat = pairOf({ name: 'app', version: '1.0.0' }, { 'pnpm-workspace.yaml': 'strictDepBuilds: false\noptimisticRepeatInstall: false\n' })
  await stepsOnBoth(repeat, [['add', 'b1', 'b2']])
  const again = await onBoth(repeat, ['install'])
  assert.match(again.byPnpm.stdout, /Ignored build scripts: b1@1\.0\.0, b2@1\.0\.0/)
  assert.match(again.byLode.stdout + again.byLode.stderr, /Ignored build scripts: b1@1\.0\.0, b2@1\.0\.0/)
})

test('a workspace without a root package.json: no root importer, its project\'s allowed build run, hoisted and isolated; add inside the project, as pnpm 11', async () => {
  for (const linker of ['hoisted', 'isolated']) {
    const pair = pairOf(undefined, {
      'pnpm-workspace.yaml': `packages:\n  - project-1\nnodeLinker: ${linker}\nallowBuilds:\n  builder: true\n`,
      'project-1/package.json': JSON.stringify({ name: 'project-1', version: '1.0.0', dependencies: { builder: '1.0.0' } }, null, 2),
    })
    const files = ['pnpm-workspace.yaml', 'pnpm-lock.yaml', 'project-1/package.json']
    await stepsOnBoth(pair, [['install'], { args: ['add', 'ms'], options: { cwd: 'project-1' } }, ['install', '--frozen-lockfile']], files)
    assert.ok(fs.existsSync(path.join(pair.lode.dir, 'node_modules', ...linker === 'hoisted' ? [] : ['.pnpm', 'builder@1.0.0', 'node_modules'], 'builder', 'built.txt')))
    assert.equal(fs.existsSync(path.join(pair.lode.dir, 'package.json')), false)
  }
})

test('node_modules left by an old pnpm is refused as pnpm 11 refuses it, and recreated with confirmModulesPurge: false', async () => {
  for (const version of ['0.50.0', '0.32.0']) {
    const pair = pairOf({ name: 'app', version: '1.0.0' })
    for (const project of [pair.pnpm, pair.lode]) {
      fs.mkdirSync(path.join(project.dir, 'node_modules'))
      const storeDir = path.join(project.home, '.local', 'share', 'pnpm', 'store', 'v11')
      fs.writeFileSync(path.join(project.dir, 'node_modules', '.modules.yaml'), `packageManager: pnpm@${version}\nstoreDir: ${storeDir}`)
    }
    const added = await onBoth(pair, ['add', 'neg'], { fails: /ERR_LODE_HOIST_PATTERN_DIFF/ })
    assert.match(added.byPnpm.stdout, /ERR_PNPM_HOIST_PATTERN_DIFF/)
    const installed = await onBoth(pair, ['install'], { fails: /ERR_LODE_ABORTED_REMOVE_MODULES_DIR[^]*confirmModulesPurge/ })
    assert.match(installed.byPnpm.stdout, /confirmModulesPurge/)
    for (const project of [pair.pnpm, pair.lode]) fs.writeFileSync(path.join(project.dir, 'pnpm-workspace.yaml'), 'confirmModulesPurge: false\n')
    await stepsOnBoth(pair, [['install'], ['add', 'neg']])
  }
  // A real install's record with another layout version (optimisticRepeatInstall off: pnpm looks at node_modules).
  const old = pairOf({ name: 'app', version: '1.0.0', dependencies: { leaf: '1.0.0' } }, { 'pnpm-workspace.yaml': 'optimisticRepeatInstall: false\n' })
  await stepsOnBoth(old, [['install']])
  for (const project of [old.pnpm, old.lode]) {
    const file = path.join(project.dir, 'node_modules', '.modules.yaml')
    fs.writeFileSync(file, JSON.stringify({ ...JSON.parse(fs.readFileSync(file, 'utf8')) as object, layoutVersion: 1 }))
  }
  const aborted = await onBoth(old, ['install'], { fails: /ERR_LODE_ABORTED_REMOVE_MODULES_DIR.*by another pnpm version/ })
  assert.match(aborted.byPnpm.stdout, /ABORTED_REMOVE_MODULES_DIR_NO_TTY/)
  const refused = await onBoth(old, ['add', 'neg'], { fails: /ERR_LODE_MODULES_BREAKING_CHANGE/ })
  assert.match(refused.byPnpm.stdout, /ERR_PNPM_MODULES_BREAKING_CHANGE/)
})

test('lode link warns that a linked package\'s peerDependencies are not resolved, as pnpm 11', async () => {
  const linking = pairOf({ name: 'app', version: '1.0.0' }, {}, {
    'with-peers/package.json': JSON.stringify({ name: 'with-peers', version: '1.0.0', peerDependencies: { 'some-peer': '1.0.0' } }),
  })
  const linked = await onBoth(linking, ['link', '../with-peers'])
  sameFiles(linking)
  assert.match(linked.byPnpm.stdout, /with-peers, which you have just pnpm linked, has the following peerDependencies[^]*- some-peer@1\.0\.0/)
  assert.match(linked.byLode.stdout + linked.byLode.stderr, /with-peers, which you have just .*linked, has the following peerDependencies[^]*- some-peer@1\.0\.0/)
})

test('a node_modules npm made is replaced by the install, and again after npm installs over it, as pnpm 11', async () => {
  const pair = pairOf({ name: 'npm-made', version: '1.0.0', dependencies: { 'hello-bin': '1.0.0', 'one-dep': '1.0.0' } })
  // npm from the PATH, with the same isolated home (its .npmrc names the test registry); not blocking, the registry answers from this process.
  const npmInstall = async (project: Project, force: boolean): Promise<void> => {
    await promisify(execFile)('npm', ['install', '--no-audit', '--no-fund', ...force ? ['-f'] : []], { cwd: project.dir, env: isolatedEnv(project.home) })
  }
  for (const project of [pair.pnpm, pair.lode]) await npmInstall(project, false)
  assert.ok(fs.existsSync(path.join(pair.lode.dir, 'node_modules', '.package-lock.json')), 'npm made node_modules')
  // npm's package directories are moved to node_modules/.ignored, as pnpm moves them.
  const { byPnpm, byLode } = await onBoth(pair, ['install'])
  sameFiles(pair, [...PROJECT_FILES, 'package-lock.json'])
  for (const { stdout, stderr } of [byPnpm, byLode]) assert.match(stdout + stderr, /Moving hello-bin that was installed by a different package manager to "node_modules\/\.ignored"/)
  const hello = (project: Project): string => execFileSync(path.join(project.dir, 'node_modules', '.bin', 'hello-bin'), { encoding: 'utf8' }).trim()
  assert.equal(hello(pair.lode), 'Hello world!')
  for (const project of [pair.pnpm, pair.lode]) await npmInstall(project, true)
  await stepsOnBoth(pair, [['install']], [...PROJECT_FILES, 'package-lock.json'])
  assert.equal(hello(pair.lode), 'Hello world!')
})

test('approve-builds approves what waits after the project was stashed and the package added again, and after another waiting package was removed, as pnpm 11', async () => {
  const failingAdd = (spec: string): { args: string[], options: StepOptions } => ({ args: ['add', spec], options: { fails: /ERR_LODE_IGNORED_BUILDS/, writes: true } })
  const stashed = pairOf({ name: 'app', version: '1.0.0' })
  await stepsOnBoth(stashed, [failingAdd('b1@1.0.0'), ['approve-builds', '--all']])
  for (const project of [stashed.pnpm, stashed.lode]) {
    for (const file of PROJECT_FILES) fs.rmSync(path.join(project.dir, file), { force: true })
    fs.writeFileSync(path.join(project.dir, 'package.json'), '{}')
    fs.writeFileSync(path.join(project.dir, 'pnpm-workspace.yaml'), '{}\n')
  }
  await stepsOnBoth(stashed, [failingAdd('b1@1.0.0')])
  const approved = await onBoth(stashed, ['approve-builds', '--all'])
  sameFiles(stashed)
  assert.doesNotMatch(approved.byLode.stdout + approved.byLode.stderr, /awaiting approval/)

  const removed = pairOf({ name: 'app', version: '1.0.0' })
  await stepsOnBoth(removed, [failingAdd('b1@1.0.0'), failingAdd('b2@1.0.0'), ['remove', 'b2'], ['approve-builds', '--all']])
  assert.ok(fs.existsSync(path.join(removed.lode.dir, 'node_modules', 'b1', 'b1-built.txt')))
})
