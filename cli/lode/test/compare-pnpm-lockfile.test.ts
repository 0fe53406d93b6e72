import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'
import { after, before, test } from 'node:test'

import { buildPackageTarball, TestRegistry } from '@lode/__utils__.test-fixtures'

import { cloneProject, listing, lode, makeProject, pnpm, projectFile, snapshot } from './helpers.js'
import type { Project, RunResult } from './helpers.js'

// remove, prune and the lockfile beside pnpm 11: each step run by pnpm on one copy of a project and by
// lode on another, then the same exit code, package.json files, pnpm-lock.yaml and node_modules.

const PEERS = ['peer-aaaaaaaa', 'peer-bbbbbbbb', 'peer-cccccccc']

let registry: TestRegistry
let scoped: TestRegistry
before(async () => {
  registry = await TestRegistry.start([
    { name: 'dep', version: '1.0.0' },
    { name: 'dep2', version: '1.0.0' },
    { name: 'devdep', version: '1.0.0' },
    { name: 'optdep', version: '1.0.0' },
    { name: 'extra', version: '1.0.0' },
    { name: '@scope/extra', version: '1.0.0' },
    { name: 'tarred', version: '1.0.0' },
    { name: 'project-1', version: '1.0.0' },
    { name: 'a', version: '1.0.0', dependencies: { sub: '^1.0.0' } },
    { name: 'a', version: '2.0.0', dependencies: { sub: '^2.0.0' } },
    { name: 'sub', version: '1.0.0' },
    { name: 'sub', version: '2.0.0' },
    { name: 'parent', version: '1.0.0', dependencies: { child: '^1.0.0' } },
    { name: 'child', version: '1.0.0' },
    { name: 'child', version: '1.1.0' },
    { name: 'peer-host', version: '1.0.0' },
    { name: 'plugin', version: '1.0.0', manifest: { peerDependencies: { 'peer-host': '^1.0.0' } } },
    { name: 'plugin', version: '2.0.0', manifest: { peerDependencies: { 'peer-host': '^1.0.0' } } },
    { name: 'wrap', version: '0.1.0', dependencies: { plugin: '1.0.0', 'peer-host': '1.0.0' } },
    { name: 'wrap', version: '1.0.0', dependencies: { plugin: '2.0.0', 'peer-host': '1.0.0' } },
    { name: 'meta', version: '0.5.0-alpha.51' },
    { name: 'meta-dep', version: '0.5.0-alpha.51', dependencies: { meta: '^0.5.0-alpha.51+f10fea0' } },
    ...['held-foo', 'held-bar', 'held-qar', 'moved-sub'].map((name) => ({ name, version: '1.0.0' })),
    { name: 'held-foobar', version: '1.0.0', dependencies: { 'held-foo': '^1.0.0', 'held-bar': '^1.0.0' } },
    { name: 'a-opt', version: '1.0.0' },
    { name: 'b-opt', version: '1.0.0' },
    { name: 'host-opt', version: '1.0.0', manifest: { optionalDependencies: { 'a-opt': '1.0.0', 'b-opt': '1.0.0' } } },
    ...['1.0.0', '1.1.0', '1.2.0', '1.3.0'].map((version) => ({ name: 'reuse', version })),
    ...['100.0.0', '100.1.0', '100.2.0'].map((version) => ({ name: 'wide', version })),
    { name: 'has-wide', version: '1.0.0', dependencies: { wide: '100.1.0' } },
    ...PEERS.map((name) => ({ name, version: '1.0.0' })),
    { name: 'abc', version: '1.0.0', manifest: { peerDependencies: Object.fromEntries(PEERS.map((name) => [name, '1.0.0'])) } },
    { name: '@(-.-)/env', version: '0.3.1' },
    { name: 'odd', version: '3001.1.0-dev' },
    { name: 'elsewhere', version: '1.0.0' },
    { name: 'moved-top', version: '1.0.0', dependencies: { 'moved-sub': '^1.0.0' } },
    ...['build-a', 'build-b'].map((name) => ({ name, version: '1.0.0', scripts: { postinstall: 'node -e "require(\'fs\').writeFileSync(\'built.txt\', \'\')"' } })),
  ])
  // A tarball whose file name is not <name>-<version>.tgz, and one on another host name of the registry.
  registry.packages.get('odd')![0]!.tarballUrl = `${registry.url}odd/-/odd-3001.0001.0000-dev.tgz`
  registry.setDistTag('odd', 'latest', '3001.1.0-dev')
  const elsewhere = registry.packages.get('elsewhere')![0]!
  elsewhere.tarballUrl = elsewhere.tarballUrl.replace('127.0.0.1', 'localhost')
  registry.setDistTag('meta', 'latest', '0.5.0-alpha.51')
  registry.setDistTag('meta-dep', 'latest', '0.5.0-alpha.51')
  // A version written v1.0.0 in the package's own package.json.
  registry.publishPacked({ name: 'vpkg', version: '1.0.0' }, (await buildPackageTarball({ name: 'vpkg', version: 'v1.0.0' })).tarball)
  scoped = await TestRegistry.start([
    { name: '@sc/foo', version: '1.0.0' },
    { name: '@sc/no-deps', version: '1.0.0' },
    { name: '@sc/has-dep', version: '1.0.0', dependencies: { '@sc/no-deps': '^1.0.0', dep: '1.0.0' } },
  ])
})
after(async () => { await Promise.all([registry.close(), scoped.close()]) })

interface Pair {
  pnpm: Project
  lode: Project
}

function pairOf (manifest: Record<string, unknown>, files: Record<string, string> = {}): Pair {
  const project = makeProject(registry, manifest, files)
  return { pnpm: project, lode: cloneProject(project) }
}

/** `dir` of the project (a workspace project's directory), with the same home. */
const inDir = (project: Project, dir: string): Project => ({ dir: path.join(project.dir, dir), home: project.home })

/** Every file and link under the project's node_modules directories (the project's own files aside). */
function tree (project: Project): string[] {
  return listing(project.dir).filter((file) => file.includes('node_modules') && !file.endsWith(`.pnpm${path.sep}lock.yaml`))
}

const FILES = ['package.json', 'pnpm-workspace.yaml', 'pnpm-lock.yaml']

interface StepOptions {
  /** Where the command runs, inside the project. */
  dir?: string
  /** Both tools fail: what pnpm prints, what lode prints on stderr. lode must then change nothing. */
  fails?: { pnpm: RegExp, lode: RegExp }
  /** More files to compare. */
  files?: string[]
  /** node_modules is not compared. */
  noTree?: boolean
  /** More checks of both outputs. */
  check?: (result: { pnpm: RunResult, lode: RunResult }) => void
}

/** One command by both tools: the same exit code, the same files and the same node_modules after it. */
async function both (pair: Pair, args: string[], opts: StepOptions = {}): Promise<{ pnpm: RunResult, lode: RunResult }> {
  const where = (project: Project): Project => opts.dir === undefined ? project : inDir(project, opts.dir)
  const byPnpm = await pnpm(where(pair.pnpm), args, opts.fails !== undefined)
  const before = snapshot(pair.lode.dir)
  const byLode = await lode(where(pair.lode), args)
  const what = `${args.join(' ')}${opts.dir === undefined ? '' : ` in ${opts.dir}`}`
  if (opts.fails === undefined) {
    assert.equal(byLode.code, 0, `lode ${what}:\n${byLode.stdout}\n${byLode.stderr}`)
  } else {
    assert.match(byPnpm.stdout, opts.fails.pnpm)
    assert.equal(byLode.code, 1, `lode ${what} was expected to fail:\n${byLode.stdout}`)
    assert.match(byLode.stderr, opts.fails.lode)
    assert.deepEqual(snapshot(pair.lode.dir), before, `lode ${what} changed nothing`)
  }
  for (const file of [...FILES, ...opts.files ?? []]) assert.equal(projectFile(pair.lode, file), projectFile(pair.pnpm, file), `${file} after ${what}`)
  if (opts.noTree !== true) assert.deepEqual(tree(pair.lode), tree(pair.pnpm), `node_modules after ${what}`)
  return { pnpm: byPnpm, lode: byLode }
}

/** The same edit to both copies. */
function edit (pair: Pair, change: (project: Project) => void): void {
  change(pair.pnpm)
  change(pair.lode)
}

function writeJson (project: Project, file: string, value: unknown): void {
  fs.writeFileSync(path.join(project.dir, file), JSON.stringify(value, null, 2) + '\n')
}

test('remove without a name, of a name a project without dependencies lacks, of a tarball URL dependency, and inside a workspace project, as pnpm 11', async () => {
  const single = pairOf({ name: 'single', version: '1.0.0', dependencies: { dep: '1.0.0' } })
  await both(single, ['install'])
  await both(single, ['remove'], { fails: { pnpm: /ERR_PNPM_MUST_REMOVE_SOMETHING/, lode: /ERR_LODE_MISSING_PACKAGE_NAME/ } })
  edit(single, (project) => { writeJson(project, 'package.json', { name: 'single', version: '1.0.0', dependencies: { dep: '1.0.0', tarred: `${registry.url}tarred/-/tarred-1.0.0.tgz` } }) })
  await both(single, ['install'])
  assert.match(projectFile(single.lode, 'pnpm-lock.yaml')!, /tarred/)
  await both(single, ['remove', 'tarred'])
  assert.doesNotMatch(projectFile(single.lode, 'pnpm-lock.yaml')!, /tarred/)

  const empty = pairOf({ name: 'empty', version: '1.0.0' })
  const refused = await both(empty, ['remove', 'dep'], {
    fails: { pnpm: /ERR_PNPM_CANNOT_REMOVE_MISSING_DEPS/, lode: /ERR_LODE_CANNOT_REMOVE_MISSING_DEPS/ },
  })
  assert.match(refused.pnpm.stdout, /project has no dependencies of any kind/)

  const workspace = pairOf({ name: 'root', version: '1.0.0' }, {
    'pnpm-workspace.yaml': 'packages:\n  - project-1\n  - project-2\n',
    'project-1/package.json': JSON.stringify({ name: 'project-1', version: '1.0.0', dependencies: { dep: '1.0.0' } }),
    'project-2/package.json': JSON.stringify({ name: 'project-2', version: '1.0.0', dependencies: { 'project-1': '1.0.0', dep: '1.0.0' } }),
  })
  const manifests = ['project-1/package.json', 'project-2/package.json']
  await both(workspace, ['install'], { files: manifests })
  await both(workspace, ['remove', 'dep'], { dir: 'project-2', files: manifests })
  assert.match(projectFile(workspace.lode, 'project-1/package.json')!, /"dep"/)
})

test('prune takes out what package.json no longer names, keeps dev and optional dependencies, runs no script with --ignore-scripts; --prod in a workspace keeps the production links, as pnpm 11', async () => {
  const marker = (name: string): string => `node -e "require('fs').writeFileSync('${name}.txt', '')"`
  const single = pairOf({
    name: 'single',
    version: '1.0.0',
    scripts: { preinstall: marker('preinstall'), prepare: marker('prepare'), postinstall: marker('postinstall') },
    dependencies: { dep: '1.0.0', extra: '1.0.0', '@scope/extra': '1.0.0' },
    devDependencies: { devdep: '1.0.0' },
    optionalDependencies: { optdep: '1.0.0' },
  })
  await both(single, ['install', '--ignore-scripts'])
  edit(single, (project) => {
    const manifest = JSON.parse(projectFile(project, 'package.json')!) as { dependencies: Record<string, string> }
    manifest.dependencies = { dep: '1.0.0' }
    writeJson(project, 'package.json', manifest)
  })
  await both(single, ['prune', '--ignore-scripts'])
  for (const name of ['preinstall', 'prepare', 'postinstall']) assert.equal(fs.existsSync(path.join(single.lode.dir, `${name}.txt`)), false)
  assert.equal(fs.existsSync(path.join(single.lode.dir, 'node_modules', 'devdep')), true)

  const workspace = pairOf({ name: 'root', version: '1.0.0' }, {
    'pnpm-workspace.yaml': 'packages:\n  - apps/*\n  - packages/*\nconfirmModulesPurge: false\n',
    'apps/app/package.json': JSON.stringify({
      name: 'app',
      version: '1.0.0',
      dependencies: { '@scope/lib': 'workspace:*', dep: '1.0.0' },
      devDependencies: { '@scope/tool': 'workspace:*', devdep: '1.0.0' },
    }),
    'packages/lib/package.json': '{"name":"@scope/lib","version":"1.0.0"}',
    'packages/tool/package.json': '{"name":"@scope/tool","version":"1.0.0"}',
  })
  await both(workspace, ['install'])
  await both(workspace, ['prune', '--prod'])
  const app = path.join(workspace.lode.dir, 'apps', 'app', 'node_modules')
  assert.deepEqual(['@scope/lib', '@scope/tool', 'dep', 'devdep'].map((name) => fs.existsSync(path.join(app, name))), [true, false, true, false])
})


/** Steps on a fresh pair of copies of a project, `edits` between them. */
type FlowStep = string[] | StepOptions & { args: string[] } | ((project: Project) => void)

async function flow (manifest: Record<string, unknown>, steps: FlowStep[], files: Record<string, string> = {}): Promise<Pair> {
  const pair = pairOf(manifest, files)
  for (const step of steps) {
    if (Array.isArray(step)) await both(pair, step)
    else if (typeof step === 'function') edit(pair, step)
    else step.check?.(await both(pair, step.args, step))
  }
  return pair
}

const EMPTY = { name: 'p', version: '1.0.0' }
const lockfileOf = (pair: Pair): string => projectFile(pair.lode, 'pnpm-lock.yaml')!

test('adds over a lockfile: an older version resolves its subdependency again, optional and dev flags, peers under a new major, build metadata, as pnpm 11', async () => {
  const [older, notOptional, aliased, dev, peers, metadata] = await Promise.all([
    flow(EMPTY, [['add', 'a@2.0.0'], ['add', 'a@1.0.0']]),
    // pnpm keeps child's hoisted link in node_modules/.pnpm/node_modules; lode takes it out (recorded apart).
    flow(EMPTY, [['add', 'parent'], { args: ['add', '-O', 'child'], noTree: true }]),
    flow(EMPTY, [['add', '-O', 'parent'], ['add', 'alias@npm:parent@1.0.0']]),
    flow({ ...EMPTY, devDependencies: { child: '^1.1.0', parent: '^1.0.0' } }, [['install']]),
    flow(EMPTY, [['add', 'wrap@0'], ['add', 'wrap@1']]),
    flow({ ...EMPTY, dependencies: { 'meta-dep': '0.5.0-alpha.51' } }, [
      ['install', '--lockfile-only'],
      (project) => { writeJson(project, 'package.json', { ...EMPTY, dependencies: { 'meta-dep': '0.5.0-alpha.51', dep: '^1.0.0' } }) },
      ['install', '--lockfile-only'],
    ]),
  ])
  assert.match(lockfileOf(older), /a@1\.0\.0:\n {4}dependencies:\n {6}sub: 1\.0\.0/)
  assert.doesNotMatch(lockfileOf(notOptional), /optional: true/)
  assert.doesNotMatch(lockfileOf(aliased), /optional: true/)
  assert.match(lockfileOf(dev), /^ {2}\.:\n {4}devDependencies:\n/m)
  assert.doesNotMatch(lockfileOf(peers), /plugin@1\.0\.0/)
  assert.doesNotMatch(lockfileOf(metadata), /f10fea0/)
})

test('install over a lockfile package.json no longer matches, or edited by hand, or with node_modules or the store gone, as pnpm 11', async () => {
  const writeManifest = (manifest: Record<string, unknown>) => (project: Project): void => { writeJson(project, 'package.json', manifest) }
  const rmModules = (project: Project): void => { fs.rmSync(path.join(project.dir, 'node_modules'), { recursive: true }) }
  const added = new Map<string, string>()
  const [noDeps, regrouped, held, edited, innerGone, vPrefix] = await Promise.all([
    flow({ ...EMPTY, dependencies: { dep: '1.0.0' } }, [['install'], writeManifest(EMPTY), rmModules, ['install']]),
    flow({ ...EMPTY, dependencies: { dep: '^1.0.0', devdep: '^1.0.0', optdep: '1.0.0' } }, [
      ['install', '--lockfile-only'],
      writeManifest({ ...EMPTY, devDependencies: { dep: '^1.0.0' }, optionalDependencies: { devdep: '^1.0.0' } }),
      ['install'],
    ]),
    flow({ ...EMPTY, dependencies: { 'held-foo': '^1.0.0', 'held-foobar': '1.0.0' }, optionalDependencies: { 'held-bar': '^1.0.0' }, devDependencies: { 'held-qar': '^1.0.0' } }, [['install']]),
    flow({ ...EMPTY, dependencies: { 'moved-top': '1.0.0' } }, [['install']]),
    flow({ ...EMPTY, dependencies: { dep: '1.0.0' } }, [['install'], (project) => { fs.rmSync(path.join(project.dir, 'node_modules', '.pnpm', 'lock.yaml')) }, ['install']]),
    flow(EMPTY, [['add', 'vpkg'], (project) => { added.set(project.dir, projectFile(project, 'pnpm-lock.yaml')!) }, rmModules, ['install']]),
  ])
  assert.equal(fs.readdirSync(path.join(noDeps.lode.dir, 'node_modules')).filter((f) => !f.startsWith('.')).length, 0)
  assert.doesNotMatch(lockfileOf(regrouped), /optdep/)
  assert.ok(fs.existsSync(path.join(innerGone.lode.dir, 'node_modules', 'dep', 'package.json')))

  // Newer versions published after the lockfile was written: neither tool takes them.
  for (const name of ['held-foo', 'held-bar', 'held-qar']) await registry.publish({ name, version: '1.1.0' })
  edit(held, (project) => {
    rmModules(project)
    fs.rmSync(path.join(project.home, '.local'), { recursive: true })
  })
  await both(held, ['install'])
  assert.doesNotMatch(lockfileOf(held), /1\.1\.0/)

  // pnpm-lock.yaml moved to a newer subdependency by hand, over an installed node_modules.
  const newer = await registry.publish({ name: 'moved-sub', version: '1.1.0' })
  const older = registry.packages.get('moved-sub')![0]!
  edit(edited, (project) => {
    const text = projectFile(project, 'pnpm-lock.yaml')!.replaceAll('moved-sub@1.0.0', 'moved-sub@1.1.0').replace("moved-sub: 1.0.0", 'moved-sub: 1.1.0').replace(older.integrity, newer.integrity)
    fs.writeFileSync(path.join(project.dir, 'pnpm-lock.yaml'), text)
  })
  await both(edited, ['install'])
  assert.ok(fs.existsSync(path.join(edited.lode.dir, 'node_modules', '.pnpm', 'moved-sub@1.1.0')))
  assert.equal(lockfileOf(vPrefix), added.get(vPrefix.lode.dir))
})

const SELF_LINK = `lockfileVersion: '9.0'

settings:
  autoInstallPeers: true
  excludeLinksFromLockfile: false

importers:

  .:
    dependenciesMeta:
      can-link:
        injected: true
    devDependencies:
      can-link:
        specifier: 'file:'
        version: link:.
`
const OUTDATED = { pnpm: /ERR_PNPM_OUTDATED_LOCKFILE/, lode: /ERR_LODE_OUTDATED_LOCKFILE/ }

test('projects added to a workspace then --lockfile-only, a project without dependencies or lockfile, frozen installs over a changed specifier or setting and over settings listed in another order, as pnpm 11', async () => {
  const workspace = (projects: Record<string, Record<string, unknown>>, settings = ''): Record<string, string> => ({
    'pnpm-workspace.yaml': `packages:\n  - '*'\n${settings}`,
    ...Object.fromEntries(Object.entries(projects).map(([name, manifest]) => [`${name}/package.json`, JSON.stringify({ name, version: '1.0.0', ...manifest })])),
  })
  const addProject = (name: string, manifest: Record<string, unknown> = {}) => (project: Project): void => {
    fs.mkdirSync(path.join(project.dir, name))
    writeJson(project, `${name}/package.json`, { name, version: '1.0.0', ...manifest })
  }
  const writeSettings = (text: string) => (project: Project): void => { fs.writeFileSync(path.join(project.dir, 'pnpm-workspace.yaml'), text) }
  const [added] = await Promise.all([
    // Projects added to the workspace: --lockfile-only records them.
    flow(EMPTY, [
      ['install'], addProject('foo'), addProject('bar', { dependencies: { dep: '1.0.0' } }), ['install', '--lockfile-only'],
    ], workspace({ 'project-1': { dependencies: { dep: '1.0.0' } } })),
    // No dependencies and no lockfile.
    flow(EMPTY, [['install']]),
    // --lockfile-only --frozen-lockfile over an outdated lockfile writes nothing.
    flow({ ...EMPTY, dependencies: { dep: '1.0.0' } }, [
      ['install', '--lockfile-only'],
      (project) => { writeJson(project, 'package.json', { ...EMPTY, dependencies: { dep: '^1.0.0' } }) },
      { args: ['install', '--lockfile-only', '--frozen-lockfile'], fails: OUTDATED },
    ]),
    // A setting the lockfile records changed: frozen refuses (pnpm says ERR_PNPM_LOCKFILE_CONFIG_MISMATCH).
    flow({ ...EMPTY, dependencies: { dep: '1.0.0' } }, [
      ['install'],
      writeSettings('autoInstallPeers: false\n'),
      { args: ['install', '--frozen-lockfile'], fails: { pnpm: /ERR_PNPM_LOCKFILE_CONFIG_MISMATCH/, lode: /ERR_LODE_OUTDATED_LOCKFILE/ } },
    ]),
    // ignoredOptionalDependencies in another order than the lockfile records: up to date.
    flow({ ...EMPTY, dependencies: { 'host-opt': '1.0.0' } }, [
      ['install'], writeSettings('ignoredOptionalDependencies:\n  - a-*\n  - b-*\n'), ['install', '--frozen-lockfile'],
    ], { 'pnpm-workspace.yaml': 'ignoredOptionalDependencies:\n  - b-*\n  - a-*\n' }),
  ])
  assert.match(lockfileOf(added), /^ {2}foo: \{\}$/m)
  assert.match(lockfileOf(added), /^ {2}bar:$/m)
})


test('an unchanged file: tarball with a peer, workspace projects by npm: alias or by tag, an injected self-reference locked as link: frozen installs as pnpm 11', async () => {
  const pack = async (version: string): Promise<Buffer> =>
    (await buildPackageTarball({ name: 'local', version, manifest: { peerDependencies: { 'peer-host': '1.0.0' } } })).tarball
  const packed = await pack('1.0.0')
  const linked = (dependencies: Record<string, string>): Record<string, string> => ({
    'pnpm-workspace.yaml': 'packages:\n  - \'*\'\nlinkWorkspacePackages: true\n',
    'foo/package.json': '{"name":"foo","version":"1.0.0"}',
    'bar/package.json': JSON.stringify({ name: 'bar', version: '1.0.0', dependencies }),
  })
  const frozen = ['install', '--frozen-lockfile']
  await Promise.all([
    // A file: tarball with a peer, unchanged: up to date.
    flow({ ...EMPTY, dependencies: { local: 'file:./local.tgz', 'peer-host': '1.0.0' } }, [
      (project) => { fs.writeFileSync(path.join(project.dir, 'local.tgz'), packed) }, ['install'], frozen,
    ]),
    flow(EMPTY, [['install'], frozen], linked({ alias: 'npm:foo' })),
    // An npm: alias of a project with a version: up to date until the version no longer matches the project.
    flow(EMPTY, [
      ['install'], frozen,
      (project) => { writeJson(project, 'bar/package.json', { name: 'bar', version: '1.0.0', dependencies: { alias: 'npm:foo@0' } }) },
      { args: frozen, fails: OUTDATED },
    ], linked({ alias: 'npm:foo@1' })),
    // A project by a tag name.
    flow(EMPTY, [['install'], frozen], linked({ foo: 'unpublished-tag' })),
    // Itself as an injected file: dependency, locked as link: (pnpm's install writes file:, lode's link:, recorded apart).
    flow({ name: 'can-link', version: '2.0.0', devDependencies: { 'can-link': 'file:' }, dependenciesMeta: { 'can-link': { injected: true } } }, [
      frozen,
    ], { 'pnpm-lock.yaml': SELF_LINK }),
  ])
})

const PACKAGES_DEP = /( {2}dep@1\.0\.0:\n)( {4}resolution: .*\n)/

test('a broken node_modules lockfile, a symlinked or CRLF pnpm-lock.yaml, one that is not YAML, a wrong name or checksum: what pnpm 11 keeps, refuses and rewrites', async () => {
  const lockfile = (project: Project): string => path.join(project.dir, 'pnpm-lock.yaml')
  const rewrite = (file: string, change: (text: string) => string) => (project: Project): void => {
    fs.writeFileSync(path.join(project.dir, file), change(fs.readFileSync(path.join(project.dir, file), 'utf8')))
  }
  const withDep = { ...EMPTY, dependencies: { dep: '1.0.0' } }
  const past = new Date(1_000_000_000_000)
  const staged = (crlf: boolean) => (project: Project): void => {
    const text = fs.readFileSync(lockfile(project), 'utf8')
    fs.mkdirSync(path.join(project.dir, 'staged'))
    fs.writeFileSync(path.join(project.dir, 'staged', 'pnpm-lock.yaml'), crlf ? text.replaceAll('\n', '\r\n') : text)
    fs.utimesSync(path.join(project.dir, 'staged', 'pnpm-lock.yaml'), past, past)
    fs.rmSync(lockfile(project))
    fs.symlinkSync(path.join('staged', 'pnpm-lock.yaml'), lockfile(project))
  }
  const files = ['staged/pnpm-lock.yaml']
  const parent = registry.packages.get('parent')![0]!
  const child = registry.packages.get('child')![0]!
  const [, crlf, ...links] = await Promise.all([
    // node_modules/.pnpm/lock.yaml with a duplicated key: ignored.
    flow(withDep, [
      ['install'],
      rewrite('node_modules/.pnpm/lock.yaml', (text) => text.replace(PACKAGES_DEP, '$1$2    dev: false\n$2')),
      (project) => { writeJson(project, 'package.json', { ...EMPTY, dependencies: { dep: '1.0.0', devdep: '1.0.0' } }) },
      { args: ['install'], files: ['node_modules/.pnpm/lock.yaml'], check: (result) => { assert.match(result.pnpm.stdout, /Ignoring broken lockfile .* duplicated mapping key/) } },
    ]),
    // An unchanged lockfile with CRLF line ends is left as it is.
    flow(withDep, [
      ['install'],
      (project) => { rewrite('pnpm-lock.yaml', (text) => text.replaceAll('\n', '\r\n'))(project); fs.utimesSync(lockfile(project), past, past) },
      ['install'],
    ]),
    // pnpm-lock.yaml a symlink (to LF, to CRLF), with nothing to change.
    flow(withDep, [
      ['install', '--lockfile-only'], staged(false),
      { args: ['install', '--frozen-lockfile', '--lockfile-only'], files }, { args: ['install', '--frozen-lockfile'], files }, { args: ['install'], files },
    ]),
    flow(withDep, [['install', '--lockfile-only'], staged(true), { args: ['install'], files }]),
    // Not YAML (with a secret in it): frozen refuses it, the file's content not in the error.
    flow(withDep, [{
      args: ['install', '--frozen-lockfile'],
      fails: { pnpm: /ERR_PNPM_BROKEN_LOCKFILE/, lode: /ERR_LODE_BROKEN_LOCKFILE/ },
      check: (result) => { assert.doesNotMatch(result.pnpm.stdout + result.lode.stdout + result.lode.stderr, /marker-secret/) },
    }], { 'pnpm-lock.yaml': '[default]\naws_secret_access_key = marker-secret\n' }),
    // A packages entry given another name: --lockfile-only installs into a new store, then the fixed lockfile.
    flow(withDep, [
      ['install', '--lockfile-only'],
      rewrite('pnpm-lock.yaml', (text) => text.replace(PACKAGES_DEP, '$1    name: bad-name\n    version: 1.0.0\n$2')),
      ['install', '--lockfile-only', '--store-dir', 'store2'],
      rewrite('pnpm-lock.yaml', (text) => text.replace('    name: bad-name\n    version: 1.0.0\n', '')),
      ['install', '--lockfile-only', '--store-dir', 'store2'],
      ['install', '--store-dir', 'store2'],
    ]),
    // The integrity of another package, node_modules gone: both installs fail, the lockfile kept
    // (pnpm leaves what it linked before failing in node_modules; a failing lode changes nothing).
    flow({ ...EMPTY, dependencies: { parent: '1.0.0' } }, [
      ['install'],
      (project) => { fs.rmSync(path.join(project.dir, 'node_modules'), { recursive: true }) },
      rewrite('pnpm-lock.yaml', (text) => text.replace(parent.integrity, child.integrity)),
      { args: ['install', '--frozen-lockfile'], fails: { pnpm: /ERR_PNPM_TARBALL_INTEGRITY/, lode: /ERR_LODE_TARBALL_INTEGRITY/ }, noTree: true },
      { args: ['install'], fails: { pnpm: /ERR_PNPM_TARBALL_INTEGRITY/, lode: /ERR_LODE_TARBALL_INTEGRITY/ }, noTree: true },
    ], { 'pnpm-workspace.yaml': 'fetchRetries: 0\n' }),
  ])
  assert.equal(fs.statSync(lockfile(crlf.lode)).mtimeMs, past.getTime())
  for (const pair of links.slice(0, 2)) {
    for (const project of [pair.pnpm, pair.lode]) {
      assert.equal(fs.lstatSync(lockfile(project)).isSymbolicLink(), true)
      assert.equal(fs.statSync(lockfile(project)).mtimeMs, past.getTime())
    }
  }
})

test('what the registry serves: odd tarball URLs, a scope on another registry, () in a scope, long peer suffixes, lockfile: false, ranges widened in a workspace, as pnpm 11', async () => {
  const workspace = (p1: Record<string, string>, p2: Record<string, string>): Record<string, string> => ({
    'pnpm-workspace.yaml': 'packages:\n  - \'*\'\n',
    'p1/package.json': JSON.stringify({ name: 'p1', version: '1.0.0', dependencies: p1 }),
    'p2/package.json': JSON.stringify({ name: 'p2', version: '1.0.0', dependencies: p2 }),
  })
  const p1 = (dependencies: Record<string, string>) => (project: Project): void => { writeJson(project, 'p1/package.json', { name: 'p1', version: '1.0.0', dependencies }) }
  const [odd, elsewhere, scopes, suffix, noLockfile, moved, widened] = await Promise.all([
    // A tarball file name that is not <name>-<version>.tgz: kept, and fetched again from a cold store.
    flow(EMPTY, [
      ['add', 'odd@3001.1.0-dev'],
      (project) => { for (const dir of ['node_modules', '../home/.local']) fs.rmSync(path.join(project.dir, dir), { recursive: true }) },
      ['install', '--frozen-lockfile'],
    ]),
    flow({ ...EMPTY, dependencies: { elsewhere: '1.0.0' } }, [['install', '--lockfile-only']]),
    flow(EMPTY, [['add', '@sc/foo', '@sc/has-dep', 'dep']], { '.npmrc': `@sc:registry=${scoped.url}\n` }),
    flow(EMPTY, [['add', 'abc@1.0.0']], { 'pnpm-workspace.yaml': 'peersSuffixMaxLength: 10\n' }),
    flow(EMPTY, [['add', 'dep'], ['add', 'devdep']], { 'pnpm-workspace.yaml': 'lockfile: false\n' }),
    flow(EMPTY, [['install'], p1({ reuse: '^1.1.0' }), ['install']], workspace({ reuse: '1.0.0' }, { reuse: '1.2.0' })),
    flow(EMPTY, [['install'], p1({ wide: '>=100.0.0' }), ['install']], workspace({ wide: '100.0.0' }, { 'has-wide': '1.0.0' })),
    flow(EMPTY, [['add', '@(-.-)/env@0.3.1'], ['install']]),
  ])
  assert.match(lockfileOf(odd), /tarball: http:\/\/127\.0\.0\.1:\d+\/odd\/-\/odd-3001\.0001\.0000-dev\.tgz/)
  assert.match(lockfileOf(elsewhere), /tarball: http:\/\/localhost:/)
  assert.match(lockfileOf(scopes), /'@sc\/no-deps': 1\.0\.0/)
  assert.match(lockfileOf(suffix), /peersSuffixMaxLength: 10\n[\s\S]*version: 1\.0\.0\([0-9a-f]{32}\)\n/)
  assert.equal(fs.existsSync(path.join(noLockfile.lode.dir, 'pnpm-lock.yaml')), false)
  assert.ok(fs.existsSync(path.join(noLockfile.lode.dir, 'node_modules', 'dep')))
  assert.doesNotMatch(lockfileOf(moved), /reuse@1\.0\.0/)
  assert.doesNotMatch(lockfileOf(widened), /wide@100\.0\.0/)
})

test('a locked version outside its unchanged specifier: the lockfile is out of date, as pnpm 11', async () => {
  const [older, newer] = registry.packages.get('child')!
  await flow({ ...EMPTY, dependencies: { child: '1.0.0' } }, [
    ['install', '--lockfile-only'],
    (project) => {
      const text = projectFile(project, 'pnpm-lock.yaml')!.replace('version: 1.0.0', 'version: 1.1.0')
        .replaceAll('child@1.0.0', 'child@1.1.0').replace(older!.integrity, newer!.integrity)
      fs.writeFileSync(path.join(project.dir, 'pnpm-lock.yaml'), text)
    },
    { args: ['install', '--frozen-lockfile'], fails: OUTDATED },
    ['install'],
  ])
})
test('a rewritten pnpm-lock.yaml keeps its mode, as pnpm 11', async () => {
  const previous = process.umask(0o022)
  try {
    const pair = await flow({ ...EMPTY, dependencies: { dep: '1.0.0' } }, [
      ['install'], (project) => { fs.chmodSync(path.join(project.dir, 'pnpm-lock.yaml'), 0o666) }, ['add', 'devdep'],
    ])
    for (const project of [pair.pnpm, pair.lode]) assert.equal(fs.statSync(path.join(project.dir, 'pnpm-lock.yaml')).mode & 0o777, 0o666)
  } finally {
    process.umask(previous)
  }
})
test('a change through a symlinked pnpm-lock.yaml is refused, link and target untouched, as pnpm 11', async () => {
  const staged = (project: Project): void => {
    const file = path.join(project.dir, 'pnpm-lock.yaml')
    fs.mkdirSync(path.join(project.dir, 'staged'))
    fs.renameSync(file, path.join(project.dir, 'staged', 'pnpm-lock.yaml'))
    fs.symlinkSync(path.join('staged', 'pnpm-lock.yaml'), file)
  }
  const refused = { pnpm: /ERR_PNPM_LOCKFILE_IS_SYMLINK/, lode: /ERR_LODE_/ }
  const files = ['staged/pnpm-lock.yaml']
  const pairs = await Promise.all([
    flow({ ...EMPTY, dependencies: { dep: '1.0.0' } }, [
      ['install', '--lockfile-only'], staged,
      (project) => { writeJson(project, 'package.json', { ...EMPTY, dependencies: { dep2: '1.0.0' } }) },
      { args: ['install', '--lockfile-only'], fails: refused, files },
    ]),
    flow({ ...EMPTY, dependencies: { dep: '1.0.0' } }, [['install', '--lockfile-only'], staged, { args: ['add', 'dep2'], fails: refused, files }]),
  ])
  for (const pair of pairs) assert.equal(fs.lstatSync(path.join(pair.lode.dir, 'pnpm-lock.yaml')).isSymbolicLink(), true)
})

test('add --lockfile-only writes package.json and the lockfile only, build metadata left out of the lockfile, as pnpm 11', async () => {
  const pair = await flow(EMPTY, [['add', 'meta-dep@0.5.0-alpha.51', '--lockfile-only'], ['add', 'dep', '--lockfile-only']])
  for (const project of [pair.pnpm, pair.lode]) assert.equal(fs.existsSync(path.join(project.dir, 'node_modules')), false)
  assert.match(lockfileOf(pair), /meta-dep@0\.5\.0-alpha\.51:/)
  assert.doesNotMatch(lockfileOf(pair), /f10fea0/)
})

/** The builds `.modules.yaml` records (it is JSON, as pnpm writes it). */
function builds (project: Project): Record<string, unknown> {
  const modules = JSON.parse(fs.readFileSync(path.join(project.dir, 'node_modules', '.modules.yaml'), 'utf8')) as Record<string, unknown>
  return { pendingBuilds: modules['pendingBuilds'], ignoredBuilds: modules['ignoredBuilds'] }
}

test('pendingBuilds in .modules.yaml loses only what remove, an install and a headless install take out, as pnpm 11', async () => {
  const settings = { 'pnpm-workspace.yaml': 'allowBuilds:\n  build-a: true\n  build-b: true\n' }
  const both2 = { ...EMPTY, dependencies: { 'build-a': '1.0.0', 'build-b': '1.0.0' } }
  const dropB = (project: Project): void => { writeJson(project, 'package.json', { ...EMPTY, dependencies: { 'build-a': '1.0.0' } }) }
  const pairs = await Promise.all([
    flow(EMPTY, [['add', 'build-a', 'build-b', '--ignore-scripts'], ['remove', 'build-b']], settings),
    flow(both2, [['install', '--ignore-scripts'], dropB, ['install', '--ignore-scripts']], settings),
    flow(both2, [['install', '--ignore-scripts'], dropB, ['install', '--lockfile-only', '--ignore-scripts'], ['install']], settings),
  ])
  for (const pair of pairs) {
    assert.deepEqual(builds(pair.pnpm), { pendingBuilds: ['build-a@1.0.0'], ignoredBuilds: undefined })
    assert.deepEqual(builds(pair.lode), builds(pair.pnpm))
  }
})

test('a deleted node_modules/.pnpm/lock.yaml over an intact node_modules: the repeat install is up to date and leaves it so, as pnpm 11', async () => {
  const pair = await flow({ ...EMPTY, dependencies: { dep: '1.0.0' } }, [
    ['install'],
    (project) => { fs.rmSync(path.join(project.dir, 'node_modules', '.pnpm', 'lock.yaml')) },
    { args: ['install'], files: ['node_modules/.pnpm/lock.yaml'] },
  ])
  for (const project of [pair.pnpm, pair.lode]) assert.equal(projectFile(project, 'node_modules/.pnpm/lock.yaml'), undefined)
  assert.ok(fs.existsSync(path.join(pair.lode.dir, 'node_modules', 'dep', 'package.json')))
})

test('prune removes a link in node_modules package.json does not name, and a directory left there, as pnpm 11', async () => {
  const pair = await flow({ ...EMPTY, dependencies: { dep: '1.0.0', extra: '1.0.0' } }, [
    ['install'],
    (project) => {
      fs.symlinkSync('../linked-pkg', path.join(project.dir, 'node_modules', 'linked'))
      fs.mkdirSync(path.join(project.dir, 'node_modules', '@left', 'over'), { recursive: true })
      writeJson(project, 'package.json', { ...EMPTY, dependencies: { dep: '1.0.0' } })
    },
    ['prune'],
  ], { 'linked-pkg/package.json': '{"name":"linked-pkg","version":"1.0.0"}' })
  for (const name of ['linked', '@left', 'extra']) assert.equal(fs.existsSync(path.join(pair.lode.dir, 'node_modules', name)), false, name)
  assert.ok(fs.existsSync(path.join(pair.lode.dir, 'linked-pkg', 'package.json')), 'the link\'s target is left alone')
})

test('a pnpm-lock.yaml with a duplicated key, or that is not YAML: a plain install ignores it and writes it anew, a frozen one refuses it, as pnpm 11', async () => {
  const duplicated = (project: Project): void => {
    const file = path.join(project.dir, 'pnpm-lock.yaml')
    fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace(PACKAGES_DEP, '$1$2    dev: false\n$2'))
  }
  const withDep = { ...EMPTY, dependencies: { dep: '1.0.0' } }
  const ignored = (result: { pnpm: RunResult, lode: RunResult }): void => {
    assert.match(result.pnpm.stdout, /Ignoring broken lockfile at /)
    assert.match(result.lode.stdout + result.lode.stderr, /Ignoring broken lockfile at /)
  }
  await Promise.all([
    flow(withDep, [['install', '--lockfile-only'], duplicated, {
      args: ['install'],
      check: (result) => { ignored(result); assert.match(result.pnpm.stdout, /duplicated mapping key/) },
    }]),
    flow(withDep, [['install', '--lockfile-only'], duplicated, {
      args: ['install', '--frozen-lockfile'], fails: { pnpm: /ERR_PNPM_BROKEN_LOCKFILE/, lode: /ERR_LODE_BROKEN_LOCKFILE.*duplicated mapping key/ },
    }]),
    flow(withDep, [{ args: ['install'], check: ignored }], { 'pnpm-lock.yaml': '[default]\naws_secret_access_key = marker-secret\n' }),
  ])
})

test('a project without dependencies the lockfile lacks: a frozen install passes, as pnpm 11', async () => {
  await flow(EMPTY, [
    ['install'],
    (project) => { fs.mkdirSync(path.join(project.dir, 'foo')); writeJson(project, 'foo/package.json', { name: 'foo', version: '1.0.0' }) },
    ['install', '--frozen-lockfile'],
  ], {
    'pnpm-workspace.yaml': 'packages:\n  - \'*\'\n',
    'project-1/package.json': JSON.stringify({ name: 'project-1', version: '1.0.0', dependencies: { dep: '1.0.0' } }),
  })
})

const UP_TO_DATE = /Already up to date/

test('add inside one project of a workspace installs that project and the root only; install completes the rest, as pnpm 11', async () => {
  const files = ['pkg1/package.json', 'pkg2/package.json', 'node_modules/.pnpm/lock.yaml']
  await flow(EMPTY, [
    ['install', '--lockfile-only'],
    { args: ['add', 'devdep'], dir: 'pkg2', files, check: ({ pnpm, lode }) => {
      // pnpm's add prints no "Scope:" line.
      for (const output of [pnpm.stdout, lode.stdout]) assert.doesNotMatch(output, /Scope:/)
    } },
    { args: ['install'], files },
    // Every project installed now: an add in pkg2 is recorded as the tools record it, the next install up to date or not as pnpm's.
    { args: ['add', 'dep'], dir: 'pkg2', files },
    { args: ['install'], files, check: ({ pnpm, lode }) => { assert.equal(UP_TO_DATE.test(lode.stdout), UP_TO_DATE.test(pnpm.stdout), lode.stdout) } },
  ], {
    'pnpm-workspace.yaml': 'packages:\n  - \'*\'\n',
    'pkg1/package.json': JSON.stringify({ name: 'pkg1', version: '1.0.0', dependencies: { dep: '^1.0.0' } }),
    'pkg2/package.json': JSON.stringify({ name: 'pkg2', version: '1.0.0', dependencies: { devdep: '^1.0.0' } }),
  })
})
